"""Chinese Squared in words: one sentence per event type of the engine (rules._APPLY), and
the end of the match from the view, which no event carries: the spec's S21 (a fourth-player
instant win at the target of 2 tasks) and S13/S14 (a declaration right, then wrong) driven
through the engine. A card is named by its character only: its back (the meaning) is what a
claim asks, and cards going into hands are only counted."""

from __future__ import annotations

import pytest

from service.games.hieroglyphs import GAME
from service.games.hieroglyphs.narrate import describe_commit, describe_end, describe_move
from service.games.hieroglyphs.rules import _APPLY
from service.match.narration import commit_sentences
from tests.games.hieroglyphs.helpers import A, B, at_turn, f2, run_events, started

NAMES = ["Ann", "Ben", "Cy", "Dee"]

EXPECTED: list[tuple[dict, str]] = [
    ({"type": "setup_shuffled", "deck_order": ["语#1"], "task_order": ["T01"], "first_player": 1},
     "The cards are shuffled and dealt; Ben chooses first."),
    ({"type": "start_base_chosen", "seat": 0, "base": "GENERAL"}, "Ann starts on the General."),
    ({"type": "task_picked", "seat": 0, "task": "T18"}, "Ann picks a task."),
    ({"type": "card_played", "seat": 0, "card": "四#1", "claim": False}, "Ann plays 四."),
    ({"type": "card_played", "seat": 1, "card": "心#2", "claim": True,
      "challenge": {"options": ["heart", "fire", "water", "moon"], "correct_index": 0}},
     "Ben plays 心 and claims to know its meaning."),
    ({"type": "meaning_answered", "seat": 1, "choice": 0, "correct": True}, "Ben's answer is right: +1 coin."),
    ({"type": "meaning_answered", "seat": 1, "choice": 2, "correct": False}, "Ben's answer is wrong."),
    ({"type": "meaning_answered", "seat": 1, "choice": None, "correct": False}, "Ben gives no answer."),
    ({"type": "moved", "seat": 0, "path": ["P01", "P02", "P03", "P04"]}, "Ann moves 4 steps to teleport P04."),
    ({"type": "moved", "seat": 0, "path": ["P23", "P24"]}, "Ann moves 2 steps to the Spy (P24)."),
    ({"type": "moved", "seat": 0, "path": ["N3", "EMP"]}, "Ann moves 2 steps to the Emperor."),
    ({"type": "moved", "seat": 0, "path": []}, "Ann stays put."),
    ({"type": "teleported", "seat": 0, "to": "P20"}, "Ann teleports to teleport P20."),
    ({"type": "teleported", "seat": 0, "to": None}, "Ann stays on the teleport."),
    ({"type": "teacher_studied", "seat": 1, "card": "久#1"}, "Ben studies the back of a card at the Teacher."),
    ({"type": "teacher_task_viewed", "seat": 1}, "Ben looks at their task's answer at the Teacher."),
    ({"type": "general_blasted", "seat": 0, "block": "B8"}, "Ann blasts block B8: new cards are laid there."),
    ({"type": "minister_drew", "seat": 0, "from": "bottom"}, "Ann draws cards for the Minister from the bottom of the deck."),
    ({"type": "minister_resolved", "seat": 0, "swaps": [["人#2", "路#1"]]}, "Ann is done with the Minister."),
    ({"type": "spy_swapped", "seat": 0, "own_card": "二#1", "target": 1, "target_card": "八#1"},
     "Ann swaps a card with Ben (Spy)."),
    ({"type": "attached", "seat": 1, "card": "山#2"}, "Ben attaches 山 to their task."),
    ({"type": "detached", "seat": 1, "card": "山#2"}, "Ben takes 山 back from their task."),
    ({"type": "declared", "seat": 0, "task": "T01", "order": ["东#1", "南#1", "西#1", "北#1"], "correct": True},
     "Ann declares their task with 4 characters: right: the task is complete."),
    ({"type": "declared", "seat": 0, "task": "T01", "order": ["北#1", "南#1", "西#1", "东#1"], "correct": False},
     "Ann declares their task with 4 characters: wrong: the cards sink into the deck."),
    ({"type": "turn_ended", "seat": 0, "return": ["海#1"]}, "Ann ends the turn, returning 1 card to the deck."),
    ({"type": "turn_ended", "seat": 0, "return": []}, "Ann ends the turn."),
]


