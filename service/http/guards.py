"""What an anonymous client may cost a node over HTTP: body size and time, media type, where a
seat token may travel, and log lines that never carry one.

The numbers are operator limits (service/ops/limits.py); SPEC.md section 2 and docs/operators.md
state their defaults and tests/protocol checks they agree.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import re
from typing import Any
from urllib.parse import unquote_plus

import h11
import orjson
from starlette.requests import ClientDisconnect, Request
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.protocol import State

from service.match.lobby import LobbyError
from service.ops.limits import Limits

# Every query parameter, so that a name spelled with escapes (`tok%65n=`), which Starlette reads as
# `token`, is recognised by its decoded name.
_PARAM_IN_TEXT = re.compile(r"([?&;])([^=&;?\s\"']+)=([^&;\s\"']*)")
_BEARER_IN_TEXT = re.compile(r"(Bearer\s+)[A-Za-z0-9_\-.~+/=]+", re.I)


async def json_body(request: Request, limits: Limits) -> dict[str, Any]:
    """The request's JSON object body ({} when empty), read within the size and time limits.

    Only `application/json` is read as JSON: a browser sends text/plain and form bodies
    cross-site without asking first, so accepting them would let any page act for a visitor."""
    cap = limits.max_body_bytes
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > cap:
        raise _too_large(cap)
    try:
        raw = await asyncio.wait_for(_read_capped(request, cap), limits.body_timeout_s)
    except TimeoutError:
        raise LobbyError("body_timeout", f"the request body did not arrive within {limits.body_timeout_s:g} s",
                         408) from None
    except ClientDisconnect:
        raise LobbyError("body_timeout", "the client went away before its body arrived", 408) from None
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if not raw and media in ("", "application/json"):
        return {}
    if media != "application/json":
        raise LobbyError("unsupported_media_type",
                         "send the body as JSON with Content-Type: application/json", 415)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise LobbyError("bad_json", "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise LobbyError("bad_json", "the request body must be a JSON object")
    return data


async def _read_capped(request: Request, cap: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise _too_large(cap)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(cap: int) -> LobbyError:
    return LobbyError("body_too_large", f"a request body may be at most {cap} bytes", 413)


def seat_token(request: Request) -> str:
    """The seat token of a request, from `Authorization: Bearer <token>` ("" when absent).

    A token in the query string is refused, not ignored: it has already been written to
    access logs and browser history, and the caller must learn to stop sending it there."""
    if "token" in request.query_params:
        raise LobbyError("token_in_url", "send the seat token in the Authorization header "
                         "(Authorization: Bearer <token>), never in the URL", 400)
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


class RedactTokens(logging.Filter):
    """Blank out token values in a log record (a client may still put one in a URL)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


def redact(text: str) -> str:
    return _BEARER_IN_TEXT.sub(r"\1[redacted]", _PARAM_IN_TEXT.sub(_blank_token, text))


def _blank_token(m: re.Match[str]) -> str:
    if unquote_plus(m.group(2)).strip().lower() != "token":
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}=[redacted]"


def install_log_redaction() -> None:
    """Attach the filter to the loggers that echo request lines and to their handlers (a
    logger's own filters do not see records its children propagate). Idempotent."""
    for name in ("uvicorn.access", "uvicorn.error", "uvicorn", "teahouse", None):
        logger = logging.getLogger(name)
        for target in (logger, *logger.handlers):
            if not any(isinstance(f, RedactTokens) for f in target.filters):
                target.addFilter(RedactTokens())


