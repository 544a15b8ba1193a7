"""What an anonymous client may cost a node over HTTP: body size and time, media type, where a
seat token may travel, and log lines that never carry one. (Deadlines for a request's headers
and the whole request: service/http/deadlines.py.)

The numbers are operator limits (service/ops/limits.py); SPEC.md section 2 and docs/operators.md
state their defaults and tests/protocol checks they agree.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any
from urllib.parse import unquote_plus

import orjson
from starlette.requests import ClientDisconnect, Request

from protocol.codec import loads_json
from protocol.errors import ProtocolError
from service.match.lobby import LobbyError
from service.ops.limits import Limits

# Every query parameter, so that a name spelled with escapes (`tok%65n=`), which Starlette reads as
# `token`, is recognised by its decoded name.
_PARAM_IN_TEXT = re.compile(r"([?&;])([^=&;?\s\"']+)=([^&;\s\"']*)")
# A seat token (refused in a URL, but a client may still send one) and a private match's spectator key.
_SECRET_PARAMS = ("token", "key")
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
        data = loads_json(raw)
    except orjson.JSONDecodeError:
        raise LobbyError("bad_json", "the request body is not valid JSON") from None
    except ProtocolError as exc:  # an integer beyond 64 bits
        raise LobbyError("bad_field", exc.message) from None
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
    if unquote_plus(m.group(2)).strip().lower() not in _SECRET_PARAMS:
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
