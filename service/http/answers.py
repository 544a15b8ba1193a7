"""How an HTTP route answers: a JSON body, a problem with a stable code (protocol/SPEC.md section 2),
and `guarded`, the one wrapper that turns what a route raises into its answer."""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from service.match.lobby import LobbyError
from service.ops import logs
from service.store import StoreUnavailable
from service.ws.session import STORE_UNAVAILABLE

# The logger the routes' failures have always been written under: operators filter on its name.
log = logging.getLogger("teahouse.app")

# How long a client should wait before trying again while the store is unreachable.
RETRY_AFTER_S = 1

Endpoint = Callable[[Request], Awaitable[Response]]


def json(data: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(data), status_code=status, media_type="application/json")


def problem(code: str, message: str, status: int) -> Response:
    return json({"error": {"code": code, "message": message}}, status)


def store_unavailable() -> Response:
    response = problem("store_unavailable", STORE_UNAVAILABLE, 503)
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response


def guarded(fn: Endpoint) -> Endpoint:
    """`fn` as a route: a LobbyError becomes its problem, an unreachable store a 503 with
    Retry-After, and anything else a logged 500 that tells the client nothing was changed."""
    async def endpoint(request: Request) -> Response:
        logs.MATCH.set(request.path_params.get("match"))  # named in this request's log lines
        try:
            return await fn(request)
        except LobbyError as exc:
            response = problem(exc.code, exc.message, exc.status)
            if exc.status in (408, 413):
                # the rest of the body is not wanted: close rather than read it to the end
                response.headers["Connection"] = "close"
            if exc.retry_after_s:
                response.headers["Retry-After"] = str(math.ceil(exc.retry_after_s))
            return response
        except StoreUnavailable:
            return store_unavailable()  # the store's reachability logs the outage, once
        except Exception:
            log.exception("%s %s failed", request.method, request.url.path)
            return problem("internal", "the server failed on this request; nothing was changed", 500)
    return endpoint


def int_param(raw: str | None, name: str, default: int, lo: int, hi: int) -> int:
    """A query parameter as an integer from `lo` to `hi`, `default` when absent or empty."""
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise LobbyError("bad_field", f"{name} must be an integer") from None
    if not lo <= value <= hi:
        raise LobbyError("bad_field", f"{name} must be from {lo} to {hi}")
    return value
