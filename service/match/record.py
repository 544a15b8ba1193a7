"""A finished match as one self-contained game record (protocol/SPEC.md 2.13): JSON Lines, a
header, then one line per commit with the hash of the state after it, so that anyone can check
the match without the server (service/match/verify.py, clients/js/verify.js).

The state hash is sha256 of the state's canonical JSON (SPEC 2.13): keys sorted by code point,
no whitespace, UTF-8 with only the escapes JSON requires. States hold only dicts with string
keys, lists, strings, integers, booleans and null (DESIGN: plain data), so the encoding is
exact in every language.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from service.games import fold, get_game
from service.store import Commit, MatchRecord

FORMAT = "teahouse.record"
FORMAT_VERSION = 1


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode()


def state_hash(state: Any) -> str:
    return hashlib.sha256(canonical(state)).hexdigest()


def header(rec: MatchRecord, commits: int, analysis: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record's first line. `analysis`, when the match has one (SPEC 2.14), rides along: it is
    not checked by a verifier (it is an estimate, not a fact of the match)."""
    out = {
        "format": FORMAT, "version": FORMAT_VERSION, "match": rec.id, "game": rec.game,
        "rules_version": rec.rules_version, "players": rec.players,
        "seats": [{"seat": s.seat, "name": s.name} for s in rec.seats],
        "options": rec.options, "created": rec.created, "seed_sha256": rec.seed_sha256, "seed": rec.seed,
        "forked_from": rec.forked_from, "result": rec.result, "commits": commits,
        "chance": chance_lists(rec.game, rec.options, rec.players),
    }
    if analysis is not None:
        out["analysis"] = analysis
    return out


def lines(rec: MatchRecord, commits: list[Commit],
          analysis: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """The header, then every commit with the hash of the state after it (folded as written)."""
    game = get_game(rec.game)
    yield header(rec, len(commits), analysis)
    state = game.initial(rec.options, rec.players)
    for c in commits:
        state = fold(game, c.events, state, rec.rules_version)
        yield {"seq": c.seq, "seat": c.seat, "command": c.command, "move_id": c.move_id, "ts": c.ts,
               "events": c.events, "state_sha256": state_hash(state)}


def encode(rec: MatchRecord, commits: list[Commit], analysis: dict[str, Any] | None = None) -> bytes:
    return b"".join(canonical(line) + b"\n" for line in lines(rec, commits, analysis))


def chance_lists(game_id: str, options: dict[str, Any], players: int) -> dict[str, Any]:
    """The public component lists each game's chance draws over, in the order it draws over
    them (SPEC 10.6): what a verifier without the game's data needs to re-run the start."""
    if game_id == "pixies":
        from service.games.pixies.data import CARD_IDS as PIXIES_CARDS
        from service.games.pixies.data import MARKET_SIZE
        return {"cards": list(PIXIES_CARDS), "market_size": MARKET_SIZE[players]}
    if game_id == "china":
        from service.games.china.data import cards_in_play
        return {"cards": cards_in_play(players)}
    if game_id == "khan":
        from service.games.khan.data import CARD_IDS as KHAN_CARDS
        return {"cards": list(KHAN_CARDS)}
    if game_id == "gugong":
        from service.games.gugong import data
        return {"location_cards": list(data.LOCATION_CARDS), "locations": list(data.LOCATIONS),
                "draw_cards": list(data.DRAW_CARDS), "tokens": sorted(data.TOKENS), "cities": list(data.CITIES),
                "decrees": {str(level): sorted(d for d, info in data.DECREES.items() if info["level"] == level)
                            for level in data.DECREE_LEVELS},
                "decrees_per_level": data.DECREES_IN_PLAY_PER_LEVEL, "dice": [list(d) for d in data.DICE],
                "start_cards": list(data.START_CARDS), "hand_size": data.BOARD["hand_size"]}
    if game_id == "hieroglyphs":
        content = get_game(game_id).initial(options, players)["content"]
        return {"cards": list(content["card_ids"]), "tasks": list(content["task_ids"]),
                "glosses": {char: info["gloss"] for char, info in content["chars"].items()}}
    return {}
