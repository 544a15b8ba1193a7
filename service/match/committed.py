"""What the commit loop hands on: one `Committed` value per commit.

The runtime (service/match/runtime.py) decides a command, appends its commit to the log and
applies it; then it gives one `Committed` to each of its subscribers in turn: the fan-out
(fanout.py), the delayed spectators (delayed.py), the finish mark (settle.py), the turn clock
(clock.py), the seat bots (seat_bots.py) and the legal-move pages (legal.py). Each takes what it needs from the value and
none calls back into the runtime to finish its work; the clock and the bots only send the
runtime new commands, as a client does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, NamedTuple, Protocol

from service.match.projection import Audience, Frame
from service.store import Commit

# Move ids the server itself commits with (start, the turn clock, the bots) begin with this; a
# client's move id may not (the session refuses it with `reserved_id`), so no seat can pre-empt one.
SYSTEM_MOVE_PREFIX = "sys:"


def system_move_id(*parts: object) -> str:
    return SYSTEM_MOVE_PREFIX + ":".join(str(p) for p in parts)


class Submit(Protocol):
    """The runtime's submit, as the clock and the bots send it their moves: the commit's seq,
    or IllegalMove, Busy (the match is no longer at `at_seq`) or StoreUnavailable."""

    def __call__(self, seat: int | None, command: dict[str, Any], move_id: str | None,
                 at_seq: int | None = None) -> Awaitable[int]: ...


class Busy(Exception):
    """The match moved on (or kept conflicting) before a command could be committed."""


class Stale(Exception):
    """A client's move was decided at a seq the match is no longer at (its `at`); `seq` is the
    match's seq now. Nothing was committed."""

    def __init__(self, match: str, at: int, seq: int) -> None:
        super().__init__(f"{match}: the move was decided at seq {at}, the match is at seq {seq}")
        self.at, self.seq = at, seq


class Committed(NamedTuple):
    """A match's position after a commit, as every subscriber sees it. Nothing in it is
    changed after it is made: `state` and `status` are the fold's and the game's own values,
    `frames` the patch of every watched audience, already installed in the projection.

    `commit` is None for the position a runtime starts from when it loads (its log folded,
    nothing new committed): the clock, the bots and the legal moves start from it, and there is
    nothing to send."""

    seq: int
    commit: Commit | None
    state: dict[str, Any]
    status: dict[str, Any]  # game.status(state), computed once for this commit
    ts: int  # the commit's time (ms since the epoch): the turn clock runs from it
    frames: Mapping[Audience, Frame]
