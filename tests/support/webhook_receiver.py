"""A webhook receiver on loopback: a real HTTP/1.1 server (asyncio streams, nothing else) that
records every request it gets and answers each with the status the test sets. `stop()` closes
its socket, so that deliveries meet a refused connection, and `start()` opens it again on the
same port."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from tests.support.redis_server import free_port


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    port: int = field(default_factory=free_port)
    status: int = 200  # what the next requests are answered
    got: list[Received] = field(default_factory=list)
    _server: asyncio.Server | None = None
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    async def start(self) -> Receiver:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if line:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            status = self.status
            self.got.append(Received(method, path, headers, body))
            self._arrived.set()
            writer.write(f"HTTP/1.1 {status} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".encode())
            await writer.drain()
        finally:
            writer.close()
            await writer.wait_closed()

    async def wait_for(self, predicate, timeout: float = 30) -> list[Received]:
        """Wait until `predicate(got)` holds; returns the requests received."""
        async def until() -> None:
            while True:
                self._arrived.clear()
                if predicate(self.got):
                    return
                await self._arrived.wait()
        await asyncio.wait_for(until(), timeout)
        return self.got
