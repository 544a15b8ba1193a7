"""Movement (spec 3.3): which paths a figure may walk with the steps of the card it played.

A move is the whole path the player submits. It stays on one circle (the ring or the
spokes), never turns straight back, ends at the Emperor if it reaches it, and uses every
step unless it reaches an end of a spoke first.
"""

from __future__ import annotations

from typing import Any

from service.games.hieroglyphs.data import ADJ, EDGE_CIRCLE, EMPEROR, TELEPORTS
from service.games.interface import IllegalMove


class IllegalPath(IllegalMove):
    """`illegal_path` with the reason of spec 3.3 (not_adjacent, reversal, mixed_circles,
    passes_emperor) kept apart for clients and tests."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__("illegal_path", f"{reason}: {message}")
        self.reason = reason


def check_path(start: str, steps: int, path: list[Any]) -> None:
    """Raise IllegalMove unless `path` is a legal move of `steps` from `start`, checking in
    the fixed order of spec 3.3 so that a path breaking several rules gets one stable error."""
    n, length = steps, len(path)
    if (n == 0 and length) or (n >= 1 and not length) or length > n:
        raise IllegalMove("wrong_step_count", f"the card gives {n} steps; a path of {length} cells does not fit")
    cells = [start, *path]
    circle = None
    for i in range(1, length + 1):
        before, cur = cells[i - 1], cells[i]
        if cur not in ADJ or cur not in ADJ[before]:
            raise IllegalPath("not_adjacent", f"{cur!r} is not next to {before}")
        if i >= 2 and cur == cells[i - 2]:
            raise IllegalPath("reversal", f"the path turns straight back to {cur}")
        edge = EDGE_CIRCLE[(before, cur)]
        if circle is not None and edge != circle:
            raise IllegalPath("mixed_circles", f"the step {before}-{cur} leaves the {circle} circle; "
                              "only a move that starts on a teleport may pick the other circle")
        circle = edge
        if i >= 2 and before == EMPEROR:
            raise IllegalPath("passes_emperor", "the Emperor ends a move; a path cannot go through it")
    if length < n and not _early_stop(path[-1], circle):
        raise IllegalMove("wrong_step_count", f"the card gives {n} steps; a path may stop short only "
                          "at the Emperor or at the teleport that ends a spoke")


def legal_paths(start: str, steps: int) -> list[list[str]]:
    """Every legal path of `steps` from `start`, in a stable order (adjacency order)."""
    if steps == 0:
        return [[]]
    found: list[list[str]] = []

    def walk(prev: str | None, cur: str, circle: str | None, path: list[str]) -> None:
        if path and cur == EMPEROR:
            return                                    # the Emperor is terminal
        for nxt in ADJ[cur]:
            if nxt == prev:
                continue
            edge = EDGE_CIRCLE[(cur, nxt)]
            if circle is not None and edge != circle:
                continue
            step = [*path, nxt]
            if len(step) == steps or _early_stop(nxt, edge):
                found.append(step)
            else:
                walk(cur, nxt, edge, step)

    walk(None, start, None, [])
    return found


def _early_stop(cell: str, circle: str | None) -> bool:
    """The ends of the small circle: the Emperor, or a teleport reached along a spoke."""
    return cell == EMPEROR or (circle == "small" and cell in TELEPORTS)
