"""Gùgōng in words: one sentence (or none, for the prompt bookkeeping) per event type of the
engine (rules._APPLY), with the values of the rules spec: the dice bonus is 3 VP and an
Envoy step (§4.3), a full boat's rewards are 4 VP, a card or the Foreman, a game where no Envoy
reached the Palace has no winner. Gift cards are named by value and action from data/cards.json
(G03 is a 6 with the Travel action, G04 an 8 giving 1 servant)."""

from __future__ import annotations

import pytest

from service.games.gugong import data
from service.games.gugong.narrate import card_name, describe_commit, describe_move
from service.games.gugong.rules import _APPLY

NAMES = ["Ann", "Ben", "Cy"]

EXPECTED: list[tuple[dict, str | None]] = [
    ({"type": "game_started", "start_player": 1, "locations": {}, "draw_pile": ["G35"], "map": {}, "pile_a": [],
      "pile_b": [], "decrees": ["D1A"], "boxed_decrees": ["D1B"], "dice": [4, 6, 7], "hands": [["G01"], ["G05"]]},
     "The game starts; Ben is the start player. The dice show 4, 6, 7. "
     "Decrees in play: decree D1A (level 1, servants 1)."),
    ({"type": "pending_pushed", "frames": [{"kind": "next_turn", "from": 1}]}, None),
    ({"type": "pending_popped"}, None),
    ({"type": "turn_started", "seat": 1}, None),
    ({"type": "gift_exchanged", "seat": 1, "card": "G03", "location": "JADE", "taken": "G25", "payment": "forgo",
      "discarded": None}, "Ben gives 6 (Travel) to Jade and takes the card that lay there, forgoing its actions."),
    ({"type": "gift_exchanged", "seat": 0, "card": "G04", "location": "WALL", "taken": "G24", "payment": "card",
      "discarded": "G01"}, "Ann gives 8 (gain 1 servant) to Great Wall and takes the card that lay there, "
                           "paying with a card from their hand."),
    ({"type": "turn_ended", "seat": 1}, "Ben ends their turn."),
    ({"type": "servants_paid", "seat": 1, "cubes": 2, "foreman": False, "reason": "exchange"}, "Ben pays 2 servants."),
    ({"type": "servants_gained", "seat": 2, "cubes": 1, "foreman": False, "reason": "dice"}, "Cy gains 1 servant."),
    ({"type": "card_action_taken", "seat": 1, "action": "SERVANT2"}, "Ben takes the card action: gain 2 servants."),
    ({"type": "location_action_taken", "seat": 1, "action": "PALACE"}, "Ben takes the Palace action."),
    ({"type": "envoy_advanced", "seat": 1, "to": 2, "vp": 0, "arrived": False, "slot_vp": 0, "reason": "palace"},
     "Ben's Envoy climbs to step 2."),
    # Arrival on step 8 takes the first free arrival slot (7 VP with 2-3 players, board.json).
    ({"type": "envoy_advanced", "seat": 0, "to": 8, "vp": 1, "arrived": True, "slot_vp": 7, "reason": "palace"},
     "Ann's Envoy climbs to step 8 and reaches the Palace (+7 VP at the end), +1 VP."),
    ({"type": "intrigue_moved", "seat": 1, "to": 4, "reason": "intrigue"}, "Ben moves to 4 on the Intrigue track."),
    ({"type": "medal_taken", "seat": 1}, "Ben takes the medal: they start tomorrow."),
    ({"type": "vp_scored", "seat": 1, "vp": 3, "reason": "dice"}, "Ben scores 3 VP."),
    ({"type": "jade_gained", "seat": 0, "n": 1, "reason": "jade", "spot": 5}, "Ann gains 1 jade."),
    ({"type": "die_set", "seat": 0, "die": 1, "face": 5}, "Ann turns die 2 to 5."),
    ({"type": "intrigue_benefit_taken", "seat": 0, "down": 5, "gain": "die"},
     "Ann steps 5 down the Intrigue track for setting a die."),
    ({"type": "wall_built", "seat": 1, "cubes": 1, "foreman": True, "from": "pool"},
     "Ben builds the Great Wall with 1 servant and the Foreman."),
    ({"type": "wall_completed", "scorer": 1, "eligible": [0, 1]},
     "A section of the Great Wall is complete: Ben holds the majority."),
    ({"type": "final_wall_scored", "seat": 2}, "Cy holds the majority on the unfinished Wall section."),
    ({"type": "traveller_moved", "seat": 1, "city": "c01", "token": "tk01"},
     "Ben travels to Datong and picks up a '1 servant' token."),
    ({"type": "token_effect_applied", "seat": 0, "token": "tk20", "token_type": "T_VP2"}, "Ann uses the '2 VP' token."),
    ({"type": "token_stored", "seat": 1, "token": "tk31"}, "Ben keeps the 'double' token."),
    ({"type": "tokens_exchanged", "seat": 0, "tokens": ["tk12", "tk20"], "reward": "servant"},
     "Ann trades in 2 travel tokens for servants."),
    ({"type": "card_moved", "seat": 2, "card": "G08", "from": "discard", "to": "hand"},
     "Cy moves a card from their gift pile to their hand."),
    ({"type": "card_swapped", "seat": 2, "card": "G03", "where": "hand", "taken": "G21", "location": "CANAL"},
     "Cy puts 6 (Travel) at Grand Canal, taking the card that lay there."),
    ({"type": "card_drawn", "seat": 0, "card": "G30"}, "Ann draws a card."),
    ({"type": "decree_bought", "seat": 1, "decree": "D2C", "price": 3, "place": "cube"},
     "Ben buys decree D2C (level 2, wall a units 2) for 3 servants."),
    ({"type": "morning_decree_resolved", "seat": 1, "decree": "D1B"},
     "Ben's decree D1B (level 1, intrigue 1) takes effect."),
    ({"type": "boat_launched", "seat": 1, "route": "A", "port": 1}, "Ben launches a boat at Beijing (A1)."),
    ({"type": "boat_loaded", "seat": 1, "route": "A", "port": 1, "unit": "foreman", "from": "pool"},
     "Ben puts the Foreman onto their boat at Beijing (A1)."),
    ({"type": "boat_moved", "seat": 1, "route": "A", "from": 1, "to": 2},
     "Ben's boat sails from Beijing (A1) to Cangzhou (A2)."),
    ({"type": "boat_returned", "seat": 0, "route": "A", "port": 4, "reason": "claimed"},
     "Ann's boat at Huai'an (A4) comes home, its reward claimed."),
    ({"type": "boat_returned", "seat": 0, "route": "A", "port": 5, "reason": "lost"},
     "Ann's boat at Hangzhou (A5) comes home, lost at the end of the canal."),
    ({"type": "reward_claimed", "seat": 0, "route": "A", "port": 4, "reward": "FOREMAN", "unit": "cube"},
     "Ann claims the Foreman at Huai'an (A4)."),
    ({"type": "foreman_unlocked", "seat": 0}, "Ann unlocks the Foreman."),
    ({"type": "evening_started", "day": 1}, "Evening of day 1."),
    ({"type": "dice_matched", "dice": [5, 9, 8], "matches": [1, 2, 0]},
     "The dice (5, 9, 8) match the gifts given: Ann 1, Ben 2, Cy 0."),
    ({"type": "dice_bonus_awarded", "seat": 1, "matches": 2}, "Ben has the most dice matches (2): 3 VP and an Envoy step."),
    ({"type": "morning_started", "day": 2}, "Morning of day 2."),
    ({"type": "start_player_changed", "seat": 1}, "Ben is the start player."),
    ({"type": "map_refilled", "placements": [["c02", "tk27", "pile_a"], ["c05", "tk03", "pile_b"]]},
     "The travel map is refilled with 2 tokens."),
    ({"type": "travel_discard_reshuffled", "pile_a": ["tk01"], "pile_b": ["tk02"]},
     "The spent travel tokens are shuffled into new piles."),
    ({"type": "dice_rolled", "day": 2, "dice": [2, 7, 7]}, "The dice are rolled for day 2: 2, 7, 7."),
    ({"type": "day_started", "day": 2}, "Day 2 begins."),
    ({"type": "final_window_opened"}, "The fourth day is over: a last chance to use travel tokens before the scoring."),
    ({"type": "final_window_closed"}, None),
    ({"type": "prompt_declined", "seat": 0, "prompt": "token_effect"}, "Ann declines the token's effect."),
    ({"type": "game_finished", "scores": [0, 19, 12], "ranking": [1, 2, 0], "winners": [1], "breakdown": [],
      "nobody_arrived": False},
     "Game over (after the fourth day; only families whose Envoy reached the Palace score): "
     "Ben wins with 19 (Cy 12, Ann 0)."),
    ({"type": "game_finished", "scores": [0, 0, 0], "ranking": [0, 1, 2], "winners": [], "breakdown": [],
      "nobody_arrived": True},
     "Game over (nobody reached the Palace): nobody wins. Scores: Ann 0, Ben 0, Cy 0."),
]


