"""The Starlette app: composes the HTTP routes (service/http), the WebSocket endpoint, the store
and the lobby over it, and what runs beside them for the app's life.

The WebSocket endpoint is a thin adapter around service.ws.session.Session.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from protocol.versions import negotiate, unsupported_reason
from service.bots import pool as bot_pool
from service.http import admin, static
from service.http.answers import guarded, int_param
from service.http.guards import WRITE_EXTENSION, WRITE_FRAMED_EXTENSION, install_log_redaction
from service.http.health import HealthRoutes, watch_gauges
from service.http.lobby_routes import LobbyRoutes
from service.http.origins import OriginGuard
from service.http.replay_routes import ReplayRoutes
from service.http.summary import summary
from service.match import retention
from service.match.lobby import Lobby
from service.ops import logs, metrics, pauses
from service.ops.access import AccessLog
from service.ops.limits import Limits
from service.store import EventStore, open_store
from service.ws.address_limits import ConnectionCounts
from service.ws.edge import CLOSE_TOO_MANY, CLOSE_UNSUPPORTED, ENDPOINT_KEY, Endpoint, IdleSweep
from service.ws.session import CLOSE_IDLE, Session


class Node:
    """What the app's lifespan opens and closes: the store (unless the caller gave one), the lobby
    over it, the pause watch and the retention sweep. The routes read the lobby through `lobby`."""

    def __init__(self, store: EventStore | None, store_url: str | None, limits: Limits,
                 connections: ConnectionCounts) -> None:
        self.given, self.store_url, self.limits = store, store_url, limits
        self.connections = connections
        self._lobby: Lobby | None = None

    def lobby(self) -> Lobby:
        """The lobby, from the lifespan's start to its end: the routes only run in between."""
        assert self._lobby is not None, "the app's lifespan has not started"
        return self._lobby

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[dict[str, Any]]:
        lim = self.limits
        install_log_redaction()
        s = self.given if self.given is not None else open_store(self.store_url or "sqlite:teahouse-data",
                                                                lim.wait_replicas, lim.wait_timeout_ms)
        lobby = self._lobby = Lobby(s, max_live=lim.live_matches_per_node, idle_seat_seconds=lim.idle_seat_seconds)
        lobby.start()
        logs.set_node(lobby.node)
        watch_gauges(lobby)
        pauses.settle_gc()
        watch = pauses.PauseWatch()
        watch.start()
        keeping = asyncio.create_task(retention.run_forever(
            s, lim.retention_days, lim.retention_action, lim.retention_check_s, lobby.forget),
            name="retention") if lim.retention_days else None
        # service/ws/edge.py serves /ws from uvicorn's protocol object, with this endpoint
        yield {ENDPOINT_KEY: Endpoint(self.lobby, lim, self.connections, IdleSweep(lim.idle_socket_s))}
        if keeping is not None:
            keeping.cancel()
            await asyncio.gather(keeping, return_exceptions=True)
        await watch.close()
        await lobby.close()
        bot_pool.shutdown()
        if self.given is None:
            await s.close()


def create_app(store: EventStore | None = None, store_url: str | None = None,
               limits: Limits | None = None) -> Starlette:
    lim = limits if limits is not None else Limits.from_sources()
    connections = ConnectionCounts(lim.connections_per_address)
    node = Node(store, store_url, lim, connections)
    lobby = node.lobby
    health = HealthRoutes(lobby, lim)
    matches = LobbyRoutes(lobby, lim, static.view_schemas())

    async def websocket(ws: WebSocket) -> None:
        """/ws through ASGI: served only where service/ws/edge.py does not serve it (another
        ASGI server); the same handshake checks, the same Session."""
        offered = list(ws.scope.get("subprotocols") or [])
        chosen = negotiate(offered)
        await ws.accept(subprotocol=chosen.subprotocol if chosen else None)
        if chosen is None:
            await ws.close(code=CLOSE_UNSUPPORTED, reason=unsupported_reason(offered))
            return
        address = ws.client.host if ws.client else ""
        if not connections.open(address):
            await ws.close(code=CLOSE_TOO_MANY, reason=connections.refusal())
            return
        try:
            await serve_session(ws, lobby(), chosen.wire, lim)
        finally:
            connections.close(address)

    routes = [
        *health.routes(),
        *matches.routes(),
        *ReplayRoutes(lobby, lim, matches.count_creation).routes(),
        WebSocketRoute("/ws", websocket),
        *admin.routes(lobby, lim.admin_token, summary, guarded, int_param),
        *static.routes(),
    ]
    # Browsers: CORS for allowed origins, other origins refused (HTTP and WebSocket alike); the
    # access log outside it, so that refusals are logged too.
    return Starlette(routes=routes, lifespan=node.lifespan,
                     middleware=[Middleware(AccessLog), Middleware(OriginGuard, origins=lim.cors_origins)])


