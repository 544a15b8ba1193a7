"""Options and content sets: defaults, validation with clear errors, and options that fix chance."""

from __future__ import annotations

import copy

import pytest

from service.games.hieroglyphs import GAME
from service.games.hieroglyphs.data import DEFAULT_CONTENT, DEFAULT_CONTENT_RAW, content_words, tone_of
from service.games.interface import IllegalMove
from tests.games.hieroglyphs.helpers import CARD_IDS, TASK_IDS, A, B, run, run_events, started


def refused(options, players=2, code="bad_options"):
    with pytest.raises(IllegalMove) as err:
        GAME.initial(options, players)
    assert err.value.code == code
    return err.value.message


@pytest.mark.parametrize("players,target", [(2, 3), (3, 2), (4, 2)])
def test_default_targets_by_player_count(players, target):
    s = GAME.initial({}, players)
    assert s["options"]["target"] == target and s["options"]["max_rounds"] == 60
    assert GAME.status(s) == {"phase": "waiting", "to_act": [], "finished": False, "result": None}


@pytest.mark.parametrize("players", [0, 1, 5, -1])
def test_player_count_outside_two_to_four_is_refused(players):
    refused({}, players, "bad_player_count")


@pytest.mark.parametrize("options,words", [
    ({"colour": "red"}, "unknown option"),
    ({"mode": "blitz"}, "mode"),
    ({"mode": "rounds"}, "round_limit"),
    ({"mode": "rounds", "round_limit": 0}, "round_limit"),
    ({"mode": "rounds", "round_limit": 5, "target": 2}, "target"),
    ({"mode": "rounds", "round_limit": 5, "max_rounds": 9}, "max_rounds"),
    ({"round_limit": 5}, "round_limit"),
    ({"target": 0}, "target"),
    ({"target": True}, "target"),
    ({"max_rounds": "60"}, "max_rounds"),
    ({"task_selection": "draft"}, "task_selection"),
    ({"meaning_check": "free_text"}, "meaning_check"),
    ({"first_player": 2}, "first_player"),
    ({"deck_order": CARD_IDS[:-1]}, "deck_order"),
    ({"deck_order": [*CARD_IDS[:-1], "东#1"]}, "deck_order"),
    ({"task_order": ["T01"]}, "task_order"),
    ({"claim_options": {"火": ["fire", "oil", "lake"]}}, "claim_options"),
    ({"claim_options": {"火": ["oil", "water", "lake", "half"]}}, "own gloss"),
    ({"claim_options": {"龙": ["fire", "oil", "lake", "half"]}}, "not a character"),
    ({"claim_options": {"火": ["fire", "oil", "lake", "not a gloss"]}}, "eligible"),
])
def test_malformed_options_are_refused_with_a_clear_error(options, words):
    assert words in refused(options)


def test_rounds_mode_needs_no_target():
    s = GAME.initial({"mode": "rounds", "round_limit": 3}, 3)
    assert s["options"]["round_limit"] == 3 and "target" not in s["options"]


def test_deck_task_and_first_player_options_fix_the_setup():
    deck = list(reversed(CARD_IDS))
    tasks = list(reversed(TASK_IDS))
    s, events = run_events(GAME.initial({"deck_order": deck, "task_order": tasks, "first_player": 1}, 2),
                           None, {"type": "start"}, seed=99)
    assert events[0] == {"type": "setup_shuffled", "deck_order": deck, "task_order": tasks, "first_player": 1}
    assert s["slots"]["P01"] == deck[0] and s["hands"][1] == deck[36:40] and s["hands"][0] == deck[40:44]


def test_without_fixing_options_the_start_shuffles_with_the_rng():
    a = run_events(GAME.initial({}, 2), None, {"type": "start"}, seed=1)[1][0]
    b = run_events(GAME.initial({}, 2), None, {"type": "start"}, seed=2)[1][0]
    assert sorted(a["deck_order"]) == sorted(CARD_IDS) and sorted(a["task_order"]) == sorted(TASK_IDS)
    assert a["deck_order"] != b["deck_order"]
    assert a == run_events(GAME.initial({}, 2), None, {"type": "start"}, seed=1)[1][0]


