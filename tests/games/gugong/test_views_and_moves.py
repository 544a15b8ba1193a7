"""Hidden information (§6) and legal_moves: complete against a brute-force enumeration, and
every listed move accepted."""

from __future__ import annotations

import itertools
import random

import msgpack
import pytest

from service.games.gugong import GAME, data
from service.games.interface import IllegalMove
from service.games.playout import playout
from tests.games.gugong.table import A, B, started, tokens_of


def packed(v):
    return msgpack.packb(v, use_bin_type=True)


def test_hands_and_discards_only_for_their_owner():
    s = started(3)
    s["players"][A]["discard"] = ["G28"]
    s["draw_pile"].remove("G28")
    for audience in (A, B, None):
        v = GAME.view(s, audience)
        for seat in range(3):
            p = v["players"][seat]
            assert p["hand_count"] == len(s["players"][seat]["hand"])
            assert p["discard_count"] == len(s["players"][seat]["discard"])
            if audience == seat:
                assert [c["id"] for c in p["hand"]] == s["players"][seat]["hand"]
                assert [c["id"] for c in p["discard"]] == s["players"][seat]["discard"]
            else:
                assert p["hand"] is None and p["discard"] is None
    assert b"G28" in packed(GAME.view(s, A)) and b"G28" not in packed(GAME.view(s, B))


def test_draw_pile_token_piles_and_boxed_decrees_are_counts_only():
    s = started(2)
    hidden = [*s["draw_pile"], *s["pile_a"], *s["pile_b"], *s["boxed_decrees"]]
    assert sorted(GAME.secrets(s, None)) == sorted(hidden)
    for audience in (A, B, None):
        blob = packed(GAME.view(s, audience))
        assert not any(packed(x) in blob for x in hidden)
        v = GAME.view(s, audience)
        assert v["draw_pile_count"] == 11 and v["pile_a_count"] == 10 and v["pile_b_count"] == 10
        assert v["boxed_decree_count"] == 9


def test_public_information_is_the_same_for_everyone():
    s = started(2)
    s["players"][A]["tokens"] = tokens_of("T_VP2")[:1]
    views = [GAME.view(s, a) for a in (A, B, None)]
    for v in views:
        for p in v["players"]:
            p.pop("hand")
            p.pop("discard")
    assert views[0] == views[1] == views[2]
    assert views[0]["players"][A]["tokens"] == [{"id": tokens_of("T_VP2")[0], "type": "T_VP2"}]


def _brute(s, seat):
    """Every command of a broad, independent space, kept if decide accepts it."""
    p = s["players"][seat]
    frame = s["stack"][-1]
    cmds = []
    units = [[u] for u in ("cube", "foreman")] + [list(x) for x in itertools.product(("cube", "foreman"), repeat=2)]
    ports = [f"{r}{i}" for r in s["routes"] for i in range(1, 6)]
    if frame["kind"] == "turn":
        for card, loc, pay in itertools.product(p["hand"], data.LOCATIONS, ("none", "servants", "card", "forgo")):
            for extra in ({}, {"pay_foreman": True}, *({"discard": c} for c in p["hand"])):
                cmds.append({"type": "exchange", "card": card, "location": loc, "payment": pay, **extra})
        params = [{"option": o, "pay_foreman": f} for o in "AB" for f in (False, True)]
        params += [{"option": o, "units": u, "pay_foreman": f} for o in "AB" for u in units for f in (False, True)]
        params += [{"spot": i, "pay_foreman": f} for i in [None, *range(len(s["jade_spots"]))] for f in (False, True)]
        params += [{"decree": d, "pay_foreman": f, "place": u} for d in data.DECREES for f in (False, True)
                   for u in ("cube", "foreman")]
        places = [None] + [{"boat": b, "unit": u} for b in ports for u in ("cube", "foreman")]
        params += [{"option": "A", "place": pl, "move": m} for pl in places for m in [None, *ports]]
        params += [{"option": "B", "placements": [x, y], "pay_foreman": f}
                   for x in places[1:] for y in places[1:] for f in (False, True)]
        params += [{"card": c, "location": loc} for c in p["hand"] + p["discard"] for loc in data.LOCATIONS]
        params.append({})
        cmds += [{"type": t, **x} for t in ("card_action", "location_action") for x in params]
        cmds.append({"type": "end_turn"})
    elif frame["kind"] == "travel_move":
        cmds += [{"type": "travel", "city": c} for c in data.CITIES] + [{"type": "decline"}]
    elif frame["kind"] == "claim":
        cmds += [{"type": "claim", "reward": r, "unit": u} for r in ("VP4", "CARD", "FOREMAN") for u in ("cube", "foreman")]
        cmds.append({"type": "decline"})
    elif frame["kind"] == "benefit":
        cmds += [{"type": "intrigue_benefit", "down": d} for d in (1, 3, 7)]
        cmds += [{"type": "intrigue_benefit", "down": 5, "die": i, "face": f} for i in range(3) for f in range(1, 10)]
        cmds.append({"type": "decline"})
    else:
        return None
    ok = []
    for c in cmds:
        try:
            GAME.decide(s, seat, c, random.Random(0))
        except IllegalMove:
            continue
        ok.append(c)
    return ok


