"""Hidden information (spec 7): what each audience's frames may carry during a live match.

The events of this game carry secrets (deck order, hands, a claim's right answer); only
views leave the server while a match is live, so the views are what these tests search,
byte for byte in their msgpack encoding, as the broadcast sends them.
"""

from __future__ import annotations

import re

import msgpack
import pytest

from service.games.hieroglyphs import GAME
from service.games.hieroglyphs.view import public_cards
from service.games.playout import playout
from tests.games.hieroglyphs.helpers import A, B, C, at_turn, f2, run, started


def packb(value) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def has_key(value, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(has_key(v, key) for v in value)
    return False


def peeking(state, audience) -> bool:
    return (audience is not None and state["phase"] == "base" and state["active"] == audience
            and state["positions"][audience] == "P24")


def assert_frames_hide_secrets(state) -> None:
    n = state["players"]
    public = public_cards(state)
    claim = state["turn"]["claim"]
    pending = claim is not None and "seal" in claim
    tasks = state["content"]["tasks"]
    for audience in [*range(n), None]:
        view = GAME.view(state, audience)
        frame = packb(view)
        for other in range(n):
            if other == audience or peeking(state, audience):
                continue
            for card in state["hands"][other]:
                if card not in public:
                    assert packb(card) not in frame, f"{card} of seat {other} leaks to {audience}"
        if state["turn"]["pool"] is not None and audience != state["active"]:
            for card in state["turn"]["pool"]:
                if card not in public:
                    assert packb(card) not in frame, f"pool card {card} leaks to {audience}"
        for tid, task in tasks.items():
            own_seen = audience is not None and state["tasks"][audience] == tid and state["task_viewed"][audience]
            if tid not in state["revealed_tasks"] and not own_seen:
                assert packb(task["answer_text"]) not in frame, f"answer of {tid} leaks to {audience}"
        if pending:
            assert not has_key(view, "correct_index") and packb(claim["seal"]) not in frame
            if audience != state["active"]:
                assert "options" not in view["turn"]["claim"]
        assert packb("deck_order") not in frame and packb("task_order") not in frame
        assert state["deck"] == [] or not _deck_listed(view, state["deck"])


def _deck_listed(view, deck) -> bool:
    """The deck's order never appears as a list in a view."""
    if isinstance(view, list):
        return view == deck or any(_deck_listed(v, deck) for v in view)
    if isinstance(view, dict):
        return any(_deck_listed(v, deck) for v in view.values())
    return False


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_frame_of_a_live_match_carries_another_seats_hand_a_task_answer_or_a_claims_answer(players):
    steps = 0
    for step in playout(GAME, players, f"hidden-{players}"):
        if not GAME.status(step.after)["finished"]:
            assert_frames_hide_secrets(step.after)
        steps += 1
    assert steps > 100


def test_the_spy_sees_opponents_hands_only_while_acting_on_the_spy():
    # Cards from the deck part of the canonical order, so none of them also lies on the field.
    s = started(3)
    s = at_turn(s, A, "base", "P24", hands={A: ["马#1", "到#1", "成#1", "功#1"], B: ["路#1", "平#1", "安#1", "千#1"],
                                             C: ["方#1", "百#1", "计#1", "自#1"]})
    mine = GAME.view(s, A)["you"]
    assert mine["opponents_hands"] == [None, ["路#1", "平#1", "安#1", "千#1"], ["方#1", "百#1", "计#1", "自#1"]]
    assert GAME.view(s, B)["you"]["opponents_hands"] is None
    assert packb("方#1") not in packb(GAME.view(s, B)) and packb("方#1") not in packb(GAME.view(s, None))
    assert GAME.secrets(s, B) == [] and GAME.secrets(s, C) == []        # A may see them now
    s = run(s, A, {"type": "spy_swap", "own_card": "到#1", "target": B, "target_card": "平#1"})
    assert GAME.view(s, C)["turn"]["spy_swaps"] == [B]                    # only "A swapped with B"
    assert packb("平#1") not in packb(GAME.view(s, C))
    s = run(s, A, {"type": "end_turn", "return": []})
    assert GAME.view(s, B)["you"]["opponents_hands"] is None
    assert "平#1" in GAME.secrets(s, A) and "到#1" in GAME.secrets(s, B)


def test_a_minister_pool_is_seen_by_its_drawer_only():
    s = at_turn(f2(), A, "base", "P16", deck=["七#1", "上#1", "八#1", "下#1"])
    s = run(s, A, {"type": "minister_draw", "from": "top"})
    assert GAME.view(s, A)["you"]["pool"] == ["七#1", "上#1", "八#1"]
    for audience in (B, None):
        v = GAME.view(s, audience)
        assert v["turn"]["pool_count"] == 3 and packb("七#1") not in packb(v)
    assert set(GAME.secrets(s, A)) >= {"七#1", "上#1", "八#1"}


def test_a_studied_back_is_seen_by_the_student_only():
    s = at_turn(f2(), A, "base", "P00", hands={A: ["七#1", "八#1", "五#1", "四#1"]})
    s = run(s, A, {"type": "study", "card": "七#1"})
    assert GAME.view(s, A)["you"]["learned"] == {"七": {"trad": "七", "pinyin": "qī", "tone": 1, "steps": 1,
                                                        "gloss": "seven"}}
    assert GAME.view(s, B)["turn"]["studied"] == 1 and GAME.view(s, B)["you"]["learned"] == {}
    assert packb("seven") not in packb(GAME.view(s, B)) and packb("seven") not in packb(GAME.view(s, None))


def test_secrets_name_the_pending_claim_the_hidden_answers_and_each_hand():
    s = at_turn(f2(claim_options={"火": ["oil", "fire", "lake", "half"]}), A, "play", "P02",
                hands={A: ["火#1", "油#1", "湖#1", "半#1"]})
    s = run(s, A, {"type": "play_card", "card": "火#1", "claim": True})
    nobody = GAME.secrets(s, None)
    assert s["turn"]["claim"]["seal"] in nobody and "天长地久" in nobody and "口是心非" in nobody
    assert set(GAME.secrets(s, A)) == {"油#1", "湖#1", "半#1"}
    s = run(s, A, {"type": "answer", "choice": 1})
    assert not any(x.startswith("claim-") for x in GAME.secrets(s, None))
    # The played card is public; drawn back into a hand it is no secret of that hand.
    assert "火#1" not in GAME.secrets(s, A)


def test_a_viewed_answer_becomes_the_owners_secret():
    s = at_turn(f2(), A, "base", "P00")
    s = run(s, A, {"type": "view_task"})
    assert "天长地久" in GAME.secrets(s, A) and "天长地久" not in GAME.secrets(s, None)
    assert packb("天长地久") in packb(GAME.view(s, A))
    assert packb("天长地久") not in packb(GAME.view(s, B))


def test_the_task_offer_does_not_reveal_the_task_deck_order():
    s = started(2, task_order=[f"T{i:02d}" for i in range(20, 0, -1)])
    s = run(s, A, {"type": "choose_base", "base": "GENERAL"})
    s = run(s, B, {"type": "choose_base", "base": "SPY"})
    offer = [t["id"] for t in GAME.view(s, None)["task_offer"]]
    assert offer == sorted(offer) and len(offer) == 20
    assert all(t["answer"] is None for t in GAME.view(s, A)["task_offer"])


# Section 3.2's task list, verbatim (question_en is the front; answer + pinyin the back).
TASKS_YAML = """
    - {id: T01, question_en: "east, south, west, north (the four directions)", answer: ["东", "南", "西", "北"], pinyin: "dōng nán xī běi"}
    - {id: T02, question_en: "spring, summer, autumn, winter", answer: ["春", "夏", "秋", "冬"], pinyin: "chūn xià qiū dōng"}
    - {id: T03, question_en: "wholeheartedly; with one heart and one mind", answer: ["一", "心", "一", "意"], pinyin: "yī xīn yī yì"}
    - {id: T04, question_en: "huge crowds of people (people-mountains, people-seas)", answer: ["人", "山", "人", "海"], pinyin: "rén shān rén hǎi"}
    - {id: T05, question_en: "half-hearted; unable to make up one's mind", answer: ["三", "心", "二", "意"], pinyin: "sān xīn èr yì"}
    - {id: T06, question_en: "largely alike, differing only in details", answer: ["大", "同", "小", "异"], pinyin: "dà tóng xiǎo yì"}
    - {id: T07, question_en: "perfect in every respect", answer: ["十", "全", "十", "美"], pinyin: "shí quán shí měi"}
    - {id: T08, question_en: "green hills and clear water; lovely scenery", answer: ["山", "清", "水", "秀"], pinyin: "shān qīng shuǐ xiù"}
    - {id: T09, question_en: "changing with each passing day", answer: ["日", "新", "月", "异"], pinyin: "rì xīn yuè yì"}
    - {id: T10, question_en: "everlasting, as enduring as heaven and earth", answer: ["天", "长", "地", "久"], pinyin: "tiān cháng dì jiǔ"}
    - {id: T11, question_en: "saying one thing and meaning another", answer: ["口", "是", "心", "非"], pinyin: "kǒu shì xīn fēi"}
    - {id: T12, question_en: "immediate success (success as soon as the horse arrives)", answer: ["马", "到", "成", "功"], pinyin: "mǎ dào chéng gōng"}
    - {id: T13, question_en: "have a safe journey", answer: ["一", "路", "平", "安"], pinyin: "yī lù píng ān"}
    - {id: T14, question_en: "by every possible means", answer: ["千", "方", "百", "计"], pinyin: "qiān fāng bǎi jì"}
    - {id: T15, question_en: "talking to oneself", answer: ["自", "言", "自", "语"], pinyin: "zì yán zì yǔ"}
    - {id: T16, question_en: "anxious and unsettled (seven up, eight down)", answer: ["七", "上", "八", "下"], pinyin: "qī shàng bā xià"}
    - {id: T17, question_en: "to give up halfway", answer: ["半", "途", "而", "废"], pinyin: "bàn tú ér fèi"}
    - {id: T18, question_en: "may all your wishes come true", answer: ["心", "想", "事", "成"], pinyin: "xīn xiǎng shì chéng"}
    - {id: T19, question_en: "from every corner of the land (five lakes, four seas)", answer: ["五", "湖", "四", "海"], pinyin: "wǔ hú sì hǎi"}
    - {id: T20, question_en: "to pour oil on the fire; to make things worse", answer: ["火", "上", "浇", "油"], pinyin: "huǒ shàng jiāo yóu"}
"""


def _task_backs() -> dict[str, tuple[str, str]]:
    backs = {}
    for line in TASKS_YAML.strip().splitlines():
        tid = re.search(r"id: (T\d+)", line).group(1)
        answer = "".join(re.findall(r'"(.)"', re.search(r"answer: \[(.*?)\]", line).group(1)))
        pinyin = re.search(r'pinyin: "(.*?)"', line).group(1)
        backs[tid] = (answer, pinyin)
    return backs


@pytest.mark.parametrize("players", [2, 4])
def test_after_game_over_every_audience_sees_the_answers_of_the_tasks_still_held(players):
    """Spec 7.4: after game over everything may be shown; the tasks left in play are the ones a
    learner most wants to see answered."""
    backs = _task_backs()
    *_, last = playout(GAME, players, f"answers-at-the-end-{players}")
    final = last.after
    assert GAME.status(final)["finished"]
    held = [t for t in final["tasks"] if t is not None]
    assert held, "the playout ended with no task in play"
    for audience in [*range(players), None]:
        shown = {t["id"]: t for t in GAME.view(final, audience)["tasks"] if t is not None}
        for tid in held:
            assert (shown[tid]["answer"], shown[tid]["pinyin"]) == backs[tid], (audience, tid)
    # One commit earlier, while the match was live, a held task's answer was no spectator's.
    live = last.before
    unseen = [t for t in live["tasks"] if t is not None and t not in live["revealed_tasks"]]
    for tid in unseen:
        assert packb(backs[tid][0]) not in packb(GAME.view(live, None))