def test_every_event_type_is_covered():
    assert {e["type"] for e, _ in EXPECTED} == set(_APPLY)


@pytest.mark.parametrize(("event", "sentence"), EXPECTED, ids=[e["type"] for e, _ in EXPECTED])
def test_event_sentence(event, sentence):
    assert describe_commit(event.get("seat"), {"type": "x"}, [event], NAMES) == [sentence]


def test_hidden_cards_and_the_meaning_are_never_told():
    for event, _ in EXPECTED:
        line = " ".join(describe_commit(event.get("seat"), {"type": "x"}, [event], NAMES))
        for word in ("heart", "fire", "久", "人", "路", "二", "八", "海", "语"):
            assert word not in line, (event["type"], line)


def test_s21_an_instant_win_is_told_with_its_reason():
    s = started(4)
    s = at_turn(s, A, "emperor", "EMP", completed={A: ["T05"]}, coins={A: 3}, turn={"actions": 2},
                tasks={A: "T02"}, attached={A: ["春#1", "夏#1", "秋#1", "冬#1"]}, hands={A: ["一#1"]})
    command = {"type": "declare", "order": ["春#1", "夏#1", "秋#1", "冬#1"]}
    after, events = run_events(s, A, command)
    said = commit_sentences(GAME, A, command, events, None, NAMES, after)
    assert said == ["Ann declares their task with 4 characters: right: the task is complete.",
                    "Game over (the target number of tasks was reached): Ann wins with 2 tasks "
                    "(Ben 0 tasks, Cy 0 tasks, Dee 0 tasks)."]


def test_shared_ends_and_reasons_from_the_view():
    view = {"result": {"reason": "ROUND_LIMIT", "winners": [0, 1], "ranking": [[0, 1], [2]], "scores": [2, 2, 1]}}
    assert describe_end(view, NAMES) == "Game over (the last round is over): Ann and Ben share the win with 2 tasks (Cy 1 task)."
    view = {"result": {"reason": "STALLED", "winners": [1], "ranking": [[1], [0]], "scores": [0, 1]}}
    assert describe_end(view, NAMES) == \
        "Game over (nobody could play a card for a whole round): Ben wins with 1 task (Ann 0 tasks)."


def test_move_labels_from_the_seat_view():
    s = at_turn(f2(), A, "emperor", "EMP", hands={A: ["一#2", "二#1", "三#1"]}, attached={A: ["东#1", "南#1"]})
    view = GAME.view(s, A)
    assert describe_move({"type": "attach", "card": "二#1"}, view, A, NAMES) == "Attach 二 to your task"
    assert describe_move({"type": "declare", "order": ["南#1", "东#1"]}, view, A, NAMES) == "Declare your task as 南东"
    assert describe_move({"type": "end_turn", "return": ["一#2"]}, view, A, NAMES) == "End your turn, returning 一 to the deck"
    twins = {"you": {"hand": ["心#1", "心#2"]}, "tasks": []}
    assert describe_move({"type": "play_card", "card": "心#2", "claim": True}, twins, A, NAMES) \
        == "Play 心 (copy 2) and claim its meaning"
    claim = {"turn": {"claim": {"pending": True, "options": ["heart", "fire", "water", "moon"]}}}
    assert describe_move({"type": "answer", "choice": 1}, claim, A, NAMES) == "Answer “fire”"
    assert describe_move({"type": "answer", "choice": None}, claim, A, NAMES) == "Give no answer"
    slots = {"slots": {"P15": "大#1"}}
    assert describe_move({"type": "move", "path": ["P16", "P15"]}, slots, A, NAMES) == "Move 2 steps to P15 (大): P16 → P15"
    assert describe_move({"type": "teleport", "to": "P12"}, {}, A, NAMES) == "Teleport to P12"
    assert describe_move({"type": "choose_base", "base": "SPY"}, {}, A, NAMES) == "Start on the Spy"
    assert describe_move({"type": "spy_swap", "own_card": "一#1", "target": B, "target_card": "八#1"}, {}, A, NAMES) \
        == "Swap your 一 for Ben's 八"
    assert describe_move({"type": "minister_resolve", "swaps": [["一#1", "路#1"]]}, {}, A, NAMES) == "Exchange 一 for 路"
