"""/ws served from the protocol object: each complete incoming frame goes from uvicorn's
`data_received` straight to the session, without the ASGI receive queue, the Starlette
WebSocket, the middleware stack or a task per connection (issue 12: CPU per move, memory per
idle connection).

The handshake keeps what the ASGI endpoint did (service/app.py `websocket`, service/http/origins.py):
the Origin check (4403), the subprotocol negotiation (4406), the per-address connection count
(4429), the access-log line when the session ends. After it, a frame is handled at once
(Session.receive); one that waits for the store (join, spectate, move) runs in a task of its
own, and the frames read meanwhile wait for it, so a connection's requests are answered in
order (the socket is read on until HELD_FRAMES of them, or HELD_BYTES, wait, then no more
until they are handled). Answers are written when the frames read in one go are handled (so
that requests read together look pipelined to the rate limit, as they are), and other
connections' broadcasts at once. A socket above its write buffer's high-water mark keeps its
frames in the session's outbox until it drains; one that lets the outbox fill is cut (4408) as
before.

Any other path, and a server started without the endpoint (no `teahouse.ws` in the lifespan
state), goes through ASGI as before.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from websockets.exceptions import InvalidState, ProtocolError
from websockets.frames import Frame
from websockets.http11 import Request
from websockets.protocol import State

from protocol.versions import negotiate, unsupported_reason
from service.http.guards import QUIET, LingeringWebSocketProtocol, redact
from service.http.origins import CLOSE_ORIGIN, origin_allowed
from service.match.lobby import Lobby
from service.match.projection import ws_frame
from service.ops import metrics
from service.ops.limits import Limits
from service.ws.address_limits import ConnectionCounts
from service.ws.session import CLOSE_IDLE, Session

ENDPOINT_KEY = "teahouse.ws"  # the lifespan state key under which the app offers its endpoint
CLOSE_UNSUPPORTED = 4406
CLOSE_TOO_MANY = 4429  # the client address holds Limits.connections_per_address connections
# Frames read while one of the connection's requests waits for the store, before the socket is
# no longer read: a client that sends one request at a time never gets there, and one that
# pipelines holds at most this much of the node's memory (a frame may be up to 1 MiB).
HELD_FRAMES = 16
HELD_BYTES = 64 * 1024

access_log = logging.getLogger("teahouse.access")


class IdleSweep:
    """The connections that watch no match, looked at by one timer (Limits.idle_socket_s):
    a timer of its own would cost each connection about half a KiB."""

    __slots__ = ("members", "period", "_timer")

    def __init__(self, idle_s: float) -> None:
        self.members: set[DirectWebSocketProtocol] = set()
        self.period = min(1.0, idle_s / 4)
        self._timer: asyncio.TimerHandle | None = None

    def add(self, proto: DirectWebSocketProtocol) -> None:
        self.members.add(proto)
        if self._timer is None:
            self._timer = proto.loop.call_later(self.period, self._sweep, proto.loop, context=QUIET)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        for proto in list(self.members):
            if not proto._idle_check():
                self.members.discard(proto)
                proto._swept = False
        if self.members:
            self._timer = loop.call_later(self.period, self._sweep, loop, context=QUIET)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """What the /ws handshake and its sessions need of the app."""

    lobby: Callable[[], Lobby]
    limits: Limits
    connections: ConnectionCounts
    idle: IdleSweep
    path: str = "/ws"


class _Discard:
    """The ASGI receive queue of a directly served connection: nobody reads it."""

    __slots__ = ()

    def put_nowait(self, item: Any) -> None:
        pass

    def empty(self) -> bool:
        return True


_DISCARD = _Discard()


def _bytes(data: bytes | bytearray | memoryview) -> bytes:
    # websockets' parser gives bytes; the type allows the others
    return data if type(data) is bytes else bytes(data)


class DirectWebSocketProtocol(LingeringWebSocketProtocol):
    """LingeringWebSocketProtocol serving the app's /ws endpoint itself (module docstring)."""

    session: Session | None = None
    _endpoint: Endpoint | None = None
    _address: str | None = None  # counted in the endpoint's ConnectionCounts while open
    _busy: asyncio.Task[None] | None = None  # a frame's handling that waits for the store
    _held: list[bytes | str] | None = None  # frames read while one is busy or reading is paused
    _pause_timer: asyncio.TimerHandle | None = None
    _swept = False  # in its endpoint's IdleSweep
    _handling = False  # answers wait: the frames read together are being handled
    _flush_soon = False
    _binary = True
    _log: tuple[str, float] | None = None  # the access log's path and start, when it logs

    # -- handshake ----------------------------------------------------------------------------
    def handle_connect(self, event: Request) -> None:
        endpoint = self.app_state.get(ENDPOINT_KEY)
        if endpoint is None or event.path.partition("?")[0] != endpoint.path:
            super().handle_connect(event)
            return
        self.response = self.conn.accept(event)
        self.handshake_initiated = True
        if self.response.status_code != 101:  # not a WebSocket handshake after all: uvicorn's answer
            self.handshake_complete = True
            self.close_sent = True
            self.conn.send_response(self.response)
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.transport.close()
            return
        self.queue = _DISCARD  # type: ignore[assignment]
        headers = event.headers
        offered: list[str] = []
        for header in headers.get_all("Sec-WebSocket-Protocol"):
            offered.extend(token.strip() for token in header.split(","))
        if access_log.isEnabledFor(logging.INFO):
            self._log = (event.path, time.perf_counter())
        origin = headers.get("Origin")
        refusal: tuple[str | None, int, str] | None = None
        if origin is not None and not origin_allowed(origin, headers.get("Host"), endpoint.limits.cors_origins):
            # Accepted, then closed with the reason: a browser shows a close code and reason to
            # the page, where a refused handshake is only "failed" (service/http/origins.py).
            why = f"pages at {origin[:100]} may not use this server (docs/operators.md, cors_origins)"
            refusal = (offered[0] if offered else None, CLOSE_ORIGIN, why.encode()[:123].decode(errors="ignore"))
        chosen = negotiate(offered) if refusal is None else None
        if refusal is None and chosen is None:
            refusal = (None, CLOSE_UNSUPPORTED, unsupported_reason(offered))
        address = self._client_address(headers)
        if refusal is None and not endpoint.connections.open(address):
            refusal = (chosen.subprotocol if chosen else None, CLOSE_TOO_MANY, endpoint.connections.refusal())
        # Nothing reads the handshake's headers any more (~3 KiB per connection if kept; the
        # parser's generator keeps the request for the connection's life).
        subprotocol = refusal[0] if refusal is not None else (chosen.subprotocol if chosen else None)
        self._accept(subprotocol)
        headers.clear()
        if refusal is not None:
            self._close(refusal[1], refusal[2])
            return
        assert chosen is not None
        self._address = address
        self._endpoint = endpoint
        self._binary = chosen.wire.endswith("msgpack")
        session = self.session = Session(endpoint.lobby(), chosen.wire, self._cut, endpoint.limits)
        session.wake = self._wake
        if not self.conn.extensions:  # frames go out as framed (no deflate): broadcasts skip the framing
            session.direct = self._write_direct
        metrics.CONNECTIONS.inc()
        self._watch_idle()

    def _client_address(self, headers: Any) -> str:
        """The client's address as the ASGI app saw it: X-Forwarded-For from a trusted proxy."""
        host = self.client[0] if self.client else ""
        app = self.config.loaded_app
        if isinstance(app, ProxyHeadersMiddleware) and host in app.trusted_hosts:
            forwarded = headers.get_all("X-Forwarded-For")
            if forwarded:
                got, _ = app.trusted_hosts.get_trusted_client_address(", ".join(forwarded))
                if got:
                    return str(got)
        return host

    def _accept(self, subprotocol: str | None) -> None:
        response = self.response
        extra = [(name.decode("latin-1").lower(), value.decode("latin-1")) for name, value in self.default_headers]
        if subprotocol:
            extra.append(("Sec-WebSocket-Protocol", subprotocol))
        del response.headers["Date"]
        response.headers.update(extra)
        self.handshake_complete = True
        self.conn.send_response(response)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.start_keepalive()
        response.headers.clear()
        self.response = None  # type: ignore[assignment]

    def _close(self, code: int, reason: str) -> None:
        """Our close frame (the client answers with its own, then the socket closes)."""
        if self.close_sent or self.transport.is_closing():
            return
        self.conn.send_close(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()
        self.close_timer = self.loop.call_later(self.close_timeout, self.transport.close)

    # -- in -----------------------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        if self.session is None or self._lingering:
            super().data_received(data)
            return
        self._handling = True
        try:
            super().data_received(data)
        finally:
            if self._busy is None:
                self._handling = False
                self._flush()
                self._watch_idle()

    def handle_text(self, event: Frame) -> None:
        if self.session is None or not event.fin:
            super().handle_text(event)
            return
        try:
            text = _bytes(event.data).decode()
        except UnicodeDecodeError:
            self.conn.send_close(1007)
            self.handle_parser_exception()
            return
        self._incoming(text)

    def handle_bytes(self, event: Frame) -> None:
        if self.session is None or not event.fin:
            super().handle_bytes(event)
            return
        self._incoming(_bytes(event.data))

    def send_receive_event_to_app(self) -> None:
        if self.session is None:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.curr_msg_data_type == "text":
            try:
                self._incoming(data.decode())
            except UnicodeDecodeError:
                self.conn.send_close(1007)
                self.handle_parser_exception()
            return
        self._incoming(data)

    def _incoming(self, frame: bytes | str) -> None:
        if self.close_sent:
            return  # past our close: read and drop until the client's close arrives
        held = self._held
        if held is not None:
            held.append(frame)  # a frame before it is still being handled, or reading is paused
            if not self.read_paused and (len(held) >= HELD_FRAMES or sum(map(len, held)) >= HELD_BYTES):
                self._pause()  # a client that pipelines: the rest wait in the socket
            return
        self._run(frame)

    def _run(self, frame: bytes | str) -> bool:
        """Handle one frame; True when the frames after it must wait (it is busy, or paused)."""
        session = self.session
        assert session is not None
        pending = session.receive(frame)
        if pending is not None:
            # Reading goes on (the frames wait in _held): pausing and resuming the socket for
            # every move costs two epoll changes (io_uring_enter calls) per move.
            self._hold(pause=False)
            self._handling = True
            task = self.loop.create_task(self._finish(pending))
            self._busy = task
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        elif session.pause_s:
            pause, session.pause_s = session.pause_s, 0.0
            self._hold()
            self._pause_timer = self.loop.call_later(pause, self._unpause)
        else:
            return False
        if session.outbox:  # what is answered so far goes out while the rest waits
            self._flush_next_turn()
        return True

    def _hold(self, pause: bool = True) -> None:
        if self._held is None:
            self._held = []
        if pause and not self.read_paused:
            self._pause()

    def _pause(self) -> None:
        self.read_paused = True
        self.transport.pause_reading()

    async def _finish(self, pending: Coroutine[Any, Any, None]) -> None:
        try:
            await pending
        finally:
            self._busy = None
            if self.disconnected:
                self._gone()
            else:
                self._release()

    def _unpause(self) -> None:
        self._pause_timer = None
        if not self.disconnected:
            self._handling = True
            self._release()

    def _release(self) -> None:
        """The frame that held the others is done: handle those read meanwhile, in order, then
        write the answers and read on."""
        held = self._held
        while held:
            if self._run(held.pop(0)):
                return  # held again; _flush below would make the rest look not pipelined
        self._held = None
        self._handling = False
        self._flush()
        self._watch_idle()
        if self.read_paused and not self.close_sent:
            self.read_paused = False
            self.transport.resume_reading()

    # -- out ----------------------------------------------------------------------------------
    def _wake(self) -> None:
        """The session's outbox is no longer empty."""
        if not self._handling:
            self._flush()
        elif self._held is not None:
            # A request of this connection waits for the store (or reading is paused): what
            # others broadcast meanwhile goes out on the next turn of the loop.
            self._flush_next_turn()

    def _write_direct(self, framed: bytes) -> bool:
        """A broadcast's frame, framed once for every socket (Session.direct): written at once,
        unless this connection's own frames are being handled (its answers go out together)."""
        return not self._handling and self.write_framed(framed)

    def _flush_next_turn(self) -> None:
        if not self._flush_soon:
            self._flush_soon = True
            self.loop.call_soon(self._flush_later)

    def _flush_later(self) -> None:
        self._flush_soon = False
        self._flush()

    def _flush(self) -> None:
        session = self.session
        if session is None:
            return
        outbox = session.outbox
        if not outbox or not self.writable.is_set() or self.close_sent or self.transport.is_closing():
            return  # a full buffer: resume_writing comes back here
        conn = self.conn
        if conn.state is not State.OPEN or conn.extensions or conn.expect_continuation_frame:
            return self._flush_through_websockets()
        # Data frames framed here, without websockets' per-frame objects (a server's frames
        # are not masked); a broadcast written at once was framed once for all (Frame.framed).
        binary = self._binary
        if conn.writes:  # a pong or close the parser queued, first
            self.transport.write(b"".join(conn.data_to_send()))
        if len(outbox) == 1:
            self.transport.write(ws_frame(outbox[0], binary))
        else:
            self.transport.writelines([ws_frame(data, binary) for data in outbox])
        session.written += len(outbox)
        outbox.clear()

    def _flush_through_websockets(self) -> None:
        session = self.session
        assert session is not None
        outbox, conn = session.outbox, self.conn
        send = conn.send_binary if self._binary else conn.send_text
        try:
            for data in outbox:
                send(data)
        except (InvalidState, ProtocolError):
            return
        session.written += len(outbox)
        outbox.clear()
        self.transport.write(b"".join(conn.data_to_send()))

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.session is not None and not self._handling:
            self._flush()

    def write_now(self, data: bytes, binary: bool) -> bool:
        return False if self.session is not None else super().write_now(data, binary)

    # -- the end ------------------------------------------------------------------------------
    def _cut(self, code: int, reason: str) -> None:
        """The session cuts the connection (slow consumer, idle): not in the middle of the
        broadcast that found it full, on the next turn of the loop."""
        self.loop.call_soon(self._close, code, reason)

    def _idle_check(self) -> bool:
        """Close a connection that has watched no match for idle_socket_s. False once it needs
        no more checks (it watches a match, or it is closing)."""
        session, endpoint = self.session, self._endpoint
        if session is None or endpoint is None or self.close_sent or self.disconnected:
            return False
        idle_s = endpoint.limits.idle_socket_s
        idle = session.idle_for()
        if idle >= idle_s:
            self._cut(CLOSE_IDLE, f"idle: no match watched for {idle_s:g} s")
            return False
        return idle > 0  # watching a match: _watch_idle asks again when it watches none

    def _watch_idle(self) -> None:
        session, endpoint = self.session, self._endpoint
        if not self._swept and session is not None and endpoint is not None and not session.joined:
            self._swept = True
            endpoint.idle.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self._log is not None:
            path, started = self._log
            self._log = None
            ms = round((time.perf_counter() - started) * 1000, 1)
            client = self.client[0] if self.client else "-"
            access_log.info("%s %s %d %.1f ms", "WS", redact(path), 101, ms,
                            extra={"method": "WS", "path": redact(path), "status": 101, "ms": ms, "client": client})
        if self._pause_timer is not None:
            self._pause_timer.cancel()
            self._pause_timer = None
        if self._endpoint is not None and self._address is not None:
            self._endpoint.connections.close(self._address)
            self._address = None
        session = self.session
        if session is None:
            return
        session.cut = True
        self._held = None
        if self._busy is None:
            self._gone()
        # else: the request in flight finishes (its store append is not torn in two), then _gone

    def _gone(self) -> None:
        session = self.session
        if session is None:
            return
        session.leave_all()
        session.outbox.clear()
        self.session = None
        self._endpoint = None
        metrics.CONNECTIONS.dec()
