"""Khan in words: one sentence (or none, for turn bookkeeping) per event type of the engine
(rules._APPLY), with the rules' facts: a fleeing ruler leaves a neutral yurt from his camp, a
driven-out one from the general supply (docs/games/khan.md, A turn); the fifth ruler leaving
starts the end phase; the area bonuses are 10, 6 and 3. Cells read as on a chess board from the
top left (row 9, column 3 is C9) with the landscape of the standard board (data/board.json:
C9 is tundra, A1 mountains, A5 the river); card ruler_8-F is Ruler 8 facing NE on tropical forest."""

from __future__ import annotations

import pytest

from service.games.khan.narrate import card_name, cell_name, describe_commit, describe_move
from service.games.khan.rules import _APPLY

NAMES = ["Ann", "Ben", "Cy"]

EXPECTED: list[tuple[dict, str | None]] = [
    ({"type": "game_started", "start_player": 1, "deck_order": ["ruler_6-S", "ruler_5-KHAN"]},
     "The game starts; Ben plays first."),
    ({"type": "turn_started", "seat": 0, "turn_no": 1}, None),
    ({"type": "deck_reshuffled", "order": ["seljuk-KHAN", "ruler_5-RIVER"]}, "The discard pile is shuffled into a new deck."),
    ({"type": "card_turned", "card": "ruler_8-F", "purpose": "flight", "ruler_on_board": True},
     "The top card is turned: Ruler 8 NE (tropical forest) (its ruler flees)."),
    ({"type": "card_turned", "card": "ruler_8-F", "purpose": "flight", "ruler_on_board": False},
     "The top card is turned: Ruler 8 NE (tropical forest); that ruler has left the board."),
    ({"type": "card_turned", "card": "russian-KHAN", "purpose": "drive_out", "ruler_on_board": True},
     "The top card is turned: Russian N (Khan) (sets the direction)."),
    ({"type": "ruler_moved", "ruler": "ruler_6", "from": [8, 2], "to": [7, 3], "direction": "NE", "neutral_from": "camp"},
     "Ruler 6 moves NE from C9 (tundra) to D8 (tundra), leaving a neutral yurt from his camp."),
    ({"type": "ruler_moved", "ruler": "russian", "from": [0, 0], "to": [0, 1], "direction": "E", "neutral_from": "supply"},
     "Russian moves E from A1 (mountains) to B1 (mountains), leaving a neutral yurt from the general supply."),
    ({"type": "ruler_removed", "ruler": "ruler_5", "cell": [8, 2], "reason": "last_yurt", "neutral_from": "camp",
      "camp_to_supply": 0}, "Ruler 5 leaves the board at C9 (tundra) (his camp's last yurt)."),
    ({"type": "ruler_removed", "ruler": "seljuk", "cell": [0, 0], "reason": "stuck", "neutral_from": "camp",
      "camp_to_supply": 3}, "Seljuk leaves the board at A1 (mountains) (no way out); 3 camp yurts go to the supply."),
    ({"type": "end_phase_started", "rulers_replaced": [{"ruler": "ruler_3", "cell": [3, 6]}, {"ruler": "seljuk", "cell": [4, 5]}],
      "camp_yurts_to_supply": 4},
     "The fifth ruler has left: the end phase begins: Ruler 3 and Seljuk are replaced by neutral yurts. "
     "From now on only conquests."),
    ({"type": "invaded", "seat": 1, "card": "ruler_8-F", "cell": [0, 9]}, "Ben invades J1 (tropical forest) with Ruler 8 NE (tropical forest)."),
    ({"type": "invaded_by_choice", "seat": 0, "cell": [0, 10], "discarded": ["ruler_8-F", "russian-KHAN"]},
     "Ann invades K1 (tropical forest) by choice, discarding Ruler 8 NE (tropical forest) and Russian N (Khan)."),
    ({"type": "invaded_by_choice", "seat": 0, "cell": [0, 10], "discarded": []}, "Ann invades K1 (tropical forest) by choice."),
    ({"type": "ruler_driven_out", "seat": 1, "ruler": "ruler_4"}, "Ben drives out Ruler 4."),
    ({"type": "consent_requested", "seat": 1, "tile": "D2", "cells": [[8, 2], [8, 3]], "ask": [0]},
     "Ben proposes tile D2 (2 points) over C9, D9; Ann must agree (protected yurts)."),
    ({"type": "consent_given", "seat": 0}, "Ann agrees."),
    ({"type": "consent_refused", "seat": 0, "tile": "D2", "cells": [[8, 2], [8, 3]]}, "Ann refuses tile D2 (2 points) over C9, D9."),
    ({"type": "conquered", "seat": 0, "tile": "D2", "cells": [[10, 4], [10, 5]], "owners": [0, 1],
      "yurts_returned": [{"cell": [10, 4], "owner": 1}, {"cell": [10, 5], "owner": 0}]},
     "Ann conquers E11, F11 with tile D2 (2 points), shared with Ben; 2 yurts go back."),
    ({"type": "actions_passed", "seat": 0, "actions": 1}, "Ann passes (1 action unused)."),
    ({"type": "actions_ended", "seat": 0}, None),
    ({"type": "special_card_returned", "seat": 1, "card": "protection", "region": None},
     "Ben's Protection of the Great Khan goes back to the box."),
    ({"type": "special_card_played", "seat": 2, "card": "divine_support", "region": "T"}, "Cy plays Divine Support on the tundra."),
    ({"type": "special_card_played", "seat": 0, "card": "high_morale", "region": None}, "Ann plays High Morale."),
    ({"type": "special_card_declined", "seat": 0}, "Ann plays no special card."),
    ({"type": "cards_drawn", "seat": 0, "cards": ["ruler_7-S", "ruler_8-T", "ruler_7-OUTER"]}, "Ann draws 3 cards."),
    ({"type": "turn_ended", "seat": 0}, None),
    ({"type": "game_ended", "scores": [49, 47], "tile_points": [39, 41], "area_bonus": [10, 6], "largest_area": [29, 20],
      "areas": [], "ranking": [0, 1], "winners": [0]},
     "Game over (the end phase ran out of conquests): Ann wins with 49 (Ben 47). "
     "Points: Ann 39 for tiles + 10 for areas; Ben 41 for tiles + 6 for areas."),
]


