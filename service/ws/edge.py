"""/ws: Teahouse's WebSocket edge, one asyncio.Protocol over websockets' sans-I/O ServerProtocol.

uvicorn hands a connection over after the HTTP upgrade through its documented `ws=` option: it
calls the class with `config`, `server_state` and `app_state` keyword arguments, then
`connection_made(transport)` and `data_received(<the handshake request>)`, and makes it the
transport's protocol. From then on every byte of the connection is handled here: the handshake
(service/ws/handshake.py: Origin 4403, subprotocol 4406, per-address count 4429), frames in and
out, keepalive pings, the close. Of uvicorn this reads only `server_state.connections` (so that
a SIGTERM calls `shutdown`, the drain), `server_state.tasks` (requests in flight the drain waits
for), `server_state.default_headers` (the handshake's Date and Server), `app_state` (the app's
Endpoint) and `config.proxy_headers` / `config.forwarded_allow_ips` (the client's address);
tests/ws/test_uvicorn_handoff.py asserts them.

After the handshake a message is handled at once (Session.receive); one that waits for the store
(join, spectate, move) goes on in a task, and the messages read meanwhile wait for it, so a
connection's requests are answered in order (the socket is read on until HELD_FRAMES of them, or
HELD_BYTES, wait, then no more until they are handled). Answers are written when the frames read
in one go are handled (so that requests read together look pipelined to the rate limit, as they
are), and other connections' broadcasts at once (Link.send_now), framed once per broadcast
(service/ws/wire.py). A socket above its write buffer's high-water mark keeps its messages in the
session's outbox until it drains; one that lets the outbox fill is cut (4408).
"""

from __future__ import annotations

import asyncio
import logging
import random
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from service.http.guards import redact
from service.match.lobby import Lobby
from service.ops import metrics
from service.ops.limits import Limits
from service.ws.address_limits import ConnectionCounts
from service.ws.handshake import ClientAddress, answer
from service.ws.idle import QUIET, IdleSweep
from service.ws.session import CLOSE_IDLE, Session
from service.ws.wire import FrameCache, ws_frame

ENDPOINT_KEY = "teahouse.ws"  # the lifespan state key under which the app offers its endpoint
# A message may be up to 1 MiB (SPEC 2); a larger one is refused with close 1009.
MAX_MESSAGE_BYTES = 1 << 20
# Frames read while one of the connection's requests waits for the store, before the socket is
# no longer read: a client that sends one request at a time never gets there, and one that
# pipelines holds at most this much of the node's memory.
HELD_FRAMES = 16
HELD_BYTES = 64 * 1024
# Keepalive: a ping after this long, and the connection is dropped when its pong does not come.
PING_INTERVAL_S = 20.0
PING_TIMEOUT_S = 20.0
# How long our close waits for the client's, and how long a connection we fail (1009, 1007,
# 1002) or drain (1012) is read and discarded after our close frame and end-of-file, so that
# bytes the client is still sending do not make the kernel answer with a reset that destroys
# the close frame before the client reads it.
CLOSE_TIMEOUT_S = 10.0
LINGER_S = 2.0
CLOSE_RESTART = 1012  # "service restart" (RFC 6455 registry): reconnect, possibly elsewhere
WRONG_PATH_STATUS = 403  # a WebSocket to another path: the status Starlette gives one it has no route for

access_log = logging.getLogger("teahouse.access")
_ws_log = logging.getLogger("teahouse.ws")  # websockets' own lines (the handshake, the close)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """What the /ws handshake and its sessions need of the app."""

    lobby: Callable[[], Lobby]
    limits: Limits
    connections: ConnectionCounts
    idle: IdleSweep
    path: str = "/ws"
    frames: FrameCache = field(default_factory=FrameCache)


_ADDRESSES: dict[int, tuple[Any, ClientAddress]] = {}