def test_claim_options_fix_the_options_and_their_order():
    fixed = ["lake", "oil", "half", "fire"]
    s = started(2, claim_options={"火": fixed})
    s = run(s, A, {"type": "choose_base", "base": "TEACHER"})
    s = run(s, B, {"type": "choose_base", "base": "SPY"})
    s = run(s, A, {"type": "pick_task", "task": "T01"})
    s = run(s, B, {"type": "pick_task", "task": "T02"})
    s["hands"][A][0] = "火#1"
    for seed in (1, 2, 3):
        _, events = run_events(s, A, {"type": "play_card", "card": "火#1", "claim": True}, seed=seed)
        assert events[0]["challenge"] == {"options": fixed, "correct_index": 3}


# --- content sets ------------------------------------------------------------------------

def raw():
    return copy.deepcopy(DEFAULT_CONTENT_RAW)


def test_default_content_set_facts():
    c = DEFAULT_CONTENT
    assert len(c["card_ids"]) == 80 and len(c["chars"]) == 66 and len(c["tasks"]) == 20
    steps = [c["chars"][cid.split("#")[0]]["steps"] for cid in c["card_ids"]]
    assert [steps.count(k) for k in (1, 2, 3, 4)] == [26, 16, 14, 24]
    for ch, info in c["chars"].items():
        assert tone_of(info["pinyin"]) == info["tone"], ch
    assert {"三", "十", "火", "计"} <= set(c["chars"])
    assert c["card_ids"][8:12] == ["一#1", "心#1", "一#2", "意#1"] and "一#3" in c["card_ids"]


def test_a_deck_that_is_not_the_tasks_characters_is_refused():
    bad = raw()
    for entry in bad["characters"]:
        if entry["char"] == "一":
            entry["copies"] = 2                  # the tasks need 3: a union instead of a sum
    message = refused({"content": bad})
    assert "deck must equal the characters of the tasks" in message and "一 (2 cards, tasks need 3)" in message


def test_a_character_without_a_tone_is_refused():
    bad = raw()
    del bad["characters"][0]["tone"]
    assert "lacks a tone" in refused({"content": bad})


def test_a_tone_that_does_not_match_the_pinyin_is_refused():
    bad = raw()
    bad["characters"][0]["tone"] = 2             # 东 dōng is tone 1
    assert "does not match the pinyin" in refused({"content": bad})


@pytest.mark.parametrize("change,words", [
    (lambda r: r.update(tasks=r["tasks"][:3]), "at least"),
    (lambda r: r["characters"][1].update(gloss="east"), "distinct"),
    (lambda r: r["characters"][0].update(steps=5), "steps"),
    (lambda r: r["tasks"][0].update(answer=["东", "南", "西", "龙"]), "no card entry"),
    (lambda r: r.update(colour="red"), "unknown content fields"),
    (lambda r: r.update(characters="many"), "characters"),
])
def test_other_broken_content_sets_are_refused(change, words):
    bad = raw()
    change(bad)
    assert words in refused({"content": bad})


def test_a_content_set_too_small_for_the_field_is_refused():
    small = {"id": "tiny", "characters": [], "tasks": []}
    glosses = ["one", "two", "three", "four", "five", "six", "seven", "eight"]
    for i, ch in enumerate("一二三四五六七八"):
        small["characters"].append({"char": ch, "pinyin": "yī", "tone": 1, "gloss": glosses[i], "copies": 1})
    small["tasks"] = [{"id": f"T{i}", "question": f"q{i}", "answer": list(pair)}
                      for i, pair in enumerate(["一二", "三四", "五六", "七八"])]
    assert "at least 52 cards" in refused({"content": small})


def test_a_valid_custom_content_set_is_used_and_steps_may_be_set_directly():
    custom = raw()
    custom["id"] = "teacher-set"
    custom["characters"][0]["steps"] = 2         # 东 printed with 2 steps although tone 1
    s = started(2, content=custom, deck_order=None, task_order=None)
    assert s["content"]["id"] == "teacher-set" and s["content"]["chars"]["东"]["steps"] == 2
    assert GAME.view(s, None)["content_set"] == "teacher-set"


def test_content_words_follow_the_spec():
    assert content_words("to be; yes") == {"be", "yes"}
    assert content_words("spring (season)") == {"spring"}
    assert content_words("and; yet (conjunction)") == set()
    assert content_words("to abandon; waste") == {"abandon", "waste"}
