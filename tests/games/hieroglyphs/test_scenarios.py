"""The test scenarios of the spec (section 11), S01-S25, one test each (some in parts).

Hands and attached cards compare as sets; decks, pools and task decks as ordered lists.
"""

from __future__ import annotations

import msgpack
import pytest

from service.games.hieroglyphs import GAME
from service.games.hieroglyphs.data import DEFAULT_CONTENT_RAW
from tests.games.hieroglyphs.helpers import (
    TASK_IDS,
    A,
    B,
    C,
    D,
    at_turn,
    f2,
    rejected,
    run,
    run_events,
    started,
)


def hand(s, seat):
    return set(s["hands"][seat])


def test_s01_increasing_cost_at_the_general():
    s = at_turn(f2(), A, "base", "P08", coins={A: 3, B: 0})
    assert s["bank"] == 17 and len(s["deck"]) >= 12
    s = run(s, A, {"type": "blast", "block": "B1"})
    assert s["coins"][A] == 3 and s["turn"]["actions"] == 1
    s = run(s, A, {"type": "blast", "block": "B2"})
    assert s["coins"][A] == 2 and s["bank"] == 18
    s = run(s, A, {"type": "blast", "block": "B3"})
    assert s["coins"][A] == 0 and s["bank"] == 20 and s["turn"]["actions"] == 3
    rejected(s, A, {"type": "blast", "block": "B4"}, "insufficient_yuanka")


def test_s02_price_resets_next_turn_and_argument_errors_come_first():
    s = at_turn(f2(), A, "base", "P08", coins={A: 3, B: 0})
    for block in ("B1", "B2", "B3"):
        s = run(s, A, {"type": "blast", "block": block})
    assert s["turn"]["actions"] == 3
    s = run(s, A, {"type": "end_turn", "return": []})
    assert s["active"] == B and s["turn"]["actions"] == 0
    # A later turn of A: stopped on the Teacher, hand refilled.
    s = at_turn(s, A, "base", "P00", hands={A: ["七#1", "八#1", "五#1", "四#1"]})
    assert s["coins"][A] == 0
    s = run(s, A, {"type": "study", "card": "七#1"})
    assert s["coins"][A] == 0 and "七#1" in s["studied"][A]
    assert GAME.view(s, A)["you"]["learned"]["七"]["pinyin"] == "qī"
    rejected(s, A, {"type": "study", "card": "八#1"}, "insufficient_yuanka")
    rejected(s, A, {"type": "study", "card": "七#1"}, "card_already_studied")
    rejected(s, A, {"type": "blast", "block": "B1"}, "action_not_available_here")


def test_s03_general_cannot_hit_the_same_block_twice_in_a_turn():
    s = at_turn(f2(), A, "base", "P08", coins={A: 5}, turn={"actions": 1, "blasted": ["B1"]})
    err = rejected(s, A, {"type": "blast", "block": "B1"}, "block_already_blasted")
    assert err and s["coins"][A] == 5
    rejected(s, A, {"type": "blast", "block": "B13"}, "unknown_block")
    s = run(s, A, {"type": "blast", "block": "B9"})
    assert s["coins"][A] == 4 and s["turn"]["blasted"] == ["B1", "B9"] and s["turn"]["actions"] == 2


def test_s04_blast_card_flow():
    s = at_turn(f2(), A, "base", "P08", slots={"N1": "人#1", "N2": "山#1", "N3": "人#2"},
                deck=["春#1", "夏#1", "秋#1", "冬#1"], coins={A: 2})
    s = run(s, A, {"type": "blast", "block": "B9"})
    assert [s["slots"][c] for c in ("N1", "N2", "N3")] == ["春#1", "夏#1", "秋#1"]
    assert s["deck"] == ["冬#1", "人#1", "山#1", "人#2"]
    assert s["coins"][A] == 2


def _s05_before():
    return at_turn(f2(), A, "play", "P02", hands={A: ["一#1", "心#1", "意#1", "十#1"]}, deck=["山#2", "水#1"])


