"""Checking a Teahouse webhook delivery on the receiving side (protocol/SPEC.md 2.19).

    from teahouse_client.webhooks import verify_webhook, WebhookSignatureError

    try:
        payload = verify_webhook(secret, request.headers, raw_body)
    except WebhookSignatureError:
        return 400   # not from the server (or too old): ignore it
    if seen(payload["id"]): return 200   # deliveries come at least once: dedupe by id

Pass the body's exact bytes, before any JSON parsing: the signature covers them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

TOLERANCE_S = 300


class WebhookSignatureError(Exception):
    """The delivery's signature does not match, its timestamp is too old, or a header is missing."""


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name.lower():
            return value
    raise WebhookSignatureError(f"the {name} header is missing")


def signature(secret: str, timestamp: int | str, body: bytes) -> str:
    """The hex HMAC-SHA256 of `<timestamp>.<body>`, keyed with the secret's UTF-8 bytes."""
    return hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()


def verify_webhook(secret: str, headers: Mapping[str, str], body: bytes, tolerance_s: float = TOLERANCE_S,
                   now: float | None = None) -> dict[str, Any]:
    """The delivery's payload if `Teahouse-Signature` is the signature of `body` under `secret`
    and `Teahouse-Timestamp` is within `tolerance_s` of `now`; else WebhookSignatureError."""
    stamp = _header(headers, "Teahouse-Timestamp")
    if not stamp.isdigit():
        raise WebhookSignatureError("Teahouse-Timestamp is not a Unix time in seconds")
    if abs((time.time() if now is None else now) - int(stamp)) > tolerance_s:
        raise WebhookSignatureError("the delivery's timestamp is too far from now (a replay?)")
    want = signature(secret, stamp, body)
    sent = [part.strip().removeprefix("v1=") for part in _header(headers, "Teahouse-Signature").split(",")
            if part.strip().startswith("v1=")]
    if not any(hmac.compare_digest(want, s) for s in sent):
        raise WebhookSignatureError("the signature does not match this secret and body")
    payload = json.loads(body)
    if not isinstance(payload, dict):
        raise WebhookSignatureError("the body is not a JSON object")
    return payload
