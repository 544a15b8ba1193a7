"""The access log: one line per HTTP request (and per WebSocket session, when it ends).

uvicorn's own access line has no duration and is text; this one carries `method`, `path`,
`status`, `ms` and `client` as fields (service/ops/logs.py). A query string is logged with any
token in it blanked (service.http.guards.redact).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from service.http.guards import redact

log = logging.getLogger("teahouse.access")


class AccessLog:
    """ASGI middleware around the whole app."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket") or not log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0

        async def sending(message: dict[str, Any]) -> None:
            nonlocal status
            kind = message["type"]
            if kind == "http.response.start":
                status = message["status"]
            elif kind == "websocket.accept":
                status = 101
            elif kind == "websocket.close" and not status:
                status = 403  # closed before it was accepted
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            query = scope.get("query_string", b"").decode("latin-1")
            path = redact(scope["path"] + (f"?{query}" if query else ""))
            method = scope.get("method", "WS") if scope["type"] == "http" else "WS"
            ms = round((time.perf_counter() - started) * 1000, 1)
            client = (scope.get("client") or ("-",))[0]
            log.info("%s %s %d %.1f ms", method, path, status or 500, ms,
                     extra={"method": method, "path": path, "status": status or 500, "ms": ms, "client": client})
