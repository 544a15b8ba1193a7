"""The conformance suite: every registered game passes it; a new game enrols by registering.

Playout counts stay small for CI on 2 cores; TEAHOUSE_LONG=1 multiplies them.
"""

from __future__ import annotations

import copy
import os
import random

import msgpack
import orjson
import pytest

from service.games import GAMES, IllegalMove, fold, get_game
from service.games.chance import commit_rng
from service.games.playout import START, playout

LONG = os.environ.get("TEAHOUSE_LONG") == "1"
PLAYOUTS_PER_COUNT = 40 if LONG else 2

GAME_COUNTS = [
    (gid, n)
    for gid in GAMES
    for n in range(get_game(gid).min_players, get_game(gid).max_players + 1)
]


def _ids(params):
    return [f"{g}-{n}p" for g, n in params]


def packb(value) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def audiences(n: int) -> list[int | None]:
    return [*range(n), None]


def assert_plain(value, where: str) -> None:
    """Only dict (str keys), list, str, int, bool, None: what msgpack and JSON carry as is."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str), f"{where}: non-string key {k!r}"
            assert_plain(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            assert_plain(v, f"{where}[{i}]")
    else:
        assert value is None or isinstance(value, (str, int, bool)), f"{where}: {type(value).__name__}"
        assert not isinstance(value, float), f"{where}: float"


def roundtrips(value) -> bool:
    return (
        msgpack.unpackb(packb(value), raw=False, strict_map_key=True) == value
        and orjson.loads(orjson.dumps(value)) == value
    )


@pytest.mark.parametrize("game_id", GAMES)
def test_registry_facts(game_id):
    g = get_game(game_id)
    assert g.id == game_id
    assert 1 <= g.min_players <= g.max_players
    assert isinstance(g.rules_version, int)
    assert g.name


@pytest.mark.parametrize("game_id,players", GAME_COUNTS, ids=_ids(GAME_COUNTS))
def test_random_playouts_end_and_obey_the_interface(game_id, players):
    g = get_game(game_id)
    for k in range(PLAYOUTS_PER_COUNT):
        seed = f"conformance-{game_id}-{players}-{k}"
        log = []
        state0 = g.initial({}, players)
        saw_secret = False
        final = None
        for step in playout(g, players, seed):
            # decide is a function of (state, seat, command, rng) and mutates nothing
            frozen = copy.deepcopy(step.before)
            again = g.decide(step.before, step.seat, step.command, commit_rng(seed, step.seq))
            assert again == step.events, "decide gave other events for the same input"
            assert step.before == frozen, "decide mutated the state it was given"
            # evolve never mutates its input
            s = step.before
            for e in step.events:
                snapshot = copy.deepcopy(s)
                nxt = g.evolve(s, e)
                assert s == snapshot, f"evolve mutated its input on {e.get('type')!r}"
                s = nxt
            assert s == step.after
            for e in step.events:
                assert isinstance(e, dict) and isinstance(e.get("type"), str)
                assert_plain(e, f"event {e['type']}")
                assert roundtrips(e)
            log.extend(step.events)
            st = g.status(step.after)
            assert set(st) >= {"phase", "to_act", "finished", "result"}
            if not st["finished"]:
                assert st["to_act"], "an unfinished match must name who is to act"
                assert all(0 <= seat < players for seat in st["to_act"])
            # the hidden-information canary, on the exact encoded views
            encoded = {a: packb(g.view(step.after, a)) for a in audiences(players)}
            for owner in audiences(players):
                for secret in g.secrets(step.after, owner):
                    saw_secret = True
                    token = packb(secret)
                    if owner is not None:
                        assert token in encoded[owner], f"seat {owner} cannot see its own secret {secret!r}"
                    for a, data in encoded.items():
                        # a secret of nobody (owner None) must be in no view, the spectators' included
                        if owner is None or a != owner:
                            assert token not in data, f"{secret!r} of {owner} leaks to audience {a}"
            final = step.after
        assert saw_secret, "a playout that never has a secret cannot test hiding it"
        # folding the log again gives an equal state
        assert fold(g, log, state0) == final
        assert_plain(final, "state")
        assert roundtrips(final)
        for a in audiences(players):
            v = g.view(final, a)
            assert_plain(v, f"view {a}")
            assert roundtrips(v)
        st = g.status(final)
        assert st["finished"] and st["to_act"] == []
        res = st["result"]
        assert len(res["scores"]) == players
        assert sorted(res["ranking"]) == list(range(players))
        # winners may be empty where a game's rules allow that nobody wins (Gugong's D13)
        assert set(res["winners"]) <= set(range(players))
        assert res["winners"] == sorted(set(res["winners"]), key=res["winners"].index)


@pytest.mark.parametrize("game_id,players", GAME_COUNTS, ids=_ids(GAME_COUNTS))
def test_every_legal_move_is_accepted(game_id, players):
    """Along one playout, every listed legal move (a sample where many) decides cleanly."""
    g = get_game(game_id)
    sample = random.Random(11)
    seed = f"legal-{game_id}-{players}"
    for step in playout(g, players, seed):
        st = g.status(step.after)
        if st["finished"]:
            break
        for seat in st["to_act"]:
            moves = g.legal_moves(step.after, seat)
            assert moves, f"seat {seat} is to act with no legal move"
            for m in moves:
                assert isinstance(m, dict) and isinstance(m.get("type"), str)
                assert_plain(m, "legal move")
            for m in sample.sample(moves, min(len(moves), 6)):
                g.decide(step.after, seat, m, commit_rng(seed, step.seq + 1))


JUNK = [
    {},
    {"type": "__no_such_command__"},
    {"type": 7},
    {"type": None},
    {"type": "start"},
]


def _without_nulls(move: dict) -> dict:
    return {k: v for k, v in move.items() if v is not None}


@pytest.mark.parametrize("game_id", GAMES)
def test_junk_and_out_of_turn_commands_are_refused(game_id):
    g = get_game(game_id)
    players = g.max_players
    seed = f"junk-{game_id}"
    checked_out_of_turn = 0
    state = None
    for i, step in enumerate(playout(g, players, seed)):
        state = step.after
        st = g.status(state)
        if st["finished"] or i > 60:
            break
        for seat in range(players):
            for junk in JUNK:
                with pytest.raises(IllegalMove) as err:
                    g.decide(state, seat, junk, random.Random(1))
                assert err.value.code and err.value.message
        # a seat that is not to act cannot play what the acting seat may play
        idle = [s for s in range(players) if s not in st["to_act"]]
        if idle:
            for m in g.legal_moves(state, st["to_act"][0])[:3]:
                with pytest.raises(IllegalMove) as err:
                    g.decide(state, idle[0], m, random.Random(1))
                assert err.value.code
                checked_out_of_turn += 1
        # a legal move's fields bent out of shape are refused, never crash; a bent move that is
        # accepted must itself be a legal move (null for an optional field means "absent")
        legal = g.legal_moves(state, st["to_act"][0])
        listed = [_without_nulls(m) for m in legal]
        for m in legal[:3]:
            for key in m:
                if key == "type":
                    continue
                for bad in ({"x": 1}, -999, "??", None):
                    bent = {**m, key: bad}
                    try:
                        g.decide(state, st["to_act"][0], bent, random.Random(1))
                    except IllegalMove as err:
                        assert err.code and err.message
                    else:
                        assert _without_nulls(bent) in listed, f"a bent move was accepted: {bent}"
    assert checked_out_of_turn > 0 or players == 1
    # once over, every command is refused
    for step in playout(g, g.min_players, seed + "-end"):
        state = step.after
    assert g.status(state)["finished"]
    for seat in range(g.min_players):
        with pytest.raises(IllegalMove):
            g.decide(state, seat, {"type": "__anything__"}, random.Random(1))
    with pytest.raises(IllegalMove):
        g.decide(state, None, START, random.Random(1))


@pytest.mark.parametrize("game_id", GAMES)
def test_bad_options_are_refused_with_a_clear_error(game_id):
    g = get_game(game_id)
    with pytest.raises(IllegalMove) as err:
        g.initial({"__no_such_option__": 1}, g.min_players)
    assert err.value.code and err.value.message
    for n in (g.min_players - 1, g.max_players + 1):
        with pytest.raises(IllegalMove):
            g.initial({}, n)


@pytest.mark.parametrize("game_id,players", GAME_COUNTS, ids=_ids(GAME_COUNTS))
def test_reference_data_is_plain(game_id, players):
    """What clients fetch to draw a game (boards, card faces) is plain data. It is computed
    from the options and seat count alone, never from a state, so it cannot carry a deal."""
    g = get_game(game_id)
    ref = g.reference({}, players)
    assert isinstance(ref, dict) and ref, "every game gives clients something to draw"
    assert_plain(ref, "reference")
    assert roundtrips(ref)
