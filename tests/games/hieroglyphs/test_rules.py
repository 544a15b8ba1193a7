"""Every rule of the spec beyond the S-scenarios: setup, movement, stops, actions, the end."""

from __future__ import annotations

import random

import pytest

from service.games.hieroglyphs import GAME
from service.games.hieroglyphs.data import ADJ, CELLS, TELEPORTS
from service.games.hieroglyphs.movement import check_path, legal_paths
from service.games.interface import IllegalMove
from tests.games.hieroglyphs.helpers import (
    CARD_IDS,
    TASK_IDS,
    A,
    B,
    C,
    D,
    arrange,
    at_turn,
    f2,
    rejected,
    run,
    started,
)

# --- setup (spec 4) -------------------------------------------------------------------------


@pytest.mark.parametrize("players,deck", [(2, 36), (3, 32), (4, 28)])
def test_setup_sizes_by_player_count(players, deck):
    s = started(players)
    assert len(s["deck"]) == deck and s["bank"] == 10 * players and s["coins"] == [0] * players
    assert all(len(h) == 4 for h in s["hands"]) and all(s["slots"][c] for c in s["slots"])
    assert s["phase"] == "setup_bases" and s["chooser"] == 0


def test_hands_are_dealt_in_blocks_of_four_from_the_first_player():
    s = started(3, first_player=2)
    assert s["hands"][2] == CARD_IDS[36:40] and s["hands"][0] == CARD_IDS[40:44] and s["hands"][1] == CARD_IDS[44:48]
    assert s["deck"] == CARD_IDS[48:] and s["chooser"] == 2


def test_unknown_base_is_refused():
    rejected(started(2), A, {"type": "choose_base", "base": "EMPEROR"}, "unknown_base")


def test_random_task_selection_deals_the_top_tasks_in_seat_order():
    s = started(3, first_player=1, task_selection="random")
    s = run(s, 1, {"type": "choose_base", "base": "TEACHER"})
    s = run(s, 2, {"type": "choose_base", "base": "GENERAL"})
    s = run(s, 0, {"type": "choose_base", "base": "MINISTER"})
    assert s["tasks"] == ["T03", "T01", "T02"] and s["task_deck"] == TASK_IDS[3:]
    assert s["phase"] == "play" and s["active"] == 1 and s["round"] == 1


def test_commands_before_the_start_and_a_second_start_are_refused():
    s = GAME.initial({}, 2)
    rejected(s, A, {"type": "choose_base", "base": "SPY"}, "not_started")
    rejected(s, A, {"type": "start"}, "system_only")
    s = run(s, None, {"type": "start"}, seed=3)
    rejected(s, None, {"type": "start"}, "already_started")


@pytest.mark.parametrize("command,code", [
    ({}, "bad_command"),
    ({"type": 3}, "bad_command"),
    ({"type": "fly"}, "unknown_command"),
    ({"type": "play_card"}, "bad_command"),
    ({"type": "play_card", "card": 7}, "bad_command"),
    ({"type": "play_card", "card": "一#1", "claim": "yes"}, "bad_command"),
    ({"type": "play_card", "card": "龙#1"}, "card_not_in_hand"),
    ({"type": "move", "path": []}, "wrong_phase"),
    ({"type": "blast", "block": "B1"}, "wrong_phase"),
    ({"type": "attach", "card": "一#1"}, "wrong_phase"),
    ({"type": "end_turn", "return": []}, "wrong_phase"),
    ({"type": "answer", "choice": 0}, "wrong_phase"),
    ({"type": "teleport", "to": None}, "wrong_phase"),
])
def test_junk_and_misplaced_commands_get_stable_codes(command, code):
    s = at_turn(f2(), A, "play", "P02", hands={A: ["一#1", "心#1", "意#1", "十#1"]})
    rejected(s, A, command, code)


def test_only_the_active_player_may_act():
    s = at_turn(f2(), A, "play", "P02", hands={A: ["一#1", "心#1", "意#1", "十#1"]})
    rejected(s, B, {"type": "play_card", "card": "口#1", "claim": False}, "not_your_turn")
    assert GAME.legal_moves(s, B) == []