def test_s05_teleport_jump_and_hand_refill():
    s = run(_s05_before(), A, {"type": "play_card", "card": "十#1", "claim": False})
    assert hand(s, A) == {"一#1", "心#1", "意#1"}
    assert s["deck"] == ["山#2", "水#1", "十#1"] and s["turn"]["steps"] == 2 and s["phase"] == "move"
    s = run(s, A, {"type": "move", "path": ["P03", "P04"]})
    assert s["positions"][A] == "P04" and s["phase"] == "teleport" and len(s["hands"][A]) == 3
    rejected(s, A, {"type": "teleport", "to": "P04"}, "invalid_teleport_target")
    rejected(s, A, {"type": "teleport", "to": "P16"}, "invalid_teleport_target")
    jumped = run(s, A, {"type": "teleport", "to": "P20"})
    assert jumped["positions"][A] == "P20"
    assert hand(jumped, A) == {"一#1", "心#1", "意#1", "山#2"} and jumped["deck"] == ["水#1", "十#1"]
    assert jumped["active"] == B and jumped["phase"] == "play"
    # Variant: stay on the teleport, with the same draw.
    stayed = run(s, A, {"type": "teleport", "to": None})
    assert stayed["positions"][A] == "P04"
    assert hand(stayed, A) == {"一#1", "心#1", "意#1", "山#2"} and stayed["deck"] == ["水#1", "十#1"]
    assert stayed["active"] == B


def test_s06_passing_a_teleport_the_figure_may_not_turn_into_the_spoke():
    s = at_turn(f2(), A, "play", "P02", hands={A: ["北#1", "一#1", "心#1", "意#1"]})
    s = run(s, A, {"type": "play_card", "card": "北#1", "claim": False})
    assert s["turn"]["steps"] == 3
    rejected(s, A, {"type": "move", "path": ["P03", "P04", "N1"]}, "illegal_path", "mixed_circles")
    s = run(s, A, {"type": "move", "path": ["P03", "P04", "P05"]})
    assert s["positions"][A] == "P05" and s["active"] == B


def test_s07a_entering_a_spoke_from_a_teleport():
    s = at_turn(f2(), A, "play", "P04", hands={A: ["夏#1", "一#1", "心#1", "意#1"]})
    s = run(s, A, {"type": "play_card", "card": "夏#1", "claim": False})
    s = run(s, A, {"type": "move", "path": ["N1", "N2", "N3", "EMP"]})
    assert s["phase"] == "emperor" and s["turn"]["actions"] == 0
    assert len(s["hands"][A]) == 3              # no refill on arrival at the Emperor


def test_s07b_the_emperor_ends_a_move():
    s = at_turn(f2(), A, "play", "N1", hands={A: ["夏#1", "一#1", "心#1", "意#1"]})
    s = run(s, A, {"type": "play_card", "card": "夏#1", "claim": False})
    rejected(s, A, {"type": "move", "path": ["N2", "N3", "EMP", "E3"]}, "illegal_path", "passes_emperor")
    s = run(s, A, {"type": "move", "path": ["N2", "N3", "EMP"]})
    assert s["positions"][A] == "EMP" and s["phase"] == "emperor"


def test_s07c_leaving_the_emperor_along_a_spoke():
    s = at_turn(f2(), A, "play", "EMP", hands={A: ["二#1", "一#1", "心#1", "意#1"]})
    s = run(s, A, {"type": "play_card", "card": "二#1", "claim": False})
    s = run(s, A, {"type": "move", "path": ["S3", "S2", "S1", "P20"]})
    assert s["positions"][A] == "P20" and s["phase"] == "teleport"


def test_s08_exact_step_count_on_the_ring_and_no_reversal():
    s = at_turn(f2(), A, "play", "P00", hands={A: ["地#1", "一#1", "心#1", "意#1"]})
    s = run(s, A, {"type": "play_card", "card": "地#1", "claim": False})
    assert s["turn"]["steps"] == 4
    rejected(s, A, {"type": "move", "path": ["P01", "P02", "P03"]}, "wrong_step_count")
    rejected(s, A, {"type": "move", "path": ["P01", "P02", "P01", "P00"]}, "illegal_path", "reversal")
    rejected(s, A, {"type": "move", "path": ["P01", "P02", "P03", "P04", "P05"]}, "wrong_step_count")
    s = run(s, A, {"type": "move", "path": ["P31", "P30", "P29", "P28"]})
    assert s["positions"][A] == "P28" and s["phase"] == "teleport"


FIRE_OPTIONS = {"火": ["oil", "fire", "lake", "half"]}