def app_from_env() -> Starlette:
    """The app of one process of `teahouse serve --workers N`: the parent puts the store URL in
    TEAHOUSE_STORE_URL and its limit flags in their TEAHOUSE_ variables (service.cli)."""
    return create_app(store_url=os.environ["TEAHOUSE_STORE_URL"], limits=Limits.from_sources())


async def serve_session(ws: WebSocket, lobby: Lobby, encoding: str, limits: Limits) -> None:
    """Pump frames in and out until the client leaves or is cut off for reading too slowly.

    Frames are written by a task that runs only while the session's outbox holds something
    (the session wakes it), so an idle connection holds no writer, and a broadcast to many
    connections queues its frame on each without awaiting any of them."""
    loop = asyncio.get_running_loop()
    idle_s = limits.idle_socket_s
    binary = encoding.endswith("msgpack")
    closing: asyncio.Future[tuple[int, str]] = loop.create_future()
    writer: asyncio.Task[None] | None = None

    async def drain() -> None:
        nonlocal writer
        outbox = session.outbox
        try:
            while outbox and not closing.done():
                data = outbox.pop(0)
                session.written += 1  # handed to the socket: a client reading it may ask again
                if binary:
                    await ws.send_bytes(data)
                else:
                    await ws.send_text(data.decode())
        except Exception:  # the socket went away: the reader sees the disconnect
            outbox.clear()
        finally:
            writer = None
            session.direct = write_framed if not handling and not closing.done() else None

    # Served by our uvicorn protocol (service.http.guards), frames are written at once, in the
    # broadcast that queued them; the writer task is only for a socket that cannot take them
    # now (its buffer is full) or another ASGI server.
    extensions = ws.scope.get("extensions") or {}
    write_now: Callable[[bytes, bool], bool] | None = extensions.get(WRITE_EXTENSION)
    # A broadcast's frame, framed once for all, goes straight to the socket (Session.direct)
    # whenever nothing of this connection waits before it: no writer task, no request of its
    # own being handled, not closing. Otherwise Session queues it as any other frame.
    write_framed: Callable[[bytes], bool] | None = extensions.get(WRITE_FRAMED_EXTENSION)

    # While this connection's own request is handled, its answers wait for the writer task, as
    # before: written < answered is how a pipelined request is told (Session.handle), and
    # requests read in one go must not look answered one by one.
    handling = False

    def wake() -> None:
        nonlocal writer
        if writer is not None or closing.done():
            return
        outbox = session.outbox
        if write_now is not None and not handling:
            while outbox and write_now(outbox[0], binary):
                del outbox[0]
                session.written += 1
            if not outbox:
                return
        session.direct = None
        writer = loop.create_task(drain())

    def on_cut(code: int, reason: str) -> None:
        session.direct = None
        if not closing.done():
            closing.set_result((code, reason))

    session = Session(lobby, encoding, on_cut, limits)
    session.wake = wake
    session.direct = write_framed
    metrics.CONNECTIONS.inc()

    async def reader() -> None:
        nonlocal handling
        while True:
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                return
            frame = msg.get("bytes")
            if frame is None:
                frame = msg.get("text") or ""
            handling = True
            session.direct = None
            try:
                await session.handle(frame)
            finally:
                handling = False
                if writer is None and not closing.done():
                    session.direct = write_framed

    # The reader runs in this task and the idle check is a timer, not tasks of their own: a
    # task and its coroutine cost ~1 KiB each on every idle connection. A cut cancels this
    # task's read (the client is not served any more) and it goes on to close the socket.
    me = asyncio.current_task()
    assert me is not None
    idle_timer: asyncio.TimerHandle | None = None

    def idle_check() -> None:
        """Close a connection that watches no match for idle_s (Limits.idle_socket_s)."""
        nonlocal idle_timer
        idle = session.idle_for()
        if idle >= idle_s:
            idle_timer = None
            on_cut(CLOSE_IDLE, f"idle: no match watched for {idle_s:g} s")
            return
        idle_timer = loop.call_later(idle_s - idle if idle else min(idle_s, 5.0), idle_check)

    def cut_reading(_: asyncio.Future[tuple[int, str]]) -> None:
        if reading:
            me.cancel()

    reading = True
    closing.add_done_callback(cut_reading)
    idle_check()
    try:
        try:
            await reader()
        except asyncio.CancelledError:
            if not closing.done() or me.uncancel() > 0:
                raise  # cancelled from outside (shutdown), not by a cut
        reading = False
        if closing.done():
            code, reason = closing.result()
            if writer is not None:
                writer.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=code, reason=reason), 2)
    finally:
        reading = False
        session.cut = True
        session.direct = None
        if idle_timer is not None:
            idle_timer.cancel()
        if writer is not None:
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)
        session.leave_all()
        metrics.CONNECTIONS.dec()