def guarded_http(limits: Limits) -> type[asyncio.Protocol]:
    """The HTTP protocol class to give uvicorn (`http=`): uvicorn's own (httptools when it is
    installed, else h11) with these limits' deadlines for slow or half-sent requests."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol  # noqa: F401
        base: type[asyncio.Protocol] = GuardedHttpToolsProtocol
    except ImportError:
        base = GuardedH11Protocol
    return type(base.__name__, (base,), {
        "header_timeout_s": limits.header_timeout_s, "request_timeout_s": limits.request_timeout_s})


class _Deadlines:
    """Two timers per connection: a request's headers, and the whole request.

    uvicorn waits for a request's headers (and for a body nobody reads) for ever, so a client
    trickling bytes holds a connection, a file descriptor and memory for as long as it likes.
    Here a request's headers must arrive within `header_timeout_s` of the connection opening
    (or of the first byte of the next request on a kept-alive connection) and the whole request
    within `request_timeout_s`, or the connection is closed without an answer."""

    header_timeout_s = Limits.header_timeout_s
    request_timeout_s = Limits.request_timeout_s
    _header_timer: asyncio.TimerHandle | None = None
    _request_timer: asyncio.TimerHandle | None = None
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._expired)
        self._request_timer = self.loop.call_later(self.request_timeout_s, self._expired)

    def _headers_done(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _disarm(self) -> None:
        for timer in (self._header_timer, self._request_timer):
            if timer is not None:
                timer.cancel()
        self._header_timer = self._request_timer = None

    def _expired(self) -> None:
        self._disarm()
        if self.transport.get_protocol() is not self or self.transport.is_closing():
            return  # upgraded to a WebSocket, or already closing
        self.transport.close()


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedHttpToolsProtocol(_Deadlines, HttpToolsProtocol):
        """uvicorn's httptools protocol with request deadlines (_Deadlines)."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_message_begin(self) -> None:
            if self._header_timer is None:
                self._arm()  # the first byte of a next request on a kept-alive connection
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._headers_done()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._disarm()
            super().on_message_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)
except ImportError:  # httptools is optional for uvicorn
    pass


class GuardedH11Protocol(_Deadlines, H11Protocol):
    """uvicorn's h11 protocol with request deadlines (_Deadlines)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._header_timer is None and self._request_timer is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first bytes of a next request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._headers_done()
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.SWITCHED_PROTOCOL):
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


# The ASGI scope extensions under which LingeringWebSocketProtocol offers `write_now` and
# `write_framed`.
WRITE_EXTENSION = "teahouse.write_now"
WRITE_FRAMED_EXTENSION = "teahouse.write_framed"


class _Inbox:
    """What uvicorn's WebSocket protocol needs of its asyncio.Queue (put_nowait, get, empty),
    without the Queue's three deques (~2.3 KiB on every idle connection)."""

    __slots__ = ("_items", "_waiters")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiters: list[asyncio.Future[None]] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        if self._waiters:
            for w in self._waiters:
                if not w.done():
                    w.set_result(None)
                    break

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    async def get(self) -> Any:
        while not self._items:
            w = asyncio.get_running_loop().create_future()
            if self._waiters is None:
                self._waiters = []
            self._waiters.append(w)
            try:
                await w
            finally:
                self._waiters.remove(w)
        return self._items.pop(0)