def _s09_claimed():
    s = at_turn(f2(claim_options=FIRE_OPTIONS), A, "play", "P02", coins={A: 2, B: 0},
                hands={A: ["火#1", "油#1", "湖#1", "半#1"]}, deck=["清#1"])
    assert s["bank"] == 18
    s, events = run_events(s, A, {"type": "play_card", "card": "火#1", "claim": True})
    assert events[0]["challenge"] == {"options": ["oil", "fire", "lake", "half"], "correct_index": 1}
    return s


def test_s09_correct_meaning_claim():
    s = _s09_claimed()
    assert s["phase"] == "meaning" and hand(s, A) == {"油#1", "湖#1", "半#1"}
    assert s["deck"] == ["清#1"]                  # not drowned before the claim is settled
    s = run(s, A, {"type": "answer", "choice": 1})
    assert s["coins"][A] == 3 and s["bank"] == 17
    assert s["deck"] == ["清#1", "火#1"] and s["turn"]["steps"] == 3 and s["phase"] == "move"


def test_s10_wrong_meaning_claim_and_claim_errors():
    s = _s09_claimed()
    rejected(s, B, {"type": "answer", "choice": 1}, "not_your_turn")
    rejected(s, A, {"type": "answer", "choice": 4}, "invalid_option")
    s = run(s, A, {"type": "answer", "choice": 0})
    assert s["coins"][A] == 2 and s["bank"] == 18
    assert s["deck"] == ["清#1", "火#1"] and s["turn"]["steps"] == 3 and s["phase"] == "move"


def test_s11_the_coin_cap():
    s = at_turn(f2(claim_options=FIRE_OPTIONS), A, "play", "P02", coins={A: 10, B: 3},
                hands={A: ["火#1", "油#1", "湖#1", "半#1"]})
    assert s["bank"] == 7
    s = run(s, A, {"type": "play_card", "card": "火#1", "claim": True})
    s = run(s, A, {"type": "answer", "choice": 1})
    assert s["coins"][A] == 10 and s["bank"] == 7 and s["turn"]["steps"] == 3


def test_s12_emperor_actions_under_increasing_cost_and_refill_at_turn_end():
    s = at_turn(f2(), A, "emperor", "EMP", hands={A: ["东#1", "南#1", "西#1"]}, tasks={A: "T01"},
                coins={A: 3, B: 0}, deck=["山#1", "清#1", "水#1", "秀#1", "日#1", "一#1"])
    assert s["bank"] == 17
    s = run(s, A, {"type": "attach", "card": "东#1"})
    assert s["coins"][A] == 3
    s = run(s, A, {"type": "attach", "card": "南#1"})
    assert s["coins"][A] == 2 and s["bank"] == 18
    s = run(s, A, {"type": "attach", "card": "西#1"})
    assert s["coins"][A] == 0 and s["bank"] == 20 and s["hands"][A] == []
    rejected(s, A, {"type": "declare", "order": ["东#1", "南#1", "西#1"]}, "insufficient_yuanka")
    rejected(s, A, {"type": "attach", "card": "北#1"}, "card_not_in_hand")
    s = run(s, A, {"type": "end_turn", "return": []})
    assert hand(s, A) == {"山#1", "清#1", "水#1", "秀#1"} and s["deck"] == ["日#1", "一#1"]
    assert set(s["attached"][A]) == {"东#1", "南#1", "西#1"} and s["tasks"][A] == "T01"
    assert s["active"] == B


def _s13_before(**parts):
    parts.setdefault("attached", {A: ["东#1", "西#1", "南#1", "北#1"]})
    parts.setdefault("hands", {A: ["一#2", "二#1", "三#1"]})
    return at_turn(f2(), A, "emperor", "EMP", coins={A: 0}, tasks={A: "T01"}, completed={A: []},
                   task_deck=["T07", "T12"], deck=["海#1", "湖#1"], **parts)


def test_s13_correct_declaration_that_does_not_win():
    s = run(_s13_before(), A, {"type": "declare", "order": ["东#1", "南#1", "西#1", "北#1"]})
    assert s["completed"][A] == ["T01"]
    assert set(s["removed"]) == {"东#1", "南#1", "西#1", "北#1"}
    assert s["tasks"][A] == "T07" and s["task_deck"] == ["T12"] and s["attached"][A] == []
    assert s["turn"]["actions"] == 1 and s["phase"] == "emperor" and not GAME.status(s)["finished"]
    s = run(s, A, {"type": "end_turn", "return": []})
    assert hand(s, A) == {"一#2", "二#1", "三#1", "海#1"} and s["deck"] == ["湖#1"] and s["active"] == B


