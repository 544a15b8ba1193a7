"""The players' HTTP routes (protocol/SPEC.md 2.15 to 2.17): becoming a player, who a key or an
app's token is, a player's matches, and each game's leaderboard."""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.games import GAMES
from service.http.answers import guarded, int_param, json
from service.http.guards import json_body, seat_token
from service.match.history import player_matches
from service.match.lobby import Lobby, LobbyError
from service.match.players import Players
from service.match.ratings import Ratings, rating_row
from service.ops.limits import Limits
from service.store import PlayerRecord

MAX_PAGE = 200


def player_row(p: PlayerRecord) -> dict[str, object]:
    return {"player": p.id, "name": p.name, "created": p.created}


async def credential(request: Request, players: Players) -> PlayerRecord | None:
    """The player proven by the request's `Authorization: Bearer` (a player key or an app's
    JWT), or None without one."""
    token = seat_token(request)
    return await players.authenticate(token) if token else None


class PlayerRoutes:
    def __init__(self, lobby: Callable[[], Lobby], players: Callable[[], Players],
                 ratings: Callable[[], Ratings], limits: Limits) -> None:
        self.lobby, self.players, self.ratings, self.limits = lobby, players, ratings, limits

    def routes(self) -> list[Route]:
        return [
            Route("/api/players", guarded(self.create), methods=["POST"]),
            Route("/api/players/me", guarded(self.me), methods=["GET"]),
            Route("/api/players/{player}/matches", guarded(self.matches), methods=["GET"]),
            Route("/api/players/{player}", guarded(self.get), methods=["GET"]),
            Route("/api/games/{game}/leaderboard", guarded(self.leaderboard), methods=["GET"]),
        ]

    async def create(self, request: Request) -> Response:
        body = await json_body(request, self.limits)
        player, key = await self.players().create(body.get("name"))
        return json({**player_row(player), "key": key}, 201)

    async def me(self, request: Request) -> Response:
        player = await credential(request, self.players())
        if player is None:
            raise LobbyError("bad_player_key", "send a player key (or an app's token) as Authorization: Bearer", 401)
        return json(player_row(player))

    async def get(self, request: Request) -> Response:
        return json(player_row(await self.players().get(request.path_params["player"])))

    async def matches(self, request: Request) -> Response:
        pid = request.path_params["player"]
        await self.players().get(pid)  # 404 for nobody
        me = await credential(request, self.players())
        q = request.query_params
        page = await player_matches(self.lobby(), self.ratings(), pid, me is not None and me.id == pid,
                                    int_param(q.get("offset"), "offset", 0, 0, 1 << 31),
                                    int_param(q.get("limit"), "limit", 50, 1, MAX_PAGE))
        return json(page)

    async def leaderboard(self, request: Request) -> Response:
        game = request.path_params["game"]
        if game not in GAMES:
            raise LobbyError("unknown_game", f"unknown game; known: {', '.join(GAMES)}", 404)
        q = request.query_params
        offset = int_param(q.get("offset"), "offset", 0, 0, 1 << 31)
        limit = int_param(q.get("limit"), "limit", 50, 1, MAX_PAGE)
        fold = await self.ratings().fold(game)
        ranked = sorted(fold.standings.items(), key=lambda kv: (-kv[1].rating.rating, kv[0]))
        rows = []
        for i, (pid, standing) in enumerate(ranked[offset:offset + limit], start=offset + 1):
            player = await self.players().get(pid)
            rows.append({"rank": i, "player": pid, "name": player.name, **rating_row(standing)})
        return json({"game": game, "total": len(ranked), "offset": offset, "players": rows})
