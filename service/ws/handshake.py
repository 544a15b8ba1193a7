"""What to answer a /ws handshake: the subprotocol, or the close that refuses the connection.

Accepted, then closed with a code and a reason, rather than refused with an HTTP status: a
browser shows a close code and reason to the page, where a refused handshake is only "failed".
The checks, in order: the page's Origin (4403, service/http/origins.py), a subprotocol this
server speaks (4406, protocol.versions), and the client address's connection count (4429).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from websockets.datastructures import Headers

from protocol.versions import Negotiated, negotiate, unsupported_reason
from service.http.origins import CLOSE_ORIGIN, origin_allowed
from service.ops.limits import Limits
from service.ws.address_limits import ConnectionCounts

CLOSE_UNSUPPORTED = 4406
CLOSE_TOO_MANY = 4429  # the client address holds Limits.connections_per_address connections


@dataclass(frozen=True, slots=True)
class Answer:
    """`chosen` when the session goes ahead; else `refusal`, the close code and reason sent
    right after the accept. `subprotocol` is the one named in the accept either way."""

    subprotocol: str | None
    chosen: Negotiated | None
    refusal: tuple[int, str] | None


def answer(headers: Headers, limits: Limits, connections: ConnectionCounts, address: str) -> Answer:
    """Decide; an accepted answer has counted the connection in `connections` (the caller
    closes it there when the connection ends)."""
    offered: list[str] = []
    for header in headers.get_all("Sec-WebSocket-Protocol"):
        offered.extend(token.strip() for token in header.split(","))
    origin = headers.get("Origin")
    if origin is not None and not origin_allowed(origin, headers.get("Host"), limits.cors_origins):
        why = f"pages at {origin[:100]} may not use this server (docs/operators.md, cors_origins)"
        # The same subprotocol as a normal accept, or the browser drops the handshake before
        # it sees the close.
        return Answer(offered[0] if offered else None, None,
                      (CLOSE_ORIGIN, why.encode()[:123].decode(errors="ignore")))
    chosen = negotiate(offered)
    if chosen is None:
        return Answer(None, None, (CLOSE_UNSUPPORTED, unsupported_reason(offered)))
    if not connections.open(address):
        return Answer(chosen.subprotocol, None, (CLOSE_TOO_MANY, connections.refusal()))
    return Answer(chosen.subprotocol, chosen, None)


class ClientAddress:
    """The client's address as the HTTP routes see it: uvicorn's own ProxyHeadersMiddleware
    (X-Forwarded-For from the hosts uvicorn trusts, its `forwarded_allow_ips`) applied to the
    handshake's headers, so that a WebSocket is counted against the same address."""

    __slots__ = ("_proxy",)

    def __init__(self, proxy_headers: bool, forwarded_allow_ips: Any) -> None:
        self._proxy = ProxyHeadersMiddleware(_nothing, trusted_hosts=forwarded_allow_ips) if proxy_headers else None

    def of(self, peer: tuple[str, int] | None, headers: Headers) -> str:
        host = peer[0] if peer else ""
        if self._proxy is None or "X-Forwarded-For" not in headers:
            return host
        raw = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.raw_items()
               if name.lower() == "x-forwarded-for"]
        scope: dict[str, Any] = {"type": "websocket", "client": peer or ("", 0), "headers": raw}
        # The middleware awaits nothing but the app below it, which returns at once: one step
        # of the coroutine runs it to the end.
        step = self._proxy(scope, _nothing_received, _nothing_sent)  # type: ignore[arg-type]
        try:
            step.send(None)
        except StopIteration:
            pass
        else:
            step.close()
        client = scope.get("client")
        return str(client[0]) if client else host


async def _nothing(scope: Any, receive: Any, send: Any) -> None:
    return None


async def _nothing_received() -> Any:
    raise RuntimeError("nothing is received while the client address is worked out")


async def _nothing_sent(message: Any) -> None:
    raise RuntimeError("nothing is sent while the client address is worked out")