def test_s14_right_cards_wrong_order():
    s = run(_s13_before(), A, {"type": "declare", "order": ["北#1", "南#1", "西#1", "东#1"]})
    assert s["deck"] == ["海#1", "湖#1", "北#1", "南#1", "西#1", "东#1"]
    assert s["tasks"][A] == "T07" and s["task_deck"] == ["T12", "T01"]
    assert s["completed"][A] == [] and s["attached"][A] == [] and s["turn"]["actions"] == 1


def test_s15_order_lists_every_attached_card_and_an_extra_card_is_wrong():
    s = _s13_before(attached={A: ["东#1", "南#1", "西#1", "北#1", "一#2"]}, hands={A: ["二#1", "三#1"]})
    rejected(s, A, {"type": "declare", "order": ["东#1", "南#1", "西#1", "北#1"]}, "order_not_permutation")
    s, events = run_events(s, A, {"type": "declare", "order": ["东#1", "南#1", "西#1", "北#1", "一#2"]})
    assert events[0]["correct"] is False
    assert s["deck"] == ["海#1", "湖#1", "东#1", "南#1", "西#1", "北#1", "一#2"]
    assert s["tasks"][A] == "T07" and s["task_deck"] == ["T12", "T01"]


def test_s16_detaching_then_returning_surplus_at_turn_end():
    s = at_turn(f2(), A, "emperor", "EMP", coins={A: 1}, hands={A: ["七#1", "八#1", "下#1"]},
                tasks={A: "T16"}, attached={A: ["上#1", "五#1"]}, deck=["湖#1"])
    s = run(s, A, {"type": "detach", "card": "上#1"})
    assert s["coins"][A] == 1 and len(s["hands"][A]) == 4
    s = run(s, A, {"type": "detach", "card": "五#1"})
    assert s["coins"][A] == 0 and hand(s, A) == {"七#1", "八#1", "下#1", "上#1", "五#1"}
    rejected(s, A, {"type": "detach", "card": "上#1"}, "card_not_attached")
    rejected(s, A, {"type": "end_turn", "return": []}, "must_return_cards")
    rejected(s, A, {"type": "end_turn", "return": ["八#1", "五#1"]}, "return_count_mismatch")
    s = run(s, A, {"type": "end_turn", "return": ["五#1"]})
    assert hand(s, A) == {"七#1", "八#1", "下#1", "上#1"} and s["deck"] == ["湖#1", "五#1"] and s["active"] == B


def test_s17_the_deck_runs_dry_during_a_slot_stop():
    s = at_turn(f2(), A, "play", "P02", hands={A: ["水#1", "火#1", "油#1", "湖#1"]}, deck=[],
                slots={"P05": "山#2"})
    s = run(s, A, {"type": "play_card", "card": "水#1", "claim": False})
    assert s["deck"] == ["水#1"] and s["turn"]["steps"] == 3
    s = run(s, A, {"type": "move", "path": ["P03", "P04", "P05"]})
    assert hand(s, A) == {"火#1", "油#1", "湖#1", "山#2"}
    assert s["slots"]["P05"] == "水#1" and s["deck"] == [] and s["active"] == B


def test_s18_empty_deck_at_a_base_and_minister_rejected_without_charge():
    s = at_turn(f2(), A, "play", "P13", hands={A: ["五#1", "四#1", "湖#1", "油#1"]}, deck=[], coins={A: 2})
    s = run(s, A, {"type": "play_card", "card": "五#1", "claim": False})
    assert s["deck"] == ["五#1"] and s["turn"]["steps"] == 3
    s = run(s, A, {"type": "move", "path": ["P14", "P15", "P16"]})
    assert hand(s, A) == {"四#1", "湖#1", "油#1", "五#1"} and s["deck"] == [] and s["phase"] == "base"
    rejected(s, A, {"type": "minister_draw", "from": "top"}, "deck_empty")
    assert s["coins"][A] == 2 and s["turn"]["actions"] == 0
    s = run(s, A, {"type": "end_turn", "return": []})
    assert s["active"] == B


