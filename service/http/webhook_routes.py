"""A player's webhooks over HTTP (protocol/SPEC.md 2.19): register one (its secret shown once),
list them, delete one, and read the delivery log. Every route is the caller's own: the player
its `Authorization: Bearer` proves (a player key or an app's token)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.http.answers import guarded, int_param, json
from service.http.guards import json_body, seat_token
from service.http.player_routes import MAX_PAGE, credential
from service.match import hooks, notices
from service.match.lobby import LobbyError
from service.match.players import Players
from service.match.webhooks import Webhooks
from service.ops.limits import Limits
from service.store import DeliveryRecord


def delivery_row(d: DeliveryRecord) -> dict[str, Any]:
    return {"id": d.id, "webhook": d.hook, "event": d.event, "match": d.match, "seq": d.seq,
            "created": d.created, "status": d.status, "attempts": d.attempts, "last_status": d.last_status,
            "last_error": d.last_error, "delivered": d.delivered,
            "next_attempt": d.next_at if d.status == "pending" else None}


class WebhookRoutes:
    def __init__(self, players: Callable[[], Players], webhooks: Callable[[], Webhooks], limits: Limits) -> None:
        self.players, self.webhooks, self.limits = players, webhooks, limits

    def routes(self) -> list[Route]:
        base = "/api/players/me/webhooks"
        return [
            Route(base, guarded(self.create), methods=["POST"]),
            Route(base, guarded(self.list), methods=["GET"]),
            Route(base + "/deliveries", guarded(self.deliveries), methods=["GET"]),
            Route(base + "/{webhook}", guarded(self.delete), methods=["DELETE"]),
        ]

    async def _owner(self, request: Request) -> str:
        """Whose hooks the request manages: the credential's player, or an app itself (its token
        with `sub` "*": its hooks hear of all its users)."""
        app = self.players().app_itself(seat_token(request))
        if app is not None:
            return notices.app_hooks_owner(app)
        player = await credential(request, self.players())
        if player is None:
            raise LobbyError("bad_player_key", "send a player key (or an app's token) as Authorization: Bearer", 401)
        return player.id

    async def create(self, request: Request) -> Response:
        me = await self._owner(request)
        body = await json_body(request, self.limits)
        site = self.limits.public_url or str(request.base_url)
        hook = await hooks.register(self.webhooks().store, me, body, site, self.limits.webhooks_per_player)
        self.webhooks().changed()
        return json({**hooks.hook_row(hook), "secret": hook.secret}, 201)

    async def list(self, request: Request) -> Response:
        me = await self._owner(request)
        found = await self.webhooks().store.hooks(me)
        return json({"player": me, "webhooks": [hooks.hook_row(h) for h in found]})

    async def delete(self, request: Request) -> Response:
        me = await self._owner(request)
        await hooks.unregister(self.webhooks().store, me, request.path_params["webhook"])
        self.webhooks().changed()
        return Response(status_code=204)

    async def deliveries(self, request: Request) -> Response:
        me = await self._owner(request)
        q = request.query_params
        offset = int_param(q.get("offset"), "offset", 0, 0, 1 << 31)
        limit = int_param(q.get("limit"), "limit", 50, 1, MAX_PAGE)
        total, page = await self.webhooks().store.deliveries(me, offset, limit)
        return json({"player": me, "total": total, "offset": offset, "deliveries": [delivery_row(d) for d in page]})