def _norm(cmd):
    def clean(v):
        if isinstance(v, dict):
            return tuple(sorted((k, clean(x)) for k, x in v.items() if x is not None and x is not False))
        if isinstance(v, list):
            return tuple(clean(x) for x in v)
        return v
    return clean(cmd)


@pytest.mark.parametrize("players", [2, 4])
def test_legal_moves_are_complete_against_brute_force(players):
    checked = 0
    for i, step in enumerate(playout(GAME, players, f"complete-{players}")):
        if i % 3 or GAME.status(step.after)["finished"]:
            continue
        seat = GAME.status(step.after)["to_act"][0]
        accepted = _brute(step.after, seat)
        if accepted is None:
            continue
        listed = {_norm(m) for m in GAME.legal_moves(step.after, seat) if m["type"] != "exchange_tokens"}
        assert {_norm(c) for c in accepted} == listed
        checked += 1
    assert checked > 10


def test_every_listed_move_is_accepted_and_other_seats_have_none():
    for step in playout(GAME, 3, "listed"):
        st = GAME.status(step.after)
        if st["finished"]:
            break
        for seat in range(3):
            moves = GAME.legal_moves(step.after, seat)
            if seat not in st["to_act"]:
                assert moves == []
                continue
            for m in moves:
                GAME.decide(step.after, seat, m, random.Random(1))


def test_token_exchange_moves_cover_every_type_combination():
    from tests.games.gugong.table import after_exchange
    s = after_exchange(started(2), A, "JADE")
    s["players"][A]["tokens"] = tokens_of("T_VP2")[:3] + tokens_of("T_DOUBLE")[:1]
    moves = [m for m in GAME.legal_moves(s, A) if m["type"] == "exchange_tokens"]
    shapes = sorted((m["reward"], tuple(sorted(data.TOKENS[t] for t in m["tokens"]))) for m in moves)
    assert shapes == sorted([
        ("servant", ("T_DOUBLE",)), ("servant", ("T_VP2", "T_VP2")),
        ("vp", ("T_DOUBLE", "T_VP2", "T_VP2")),
    ])     # worth 5 in all: no jade


JUNK = [None, -999, "??", {"x": 1}, [], [None], True, 3, "A9", [{"boat": None}], {"boat": "A1", "unit": 7}]


def _bent(cmd):
    """Every legal move with one field (or one nested field) replaced by junk."""
    for key, value in cmd.items():
        if key == "type":
            continue
        for junk in JUNK:
            yield {**cmd, key: junk}
        if isinstance(value, dict):
            for sub in value:
                for junk in JUNK:
                    yield {**cmd, key: {**value, sub: junk}}
        if isinstance(value, list) and value and isinstance(value[0], dict):
            for junk in JUNK:
                yield {**cmd, key: [{**value[0], "boat": junk}, *value[1:]]}
    yield {**cmd, "surprise": 1}


@pytest.mark.parametrize("players", [2, 5])
def test_junk_fields_are_refused_never_crash(players):
    for i, step in enumerate(playout(GAME, players, f"junk-{players}")):
        st = GAME.status(step.after)
        if st["finished"] or i % 2:
            continue
        seat = st["to_act"][0]
        for m in GAME.legal_moves(step.after, seat)[:25]:
            for bent in _bent(m):
                try:
                    GAME.decide(step.after, seat, bent, random.Random(0))
                except IllegalMove as err:
                    assert err.code and err.message