def test_s19_minister_draws_from_top_and_bottom_pays_and_swaps_in_place():
    s = at_turn(f2(), A, "base", "P16", coins={A: 1}, hands={A: ["七#1", "八#1", "五#1", "四#1"]},
                deck=["春#1", "夏#1", "秋#1", "冬#1", "东#1", "南#1", "西#1", "北#1"])
    s = run(s, A, {"type": "minister_draw", "from": "top"})
    assert s["turn"]["pool"] == ["春#1", "夏#1", "秋#1"] and s["deck"] == ["冬#1", "东#1", "南#1", "西#1", "北#1"]
    assert s["coins"][A] == 1
    s = run(s, A, {"type": "minister_draw", "from": "bottom"})
    assert s["coins"][A] == 0
    assert s["turn"]["pool"] == ["春#1", "夏#1", "秋#1", "南#1", "西#1", "北#1"] and s["deck"] == ["冬#1", "东#1"]
    s = run(s, A, {"type": "minister_resolve", "swaps": [["七#1", "夏#1"], ["五#1", "西#1"]]})
    assert hand(s, A) == {"夏#1", "八#1", "西#1", "四#1"}
    assert s["deck"] == ["冬#1", "东#1", "春#1", "七#1", "秋#1", "南#1", "五#1", "北#1"]
    assert s["turn"]["pool"] is None
    rejected(s, A, {"type": "minister_resolve", "swaps": []}, "no_open_pool")
    rejected(s, A, {"type": "minister_draw", "from": "top"}, "insufficient_yuanka")


def test_s20_spy():
    s = at_turn(f2(), A, "base", "P24", coins={A: 0},
                hands={A: ["一#1", "二#1", "三#1", "四#1"], B: ["五#1", "七#1", "八#1", "十#1"]})
    s = run(s, A, {"type": "spy_swap", "own_card": "二#1", "target": B, "target_card": "八#1"})
    assert hand(s, A) == {"一#1", "八#1", "三#1", "四#1"} and hand(s, B) == {"五#1", "七#1", "二#1", "十#1"}
    assert s["turn"]["actions"] == 1 and s["coins"][A] == 0
    rejected(s, A, {"type": "spy_swap", "own_card": "一#1", "target": B, "target_card": "火#1"},
             "card_not_in_target_hand")
    rejected(s, A, {"type": "spy_swap", "own_card": "一#1", "target": A, "target_card": "三#1"},
             "spy_target_invalid")
    rejected(s, A, {"type": "spy_swap", "own_card": "一#1", "target": B, "target_card": "五#1"},
             "insufficient_yuanka")


def test_s21_instant_win_with_four_players():
    s = started(4)
    assert s["options"]["target"] == 2
    s = at_turn(s, A, "emperor", "EMP", completed={A: ["T05"]}, coins={A: 3}, turn={"actions": 2},
                tasks={A: "T02"}, attached={A: ["春#1", "夏#1", "秋#1", "冬#1"]}, hands={A: ["一#1"]})
    s = run(s, A, {"type": "declare", "order": ["春#1", "夏#1", "秋#1", "冬#1"]})
    assert s["coins"][A] == 1 and s["completed"][A] == ["T05", "T02"]
    assert s["phase"] == "over" and s["result"]["winners"] == [A] and s["result"]["reason"] == "TARGET_REACHED"
    assert s["hands"][A] == ["一#1"]             # no hand normalisation
    st = GAME.status(s)
    assert st["finished"] and st["to_act"] == [] and st["result"]["winners"] == [A]
    assert st["result"]["ranking"][0] == A and sorted(st["result"]["ranking"]) == [A, B, C, D]
    rejected(s, A, {"type": "end_turn", "return": []}, "game_over")
    rejected(s, B, {"type": "play_card", "card": "一#1", "claim": False}, "game_over")


def neutral_tone_content():
    raw = {**DEFAULT_CONTENT_RAW}
    raw["characters"] = [*raw["characters"],
                         {"char": "的", "trad": "的", "pinyin": "de", "tone": 0, "gloss": "(possessive particle)",
                          "copies": 1},
                         {"char": "好", "trad": "好", "pinyin": "hǎo", "tone": 3, "gloss": "good; fine", "copies": 1}]
    raw["tasks"] = [*raw["tasks"], {"id": "T21", "question": "the good one", "answer": ["好", "的"],
                                    "pinyin": "hǎo de"}]
    raw["id"] = "test-neutral"
    return raw


