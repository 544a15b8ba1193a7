"""Webhooks a player registers (protocol/SPEC.md 2.19): where to send, which events, and the
secret that signs each delivery.

A hook's URL is HTTPS, or plain HTTP to this machine's loopback only (a receiver under
development): anything else is refused with `bad_webhook_url` before it is stored. The secret is
256 random bits, shown once to the player who registered it; the server keeps it, since it signs
with it (an HMAC needs the key itself), and never shows it again.

The signature (SPEC 2.19, and `sign` below, which the SDKs' `verify_webhook` mirror): the
hex HMAC-SHA256, keyed with the secret's UTF-8 bytes, of `<timestamp>.<body>`, where timestamp is
the decimal Unix time in seconds sent in `Teahouse-Timestamp` and body the exact bytes sent.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import time
from typing import Any
from urllib.parse import urlsplit

from service.match.lobby import LobbyError
from service.store import EventStore, HookRecord

EVENTS = ("your_turn", "clock_low", "finished")
MAX_URL = 2000
SECRET_PREFIX = "whsec_"
LOOPBACK_HOSTS = ("localhost",)

# The request headers of a delivery.
HEADER_ID = "Teahouse-Delivery"
HEADER_EVENT = "Teahouse-Event"
HEADER_TIMESTAMP = "Teahouse-Timestamp"
HEADER_SIGNATURE = "Teahouse-Signature"
SIGNATURE_VERSION = "v1"


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The `Teahouse-Signature` value of a delivery: `v1=` and the hex HMAC-SHA256."""
    mac = hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"{SIGNATURE_VERSION}={mac}"


def _loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: object) -> str:
    """The URL if a hook may send there, else LobbyError bad_webhook_url."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL:
        raise LobbyError("bad_webhook_url", f"url must be an absolute https URL of at most {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise LobbyError("bad_webhook_url", "url is not a valid URL") from None
    if parts.scheme not in ("https", "http") or not host:
        raise LobbyError("bad_webhook_url", "url must be an absolute https URL (http only to 127.0.0.1, ::1 "
                         "or localhost)")
    if parts.username is not None or parts.password is not None:
        raise LobbyError("bad_webhook_url", "url must not carry a user name or password")
    if parts.scheme == "http" and not _loopback(host):
        raise LobbyError("bad_webhook_url", "plain http is allowed only to loopback (127.0.0.1, ::1, "
                         "localhost); use https")
    return url


def check_events(events: object) -> list[str]:
    if events is None:
        return list(EVENTS)
    if not isinstance(events, list) or not events or not all(isinstance(e, str) for e in events):
        raise LobbyError("bad_field", f"events must be a non-empty list of: {', '.join(EVENTS)}")
    unknown = [e for e in events if e not in EVENTS]
    if unknown:
        raise LobbyError("unknown_webhook_event", f"unknown event {unknown[0][:40]!r}; known: {', '.join(EVENTS)}")
    return [e for e in EVENTS if e in events]


def hook_row(hook: HookRecord) -> dict[str, Any]:
    """A hook as its owner sees it: everything but the secret."""
    return {"id": hook.id, "url": hook.url, "events": hook.events, "created": hook.created}


async def register(store: EventStore, owner: str, body: dict[str, Any], site: str, limit: int) -> HookRecord:
    """A new hook for `owner` (its secret in the record: show it once, then only sign with it)."""
    extra = sorted(set(body) - {"url", "events"})
    if extra:
        raise LobbyError("bad_field", f"a webhook takes url and events, not {extra[0][:40]}")
    hook = HookRecord(id="wh_" + secrets.token_urlsafe(12), owner=owner, url=check_url(body.get("url")),
                      events=check_events(body.get("events")), secret=SECRET_PREFIX + secrets.token_urlsafe(32),
                      created=int(time.time() * 1000), site=site.rstrip("/"))
    if not await store.add_hook(hook, limit):
        raise LobbyError("too_many_webhooks", f"a player may register at most {limit} webhooks; delete one first",
                         409)
    return hook


async def unregister(store: EventStore, owner: str, hook_id: str) -> None:
    if not await store.remove_hook(owner, hook_id):
        raise LobbyError("unknown_webhook", "you have no webhook of this id", 404)
