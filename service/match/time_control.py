"""Time controls as data (protocol/SPEC.md 2.4, 3.10): what a match's clock is, and the Fischer
banks folded from its log.

Three kinds, each with the match's `absent` policy when time runs out:
  - {"type": "per_move", "seconds": S}: S seconds from each commit (the `turn_seconds` clock);
  - {"type": "correspondence", "days": D}: the same, D days per move;
  - {"type": "fischer", "bank_seconds": B, "increment_seconds": I}: every seat starts with a bank
    of B seconds; the time between a commit and the next one a seat makes is taken from that
    seat's bank, and I seconds are added once it has moved.

A bank is never stored: it is a fold of the log's (seat, ts) pairs (`charge`), so every node,
a restarted one, and anyone holding the log compute the same banks; a move the clock plays when
a bank runs out is a commit like any other (move id `sys:clock:<seq>:<seat>`), and is charged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

KINDS = ("per_move", "correspondence", "fischer")
MAX_PER_MOVE_S = 7 * 24 * 3600
MAX_DAYS = 14
MAX_BANK_S = 7 * 24 * 3600
MAX_INCREMENT_S = 24 * 3600


class TimeControlError(ValueError):
    """A malformed `time_control` (the lobby answers it as bad_field)."""


def _int(tc: dict[str, Any], key: str, least: int, most: int) -> int:
    value = tc.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise TimeControlError(f"time_control.{key} must be an integer from {least} to {most}")
    return value


def parse(raw: Any, turn_seconds: int | None) -> dict[str, Any] | None:
    """The match's time control from the creation's `time_control` and `turn_seconds` (already
    checked): a `turn_seconds` alone is a per-move control; both must say the same."""
    if raw is None:
        return {"type": "per_move", "seconds": turn_seconds} if turn_seconds is not None else None
    if not isinstance(raw, dict) or raw.get("type") not in KINDS:
        raise TimeControlError(f"time_control must be a map whose type is one of: {', '.join(KINDS)}")
    fields = {"per_move": ("seconds",), "correspondence": ("days",),
              "fischer": ("bank_seconds", "increment_seconds")}[raw["type"]]
    extra = sorted(set(raw) - {"type", *fields})
    if extra:
        raise TimeControlError(f"a {raw['type']} time_control takes {', '.join(fields)}, not {extra[0][:40]}")
    if raw["type"] == "per_move":
        tc = {"type": "per_move", "seconds": _int(raw, "seconds", 1, MAX_PER_MOVE_S)}
    elif raw["type"] == "correspondence":
        tc = {"type": "correspondence", "days": _int(raw, "days", 1, MAX_DAYS)}
    else:
        tc = {"type": "fischer", "bank_seconds": _int(raw, "bank_seconds", 1, MAX_BANK_S),
              "increment_seconds": _int(raw, "increment_seconds", 0, MAX_INCREMENT_S)}
    if turn_seconds is not None and per_move_seconds(tc) != turn_seconds:
        raise TimeControlError("turn_seconds and time_control say different things: give one of them")
    return tc


def per_move_seconds(tc: dict[str, Any] | None) -> int | None:
    """The seconds every move has from its position (the `turn_seconds` of the summary), or None
    for no clock or a Fischer clock (whose time depends on each seat's bank)."""
    if tc is None or tc["type"] == "fischer":
        return None
    return int(tc["seconds"]) if tc["type"] == "per_move" else int(tc["days"]) * 24 * 3600


def initial_banks(tc: dict[str, Any], players: int) -> list[int]:
    """Each seat's Fischer bank before the first move, in milliseconds."""
    return [tc["bank_seconds"] * 1000] * players


def charge(tc: dict[str, Any], banks: list[int], since: int, seat: int | None, ts: int) -> list[int]:
    """The banks after `seat` committed at `ts`, the previous commit having been at `since`: the
    time between is the mover's (never below zero), then its increment. A system commit (seat
    None: the start, a fork's redeal) is nobody's time."""
    if seat is None:
        return banks
    out = list(banks)
    out[seat] = max(0, out[seat] - max(0, ts - since)) + tc["increment_seconds"] * 1000
    return out


def played_here(forked_from: dict[str, Any] | None, commits: Iterable[Any]) -> list[tuple[int | None, int]]:
    """The (seat, ts) of the commits a match played itself: a fork's copies of its origin's
    commits were played on another clock, long ago, and charge nobody's bank."""
    copied = int(forked_from["seq"]) if forked_from else 0
    return [(c.seat, c.ts) for c in commits if c.seq > copied]


def fold(tc: dict[str, Any], players: int, commits: Iterable[tuple[int | None, int]]) -> tuple[list[int], int]:
    """The banks after a log's (seat, ts) pairs, and the last commit's time."""
    banks, last = initial_banks(tc, players), 0
    for seat, ts in commits:
        if last:
            banks = charge(tc, banks, last, seat, ts)
        last = ts
    return banks, last
