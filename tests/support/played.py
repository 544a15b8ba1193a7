"""Matches played with random legal moves, as a live match would log them: each commit decided
with the match rng of its seq (SPEC 10), for tests that need a real log to read back."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from service.games import get_game
from service.games.chance import commit_rng, seed_commitment
from service.store import Commit, MatchRecord, SeatRecord

SEED = "5eed" * 16
T0 = 1_780_000_000_000


@dataclass
class Played:
    record: MatchRecord
    commits: list[Commit] = field(default_factory=list)
    states: list[dict[str, Any]] = field(default_factory=list)  # states[seq]: right after commit seq


def play(game_id: str, players: int, moves: int | None = None, pick: int = 1,
         match_id: str = "Xq3vN8kPz2Lm", created: int = T0) -> Played:
    """A match of `game_id` started and played with random legal moves (`moves` of them, or to
    its end), each commit decided with the match rng of its seq."""
    game = get_game(game_id)
    record = MatchRecord(id=match_id, game=game_id, players=players, options={}, listed=True, seed=SEED,
                         seed_sha256=seed_commitment(SEED), created=created, rules_version=game.rules_version,
                         seats=[SeatRecord(seat=i, taken=True, name=f"Player {i}") for i in range(players)])
    out = Played(record, states=[game.initial({}, players)])
    chooser = random.Random(pick)
    seat: int | None = None
    command: dict[str, Any] = {"type": "start"}
    while True:
        seq = len(out.commits) + 1
        state = out.states[-1]
        events = game.decide(state, seat, command, commit_rng(SEED, seq))
        out.commits.append(Commit(seq=seq, seat=seat, command=command, events=events, move_id=f"m{seq}",
                                  ts=created + 1000 * seq))
        for event in events:
            state = game.evolve(state, event)
        out.states.append(state)
        status = game.status(state)
        if status["finished"] or not status["to_act"] or (moves is not None and seq > moves):
            break
        seat = status["to_act"][0]
        command = chooser.choice(game.legal_moves(state, seat))
    if game.status(out.states[-1])["finished"]:
        record.finished, record.result = True, game.status(out.states[-1])["result"]
    return out
