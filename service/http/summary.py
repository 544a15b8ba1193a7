"""A match as the HTTP API shows it (protocol/SPEC.md section 2): its state, seats, public options,
and once it is over its seed and result. The lobby, replay and admin routes all answer with it."""

from __future__ import annotations

from typing import Any

from service.games import get_game
from service.match.lobby import open_hand, same_clock
from service.match.rematch import answers
from service.store import MatchRecord

MATCH_STATES = ("open", "live", "finished", "diverged")


def summary(rec: MatchRecord, seq: int | None = None) -> dict[str, Any]:
    taken = sum(s.taken for s in rec.seats)
    state = "finished" if rec.finished else ("live" if taken == rec.players else "open")
    if rec.diverged is not None:
        state = "diverged"  # its log lost commits a node had seen (docs/operators.md)
    options, fixed = public_options(rec)
    out: dict[str, Any] = {
        "match": rec.id, "game": rec.game, "players": rec.players, "options": options,
        "fixed_chance": fixed, "listed": rec.listed, "state": state, "created": rec.created,
        "seats": [{"seat": s.seat, "taken": s.taken, "name": s.name} for s in rec.seats],
        # the parent's seed is public once the parent is finished, which a fork requires
        "seed_sha256": rec.seed_sha256, "forked_from": rec.forked_from,
        "open_hand": open_hand(rec),
        "turn_seconds": rec.turn_seconds, "time_control": same_clock(rec), "absent": rec.absent,
        "bots": [{"seat": seat, "strength": strength} for seat, strength in enumerate(rec.bots or []) if strength is not None],
        "spectators": rec.spectators, "spectator_delay": rec.spectator_delay,
        # the match that follows this one, and the one this one follows with each seat's answer
        "rematch": rec.links.get("rematch"),
        "rematch_of": {"match": rec.rematch_of["match"], "seats": answers(rec)} if rec.rematch_of else None,
    }
    if seq is not None:
        out["seq"] = seq
    if rec.finished:
        out["seed"] = rec.seed
        out["bot_seed"] = rec.bot_seed
        out["result"] = rec.result
    return out


def public_options(rec: MatchRecord) -> tuple[dict[str, Any], list[str]]:
    """The options anyone may read, and the names of those that fixed hidden chance. While the
    match is live the values of a game's secret options (a deck's order...) would deal every hand
    to whoever reads the lobby; once it is over they are public with the log."""
    secret = get_game(rec.game).secret_options
    fixed = sorted(k for k in rec.options if k in secret)
    if rec.finished:
        return rec.options, fixed
    return {k: v for k, v in rec.options.items() if k not in secret}, fixed
