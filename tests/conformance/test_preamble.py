"""The same situation gets the same code in every game (protocol/SPEC.md 7.2).

Over the whole registry: a legal move with one field added is refused with `unknown_field`;
before the start, after the end, a non-map, an unknown type, a system command from a seat and
a second start each have one code, whatever the game.
"""

from __future__ import annotations

import random

import pytest

from service.games import GAMES, IllegalMove, get_game
from service.games.chance import commit_rng
from service.games.playout import START, playout

PAD = {"pad": "x" * 1000}


def code_of(game_id: str, state, seat, command) -> str:
    with pytest.raises(IllegalMove) as err:
        get_game(game_id).decide(state, seat, command, random.Random(1))
    assert err.value.message
    return err.value.code


@pytest.mark.parametrize("game_id", GAMES)
def test_a_legal_move_with_an_extra_field_is_refused_with_one_code(game_id):
    g = get_game(game_id)
    seed = f"extra-{game_id}"
    tried = 0
    for step in playout(g, g.min_players, seed, max_commits=400):
        st = g.status(step.after)
        if st["finished"]:
            break
        for seat in st["to_act"]:
            for move in g.legal_moves(step.after, seat)[:4]:
                # the move as listed is accepted (the conformance suite checks it too) ...
                g.decide(step.after, seat, move, commit_rng(seed, step.seq + 1))
                # ... and with any field it does not take, it is refused, the same way everywhere
                for extra in (PAD, {"Type": move["type"]}, {"": 0}, {"card ": "x"}):
                    assert code_of(game_id, step.after, seat, {**move, **extra}) == "unknown_field"
                    tried += 1
        if tried > 200:
            break
    assert tried > 0


@pytest.mark.parametrize("game_id", GAMES)
def test_the_declared_commands_are_the_ones_legal_moves_use(game_id):
    """Each game declares every command and its fields; a legal move uses only those."""
    g = get_game(game_id)
    assert "start" in g.commands.system and not g.commands.system["start"]
    seen: set[str] = set()
    for players in (g.min_players, g.max_players):
        for step in playout(g, players, f"declared-{game_id}-{players}"):
            for seat in g.status(step.after)["to_act"]:
                for move in g.legal_moves(step.after, seat):
                    fields = g.commands.player.get(move["type"])
                    assert fields is not None, f"{move['type']!r} is not declared"
                    assert set(move) - {"type"} <= fields, move
                    seen.add(move["type"])
    assert seen, "no legal move at all"


@pytest.mark.parametrize("game_id", GAMES)
def test_the_shared_situations_have_the_shared_codes(game_id):
    g = get_game(game_id)
    n = g.min_players
    waiting = g.initial({}, n)
    some_command = {"type": next(iter(g.commands.player))}
    # malformed commands
    for junk in ({}, {"type": 7}, {"type": None}, [], "take_card", None, {"type": ["start"]}):
        assert code_of(game_id, waiting, 0, junk) == "bad_command"
    # before the start
    for seat in range(n):
        for kind in g.commands.player:
            assert code_of(game_id, waiting, seat, {"type": kind}) == "not_started"
    # commands nobody has, and the system's commands from a seat
    assert code_of(game_id, waiting, 0, {"type": "__no_such_command__"}) == "unknown_command"
    assert code_of(game_id, waiting, None, some_command) == "unknown_command"
    for kind in g.commands.system:
        if kind not in g.commands.player:
            assert code_of(game_id, waiting, 0, {"type": kind}) == "system_only"
    assert code_of(game_id, waiting, None, {**START, **PAD}) == "unknown_field"
    # a second start
    started = waiting
    for e in g.decide(waiting, None, START, commit_rng("codes", 1)):
        started = g.evolve(started, e)
    assert code_of(game_id, started, None, START) == "already_started"
    # after the end: game_over for every command, known or not, from anyone
    final = started
    for step in playout(g, n, f"codes-{game_id}"):
        final = step.after
    assert g.status(final)["finished"]
    for seat in (*range(n), None):
        for kind in (*g.commands.player, "start", "__no_such_command__"):
            assert code_of(game_id, final, seat, {"type": kind}) == "game_over"


def test_gugong_declares_every_command_its_prompts_answer():
    from service.games.gugong.rules import PROMPTS

    answered = {"exchange_tokens"} | {kind for answers in PROMPTS.values() for kind in answers}
    assert answered == set(get_game("gugong").commands.player)