def _client_address(config: Any) -> ClientAddress:
    """One ClientAddress per uvicorn config (a process has one): its trusted hosts are parsed once."""
    got = _ADDRESSES.get(id(config))
    if got is None or got[0] is not config:
        got = _ADDRESSES[id(config)] = (config, ClientAddress(config.proxy_headers, config.forwarded_allow_ips))
    return got[1]


def _bytes(data: Any) -> bytes:
    # websockets' parser gives bytes; its type allows bytearray and memoryview too
    return data if type(data) is bytes else bytes(data)


class EdgeProtocol(asyncio.Protocol):
    """One WebSocket connection (module docstring). Implements service.ws.session.Link."""

    __slots__ = (
        "_server_state", "_app_state", "_config", "loop", "transport", "conn", "client",
        "session", "_endpoint", "_frames", "_binary", "_address", "_log",
        "_accepted", "_open", "_read_paused", "_writable", "_handling", "_busy", "_held",
        "_flush_soon", "_swept", "_parts", "_parts_text",
        "_pause_timer", "_close_timer", "_ping_timer", "_pong_timer", "_ping_payload", "_ping_sent_at", "_rtt",
    )

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any], **_: Any) -> None:
        self._config = config
        self._server_state = server_state
        self._app_state = app_state
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport = None  # type: ignore[assignment]
        self.conn = ServerProtocol(max_size=MAX_MESSAGE_BYTES, logger=_ws_log)
        self.client: tuple[str, int] | None = None
        self.session: Session | None = None
        self._endpoint: Endpoint | None = None
        self._frames: FrameCache | None = None
        self._binary = True
        self._address: str | None = None  # counted in the endpoint's ConnectionCounts while open
        self._log: tuple[str, float] | None = None  # the access log's path and start, when it logs
        self._accepted = False  # the handshake's 101 is sent
        self._open = False  # accepted, and no close sent or received: frames may be written
        self._read_paused = False
        self._writable = True
        self._handling = False  # answers wait: the frames read together are being handled
        self._busy = False  # a request waits for the store
        self._held: list[bytes | str] | None = None  # frames read while one is busy or reading is paused
        self._flush_soon = False
        self._swept = False  # in its endpoint's IdleSweep
        self._parts: list[bytes] | None = None  # a fragmented message's frames so far
        self._parts_text = False
        self._pause_timer: asyncio.TimerHandle | None = None
        self._close_timer: asyncio.TimerHandle | None = None
        self._ping_timer: asyncio.TimerHandle | None = None
        self._pong_timer: asyncio.TimerHandle | None = None
        self._ping_payload: bytes | None = None
        self._ping_sent_at = 0.0
        self._rtt = 0.0

    # -- asyncio.Protocol ---------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is one without the base class
        peer = transport.get_extra_info("peername")
        if isinstance(peer, (list, tuple)) and len(peer) >= 2:
            self.client = (str(peer[0]), int(peer[1]))
        self._server_state.connections.add(self)

    def data_received(self, data: bytes) -> None:
        conn = self.conn
        conn.receive_data(data)
        self._handling = True
        try:
            for event in conn.events_received():
                if isinstance(event, Frame):
                    self._frame(event)
                elif isinstance(event, Request):
                    self._handshake(event)
        finally:
            self._write_pending()
            if not self._busy:
                self._handling = False
                self._flush()
                self._watch_idle()

    def eof_received(self) -> bool | None:
        self.conn.receive_eof()
        self._write_pending()
        return None  # the transport closes itself

    def pause_writing(self) -> None:
        self._writable = False

    def resume_writing(self) -> None:
        self._writable = True
        if not self._handling:
            self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self._server_state.connections.discard(self)
        self._open = False
        for timer in (self._close_timer, self._ping_timer, self._pong_timer, self._pause_timer):
            if timer is not None:
                timer.cancel()
        self._close_timer = self._ping_timer = self._pong_timer = self._pause_timer = None
        if self._log is not None:
            path, started = self._log
            self._log = None
            ms = round((time.perf_counter() - started) * 1000, 1)
            client = self.client[0] if self.client else "-"
            access_log.info("%s %s %d %.1f ms", "WS", redact(path), 101, ms,
                            extra={"method": "WS", "path": redact(path), "status": 101, "ms": ms, "client": client})
        if self._endpoint is not None and self._address is not None:
            self._endpoint.connections.close(self._address)
            self._address = None
        session = self.session
        if session is None:
            return
        session.end()
        self._held = None
        if not self._busy:
            self._gone()
        # else: the request in flight finishes (its store append is not torn in two), then _gone

    def shutdown(self) -> None:
        """The drain (uvicorn calls it on SIGTERM, once it has stopped accepting): close with
        1012, which tells the client to reconnect at once, to another node if this one is gone
        (SPEC 8)."""
        self._stop_keepalive()
        if not self._accepted:
            if self.conn.state is State.CONNECTING:
                self.conn.send_response(self.conn.reject(500, "Internal Server Error"))
                self._write_pending()
            self.transport.close()
            return
        if not self._open:  # a close is under way
            self.transport.close()
            return
        self.conn.send_close(CLOSE_RESTART, "server restarting: reconnect")
        self._write_pending()
        self._linger()

    # -- handshake ----------------------------------------------------------------------------
    def _handshake(self, request: Request) -> None:
        conn = self.conn
        endpoint = self._app_state.get(ENDPOINT_KEY)
        if endpoint is None or request.path.partition("?")[0] != endpoint.path:
            response = conn.reject(WRONG_PATH_STATUS, "")
        else:
            response = conn.accept(request)
        if response.status_code != 101:  # not a WebSocket handshake, or not ours: answered, then closed
            conn.send_response(response)
            return
        assert isinstance(endpoint, Endpoint)
        headers = request.headers
        if access_log.isEnabledFor(logging.INFO):
            self._log = (request.path, time.perf_counter())
        address = _client_address(self._config).of(self.client, headers)
        decided = answer(headers, endpoint.limits, endpoint.connections, address)
        # Nothing reads the handshake's headers any more (the parser keeps the request for the
        # connection's life: bench/platform_memory.py).
        extra = [(name.decode("latin-1").lower(), value.decode("latin-1"))
                 for name, value in self._server_state.default_headers]
        if decided.subprotocol:
            extra.append(("Sec-WebSocket-Protocol", decided.subprotocol))
        del response.headers["Date"]
        response.headers.update(extra)
        conn.send_response(response)
        self._accepted = self._open = True
        self._write_pending()
        response.headers.clear()
        headers.clear()
        self._schedule_ping()
        if decided.refusal is not None:
            self._close(*decided.refusal)
            return
        chosen = decided.chosen
        assert chosen is not None
        self._address = address
        self._endpoint = endpoint
        self._frames = endpoint.frames
        self._binary = chosen.wire.endswith("msgpack")
        self.session = Session(endpoint.lobby(), chosen.wire, self, endpoint.limits)
        metrics.CONNECTIONS.inc()

    # -- in -----------------------------------------------------------------------------------
    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            if frame.fin:
                self._message(_bytes(frame.data), opcode is Opcode.TEXT)
            else:
                self._parts, self._parts_text = [_bytes(frame.data)], opcode is Opcode.TEXT
        elif opcode is Opcode.CONT:
            if self._parts is None:
                return  # websockets refuses a continuation without a start (1002)
            self._parts.append(_bytes(frame.data))
            if frame.fin:
                data, self._parts = b"".join(self._parts), None
                self._message(data, self._parts_text)
        elif opcode is Opcode.PONG:
            self._pong(_bytes(frame.data))
        # PING: websockets queued the pong; CLOSE: it queued our answer (_write_pending sends both)

    def _message(self, data: bytes, text: bool) -> None:
        if not self._open or self.session is None:
            return  # refused, or past a close: read and drop until the socket closes
        if text:
            try:
                self._incoming(data.decode())
            except UnicodeDecodeError:
                self.conn.fail(1007)  # not UTF-8: websockets sends the close and asks for end-of-file
                self._open = False
            return
        self._incoming(data)

    def _incoming(self, frame: bytes | str) -> None:
        held = self._held
        if held is not None:
            held.append(frame)  # a frame before it is still being handled, or reading is paused
            if not self._read_paused and (len(held) >= HELD_FRAMES or sum(map(len, held)) >= HELD_BYTES):
                self._pause_reading()  # a client that pipelines: the rest wait in the socket
            return
        self._run(frame)

    def _run(self, frame: bytes | str) -> bool:
        """Handle one frame; True when the frames after it must wait (it is busy, or paused)."""
        session = self.session
        assert session is not None
        if session.receive(frame):
            # Reading goes on (the frames wait in _held): pausing and resuming the socket for
            # every move costs two epoll changes per move (bench/platform_commit.py).
            self._hold(pause=False)
            self._handling = self._busy = True
            task = session.in_flight
            if task is not None:  # the drain waits for it (uvicorn's graceful shutdown)
                tasks = self._server_state.tasks
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        else:
            pause = session.take_pause()
            if not pause:
                return False
            self._hold()
            self._pause_timer = self.loop.call_later(pause, self._unpause)
        if session.outbox:  # what is answered so far goes out while the rest waits
            self._flush_next_turn()
        return True

    def _hold(self, pause: bool = True) -> None:
        if self._held is None:
            self._held = []
        if pause and not self._read_paused:
            self._pause_reading()

    def _pause_reading(self) -> None:
        self._read_paused = True
        self.transport.pause_reading()

    def _resume_reading(self) -> None:
        if self._read_paused:
            self._read_paused = False
            self.transport.resume_reading()

    def resume(self) -> None:
        """Link.resume: the request in flight is answered."""
        self._busy = False
        if self.session is None or self.transport.is_closing():
            self._gone()
        else:
            self._release()

    def _unpause(self) -> None:
        self._pause_timer = None
        if self.session is not None and not self.transport.is_closing():
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
        if self._open:
            self._resume_reading()

    # -- out ----------------------------------------------------------------------------------
    def send_now(self, data: bytes) -> bool:
        """Link.send_now: written at once unless this connection's own frames are being handled
        (its answers go out together) or its socket cannot take it now."""
        if self._handling or not self._writable or not self._open or self.transport.is_closing():
            return False
        assert self._frames is not None
        self.transport.write(self._frames.frame(data, self._binary))
        return True

    def wake(self) -> None:
        """Link.wake: the session's outbox is no longer empty."""
        if not self._handling:
            self._flush()
        elif self._held is not None:
            # A request of this connection waits for the store (or reading is paused): what
            # others broadcast meanwhile goes out on the next turn of the loop.
            self._flush_next_turn()

    def cut(self, code: int, reason: str) -> None:
        """Link.cut (slow consumer, idle): not in the middle of the broadcast that found the
        outbox full, on the next turn of the loop."""
        self.loop.call_soon(self._close, code, reason)

    def _flush_next_turn(self) -> None:
        if not self._flush_soon:
            self._flush_soon = True
            self.loop.call_soon(self._flush_later)

    def _flush_later(self) -> None:
        self._flush_soon = False
        self._flush()

    def _flush(self) -> None:
        session = self.session
        if session is None or not session.outbox or not self._writable or not self._open:
            return  # a full buffer: resume_writing comes back here
        if self.transport.is_closing():
            return
        out = session.outgoing()
        binary = self._binary
        if len(out) == 1:
            self.transport.write(ws_frame(out[0], binary))
        else:
            self.transport.writelines([ws_frame(data, binary) for data in out])

    def _write_pending(self) -> None:
        """What websockets queued (the handshake's answer, pongs, close frames), and the end
        of the stream when it asks for it."""
        conn = self.conn
        for data in conn.data_to_send():
            if data:
                self.transport.write(data)
            elif not self._accepted or conn.close_rcvd is not None:
                self.transport.close()  # a refused handshake, or a closing handshake done
            else:
                self._linger()  # websockets failed the connection (1009, 1007, 1002)
        if conn.close_rcvd is not None or conn.state is not State.OPEN:
            self._open = False

    # -- the end ------------------------------------------------------------------------------
    def _close(self, code: int, reason: str) -> None:
        """Our close frame (the client answers with its own, then the socket closes)."""
        if not self._open or self.transport.is_closing():
            return
        self.conn.send_close(code, reason)
        self._write_pending()
        self._resume_reading()
        self._close_timer = self.loop.call_later(CLOSE_TIMEOUT_S, self.transport.close)

    def _linger(self) -> None:
        """After our close frame: end-of-file, then read and discard until the client closes,
        for LINGER_S at most."""
        self._open = False
        transport = self.transport
        if transport.is_closing():
            return
        if transport.can_write_eof():
            transport.write_eof()
        self._resume_reading()
        if self._close_timer is not None:
            self._close_timer.cancel()
        self._close_timer = self.loop.call_later(LINGER_S, transport.close)

    def idle_check(self) -> bool:
        """Close a connection that has watched no match for idle_socket_s (IdleSweep). False
        once it needs no more checks (it watches a match, or it is closing)."""
        session, endpoint = self.session, self._endpoint
        if session is None or endpoint is None or not self._open:
            self._swept = False
            return False
        idle_s = endpoint.limits.idle_socket_s
        idle = session.idle_for()
        if idle >= idle_s:
            self.cut(CLOSE_IDLE, f"idle: no match watched for {idle_s:g} s")
            self._swept = False
            return False
        if idle > 0:
            return True
        self._swept = False  # watching a match: _watch_idle asks again when it watches none
        return False

    def _watch_idle(self) -> None:
        session, endpoint = self.session, self._endpoint
        if not self._swept and session is not None and endpoint is not None and not session.watching:
            self._swept = True
            endpoint.idle.add(self)

    def _gone(self) -> None:
        session = self.session
        if session is None:
            return
        session.end()
        session.leave_all()
        self.session = None
        self._endpoint = None
        metrics.CONNECTIONS.dec()

    # -- keepalive ----------------------------------------------------------------------------
    def _schedule_ping(self) -> None:
        self._ping_timer = self.loop.call_later(max(0.0, PING_INTERVAL_S - self._rtt), self._ping, context=QUIET)

    def _ping(self) -> None:
        self._ping_timer = None
        if not self._open or self.transport.is_closing():
            return
        # A random payload names this ping, so a stale or unsolicited pong is not taken for its answer.
        self._ping_payload = struct.pack("!I", random.getrandbits(32))
        self._ping_sent_at = self.loop.time()
        self.conn.send_ping(self._ping_payload)
        self._write_pending()
        self._pong_timer = self.loop.call_later(PING_TIMEOUT_S, self._no_pong, context=QUIET)

    def _pong(self, payload: bytes) -> None:
        if self._ping_payload is None or payload != self._ping_payload:
            return
        self._rtt = self.loop.time() - self._ping_sent_at
        self._ping_payload = None
        if self._pong_timer is not None:
            self._pong_timer.cancel()
            self._pong_timer = None
            self._schedule_ping()

    def _no_pong(self) -> None:
        self._pong_timer = None
        self._ping_payload = None
        if not self._open or self.transport.is_closing():
            return
        self.conn.fail(1011, "keepalive ping timeout")
        for data in self.conn.data_to_send():
            if data:
                self.transport.write(data)
        self._open = False
        self.transport.close()

    def _stop_keepalive(self) -> None:
        for timer in (self._ping_timer, self._pong_timer):
            if timer is not None:
                timer.cancel()
        self._ping_timer = self._pong_timer = None
        self._ping_payload = None

