"""The Starlette app: composes the HTTP routes (service/http), the store and the lobby over it,
and what runs beside them for the app's life.

/ws is not an ASGI route: uvicorn hands each upgraded connection to service.ws.edge.EdgeProtocol
(`teahouse serve`), which finds the Endpoint this app's lifespan offers in its state.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware

from service.bots import pool as bot_pool
from service.http import admin, static
from service.http.answers import guarded, int_param
from service.http.guards import install_log_redaction
from service.http.health import HealthRoutes, watch_gauges
from service.http.lobby_routes import LobbyRoutes
from service.http.origins import OriginGuard
from service.http.player_routes import PlayerRoutes
from service.http.replay_routes import ReplayRoutes
from service.http.summary import summary
from service.http.webhook_routes import WebhookRoutes
from service.match import retention
from service.match.analysis import Analyst
from service.match.apps import Apps
from service.match.courier import Courier
from service.match.lobby import Lobby
from service.match.players import Players
from service.match.ratings import Ratings
from service.match.webhooks import Webhooks
from service.ops import logs, metrics, pauses
from service.ops.access import AccessLog
from service.ops.durability import DurabilityCheck
from service.ops.limits import Limits
from service.store import EventStore, open_store
from service.ws.address_limits import ConnectionCounts
from service.ws.edge import ENDPOINT_KEY, Endpoint
from service.ws.idle import IdleSweep


class Node:
    """What the app's lifespan opens and closes: the store (unless the caller gave one), the lobby
    over it, the pause watch, the retention sweep and the analysis queue. The routes read the
    lobby through `lobby`."""

    def __init__(self, store: EventStore | None, store_url: str | None, limits: Limits,
                 connections: ConnectionCounts) -> None:
        self.given, self.store_url, self.limits = store, store_url, limits
        self.connections = connections
        self._lobby: Lobby | None = None
        self._players: Players | None = None
        self._ratings: Ratings | None = None
        self._webhooks: Webhooks | None = None
        self.apps = Apps.load(limits.apps or None)  # a bad file stops the server at once
        self._durability: DurabilityCheck | None = None
        self._analyst: Analyst | None = None

    def analyst(self) -> Analyst | None:
        """The analysis queue, when this node analyses finished matches (the `analysis` limit)."""
        return self._analyst

    def lobby(self) -> Lobby:
        """The lobby, from the lifespan's start to its end: the routes only run in between."""
        assert self._lobby is not None, "the app's lifespan has not started"
        return self._lobby

    def players(self) -> Players:
        assert self._players is not None, "the app's lifespan has not started"
        return self._players

    def ratings(self) -> Ratings:
        assert self._ratings is not None, "the app's lifespan has not started"
        return self._ratings

    def webhooks(self) -> Webhooks:
        assert self._webhooks is not None, "the app's lifespan has not started"
        return self._webhooks

    def durability(self) -> DurabilityCheck:
        assert self._durability is not None, "the app's lifespan has not started"
        return self._durability

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[dict[str, Any]]:
        lim = self.limits
        install_log_redaction()
        s = self.given if self.given is not None else open_store(self.store_url or "sqlite:teahouse-data",
                                                                lim.wait_replicas, lim.wait_timeout_ms)
        self._players, self._ratings = Players(s, self.apps), Ratings(s)
        lobby = self._lobby = Lobby(s, max_live=lim.live_matches_per_node, idle_seat_seconds=lim.idle_seat_seconds,
                                    ratings=self._ratings)
        webhooks = self._webhooks = Webhooks(
            s, Courier(s, lim.webhook_attempts, lim.webhook_retry_s, lim.webhook_timeout_s), self._ratings,
            lim.webhook_sweep_s)
        lobby.webhooks = webhooks
        lobby.start()
        webhooks.start()
        logs.set_node(lobby.node)
        durability = self._durability = DurabilityCheck(s)
        await durability.start(lim.ready_deadline_s)
        watch_gauges(lobby)
        pauses.settle_gc()
        watch = pauses.PauseWatch()
        watch.start()
        publishing = asyncio.create_task(metrics.publish_forever(), name="metrics") if metrics.SHARED_DIR else None
        keeping = asyncio.create_task(retention.run_forever(
            s, lim.retention_days, lim.retention_action, lim.retention_check_s, lobby.forget),
            name="retention") if lim.retention_days else None
        if lim.analysis:
            self._analyst = Analyst(s, lim.analysis_playouts)
            lobby.on_finish = self._analyst.finished
            self._analyst.start()
        # service/ws/edge.py serves /ws from uvicorn's protocol object, with this endpoint
        yield {ENDPOINT_KEY: Endpoint(self.lobby, lim, self.connections, IdleSweep(lim.idle_socket_s))}
        if keeping is not None:
            keeping.cancel()
            await asyncio.gather(keeping, return_exceptions=True)
        if publishing is not None:
            publishing.cancel()
            await asyncio.gather(publishing, return_exceptions=True)
            metrics.retire()
        await watch.close()
        if self._analyst is not None:
            await self._analyst.close()
        await durability.close()
        await lobby.close()
        await webhooks.close()
        bot_pool.shutdown()
        if self.given is None:
            await s.close()


def create_app(store: EventStore | None = None, store_url: str | None = None,
               limits: Limits | None = None) -> Starlette:
    lim = limits if limits is not None else Limits.from_sources()
    connections = ConnectionCounts(lim.connections_per_address)
    node = Node(store, store_url, lim, connections)
    lobby = node.lobby
    health = HealthRoutes(lobby, lim, node.durability)
    matches = LobbyRoutes(lobby, lim, static.view_schemas(), node.players, node.ratings)

    routes = [
        *health.routes(),
        *matches.routes(),
        *PlayerRoutes(lobby, node.players, node.ratings, lim).routes(),
        *WebhookRoutes(node.players, node.webhooks, lim).routes(),
        *ReplayRoutes(lobby, lim, matches.creation_room, node.analyst).routes(),
        *admin.routes(lobby, lim.admin_token, summary, guarded, int_param),
        *static.routes(),
    ]
    # Browsers: CORS for allowed origins, other origins refused (the edge checks a WebSocket's Origin itself); the
    # access log outside it, so that refusals are logged too. The JSON answers a page reads (a game's
    # reference, a replay, the lobby's lists) gzipped for a phone's slow link: level 6 costs a
    # fraction of level 9's CPU on the loop for nearly its ratio; the static files come gzipped
    # already (packed.py), which the middleware leaves as they are.
    return Starlette(routes=routes, lifespan=node.lifespan,
                     middleware=[Middleware(AccessLog), Middleware(OriginGuard, origins=lim.cors_origins),
                                 Middleware(GZipMiddleware, minimum_size=1024, compresslevel=6)])


def app_from_env() -> Starlette:
    """The app of one process of `teahouse serve --workers N`: the parent puts the store URL in
    TEAHOUSE_STORE_URL and its limit flags in their TEAHOUSE_ variables (service.cli)."""
    return create_app(store_url=os.environ["TEAHOUSE_STORE_URL"], limits=Limits.from_sources())
