"""A TCP proxy on loopback in front of a Redis server that cuts its connections at a chosen
command: a store blip placed exactly, for the fault tests (tests/e2e/test_seat_faults.py).

It runs on an event loop of its own, in a thread (the server under test is another process,
and the test's own loop is often blocked by a synchronous call). It reads the commands the
clients send (RESP arrays) and keeps a record of them. `blip_at(match, mode, down_s)` arms
one blip: the first command whose arguments satisfy `match` then

- `mode="request"`: is never forwarded: Redis does not see it, nor anything sent after it;
- `mode="reply"`: is forwarded, and Redis's answers on that connection are dropped from then
  on: Redis did it, the client never learns so;

and every connection is cut, and new ones are closed at once for `down_s` seconds (the client's
own immediate retry fails too), after which the proxy forwards again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.support.redis_server import free_port

Match = Callable[[list[bytes]], bool]

REPLY_GRACE_S = 0.2  # how long a command forwarded in "reply" mode is given to be done by Redis


@dataclass
class _Blip:
    match: Match
    mode: str
    down_s: float
    fired: threading.Event = field(default_factory=threading.Event)


class RedisProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.commands: list[list[bytes]] = []  # every command seen, in order of arrival
        self.batches: list[int] = []  # per command: the number of the write it came in
        self._batches = itertools.count()
        self._blip: _Blip | None = None
        self._down_until = 0.0
        self._conns: set[_Link] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="redis proxy", daemon=True)
        self._server: asyncio.base_events.Server | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisProxy:
        self._thread.start()
        self._call(self._listen())
        return self

    def stop(self) -> None:
        self._call(self._close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()

    def blip_at(self, match: Match, mode: str, down_s: float = 1.5) -> threading.Event:
        """Arm one blip (see the module's docstring); the event is set when it has fired."""
        assert mode in ("request", "reply")
        blip = _Blip(match, mode, down_s)
        self._blip = blip
        return blip.fired

    def disarm(self) -> None:
        self._blip = None

    def up(self) -> bool:
        return time.monotonic() >= self._down_until

    # -- on the proxy's loop --------------------------------------------------------------------
    def _call(self, coro) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        for link in list(self._conns):
            link.cut()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if time.monotonic() < self._down_until:
            writer.transport.abort()
            return
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        link = _Link(self, writer, up_w)
        self._conns.add(link)
        try:
            await asyncio.gather(link.requests(reader), link.replies(up_r))
        finally:
            link.cut()
            self._conns.discard(link)

    def _fire(self, blip: _Blip, link: _Link) -> None:
        """Cut everything (but `link`, in reply mode, until its command is done) and stay down."""
        self._blip = None
        self._down_until = time.monotonic() + blip.down_s
        for other in list(self._conns):
            if other is not link:
                other.cut()
        if blip.mode == "request":
            link.cut()
        else:
            link.deaf = True
            self._loop.call_later(REPLY_GRACE_S, link.cut)
        blip.fired.set()


class _Link:
    """One client connection and its connection to Redis."""

    def __init__(self, proxy: RedisProxy, client: asyncio.StreamWriter, upstream: asyncio.StreamWriter) -> None:
        self.proxy, self.client, self.upstream = proxy, client, upstream
        self.deaf = False  # Redis's replies are dropped (a blip in reply mode)
        self.closed = False

    def cut(self) -> None:
        if not self.closed:
            self.closed = True
            self.client.transport.abort()
            self.upstream.transport.abort()

    async def requests(self, reader: asyncio.StreamReader) -> None:
        pending = b""
        with contextlib.suppress(ConnectionError):
            while not self.closed:
                chunk = await reader.read(65536)
                if not chunk:
                    return
                commands, pending = _commands(pending + chunk)
                batch = next(self.proxy._batches)  # the commands of one write (a pipeline) share it
                for raw, args in commands:
                    self.proxy.commands.append(args)
                    self.proxy.batches.append(batch)
                    blip = self.proxy._blip
                    if blip is not None and blip.match(args):
                        if blip.mode == "reply":
                            self.upstream.write(raw)
                        self.proxy._fire(blip, self)
                        return
                    if self.closed:
                        return
                    self.upstream.write(raw)

    async def replies(self, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(ConnectionError):
            while not self.closed:
                data = await reader.read(65536)
                if not data:
                    break
                if not self.deaf and not self.closed:
                    self.client.write(data)
        self.cut()


def _commands(data: bytes) -> tuple[list[tuple[bytes, list[bytes]]], bytes]:
    """The whole RESP commands (arrays of bulk strings, as redis-py sends them) at the start of
    `data`, each as its bytes and its arguments; and what is left of an incomplete one."""
    out = []
    at = 0
    while True:
        start, args = at, []
        end = data.find(b"\r\n", at)
        if end < 0:
            break
        if data[at:at + 1] != b"*":
            raise ConnectionError(f"not a RESP array: {data[at:at + 20]!r}")
        count, at = int(data[at + 1:end]), end + 2
        for _ in range(count):
            end = data.find(b"\r\n", at)
            if end < 0:
                return out, data[start:]
            size = int(data[at + 1:end])
            if len(data) < end + 2 + size + 2:
                return out, data[start:]
            args.append(data[end + 2:end + 2 + size])
            at = end + 2 + size + 2
        out.append((data[start:at], args))
    return out, data[at:]
