"""Invariants that hold at every step of random matches (spec 4.1, 5.8, 5.9)."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from service.games.hieroglyphs import GAME
from service.games.playout import playout

SEEDS = range(6) if os.environ.get("TEAHOUSE_LONG") == "1" else range(2)
OPTION_SETS = [{}, {"mode": "rounds", "round_limit": 12}, {"target": 1}]


def all_cards(s) -> Counter:
    turn = s["turn"]
    cards = [*s["deck"], *(c for c in s["slots"].values() if c), *s["removed"], *(turn["pool"] or [])]
    for seat in range(s["players"]):
        cards += s["hands"][seat] + s["attached"][seat]
    if s["phase"] == "meaning":                  # the played card is in flight until the claim is settled
        cards.append(turn["played"])
    return Counter(cards)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", OPTION_SETS, ids=["target", "rounds", "target1"])
def test_coins_cards_and_hands_keep_their_invariants(players, options):
    for seed in SEEDS:
        everything = Counter(GAME.initial(options, players)["content"]["card_ids"])
        for step in playout(GAME, players, f"props-{players}-{seed}", options):
            s = step.after
            if s["phase"] == "waiting":
                continue
            assert s["bank"] + sum(s["coins"]) == 10 * players
            assert all(0 <= c <= 10 for c in s["coins"]) and s["bank"] >= 0
            assert all_cards(s) == everything
            before = step.before
            if before["active"] is not None and s["active"] != before["active"] and before["phase"] != "setup_tasks":
                ended = before["active"]                # a turn just ended: normalised to 4 unless the deck ran dry
                assert len(s["hands"][ended]) == 4 or (not s["deck"] and len(s["hands"][ended]) < 4)
            for seat in range(players):
                if len(s["hands"][seat]) > 4:
                    assert s["phase"] == "emperor" and s["active"] == seat
            if s["phase"] == "over":
                assert s["result"]["reason"] in {"TARGET_REACHED", "ROUND_LIMIT", "MAX_ROUNDS", "NO_TASKS", "STALLED"}
                if options.get("mode") == "rounds":
                    assert s["result"]["reason"] != "MAX_ROUNDS"


# A small content set of one- and two-character tasks over eight characters, and a bot that walks to
# the Emperor and builds its task when it can, so that right and wrong declarations, task
# turnover, short decks and the target are reached often.
EIGHT = [("一", "yī", 1, "one"), ("人", "rén", 2, "person"), ("火", "huǒ", 3, "fire"), ("大", "dà", 4, "big"),
         ("山", "shān", 1, "mountain"), ("十", "shí", 2, "ten"), ("水", "shuǐ", 3, "water"), ("四", "sì", 4, "four")]


def small_content() -> dict:
    tasks, used = [], Counter()
    for i in range(36):                          # 20 one-character tasks, then 16 pairs: 52 cards
        answer = [EIGHT[i % 8][0]] if i < 20 else [EIGHT[i % 8][0], EIGHT[(i * 3 + 1) % 8][0]]
        tasks.append({"id": f"K{i:02d}", "question": f"task {i}", "answer": answer})
        used.update(answer)
    chars = [{"char": c, "pinyin": p, "tone": t, "gloss": g, "copies": used[c]} for c, p, t, g in EIGHT]
    return {"id": "pairs", "characters": chars, "tasks": tasks}


def builder_moves(s, seat, rng):
    moves = GAME.legal_moves(s, seat)
    if s["phase"] == "move":
        best = min(_closeness(m["path"][-1] if m["path"] else s["positions"][seat]) for m in moves)
        return rng.choice([m for m in moves if _closeness(m["path"][-1] if m["path"] else "") == best])
    if s["phase"] == "play":                     # claim every time, and (peeking at the state) know the answer
        return rng.choice([m for m in moves if m["claim"]])
    if s["phase"] == "meaning":
        return {"type": "answer", "choice": s["turn"]["claim"]["correct_index"]}
    if s["phase"] == "teleport":
        return {"type": "teleport", "to": None}
    if s["phase"] == "emperor" and s["tasks"][seat] is not None:
        answer = s["content"]["tasks"][s["tasks"][seat]]["answer"]
        attached = s["attached"][seat]
        if [c.split("#")[0] for c in attached] == answer:
            want = {"type": "declare", "order": attached}
            if want in moves:
                return want
        need = answer[len(attached)] if len(attached) < len(answer) else None
        for m in moves:
            if m["type"] == "attach" and m["card"].split("#")[0] == need:
                if [c.split("#")[0] for c in attached] == answer[:len(attached)]:
                    return m
        wrong = [m for m in moves if m["type"] == "declare"]
        if attached and wrong and rng.random() < 0.3:
            return rng.choice(wrong)
        return rng.choice([m for m in moves if m["type"] == "end_turn"])
    return rng.choice(moves)


def _closeness(cell: str) -> int:
    """How near the Emperor a stop is: the Emperor, then deeper spoke cells, then teleports."""
    if cell == "EMP":
        return 0
    if cell[:1] in "NESW" and len(cell) == 2:
        return 4 - int(cell[1])
    return 4 if cell in ("P04", "P12", "P20", "P28") else 5


def builder_match(players, seed, options):
    import random as _random
    rng = _random.Random(seed)
    s = GAME.initial(options, players)
    steps = [s]
    s = fold(s, GAME.decide(s, None, {"type": "start"}, _random.Random(seed)))
    steps.append(s)
    while not GAME.status(s)["finished"]:
        seat = GAME.status(s)["to_act"][0]
        s = fold(s, GAME.decide(s, seat, builder_moves(s, seat, rng), _random.Random(len(steps))))
        steps.append(s)
        assert len(steps) < 20_000
    return steps


def fold(s, events):
    for e in events:
        s = GAME.evolve(s, e)
    return s


@pytest.mark.parametrize("players", [2, 3, 4])
def test_builders_reach_every_ending_with_the_invariants_intact(players):
    reasons = Counter()
    for seed in range(2):
        for options in ({}, {"mode": "rounds", "round_limit": 120}):
            states = builder_match(players, seed, {"content": small_content(), **options})
            everything = Counter(states[0]["content"]["card_ids"])
            for s in states[1:]:
                assert s["bank"] + sum(s["coins"]) == 10 * players
                assert all_cards(s) == everything
            last = states[-1]
            reasons[last["result"]["reason"]] += 1
            assert len(last["removed"]) == sum(len(last["content"]["tasks"][t]["answer"])
                                               for done in last["completed"] for t in done)
            if last["result"]["reason"] == "TARGET_REACHED":
                (winner,) = last["result"]["winners"]
                assert len(last["completed"][winner]) == last["options"]["target"]
    assert reasons["TARGET_REACHED"] >= 1
    assert set(reasons) <= {"TARGET_REACHED", "MAX_ROUNDS", "ROUND_LIMIT", "NO_TASKS", "STALLED"}
