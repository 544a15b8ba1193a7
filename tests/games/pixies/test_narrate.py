"""Pixies in words: every event type (docs/games/pixies.md, Events) and every command form.

Card faces come from the rules' card table (spec 2.4): B05 is a blue 4 with 1 spiral, B06 a
blue 4 that counts blue cards, B07 a plain blue 4, B15 a blue 9 with 6 crosses, R16 a plain red
9, J01 a multicolour 2.
"""

from __future__ import annotations

from service.games.pixies.narrate import card_name, describe_commit, describe_move

NAMES = ["Alice", "Bob", "Carol"]


def said(*events, seat=0, command=None):
    return describe_commit(seat, command or {"type": "take_card"}, list(events), NAMES)


def test_card_faces_name_colour_number_and_what_scores():
    assert card_name("B05") == "Blue 4 (1 spiral)"
    assert card_name("B06") == "Blue 4 (+1 per blue)"
    assert card_name("B07") == "Blue 4"
    assert card_name("B15") == "Blue 9 (6 crosses)"
    assert card_name("J01") == "Multicolour 2"


def test_the_start_round_and_market():
    assert said({"type": "game_started", "players": 3, "first_player": 1},
                {"type": "round_started", "round": 1, "first_player": 1},
                {"type": "market_revealed", "round": 1, "turn": 1, "first_player": 1, "cards": ["B07", "R16", "J01"]},
                seat=None, command={"type": "start"}) == [
        "The game starts with 3 players; Bob picks first.",
        "Round 1 begins; Bob picks first.",
        "Turn 1: the market shows Blue 4, Red 9 and Multicolour 2.",
    ]


def test_each_placement_of_a_taken_card():
    # 4.3: an empty cell takes the card face up; a lone face-down card is covered (validated).
    assert said({"type": "card_taken", "seat": 0, "card": "B07", "cell": 4, "placement": "face_up", "keep": None}) \
        == ["Alice takes Blue 4 onto cell 4."]
    assert said({"type": "card_taken", "seat": 1, "card": "R16", "cell": 9, "placement": "on_face_down", "keep": None},
                seat=1) == ["Bob takes Red 9 onto cell 9, validating it."]
    # T03: cell 9 holds B15; R16 with keep "new" lies face up, B15 goes face down (not named).
    assert said({"type": "card_taken", "seat": 0, "card": "R16", "cell": 9, "placement": "on_face_up", "keep": "new"}) \
        == ["Alice takes Red 9 onto cell 9, turning the card there face down."]


def test_a_card_that_goes_face_down_is_not_named():
    # keep "existing": the new card lies face down under the old one; a validated cell sends
    # the new card face down to an empty cell. Every view shows those as backs.
    for e in ({"type": "card_taken", "seat": 2, "card": "R16", "cell": 9, "placement": "on_face_up", "keep": "existing"},
              {"type": "card_taken", "seat": 2, "card": "R16", "cell": 3, "placement": "face_down", "keep": None}):
        words = said(e, seat=2)
        assert len(words) == 1 and words[0].startswith("Carol takes a card")
        assert "Red" not in words[0] and "R16" not in words[0] and "face down" in words[0]
    assert said({"type": "card_taken", "seat": 2, "card": "R16", "cell": 3, "placement": "face_down", "keep": None},
                seat=2) == ["Carol takes a card and lays it face down on cell 3."]


def test_area_filled_round_scored_and_game_ended():
    assert said({"type": "area_filled", "seat": 1}, seat=1) == ["Bob's area is full: this is the round's last turn."]
    score = {"validated": 0, "spirals": 0, "crosses": 0, "zone": 0, "multiplier": 2}
    assert said({"type": "round_scored", "round": 1,
                 "scores": [{**score, "total": 12}, {**score, "total": 9}, {**score, "total": -3}]}) \
        == ["Round 1 scores: Alice 12, Bob 9, Carol -3."]
    assert said({"type": "game_ended", "scores": [40, 42, 17], "ranking": [1, 0, 2], "ranks": [2, 1, 3],
                 "winners": [1]}) == ["Game over: Bob wins with 42 (Alice 40, Carol 17)."]
    # Decision 4: no tie-breaker, tied seats share the win.
    assert said({"type": "game_ended", "scores": [42, 42, 17], "ranking": [0, 1, 2], "ranks": [1, 1, 3],
                 "winners": [0, 1]}) == ["Game over: Alice and Bob share the win with 42 (Carol 17)."]


def test_move_labels_for_each_command_form():
    empty = {"card": None, "face_down": False}
    area = [dict(empty) for _ in range(9)]
    area[3] = {"card": None, "face_down": True}
    view = {"areas": [area]}
    assert describe_move({"type": "take_card", "card": "B05"}, view, 0, NAMES) \
        == "Take Blue 4 (1 spiral) onto cell 4 over the face-down card there"
    assert describe_move({"type": "take_card", "card": "R16"}, view, 0, NAMES) == "Take Red 9 onto cell 9"
    keep_old = describe_move({"type": "take_card", "card": "R16", "keep": "existing"}, view, 0, NAMES)
    keep_new = describe_move({"type": "take_card", "card": "R16", "keep": "new"}, view, 0, NAMES)
    assert keep_old != keep_new and "keep the card on cell 9 face up" in keep_old and "face up on cell 9" in keep_new
    assert describe_move({"type": "take_card", "card": "R16", "target_cell": 2}, view, 0, NAMES) \
        == "Take Red 9 and lay it face down on empty cell 2"