# --- the card and the claim (spec 5.3, 9) -----------------------------------------------------


def test_a_claim_offers_the_gloss_and_three_eligible_distractors():
    from service.games.hieroglyphs.data import DEFAULT_CONTENT, distractors
    s = at_turn(f2(), A, "play", "P02", hands={A: ["心#1", "一#1", "意#1", "十#1"]})
    seen_index = set()
    for seed in range(30):
        event = GAME.decide(s, A, {"type": "play_card", "card": "心#1", "claim": True}, random.Random(seed))[0]
        options = event["challenge"]["options"]
        index = event["challenge"]["correct_index"]
        assert len(set(options)) == 4 and options[index] == "heart; mind"
        assert all(o in distractors(DEFAULT_CONTENT["chars"], "心") for i, o in enumerate(options) if i != index)
        seen_index.add(index)
    assert seen_index == {0, 1, 2, 3}           # the right answer's position is random


def test_no_answer_gives_no_coin_and_the_same_steps():
    s = at_turn(f2(claim_options={"火": ["oil", "fire", "lake", "half"]}), A, "play", "P02",
                hands={A: ["火#1", "油#1", "湖#1", "半#1"]}, coins={A: 4})
    s = run(s, A, {"type": "play_card", "card": "火#1", "claim": True})
    s = run(s, A, {"type": "answer", "choice": None})
    assert s["coins"][A] == 4 and s["turn"]["steps"] == 3 and s["deck"][-1] == "火#1"
    assert s["turn"]["claim"]["correct"] is False


def test_claims_switched_off_are_refused():
    s = at_turn(f2(meaning_check="off"), A, "play", "P02", hands={A: ["一#1", "心#1", "意#1", "十#1"]})
    rejected(s, A, {"type": "play_card", "card": "一#1", "claim": True}, "invalid_option")
    assert all(m["claim"] is False for m in GAME.legal_moves(s, A))


# --- movement (spec 3.3) ----------------------------------------------------------------------


def _all_walks(start, max_len):
    walks = [[]]
    frontier = [[]]
    for _ in range(max_len):
        frontier = [[*w, nxt] for w in frontier for nxt in ADJ[w[-1] if w else start]]
        walks += frontier
    return walks


@pytest.mark.parametrize("start", sorted(CELLS))
def test_enumerated_paths_are_exactly_the_accepted_ones(start):
    for steps in range(5):
        accepted = []
        for walk in _all_walks(start, steps):
            try:
                check_path(start, steps, walk)
                accepted.append(walk)
            except IllegalMove:
                pass
        listed = legal_paths(start, steps)
        assert sorted(accepted) == sorted(listed)
        assert listed, f"no legal path from {start} with {steps} steps"
        assert all(start not in p for p in listed)


def test_early_stop_only_at_a_spokes_ends():
    check_path("N2", 4, ["N1", "P04"])           # outward to the teleport: the rest is lost
    check_path("N2", 4, ["N3", "EMP"])           # inward to the Emperor
    with pytest.raises(IllegalMove) as err:
        check_path("N2", 4, ["N1"])
    assert err.value.code == "wrong_step_count"
    with pytest.raises(IllegalMove) as err:
        check_path("P02", 4, ["P03", "P04"])     # a teleport on the ring is no stop
    assert err.value.code == "wrong_step_count"
    with pytest.raises(IllegalMove) as err:
        check_path("N2", 4, ["N1", "P04", "P05"])
    assert getattr(err.value, "reason", None) == "mixed_circles"


def test_unknown_cells_and_jumps_are_not_adjacent():
    for path in (["P06"], ["XX"], ["P12"]):
        with pytest.raises(IllegalMove) as err:
            check_path("P04", 1, path)
        assert err.value.reason == "not_adjacent"
    for t in TELEPORTS:
        assert legal_paths(t, 1) and len(legal_paths(t, 2)) == 3   # two ring directions and the spoke


def test_empty_path_needs_zero_steps():
    with pytest.raises(IllegalMove) as err:
        check_path("P02", 2, [])
    assert err.value.code == "wrong_step_count"


