"""Words for people, for every registered game (SPEC 3.14), along random matches:

- every legal move of the seat to act has a non-empty label, and the labels of one seat's
  moves at one moment tell them apart (a person picks a move by its label);
- every commit's sentences are non-empty strings, the end of the match is told, and no
  sentence carries a string that `secrets()` says some audience may not see after the commit
  (the sentences go to every audience alike).

Playout counts stay small for CI; TEAHOUSE_LONG=1 plays more.
"""

from __future__ import annotations

import os

import pytest

from service.games import GAMES, get_game
from service.games.playout import playout
from service.match.narration import commit_sentences, move_labels

LONG = os.environ.get("TEAHOUSE_LONG") == "1"
SEEDS = [f"words-{i}" for i in range(12 if LONG else 2)]
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin"]


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_has_a_narrator(game_id):
    assert get_game(game_id).narrator is not None


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game_id", GAMES)
def test_labels_and_sentences_along_random_matches(game_id, seed):
    game = get_game(game_id)
    players = game.min_players + SEEDS.index(seed) % (game.max_players - game.min_players + 1)
    names = NAMES[:players]
    last: list[str] = []
    for step in playout(game, players, seed):
        said = commit_sentences(game, step.seat, step.command, step.events, None, names, step.after)
        assert all(isinstance(s, str) and s.strip() for s in said), said
        if step.seat is not None:
            assert said, f"{step.command} was played and nothing was said"
        hidden = {h for a in [*range(players), None] for h in game.secrets(step.after, a)}
        for s in said:
            told = [h for h in hidden if h in s]
            assert not told, f"{s!r} tells {told}"
        last = said
        status = game.status(step.after)
        for seat in status["to_act"]:
            moves = game.legal_moves(step.after, seat)
            labels = move_labels(game, game.view(step.after, seat), seat, moves, names)
            assert len(labels) == len(moves) and all(label.strip() for label in labels)
            twins = {label for label in labels if labels.count(label) > 1}
            assert not twins, f"{game_id}: labels that do not tell moves apart: {sorted(twins)[:3]}"
    assert any(s.startswith("Game over") for s in last), last
