"""Who watches a match, and how far behind: the creation options `spectators` and
`spectator_delay` (protocol/SPEC.md 2.4), and the public audience's seq under the delay.

The public audience is everyone who holds no seat of the match: WebSocket spectators, and the
HTTP routes read without a seat's token (the summary, the replay). A delay holds all of them
the same number of commits, or seconds, behind the live match; seats see their own match live.
A commit is public once it and every commit before it are old enough: the audience moves in
seq order, so its stream has no gaps, and every node and a restarted one compute the same seq
from the log alone. The delay ends with the match: once it is finished everything is public
(or, in a private match, as public as its spectators option allows).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from service.store import Commit, MatchRecord

SPECTATOR_MODES = ("public", "link", "off")
MAX_DELAY_COMMITS = 1000
MAX_DELAY_SECONDS = 3600


class SpectatorOptionError(ValueError):
    """A malformed `spectators` or `spectator_delay` (the lobby answers it as bad_field)."""


def parse_mode(raw: Any) -> str:
    if raw is None:
        return "public"
    if raw not in SPECTATOR_MODES:
        raise SpectatorOptionError(f"spectators must be one of: {', '.join(SPECTATOR_MODES)}")
    return str(raw)


def parse_delay(raw: Any) -> dict[str, int] | None:
    """`{"commits": N}` or `{"seconds": T}` (or null: no delay), checked against the bounds."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or len(raw) != 1 or not set(raw) <= {"commits", "seconds"}:
        raise SpectatorOptionError('spectator_delay must be {"commits": N} or {"seconds": T}, or null')
    (unit, value), = raw.items()
    top = MAX_DELAY_COMMITS if unit == "commits" else MAX_DELAY_SECONDS
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
        raise SpectatorOptionError(f"spectator_delay.{unit} must be an integer from 1 to {top}")
    return {unit: value}


def now_ms() -> int:
    return int(time.time() * 1000)


def released(delay: dict[str, int], seq: int, ts: int, live: int, now: int) -> bool:
    """Whether commit `seq` (made at `ts`) may be shown to the public audience while the match
    is at `live`, at time `now` (ms), given that every commit before it may."""
    if "commits" in delay:
        return seq <= live - delay["commits"]
    return ts + delay["seconds"] * 1000 <= now


def public_seq(rec: MatchRecord, commits: Sequence[Commit], live: int, now: int | None = None) -> int:
    """The last seq the public audience may see of `rec` at `live` (`commits`: its log, needed
    only for a delay in seconds)."""
    delay = rec.spectator_delay
    if rec.finished or not delay:
        return live
    if "commits" in delay:
        return max(0, live - delay["commits"])
    now = now_ms() if now is None else now
    seen = 0
    for c in commits:
        if not released(delay, c.seq, c.ts, live, now):
            break
        seen = c.seq
    return seen


def needs_log(rec: MatchRecord) -> bool:
    """Whether `public_seq` needs the commits (a delay in seconds on a match not yet finished)."""
    return bool(rec.spectator_delay) and "seconds" in (rec.spectator_delay or {}) and not rec.finished