def test_figures_never_block_each_other():
    s = at_turn(f2(), A, "play", "P02", positions={B: "P05"}, hands={A: ["北#1", "一#1", "心#1", "意#1"]})
    s = run(s, A, {"type": "play_card", "card": "北#1", "claim": False})
    s = run(s, A, {"type": "move", "path": ["P03", "P04", "P05"]})
    assert s["positions"] == ["P05", "P05"]


# --- stops (spec 5.5) -------------------------------------------------------------------------


def test_landing_on_an_empty_slot_refills_it_and_draws_the_player_back_to_four():
    s = at_turn(f2(), A, "play", "P00", hands={A: ["三#1", "一#1", "心#1", "意#1"]}, slots={"P01": None},
                deck=["春#1", "夏#1"])
    s = run(s, A, {"type": "play_card", "card": "三#1", "claim": False})
    s = run(s, A, {"type": "move", "path": ["P01"]})
    assert s["slots"]["P01"] == "春#1" and set(s["hands"][A]) == {"一#1", "心#1", "意#1", "夏#1"}
    assert s["deck"] == ["三#1"]


def test_a_base_refills_the_hand_before_its_action():
    s = at_turn(f2(), A, "play", "P31", hands={A: ["三#1", "一#1", "心#1", "意#1"]}, deck=["春#1", "夏#1"])
    s = run(s, A, {"type": "play_card", "card": "三#1", "claim": False})
    s = run(s, A, {"type": "move", "path": ["P00"]})
    assert s["phase"] == "base" and set(s["hands"][A]) == {"一#1", "心#1", "意#1", "春#1"}
    assert any(m["type"] == "study" for m in GAME.legal_moves(s, A))


def test_a_teleport_jump_triggers_nothing_more():
    s = at_turn(f2(), A, "teleport", "P04", turn={"steps": 2})
    s = run(s, A, {"type": "teleport", "to": "P12"})
    assert s["positions"][A] == "P12" and s["active"] == B and s["phase"] == "play"


# --- actions (spec 5.6, 5.7) ------------------------------------------------------------------


def test_ten_coins_buy_at_most_five_actions():
    s = at_turn(f2(), A, "base", "P08", coins={A: 10})
    for block in ("B1", "B2", "B3", "B4", "B5"):
        s = run(s, A, {"type": "blast", "block": block})
    assert s["coins"][A] == 0 and s["bank"] == 20 and s["turn"]["actions"] == 5
    rejected(s, A, {"type": "blast", "block": "B6"}, "insufficient_yuanka")


def test_the_counter_resets_each_turn():
    s = at_turn(f2(), A, "base", "P08", coins={A: 10}, turn={"actions": 4, "blasted": ["B1"]})
    s = run(s, A, {"type": "end_turn", "return": []})
    assert s["turn"]["actions"] == 0 and s["turn"]["blasted"] == []


def test_view_task_shows_the_answer_to_its_owner_only():
    s = at_turn(f2(), A, "base", "P00", coins={A: 1})
    s = run(s, A, {"type": "view_task"})
    assert s["coins"][A] == 1 and s["task_viewed"][A]
    assert GAME.view(s, A)["tasks"][A]["answer"] == "天长地久"
    assert GAME.view(s, A)["tasks"][A]["pinyin"] == "tiān cháng dì jiǔ"
    assert GAME.view(s, B)["tasks"][A]["answer"] is None and GAME.view(s, None)["tasks"][A]["answer"] is None
    rejected(s, A, {"type": "view_task"}, "task_already_viewed")
    no_task = at_turn(f2(), A, "base", "P00", tasks={A: None})
    rejected(no_task, A, {"type": "view_task"}, "no_active_task")


def test_a_blast_with_a_short_deck_brings_some_of_the_blocks_cards_back():
    s = at_turn(f2(), A, "base", "P08", slots={"P01": "东#1", "P02": "南#1", "P03": "西#1"}, deck=["春#1"])
    s = run(s, A, {"type": "blast", "block": "B1"})
    assert [s["slots"][c] for c in ("P01", "P02", "P03")] == ["春#1", "东#1", "南#1"] and s["deck"] == ["西#1"]