def test_s22_neutral_tone_gives_no_steps():
    s = GAME.initial({"content": neutral_tone_content(), "first_player": 0}, 2)
    s = run(s, None, {"type": "start"})
    s = run(s, A, {"type": "choose_base", "base": "GENERAL"})
    s = run(s, B, {"type": "choose_base", "base": "SPY"})
    s = run(s, A, {"type": "pick_task", "task": "T10"})
    s = run(s, B, {"type": "pick_task", "task": "T11"})
    s = at_turn(s, A, "play", "P08", hands={A: ["的#1", "一#1", "心#1", "意#1"]})
    assert s["deck"]
    s = run(s, A, {"type": "play_card", "card": "的#1", "claim": False})
    assert s["turn"]["steps"] == 0 and s["deck"][-1] == "的#1"
    rejected(s, A, {"type": "move", "path": ["P09"]}, "wrong_step_count")
    s = run(s, A, {"type": "move", "path": []})
    assert s["positions"][A] == "P08" and len(s["hands"][A]) == 4
    assert s["phase"] == "base" and s["turn"]["actions"] == 0


S23_SLOTS = {
    "P01": "东#1", "P02": "南#1", "P03": "西#1", "P05": "北#1", "P06": "春#1", "P07": "夏#1", "P09": "秋#1",
    "P10": "冬#1", "P11": "一#1", "P13": "心#1", "P14": "一#2", "P15": "意#1", "P17": "人#1", "P18": "山#1",
    "P19": "人#2", "P21": "海#1", "P22": "三#1", "P23": "心#2", "P25": "二#1", "P26": "意#2", "P27": "大#1",
    "P29": "同#1", "P30": "小#1", "P31": "异#1", "N1": "十#1", "N2": "全#1", "N3": "十#2", "E1": "美#1",
    "E2": "山#2", "E3": "清#1", "S1": "水#1", "S2": "秀#1", "S3": "日#1", "W1": "新#1", "W2": "月#1",
    "W3": "异#2",
}


def test_s23_setup_deal_and_choices():
    s, events = run_events(GAME.initial({"deck_order": list(S23_CANONICAL), "task_order": TASK_IDS,
                                         "first_player": A}, 2), None, {"type": "start"})
    assert events == [{"type": "setup_shuffled", "deck_order": S23_CANONICAL, "task_order": TASK_IDS,
                       "first_player": A}]
    assert s["slots"] == S23_SLOTS
    assert hand(s, A) == {"天#1", "长#1", "地#1", "久#1"} and hand(s, B) == {"口#1", "是#1", "心#3", "非#1"}
    assert len(s["deck"]) == 36 and s["deck"][:3] == ["马#1", "到#1", "成#1"] and s["deck"][-1] == "油#1"
    assert s["bank"] == 20 and s["coins"] == [0, 0] and s["phase"] == "setup_bases" and s["chooser"] == A
    rejected(s, B, {"type": "choose_base", "base": "SPY"}, "not_your_turn")
    s = run(s, A, {"type": "choose_base", "base": "GENERAL"})
    assert s["positions"][A] == "P08" and s["chooser"] == B
    rejected(s, B, {"type": "choose_base", "base": "GENERAL"}, "base_taken")
    s = run(s, B, {"type": "choose_base", "base": "SPY"})
    assert s["positions"][B] == "P24" and s["phase"] == "setup_tasks" and s["chooser"] == A
    s = run(s, A, {"type": "pick_task", "task": "T10"})
    assert s["tasks"][A] == "T10" and s["chooser"] == B
    rejected(s, B, {"type": "pick_task", "task": "T10"}, "task_not_available")
    s = run(s, B, {"type": "pick_task", "task": "T11"})
    assert s["tasks"][B] == "T11"
    assert s["task_deck"] == [t for t in TASK_IDS if t not in ("T10", "T11")] and len(s["task_deck"]) == 18
    assert s["phase"] == "play" and s["active"] == A and s["round"] == 1
    assert GAME.status(s)["to_act"] == [A]


