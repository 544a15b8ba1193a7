"""Which web pages may use this server from a browser: CORS on HTTP, the Origin of WebSockets.

A browser says which page a request comes from in its `Origin` header. Allowed: the server's
own origin (the Origin's host and port are the request's Host), any port of localhost,
127.0.0.1 and [::1] (a developer's page), and the origins an operator lists
(Limits.cors_origins; `*` allows every origin). A request with another Origin is refused: 403
`origin_not_allowed` over HTTP, close 4403 on a WebSocket, so a page on another site cannot act
for a visitor (cross-site WebSocket hijacking). A request without Origin (curl, the SDKs, bots,
server to server) is not a browser's cross-site request and is let through.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

import orjson
from starlette.datastructures import Headers

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CLOSE_ORIGIN = 4403
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
ALLOW_METHODS = "GET, POST, DELETE, OPTIONS"
ALLOW_HEADERS = "Authorization, Content-Type"
EXPOSE_HEADERS = "Retry-After, Content-Disposition"
PREFLIGHT_MAX_AGE_S = 600


def _netloc(value: str) -> str:
    host = value.strip().lower()
    for default in (":80", ":443"):
        if host.endswith(default):
            return host[: -len(default)]
    return host


def origin_allowed(origin: str, host: str | None, extra: tuple[str, ...]) -> bool:
    """True if a page at `origin` may call a server reached as `host` (the Host header)."""
    if "*" in extra or origin.rstrip("/") in {o.rstrip("/") for o in extra}:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False  # `null` (a sandboxed frame, a file), or not an origin at all
    if parts.hostname in LOCAL_HOSTS:
        return True
    return host is not None and _netloc(parts.netloc) == _netloc(host)


class OriginGuard:
    """ASGI middleware: answers CORS preflights, adds CORS headers for allowed origins, refuses
    requests from other origins. (WebSocket handshakes never reach the app: the edge checks
    their Origin, service/ws/handshake.py.)"""

    def __init__(self, app: ASGIApp, origins: tuple[str, ...] = ()) -> None:
        self.app, self.origins = app, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if origin is None:
            await self.app(scope, receive, send)
            return
        if not origin_allowed(origin, headers.get("host"), self.origins):
            why = f"pages at {origin[:100]} may not use this server (docs/operators.md, cors_origins)"
            await _respond(send, 403, [(b"content-type", b"application/json")],
                           orjson.dumps({"error": {"code": "origin_not_allowed", "message": why}}))
            return
        cors = [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]
        if scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
            await _respond(send, 204, [*cors, (b"access-control-allow-methods", ALLOW_METHODS.encode()),
                                       (b"access-control-allow-headers", ALLOW_HEADERS.encode()),
                                       (b"access-control-max-age", str(PREFLIGHT_MAX_AGE_S).encode())], b"")
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *cors,
                                      (b"access-control-expose-headers", EXPOSE_HEADERS.encode())]
            await send(message)

        await self.app(scope, receive, send_with_cors)


async def _respond(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [*headers, (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