def test_a_blast_on_an_empty_block_with_an_empty_deck_is_still_an_action():
    s = at_turn(f2(), A, "base", "P08", slots={"P01": None, "P02": None, "P03": None}, deck=[], coins={A: 2},
                turn={"actions": 1})
    s = run(s, A, {"type": "blast", "block": "B1"})
    assert s["coins"][A] == 1 and s["turn"]["actions"] == 2 and s["slots"]["P01"] is None


def test_minister_takes_what_is_left_and_an_open_pool_closes_at_turn_end():
    s = at_turn(f2(), A, "base", "P16", hands={A: ["七#1", "八#1", "五#1", "四#1"]}, deck=["春#1", "夏#1"])
    s = run(s, A, {"type": "minister_draw", "from": "bottom"})
    assert s["turn"]["pool"] == ["春#1", "夏#1"] and s["deck"] == []
    rejected(s, A, {"type": "minister_resolve", "swaps": [["七#1", "秋#1"]]}, "invalid_swap")
    rejected(s, A, {"type": "minister_resolve", "swaps": [["七#1", "春#1"], ["八#1", "春#1"]]}, "invalid_swap")
    rejected(s, A, {"type": "minister_resolve", "swaps": [["龙#1", "春#1"]]}, "invalid_swap")
    s = run(s, A, {"type": "end_turn", "return": []})
    assert s["deck"] == ["春#1", "夏#1"] and s["turn"]["pool"] is None and s["hands"][A] == ["七#1", "八#1", "五#1", "四#1"]


def test_minister_may_buy_a_new_pool_after_resolving():
    s = at_turn(f2(), A, "base", "P16", coins={A: 3}, deck=["春#1", "夏#1", "秋#1", "冬#1"])
    s = run(s, A, {"type": "minister_draw", "from": "top"})
    s = run(s, A, {"type": "minister_resolve", "swaps": []})
    assert s["deck"] == ["冬#1", "春#1", "夏#1", "秋#1"] and s["turn"]["actions"] == 1
    s = run(s, A, {"type": "minister_draw", "from": "top"})
    assert s["coins"][A] == 2 and s["turn"]["pool"] == ["冬#1", "春#1", "夏#1"]


def test_attach_needs_a_task_and_an_empty_declaration_is_a_costly_task_swap():
    s = at_turn(f2(), A, "emperor", "EMP", tasks={A: None})
    rejected(s, A, {"type": "attach", "card": s["hands"][A][0]}, "no_active_task")
    rejected(s, A, {"type": "declare", "order": []}, "no_active_task")
    s = at_turn(f2(), A, "emperor", "EMP", task_deck=["T01", "T02"])
    s = run(s, A, {"type": "declare", "order": []})
    assert s["tasks"][A] == "T01" and s["task_deck"] == ["T02", "T10"] and s["completed"][A] == []
    assert GAME.view(s, None)["turn"]["declarations"][0]["task"]["answer"] == "天长地久"


def test_base_actions_at_the_emperor_and_emperor_actions_at_a_base_are_refused():
    s = at_turn(f2(), A, "emperor", "EMP")
    rejected(s, A, {"type": "blast", "block": "B1"}, "action_not_available_here")
    s = at_turn(f2(), A, "base", "P08")
    rejected(s, A, {"type": "attach", "card": s["hands"][A][0]}, "action_not_available_here")
    rejected(s, A, {"type": "spy_swap", "own_card": s["hands"][A][0], "target": B, "target_card": "x"},
             "action_not_available_here")


def test_after_a_correct_declaration_the_player_keeps_buying_at_the_next_price():
    s = at_turn(f2(), A, "emperor", "EMP", coins={A: 1}, tasks={A: "T01"},
                attached={A: ["东#1", "南#1", "西#1", "北#1"]}, hands={A: ["一#1"]}, task_deck=["T07"])
    s = run(s, A, {"type": "declare", "order": ["东#1", "南#1", "西#1", "北#1"]})
    s = run(s, A, {"type": "attach", "card": "一#1"})
    assert s["coins"][A] == 0 and s["attached"][A] == ["一#1"] and s["tasks"][A] == "T07"
    assert s["task_viewed"][A] is False