class _Flag:
    """What uvicorn's WebSocket protocol needs of its asyncio.Event (set, clear, wait,
    is_set), without the Event's deque (~760 bytes on every idle connection)."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] = []

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        w = asyncio.get_running_loop().create_future()
        self._waiters.append(w)
        await w
        return True


# The context of per-connection timers whose callbacks read no context variable: a timer
# otherwise copies the current context (a Context and its map on every idle connection).
QUIET = contextvars.Context()


class LingeringWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, closing without losing the close frame.

    When a client's frame breaks a limit (over 1 MiB: close 1009), uvicorn writes the close frame
    and closes the socket at once. If the client is still sending, the unread bytes make the
    kernel answer with a reset, which can destroy the close frame before the client reads it:
    the client sees a dropped connection instead of 1009. Here the server sends the close frame,
    then end-of-file, and keeps reading and discarding for up to LINGER_S before it closes."""

    _lingering = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Memory per idle connection (bench/platform_memory.py): lighter stand-ins for the
        # receive queue and the writable event, replaced only while they are what we expect.
        if type(self.queue) is asyncio.Queue and self.queue.empty():
            self.queue = _Inbox()  # type: ignore[assignment]
        if type(self.writable) is asyncio.Event:
            flag = _Flag()
            if self.writable.is_set():
                flag.set()
            self.writable = flag  # type: ignore[assignment]

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the handshake goes on to the app: offer it the direct write
            scope["extensions"][WRITE_EXTENSION] = self.write_now
            if not self.conn.extensions:  # frames are sent as they are framed (no deflate)
                scope["extensions"][WRITE_FRAMED_EXTENSION] = self.write_framed

    def write_now(self, data: bytes, binary: bool) -> bool:
        """Write one data frame at once, without the ASGI `send` (no await, no message dict,
        no Starlette state checks): a broadcast writes the same bytes to many sockets this
        way. False, and nothing written, when the socket cannot take it right now (not open
        yet, closing, or its buffer above the high-water mark): the caller then goes through
        the ordinary `send`, which waits or reports the disconnect. `data` of a text frame is
        its UTF-8 bytes."""
        if (not self.handshake_complete or self.close_sent or self.disconnected or self._lingering
                or self.initial_response is not None or not self.writable.is_set()
                or self.transport.is_closing()):
            return False
        try:
            if binary:
                self.conn.send_binary(data)
            else:
                self.conn.send_text(data)
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    def write_framed(self, framed: bytes) -> bool:
        """Write a whole WebSocket data frame, already framed (service.match.projection.ws_frame),
        to the socket at once: a broadcast frames a message once and hands the same bytes to
        every connection. The connection's state machine has nothing to learn from an
        unfragmented data frame, so it is bypassed. False, and nothing written, as in
        `write_now`."""
        conn = self.conn
        if (conn.state is not State.OPEN or conn.expect_continuation_frame or self.close_sent or self._lingering
                or not self.writable.is_set() or self.transport.is_closing()):
            return False
        if conn.writes:  # a pong or close the parser queued goes first
            self.transport.write(b"".join(conn.data_to_send()))
        self.transport.write(framed)
        return True

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept" and self.handshake_complete:
            # uvicorn keeps the handshake's request and response (their headers: ~3 KiB) for
            # the connection's life, and websockets' parser keeps the request too; nothing
            # reads their headers once the handshake is sent (the app has its scope's copy).
            for m in (self.request, self.response):
                if m is not None:
                    m.headers.clear()
            self.request = self.response = None  # type: ignore[assignment]
            # The ASGI scope's copy (~1 KiB): read by the origin check and the subprotocol
            # negotiation, both before the accept; emptied in place, as the middlewares'
            # suspended frames hold the same list.
            headers = self.scope["headers"]
            if isinstance(headers, list):
                headers.clear()

    def schedule_ping(self) -> None:
        # uvicorn's, in the QUIET context (memory per idle connection)
        assert self.ping_interval is not None
        delay = max(0.0, self.ping_interval - self.last_ping_rtt)
        self.ping_timer = self.loop.call_later(delay, self.send_keepalive_ping, context=QUIET)

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # a client still sending after our close: read and drop
        super().data_received(data)

    def handle_parser_exception(self) -> None:
        assert self.conn.close_sent is not None
        self.queue.put_nowait({"type": "websocket.disconnect", "code": self.conn.close_sent.code,
                               "reason": self.conn.close_sent.reason})
        self._close_and_linger()

    def shutdown(self) -> None:
        """The drain (SIGTERM; uvicorn has already stopped accepting): close with 1012, which
        tells the client to reconnect at once, to another node if this one is gone (SPEC 8).
        uvicorn writes that close and shuts the socket in one go, which loses the frame to a
        reset whenever the client is sending; here it gets the same care as a 1009."""
        if self.close_sent or not self.handshake_complete:
            super().shutdown()  # uvicorn's: a close under way finishes; a half-done handshake gets a 500
            return
        if self.conn.state is not State.OPEN:  # the client is closing at this very moment
            self.stop_keepalive()
            self.transport.close()
            return
        self.stop_keepalive()
        self.queue.put_nowait({"type": "websocket.disconnect", "code": CLOSE_RESTART})
        self.conn.send_close(CLOSE_RESTART, "server restarting: reconnect")
        self._close_and_linger()

    def _close_and_linger(self) -> None:
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self._lingering = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        if self.read_paused:  # keep draining what the client sends, or the reset comes anyway
            self.read_paused = False
            self.transport.resume_reading()
        self.loop.call_later(LINGER_S, self.transport.close)


LINGER_S = 2.0
CLOSE_RESTART = 1012  # "service restart" (RFC 6455 registry): reconnect, possibly elsewhere


def __getattr__(name: str) -> Any:
    # `teahouse serve --workers N` names the HTTP protocol by import path; each worker process
    # builds it from the limits in its environment (the serve flags, exported by the CLI).
    if name == "GuardedHttpFromEnv":
        return guarded_http(Limits.from_sources())
    raise AttributeError(name)