S23_CANONICAL = [
    "东#1", "南#1", "西#1", "北#1", "春#1", "夏#1", "秋#1", "冬#1", "一#1", "心#1", "一#2", "意#1", "人#1", "山#1",
    "人#2", "海#1", "三#1", "心#2", "二#1", "意#2", "大#1", "同#1", "小#1", "异#1", "十#1", "全#1", "十#2", "美#1",
    "山#2", "清#1", "水#1", "秀#1", "日#1", "新#1", "月#1", "异#2", "天#1", "长#1", "地#1", "久#1", "口#1", "是#1",
    "心#3", "非#1", "马#1", "到#1", "成#1", "功#1", "一#3", "路#1", "平#1", "安#1", "千#1", "方#1", "百#1", "计#1",
    "自#1", "言#1", "自#2", "语#1", "七#1", "上#1", "八#1", "下#1", "半#1", "途#1", "而#1", "废#1", "心#4", "想#1",
    "事#1", "成#2", "五#1", "湖#1", "四#1", "海#2", "火#1", "上#2", "浇#1", "油#1",
]


def test_s23_canonical_order_is_the_content_sets_card_order():
    from service.games.hieroglyphs.data import DEFAULT_CONTENT
    assert DEFAULT_CONTENT["card_ids"] == S23_CANONICAL


def _glosses():
    from service.games.hieroglyphs.data import DEFAULT_CONTENT
    return [info["gloss"] for info in DEFAULT_CONTENT["chars"].values()]


def _contains(view, value) -> bool:
    return msgpack.packb(value) in msgpack.packb(view)


SKY_OPTIONS = {"天": ["fire", "oil", "sky; heaven", "lake"]}


def test_s24_projections_leak_nothing_secret():
    s = f2(claim_options=SKY_OPTIONS)
    vb, vs = GAME.view(s, B), GAME.view(s, None)
    assert vb["you"]["hand"] == ["口#1", "是#1", "心#3", "非#1"] and vb["you"]["learned"] == {}
    assert vb["hand_counts"][A] == 4 and vb["deck_count"] == 36
    assert len([c for c in vb["slots"].values() if c]) == 36
    assert [(t["id"], t["answer"]) for t in vb["tasks"]] == [("T10", None), ("T11", None)]
    assert vb["tasks"][A]["question"] and vb["tasks"][B]["question"]
    assert vb["coins"] == [0, 0] and vb["bank"] == 20 and vb["positions"] == ["P08", "P24"]
    assert vs == {k: v for k, v in vb.items() if k != "you"}
    for seat in (A, B, None):
        v = GAME.view(s, seat)
        assert "deck_order" not in str(v) and "task_order" not in str(v)
        for gloss in _glosses():                 # no card back anywhere
            assert not _contains(v, gloss)
        for task in s["content"]["tasks"].values():
            assert not _contains(v, task["answer_text"])
    s = run(s, A, {"type": "play_card", "card": "天#1", "claim": True})
    va = GAME.view(s, A)
    assert va["turn"]["claim"] == {"pending": True, "options": SKY_OPTIONS["天"]}
    assert va["turn"]["played_back"] is None and va["turn"]["steps"] is None
    for seat in (B, None):
        v = GAME.view(s, seat)
        assert v["turn"]["played"] == "天#1" and v["turn"]["claim"] == {"pending": True}
    s = run(s, A, {"type": "answer", "choice": 0})
    for seat in (A, B, None):
        turn = GAME.view(s, seat)["turn"]
        assert turn["claim"]["options"] == SKY_OPTIONS["天"]
        assert turn["claim"]["choice"] == 0 and turn["claim"]["correct_index"] == 2
        assert turn["played_back"] == {"trad": "天", "pinyin": "tiān", "tone": 1, "steps": 1, "gloss": "sky; heaven"}


def test_s25_turn_order_and_the_round_counter():
    s = started(3, first_player=B)
    s = at_turn(s, A, "base", "P00", round=4, hands={B: ["一#1", "心#1", "意#1"]})
    top = s["deck"][0]
    s = run(s, A, {"type": "end_turn", "return": []})
    assert s["round"] == 5 and s["active"] == B and s["phase"] == "play"
    assert hand(s, B) == {"一#1", "心#1", "意#1", top}      # B's turn-start top-up ran


@pytest.mark.parametrize("cell", ["P01", "P10", "P19", "P30"])
def test_s08_from_a_plain_ring_cell_only_the_two_ring_directions(cell):
    from service.games.hieroglyphs.movement import legal_paths
    for steps in (1, 2, 3, 4):
        assert len(legal_paths(cell, steps)) == 2
