"""Replays: a match's state at any seq, seen by any audience, rebuilt from its log."""

from __future__ import annotations

from typing import Any

from service.games import fold, get_game
from service.match.narration import names_of, sentences_entry, story
from service.match.projection import Projection
from service.store import Commit, MatchRecord


def state_at(record: MatchRecord, commits: list[Commit], seq: int) -> dict[str, Any]:
    """The match's state right after commit `seq`, folded under the rules it was played with."""
    game = get_game(record.game)
    events = [e for c in commits if c.seq <= seq for e in c.events]
    return fold(game, events, game.initial(record.options, record.players), record.rules_version)


def at(record: MatchRecord, commits: list[Commit], seq: int, seat: int | None) -> dict[str, Any]:
    """What `seat` (None: a spectator) saw right after commit `seq`: the same document the
    projection sends live, so a replay cannot show more than the audience was sent."""
    game = get_game(record.game)
    state = state_at(record, commits, seq)
    doc = Projection(game, record.id).document(state, seat)
    out: dict[str, Any] = {"match": record.id, "seq": seq, "seat": seat, **doc}
    if record.finished and 0 < seq <= len(commits):
        c = commits[seq - 1]
        out["commit"] = {"seat": c.seat, "command": c.command, "ts": c.ts}
    # Sentences are public (the same for every audience), so a live match shows them too.
    out["log"] = story(game, [c for c in commits if c.seq <= seq], names_of(record.seats, record.players), state)
    last = out["log"][-1] if out["log"] and out["log"][-1]["seq"] == seq else {"said": []}
    return sentences_entry(out, last["said"])