def test_every_event_type_is_covered():
    assert {e["type"] for e, _ in EXPECTED} == set(_APPLY)


@pytest.mark.parametrize(("event", "sentence"), EXPECTED, ids=[e["type"] for e, _ in EXPECTED])
def test_event_sentence(event, sentence):
    said = describe_commit(event.get("seat"), {"type": "x"}, [event], NAMES)
    assert said == ([] if sentence is None else [sentence])


def test_cards_in_hands_and_piles_are_never_named():
    hidden = [({"type": "card_drawn", "seat": 0, "card": "G30"}, "G30"),
              ({"type": "gift_exchanged", "seat": 1, "card": "G03", "location": "JADE", "taken": "G25",
                "payment": "card", "discarded": "G04"}, "G25"),
              ({"type": "card_moved", "seat": 2, "card": "G08", "from": "hand", "to": "discard"}, "G08")]
    for event, card in hidden:
        line = describe_commit(event["seat"], {"type": "x"}, [event], NAMES)[0]
        assert card_name(card) not in line and card not in line, line
    # The discarded payment card (G04, an 8 giving 1 servant) is not named either.
    assert "8 (" not in describe_commit(1, {"type": "x"}, [hidden[1][0]], NAMES)[0]


def test_move_labels():
    view = {"turn": {"card_action": "WALL", "location": "JADE"}, "map": {"c01": {"id": "tk01", "type": "T_SERVANT1"}},
            "token_in_transit": {"id": "tk20", "type": "T_VP2"}, "prompt": {"kind": "travel_move"}}
    assert data.CARDS["G03"]["value"] == 6
    assert describe_move({"type": "exchange", "card": "G03", "location": "PALACE", "payment": "servants"}, view, 0, NAMES) \
        == "Give 6 (Travel) to Palace: paying 2 servants"
    assert describe_move({"type": "exchange", "card": "G03", "location": "PALACE", "payment": "card", "discard": "G04"},
                         view, 0, NAMES) == "Give 6 (Travel) to Palace: paying with a card, discarding 8 (gain 1 servant)"
    assert describe_move({"type": "card_action", "option": "B", "units": ["cube", "foreman"]}, view, 0, NAMES) \
        == "Card action: Great Wall: option B, with a servant and the Foreman"
    assert describe_move({"type": "location_action", "spot": None, "pay_foreman": True}, view, 0, NAMES) \
        == "Jade action: the supply jade, the Foreman helps pay"
    assert describe_move({"type": "location_action", "spot": 2}, view, 0, NAMES) == "Jade action: jade house 3"
    assert describe_move({"type": "travel", "city": "c01"}, view, 0, NAMES) == "Travel to Datong: picking up a '1 servant' token"
    assert describe_move({"type": "use_token"}, view, 0, NAMES) == "Use the '2 VP' token"
    assert describe_move({"type": "claim", "reward": "VP4", "unit": "cube"}, view, 0, NAMES) == "Claim 4 VP with a servant"
    assert describe_move({"type": "intrigue_benefit", "down": 5, "die": 0, "face": 3}, view, 0, NAMES) \
        == "Intrigue benefit: step down 5: die 1, to 3"
    assert describe_move({"type": "decline"}, view, 0, NAMES) == "Decline the travel move"
    assert describe_move({"type": "end_turn"}, view, 0, NAMES) == "End your turn"
    assert describe_move({"type": "exchange_tokens", "tokens": ["tk01", "tk02"], "reward": "servant"}, view, 0, NAMES) \
        == "Trade '1 servant' token and '1 servant' token for servants"