def test_every_event_type_is_covered():
    assert {e["type"] for e, _ in EXPECTED} == set(_APPLY)


@pytest.mark.parametrize(("event", "sentence"), EXPECTED, ids=[e["type"] for e, _ in EXPECTED])
def test_event_sentence(event, sentence):
    said = describe_commit(event.get("seat"), {"type": "x"}, [event], NAMES)
    assert said == ([] if sentence is None else [sentence])


def test_cards_drawn_are_counted_never_named():
    line = describe_commit(0, {"type": "pass"}, [{"type": "cards_drawn", "seat": 0, "cards": ["ruler_8-F"]}], NAMES)[0]
    assert line == "Ann draws 1 card." and "Ruler 8" not in line


def test_cells_and_cards():
    assert cell_name([8, 2]) == "C9 (tundra)" and cell_name([4, 0]) == "A5"  # A5 is river: no landscape
    assert card_name("seljuk-RIVER") == "Seljuk NW (river)"


def test_move_labels():
    view = {"board": "standard", "status": {"phase": "actions"}}
    assert describe_move({"type": "invade", "card": "ruler_8-F", "cell": [8, 2]}, view, 0, NAMES) \
        == "Invade with Ruler 8 NE (tropical forest) at C9 (tundra)"
    assert describe_move({"type": "invade_of_choice", "cell": [0, 0], "discard": ["russian-KHAN"]}, view, 0, NAMES) \
        == "Invasion of choice at A1 (mountains), discarding Russian N (Khan)"
    assert describe_move({"type": "invade_of_choice", "cell": [0, 0]}, view, 0, NAMES) \
        == "Invasion of choice at A1 (mountains), keeping every card"
    assert describe_move({"type": "drive_out", "ruler": "ruler_4"}, view, 0, NAMES) == "Drive out Ruler 4"
    assert describe_move({"type": "conquer", "tile": "L3", "cells": [[9, 3], [8, 2], [9, 2]]}, view, 0, NAMES) \
        == "Conquer with tile L3 (3 points) over C9, C10, D10"
    assert describe_move({"type": "play_special", "card": "divine_support", "region": "M"}, view, 0, NAMES) \
        == "Play Divine Support for the mountains"
    assert describe_move({"type": "consent", "agree": False}, view, 0, NAMES) == "Refuse the conquest"
    assert describe_move({"type": "pass"}, view, 0, NAMES) == "Pass"
    assert describe_move({"type": "pass"}, {**view, "status": {"phase": "special"}}, 0, NAMES) == "Play no special card"
