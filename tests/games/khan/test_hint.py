"""The bots' evaluation hint (hidden.evaluate): the end-of-game score of the board as it
stands (spec 6) plus what uncovered yurt groups promise to the seats that could conquer them
(a tile covers only cells holding a yurt, and goes to the relative majority of player yurts
under it, neutral yurts ignored: spec 5.5, T14-T16)."""

from service.games.khan.hidden import GROUP_SHARE, evaluate
from tests.games.khan.helpers import N, position


def test_before_any_conquest_a_group_promises_its_majority_holder():
    # T14's position: P1 could lay I3 over his yurt and two neutral ones.
    hint = evaluate(position(yurts={(1, 1): 0, (1, 2): N, (1, 3): N}))
    assert hint[0] == 3 * GROUP_SHARE
    assert hint[1] == 0


def test_a_lone_yurt_promises_nothing():
    # No tile covers a single cell (sizes start at 2, spec 2.5).
    assert evaluate(position(yurts={(1, 1): 0, (9, 9): 1})) == [0, 0]


def test_a_tied_group_promises_both_and_neutral_yurts_do_not_count_for_anyone():
    # T16's position: a shared majority, either seat could conquer it for both.
    assert evaluate(position(yurts={(9, 2): 0, (9, 3): 1, (10, 2): N, (10, 3): N})) == [4 * GROUP_SHARE] * 2
    # T15 (a): neutral yurts alone are nobody's conquest.
    assert evaluate(position(yurts={(4, 6): N, (4, 7): N})) == [0, 0]


def test_the_majority_in_a_group_takes_its_promise():
    # T15 (b): P2 holds two of the three yurts, only P2 could conquer there.
    hint = evaluate(position(yurts={(2, 5): 0, (2, 6): 1, (3, 6): 1}))
    assert hint == [0, 3 * GROUP_SHARE]


def test_laid_tiles_score_as_at_the_end():
    # T25's tiles, no yurts left: tile points and area bonuses as in spec 6 (P1 22, P2 12).
    tiles = [("O4", [[0, 0], [0, 1], [1, 0], [1, 1]], [0]), ("I3", [[2, 0], [2, 1], [2, 2]], [0]),
             ("D2", [[0, 8], [0, 9]], [0, 1]), ("L4", [[1, 8], [2, 8], [3, 8], [3, 9]], [1])]
    assert evaluate(position(tiles=tiles, end_phase=True)) == [22, 12]
