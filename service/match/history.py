"""A player's matches, as `GET /api/players/{id}/matches` lists them (SPEC 2.15).

Live matches first, and of those the ones waiting on this player first, the longest wait first
(as Yucata lists them: whoever has waited longest is answered first); then the other live ones,
the open ones, and the finished ones, the newest first, with the player's place and
rating change. Everything is read from the store and the logs: the list is only an index.
"""

from __future__ import annotations

from typing import Any

from service.games import get_game
from service.match.lobby import Lobby, LobbyError
from service.match.ratings import GameFold, Ratings, changes_of, ranks_of
from service.match.settle import latest_state
from service.store import MatchRecord


async def _position(lobby: Lobby, rec: MatchRecord) -> tuple[list[int], int]:
    """Seats to act now and the time of the latest commit, from this node's runtime if it holds
    the match, else from the log."""
    rt = next((r for r in lobby.loaded() if r.id == rec.id and not r.closed), None)
    if rt is not None:
        return list(rt.status.get("to_act") or []), rt.last_ts
    seq, state = await latest_state(lobby.store, rec)
    last = await lobby.store.read(rec.id, seq - 1, seq) if seq else []
    return list(get_game(rec.game).status(state).get("to_act") or []), last[0].ts if last else rec.created


async def row(lobby: Lobby, folds: dict[str, GameFold], ratings: Ratings, rec: MatchRecord,
              player: str) -> dict[str, Any] | None:
    seat = next((s.seat for s in rec.seats if s.player == player), None)
    if seat is None:
        return None  # the seat was freed (never joined) since the player took it
    taken = all(s.taken for s in rec.seats)
    state = "finished" if rec.finished else "live" if taken else "open"
    out: dict[str, Any] = {
        "match": rec.id, "game": rec.game, "state": state, "seat": seat, "created": rec.created,
        "seats": [{"seat": s.seat, "name": s.name, "player": s.player} for s in rec.seats],
        "your_turn": False, "waiting_since": None, "last_move": None,
    }
    if state == "live":
        to_act, last_ts = await _position(lobby, rec)
        out["last_move"] = last_ts
        if seat in to_act:
            out["your_turn"], out["waiting_since"] = True, last_ts
    if state == "finished":
        result = rec.result or {}
        out["result"] = result
        out["rank"] = ranks_of(result, rec.players)[seat]
        if rec.game not in folds:  # once per game and request: the fold reads the game's index
            folds[rec.game] = await ratings.fold(rec.game)
        changes = changes_of(folds[rec.game], rec.id)
        out["rating"] = next((c for c in changes or [] if c["player"] == player), None)
    return out


def _order(r: dict[str, Any]) -> tuple[Any, ...]:
    if r["state"] == "live" and r["your_turn"]:
        return (0, r["waiting_since"], r["match"])
    if r["state"] == "live":
        return (1, -(r["last_move"] or 0), r["match"])
    if r["state"] == "open":
        return (2, -r["created"], r["match"])
    return (3, -r["created"], r["match"])


async def player_matches(lobby: Lobby, ratings: Ratings, player: str, own: bool,
                         offset: int, limit: int) -> dict[str, Any]:
    """One page of the player's matches. `own`: the caller proved it is this player, who sees
    its private matches too (others see only matches whose spectators are public)."""
    rows: list[dict[str, Any]] = []
    folds: dict[str, GameFold] = {}
    for match_id in await lobby.store.player_matches(player):
        try:
            rec = await lobby.settled(match_id)
        except LobbyError:
            continue  # deleted since
        if rec.spectators != "public" and not own:
            continue
        r = await row(lobby, folds, ratings, rec, player)
        if r is not None:
            rows.append(r)
    rows.sort(key=_order)
    return {"player": player, "total": len(rows), "offset": offset, "matches": rows[offset:offset + limit]}