def test_a_failed_task_stays_when_the_task_deck_is_empty_and_its_answer_is_public():
    s = at_turn(f2(), A, "emperor", "EMP", tasks={A: "T01"}, attached={A: ["南#1"]}, task_deck=[],
                task_viewed={A: True})
    s = run(s, A, {"type": "declare", "order": ["南#1"]})
    assert s["tasks"][A] == "T01" and s["task_deck"] == [] and s["deck"][-1] == "南#1"
    assert GAME.view(s, B)["tasks"][A]["answer"] == "东南西北"


def test_matching_is_by_character_not_by_copy():
    s = at_turn(f2(), A, "emperor", "EMP", tasks={A: "T03"}, attached={A: ["一#3", "心#4", "一#1", "意#2"]},
                task_deck=["T05"])
    s = run(s, A, {"type": "declare", "order": ["一#3", "心#4", "一#1", "意#2"]})
    assert s["completed"][A] == ["T03"]


def test_end_turn_refuses_returns_when_there_is_no_surplus():
    s = at_turn(f2(), A, "base", "P08")
    rejected(s, A, {"type": "end_turn", "return": [s["hands"][A][0]]}, "return_count_mismatch")


def test_returned_surplus_must_be_distinct_cards_in_hand():
    s = at_turn(f2(), A, "emperor", "EMP", hands={A: ["七#1", "八#1", "下#1", "上#1", "五#1", "湖#1"]})
    rejected(s, A, {"type": "end_turn", "return": ["五#1", "五#1"]}, "return_count_mismatch")
    rejected(s, A, {"type": "end_turn", "return": ["五#1", "火#1"]}, "return_count_mismatch")
    s = run(s, A, {"type": "end_turn", "return": ["湖#1", "五#1"]})
    assert s["deck"][-2:] == ["湖#1", "五#1"] and len(s["hands"][A]) == 4


# --- the end (spec 6) -------------------------------------------------------------------------


def _rounds_game(**opts):
    s = started(2, mode="rounds", round_limit=2, **opts)
    s = run(s, A, {"type": "choose_base", "base": "GENERAL"})
    s = run(s, B, {"type": "choose_base", "base": "SPY"})
    s = run(s, A, {"type": "pick_task", "task": "T10"})
    return run(s, B, {"type": "pick_task", "task": "T11"})


def test_rounds_mode_ends_after_the_last_seat_of_the_last_round():
    s = at_turn(_rounds_game(), B, "base", "P24", completed={A: ["T01"], B: ["T02"]}, coins={A: 1, B: 3},
                hands={A: ["一#1", "心#1"]})
    s = run(s, B, {"type": "end_turn", "return": []})
    assert s["phase"] == "over" and s["round"] == 2 and s["result"]["reason"] == "ROUND_LIMIT"
    assert s["hands"][A] == ["一#1", "心#1"]      # the next seat's turn start did not run
    st = GAME.status(s)
    assert st["result"] == {"scores": [1, 1], "ranking": [B, A], "winners": [B], "ranks": [2, 1]}


def test_level_players_share_the_win():
    s = at_turn(_rounds_game(), B, "base", "P24", completed={A: ["T01"], B: ["T02"]}, coins={A: 2, B: 2})
    s = run(s, B, {"type": "end_turn", "return": []})
    assert s["result"]["winners"] == [A, B] and s["result"]["ranking"] == [[A, B]]
    assert GAME.status(s)["result"]["ranks"] == [1, 1]


def test_rounds_mode_does_not_end_before_the_limit():
    s = at_turn(_rounds_game(), B, "base", "P24", round=1)
    s = run(s, B, {"type": "end_turn", "return": []})
    assert s["phase"] == "play" and s["round"] == 2 and s["active"] == A


def test_target_mode_ends_at_max_rounds():
    s = at_turn(f2(max_rounds=3), B, "base", "P24", round=3, completed={A: ["T01"]})
    s = run(s, B, {"type": "end_turn", "return": []})
    assert s["result"]["reason"] == "MAX_ROUNDS" and s["result"]["winners"] == [A]


