"""Re-dealing what seats cannot see (spec 7), for bots' determinization and for forks, and
the bots' evaluation hint.

Hidden from the seats in `keep`: the other seats' hands (sizes public) and the draw pile's
order. Those cards are pooled and dealt back at random into the same sizes. The discard
pile, special cards, board and supplies are public and stay. A stacked `deck_order` option
is blanked (the engine blanks it at the start anyway).
"""

from __future__ import annotations

from service.games.dealing import deal_pile_and_hands, hide_options
from service.games.interface import Rng, State
from service.games.khan.conquest import NEUTRAL
from service.games.khan.data import BOARDS, Board
from service.games.khan.scoring import score

# What an uncovered group of yurts is worth to the seats holding its majority, per cell, next
# to a tile's points (value = size, spec 2.5): not yet conquered, so discounted.
GROUP_SHARE = 0.5


def redeal(state: State, rng: Rng, keep: frozenset[int]) -> State:
    state = hide_options(state, blank={"deck_order": None})
    pile, hands = deal_pile_and_hands(rng, state["draw_pile"], state["hands"], keep)
    return {**state, "draw_pile": pile, "hands": hands}


def evaluate(state: State) -> list[float]:
    """Bots' hint: the end-of-game score (tiles and area bonuses) of the board as it stands,
    plus what the yurts on it promise. A conquest covers cells that all hold a yurt and goes
    to the relative majority of player yurts under it (spec 5.5), so each side-connected
    group of uncovered yurts is a conquest in waiting for the seats with the most yurts in it;
    without this the hint is flat until the first tile is laid."""
    players = state["players"]
    if state["phase"] == "waiting":
        return [0.0] * players
    board = BOARDS[state["board"]]
    points = [float(x) for x in score(state, board)["scores"]]
    for seat, value in enumerate(promise(state["yurts"], board, players)):
        points[seat] += value
    return points


def promise(yurts: list[int | None], board: Board, players: int) -> list[float]:
    """GROUP_SHARE x size of every group of two or more side-connected yurts, to each seat
    with the most player yurts in it (ties share; neutral yurts count only in the size)."""
    out = [0.0] * players
    seen = [False] * len(yurts)
    neighbours = board.neighbours
    for start, owner in enumerate(yurts):
        if owner is None or seen[start]:
            continue
        seen[start] = True
        stack = [start]
        size = 0
        counts = [0] * players
        while stack:
            cell = stack.pop()
            size += 1
            holder = yurts[cell]
            if holder is not None and holder != NEUTRAL:
                counts[holder] += 1
            for j in neighbours[cell]:
                if not seen[j] and yurts[j] is not None:
                    seen[j] = True
                    stack.append(j)
        most = max(counts)
        if size < 2 or most == 0:
            continue
        for seat in range(players):
            if counts[seat] == most:
                out[seat] += GROUP_SHARE * size
    return out
