"""What probes and scrapers read: `/health/live`, `/health/ready` (and `/health`, the same answer)
and `/metrics`, with the gauges that count what the node holds (docs/operators.md)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.games import GAMES
from service.http.answers import RETRY_AFTER_S, json
from service.match.lobby import Lobby
from service.ops import metrics
from service.ops.durability import DurabilityCheck
from service.ops.limits import Limits
from service.store import StoreUnavailable


class HealthRoutes:
    """The probes over the lobby that the app's lifespan opens (`lobby` returns it, with its
    store) and the durability check it starts (`durability`)."""

    def __init__(self, lobby: Callable[[], Lobby], limits: Limits,
                 durability: Callable[[], DurabilityCheck]) -> None:
        self.lobby, self.limits, self.durability = lobby, limits, durability

    def routes(self) -> list[Route]:
        return [
            Route("/metrics", self.metrics),
            Route("/health", self.ready),
            Route("/health/live", self.live),
            Route("/health/ready", self.ready),
        ]

    async def live(self, request: Request) -> Response:
        """The process answers: a liveness probe restarts a node only when this fails."""
        return json({"ok": True})

    async def ready(self, request: Request) -> Response:
        """The store answers a ping within Limits.ready_deadline_s: a readiness probe sends
        clients elsewhere (or nowhere) while it does not. /health is the same answer.
        `diverged_matches` is counted in the store, so a restarted node (or any other) still
        reports the matches stopped before; `durability` says whether acks survive a power loss."""
        lobby = self.lobby()
        deadline = self.limits.ready_deadline_s
        body: dict[str, Any] = {"ok": True, "store": lobby.store.name, "games": list(GAMES),
                                "live_matches": lobby.live_count, "diverged_matches": lobby.diverged_count,
                                "durability": self.durability().public()}
        try:
            await asyncio.wait_for(lobby.store.ping(), deadline)
            body["diverged_matches"] = await asyncio.wait_for(lobby.store.count_diverged(), deadline)
        except (StoreUnavailable, TimeoutError):
            body["ok"] = False
            body["error"] = {"code": "store_unavailable", "message": "the store did not answer a ping within "
                             f"{deadline:g} s"}
            response = json(body, 503)
            response.headers["Retry-After"] = str(RETRY_AFTER_S)
            return response
        return json(body)

    async def metrics(self, request: Request) -> Response:
        with contextlib.suppress(StoreUnavailable, TimeoutError):  # else the last count stays
            count = await asyncio.wait_for(self.lobby().store.count_diverged(), self.limits.ready_deadline_s)
            metrics.DIVERGED_MATCHES.set(count)
        return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)


def watch_gauges(lobby: Lobby) -> None:
    """The gauges that count what the node holds, read at each scrape of /metrics."""
    metrics.watch(metrics.LOADED_MATCHES, lambda: lobby.live_count)
    metrics.watch(metrics.AUDIENCES, lambda: sum(len(rt.watchers) for rt in lobby.loaded()))
    metrics.watch(metrics.WATCHERS, lambda: sum(len(group) for rt in lobby.loaded() for group in rt.watchers.values()))