def test_no_tasks_left_ends_the_game_at_once():
    s = at_turn(f2(target=10), A, "emperor", "EMP", tasks={A: "T01", B: None}, task_deck=[],
                attached={A: ["东#1", "南#1", "西#1", "北#1"]}, hands={A: ["一#1"]})
    s = run(s, A, {"type": "declare", "order": ["东#1", "南#1", "西#1", "北#1"]})
    assert s["result"]["reason"] == "NO_TASKS" and s["result"]["winners"] == [A] and s["hands"][A] == ["一#1"]


def test_empty_hands_with_an_empty_deck_pass_automatically_until_stalled():
    s = at_turn(f2(), A, "emperor", "EMP", hands={A: [], B: []}, deck=[])
    s = run(s, A, {"type": "end_turn", "return": []})
    assert s["phase"] == "over" and s["result"]["reason"] == "STALLED"


def test_an_automatic_pass_moves_on_and_a_played_turn_resets_the_count():
    s = started(3)
    s = at_turn(s, A, "emperor", "EMP", hands={A: ["一#1"], B: [], C: ["心#1"]}, deck=[], round=2,
                tasks={A: "T01", B: "T02", C: "T03"})
    s = run(s, A, {"type": "end_turn", "return": []})
    assert s["active"] == C and s["phase"] == "play" and s["passes"] == 0 and s["round"] == 2


def test_the_target_winner_ranks_first_and_the_rest_by_answers_then_coins():
    s = started(4)
    s = at_turn(s, C, "emperor", "EMP", completed={C: ["T05"], A: ["T06"]}, coins={B: 4, D: 2},
                tasks={C: "T02"}, attached={C: ["春#1", "夏#1", "秋#1", "冬#1"]})
    s = run(s, C, {"type": "declare", "order": ["春#1", "夏#1", "秋#1", "冬#1"]})
    assert GAME.status(s)["result"] == {"scores": [1, 0, 2, 0], "ranking": [C, A, B, D], "winners": [C],
                                        "ranks": [2, 3, 1, 4]}


def test_game_over_refuses_everything():
    s = arrange(f2(), phase="over", active=None, result={"reason": "STALLED", "winners": [A, B],
                                                          "ranking": [[A, B]], "scores": [0, 0]})
    rejected(s, A, {"type": "play_card", "card": "x", "claim": False}, "game_over")
    rejected(s, None, {"type": "start"}, "game_over")
    assert GAME.legal_moves(s, A) == []


# --- recorded outcomes and the system's timeout (spec 8, 9.4) -------------------------------


def test_malformed_recorded_outcomes_are_server_bugs():
    s = GAME.initial({}, 2)
    with pytest.raises(ValueError):
        GAME.evolve(s, {"type": "setup_shuffled", "deck_order": CARD_IDS[:-1], "task_order": TASK_IDS,
                        "first_player": 0})
    s = at_turn(f2(), A, "play", "P02", hands={A: ["火#1", "油#1", "湖#1", "半#1"]})
    for challenge in ({"options": ["oil", "fire", "lake", "half"], "correct_index": 0},
                      {"options": ["oil", "fire", "lake", "lake"], "correct_index": 1},
                      {"options": ["oil", "fire", "lake", "hot fire"], "correct_index": 1}):
        with pytest.raises(ValueError):
            GAME.evolve(s, {"type": "card_played", "seat": A, "card": "火#1", "claim": True, "challenge": challenge})


def test_the_system_times_out_a_pending_claim():
    s = at_turn(f2(claim_options={"火": ["oil", "fire", "lake", "half"]}), A, "play", "P02",
                hands={A: ["火#1", "油#1", "湖#1", "半#1"]}, coins={A: 1})
    rejected(s, None, {"type": "timeout"}, "nothing_to_time_out")
    s = run(s, A, {"type": "play_card", "card": "火#1", "claim": True})
    rejected(s, A, {"type": "timeout"}, "system_only")
    s = run(s, None, {"type": "timeout"})
    assert s["coins"][A] == 1 and s["phase"] == "move" and s["turn"]["claim"]["choice"] is None
