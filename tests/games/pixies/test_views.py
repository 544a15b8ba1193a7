"""Hidden information (spec section 6): who sees what."""

from __future__ import annotations

import msgpack

from service.games.pixies import GAME
from service.games.playout import playout

from .table import area, table, take


def packed(value) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def test_every_audience_sees_the_same_table():
    """There are no hands: each seat and a spectator get identical views."""
    state = table(3, market=["R09", "G02", "B13"], areas={0: "[. [G07] B03 | . Y09/B08 . | . . .]"})
    views = [GAME.view(state, a) for a in (0, 1, 2, None)]
    assert all(v == views[0] for v in views)


def test_face_down_cards_show_only_their_back_to_everyone_owner_included():
    state = table(3, market=["R09", "G02", "B13"], areas={0: "[. [G07] B03 | . Y09/B08 . | . . .]"})
    _, state = take(state, 0, "R09", target_cell=4)
    for audience in (0, 1, 2, None):
        view = GAME.view(state, audience)
        grid = view["areas"][0]
        assert grid[1] == {"card": None, "face_down": True}
        assert grid[2] == {"card": "B03", "face_down": False}
        assert grid[3] == {"card": None, "face_down": True}
        assert grid[4] == {"card": "Y09", "face_down": True}
        data = packed(view)
        for hidden in ("G07", "B08", "R09"):
            assert packed(hidden) not in data


def test_the_deck_shows_only_its_count():
    state = table(3, market=["R09", "G02", "B13"])
    view = GAME.view(state, None)
    assert view["deck_count"] == 67
    data = packed(view)
    assert not any(packed(card) in data for card in state["deck"])
    assert "deck" not in view


def test_market_face_up_cards_totals_and_turn_facts_are_public():
    state = table(3, market=["R09", "G02", "B14"], first=2, areas={1: "[. . . | . . . | B13/G14 . .]"})
    view = GAME.view(state, 0)
    assert view["market"] == ["R09", "G02", "B14"]
    assert view["areas"][1][6] == {"card": "B13", "face_down": True}
    assert view["to_act"] == 2 and view["turn_first_player"] == 2 and view["pick_order"] == [2, 0, 1]
    assert view["round"] == 1 and view["totals"] == [0, 0, 0] and view["last_turn"] is False


def test_secrets_name_the_deck_and_the_face_down_cards_and_no_seat_owns_one():
    state = table(3, market=["R09", "G02", "B13"], areas={0: "[. [G07] B03 | . Y09/B08 . | . . .]"})
    assert GAME.secrets(state, 0) == [] and GAME.secrets(state, 1) == []
    hidden = GAME.secrets(state, None)
    assert "G07" in hidden and "B08" in hidden and "B03" not in hidden and "R09" not in hidden
    assert len(hidden) == 63 + 2  # 70 - 3 in the market - 4 in the area, plus the two face-down cards
    assert sorted(hidden) == sorted([*state["deck"], "G07", "B08"])


def test_round_scores_in_views_are_numbers_only():
    """Breakdowns are public once a round is scored; they carry no card ids, so a card that went
    back into the deck cannot be read from them."""
    for step in playout(GAME, 2, "views-scores"):
        if step.after["round_scores"]:
            view = GAME.view(step.after, None)
            assert view["round_scores"][0][0].keys() == {"validated", "spirals", "crosses", "zone", "multiplier", "total"}
            data = packed(view)
            assert not any(packed(card) in data for card in step.after["deck"])
            break
    else:
        raise AssertionError("no round was scored")


def test_area_helper_reads_the_spec_notation():
    assert area("[. [G07] Y02/B08 | . . . | . . B13]")[:3] == [
        {"up": None, "down": None}, {"up": None, "down": "G07"}, {"up": "Y02", "down": "B08"},
    ]
