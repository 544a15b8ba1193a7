"""Deadlines for slow HTTP clients: a request's headers, and the whole request.

uvicorn waits for a request's headers (and for a body nobody reads) for ever, so a client
trickling bytes would hold a connection, a file descriptor and memory for as long as it likes.
Here a request's headers (a WebSocket handshake's too) must arrive within `header_timeout_s` of
the connection opening, or of the first byte of the next request on a kept-alive connection, and
the whole request within `request_timeout_s`; else the connection is closed without an answer.

`DeadlineProtocol` is what `teahouse serve` gives uvicorn as `http=`: an asyncio.Protocol that
makes the protocol uvicorn would have used itself (httptools when it is installed, else h11),
hands it every call, and reads the same bytes with an httptools parser of its own to see where
each request's headers and end are. Nothing of uvicorn's protocol is subclassed or touched.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import httptools

from service.ops.limits import Limits

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _Inner
except ImportError:  # uvicorn's own choice when httptools cannot be loaded
    from uvicorn.protocols.http.h11_impl import H11Protocol as _Inner  # type: ignore[assignment]

@functools.cache
def _limits_from_env() -> Limits:
    """The limits of a `--workers` process (the serve flags, exported by the CLI), read once,
    when its first connection comes."""
    return Limits.from_sources()


class DeadlineProtocol(asyncio.Protocol):
    """uvicorn's HTTP protocol, composed, with the module's two deadlines."""

    __slots__ = ("_inner", "_parser", "_header_s", "_request_s", "_loop", "_transport",
                 "_header_timer", "_request_timer")

    def __init__(self, limits: Limits | None = None, **uvicorn_kwargs: Any) -> None:
        """uvicorn calls this with its keyword arguments (config, server_state, app_state...),
        which go to its own protocol as they are. `limits` is bound by the CLI; a worker
        process of `--workers` reads them from its environment."""
        limits = limits if limits is not None else _limits_from_env()
        self._inner: asyncio.Protocol = _Inner(**uvicorn_kwargs)
        self._parser: httptools.HttpRequestParser | None = httptools.HttpRequestParser(self)
        self._header_s = limits.header_timeout_s
        self._request_s = limits.request_timeout_s
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.BaseTransport | None = None
        self._header_timer: asyncio.TimerHandle | None = None
        self._request_timer: asyncio.TimerHandle | None = None

    # -- asyncio.Protocol: each call goes on to uvicorn's protocol ------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        self._arm()
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        parser = self._parser
        if parser is not None:
            try:
                parser.feed_data(data)
            except httptools.HttpParserUpgrade:
                # The headers are in; the timers stop below once the edge has the connection.
                self._parser = None
            except httptools.HttpParserError:
                self._stop_watching()  # uvicorn answers 400 and closes
        self._inner.data_received(data)
        if self._parser is not None and self._transport is not None and self._transport.get_protocol() is not self:
            self._stop_watching()  # upgraded

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_watching()
        self._inner.connection_lost(exc)

    # -- httptools callbacks of our own parser ------------------------------------------------
    def on_message_begin(self) -> None:
        if self._header_timer is None:
            self._arm()  # the first byte of a next request on a kept-alive connection

    def on_headers_complete(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def on_message_complete(self) -> None:
        self._disarm()

    # -- the timers ---------------------------------------------------------------------------
    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self._loop.call_later(self._header_s, self._expired)
        self._request_timer = self._loop.call_later(self._request_s, self._expired)

    def _disarm(self) -> None:
        for timer in (self._header_timer, self._request_timer):
            if timer is not None:
                timer.cancel()
        self._header_timer = self._request_timer = None

    def _stop_watching(self) -> None:
        self._disarm()
        self._parser = None

    def _expired(self) -> None:
        self._disarm()
        transport = self._transport
        if transport is None or transport.get_protocol() is not self or transport.is_closing():
            return  # upgraded to a WebSocket, or already closing
        transport.close()
