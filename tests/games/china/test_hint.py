"""The bots' evaluation hint (hidden.evaluate) against the rules it is derived from: the final
scoring of spec 6.3 as if the game ended now, plus what spec 5.4 and 5.1 will pay later (a road
group short of a chain that can still grow, a hand that pays for a two-piece turn)."""

from __future__ import annotations

from service.games.china.hidden import evaluate
from tests.games.china.helpers import A, B, C, end_now, position

# Three colours each: no hand pays for two pieces in one province (spec 5.1).
PLAIN_HANDS = {
    A: ["red-01", "green-01", "yellow-01"],
    B: ["red-02", "green-02", "yellow-02"],
    C: ["red-03", "green-03", "orange-01"],
}


def ahead(state, seat=A):
    """What the hint gives the seat beyond what the final scoring would pay it now."""
    _, after = end_now(state)
    return evaluate(state)[seat] - after["scores"][seat]


def test_with_nothing_pending_the_hint_is_the_final_scoring():
    # A: a chain of 4 on side A's central road (4 points), Qin and Han, and alliance 5 (Qin-Han);
    # single houses elsewhere cannot become chains by the hint's reckoning (no partial group).
    s = position(
        hands=PLAIN_HANDS,
        houses={"qin3": A, "qin4": A, "han1": A, "han2": A, "zhao1": B, "wei1": C, "han3": B},
        emissaries={"qin": [1, 0, 0], "han": [1, 0, 0]},
        scores=[3, 5, 0],
    )
    _, after = end_now(s)
    assert evaluate(s) == [float(x) for x in after["scores"]]


def test_a_group_short_of_a_chain_counts_while_a_free_road_space_can_extend_it():
    # qin3-qin4-han1 on side A's central road; its one free neighbour is han2.
    growing = position(hands=PLAIN_HANDS, houses={"qin3": A, "qin4": A, "han1": A})
    blocked = position(hands=PLAIN_HANDS, houses={"qin3": A, "qin4": A, "han1": A, "han2": B})
    assert 0 < ahead(growing) < 4  # less than the chain of 4 it might become
    assert ahead(blocked) == 0


def test_a_hand_that_pays_for_two_pieces_in_one_province_counts():
    houses = {"qin1": B}  # Qin (red) holds a house, so two pieces may go in (spec 5.1, rule 3)
    two_red = {**PLAIN_HANDS, A: ["red-04", "red-05", "green-04"]}
    red_and_pair = {**PLAIN_HANDS, A: ["red-04", "yellow-04", "yellow-05"]}
    assert ahead(position(hands=two_red, houses=houses)) > 0
    assert ahead(position(hands=red_and_pair, houses=houses)) > 0
    assert ahead(position(hands=PLAIN_HANDS, houses=houses)) == 0
    # Both red provinces empty: one piece only there; in Zhao (orange, with a house) the red
    # pair pays for one piece and nothing for a second.
    assert ahead(position(hands=two_red, houses={"zhao1": B})) == 0


def test_the_hint_is_a_function_of_the_state_not_of_which_objects_it_shares():
    """The hint remembers the board's worth by the identity of the parts states share (they are
    never changed in place); a state judged anew from copies of its parts, or after many
    others, must be worth the same."""
    import copy

    from service.games import get_game
    from service.games.playout import playout

    game = get_game("china")
    states = [st.after for st in playout(game, 4, "hint-identity") if st.seat is not None]
    first = [evaluate(s) for s in states]
    assert [evaluate(copy.deepcopy(s)) for s in reversed(states)] == first[::-1]
    assert [evaluate(s) for s in states] == first
