"""Every limit an operator sets, in one place: one frozen dataclass.

Each field is settable three ways, the first that is present winning: a `teahouse serve` flag
(`--connections-per-address 64`), an environment variable (`TEAHOUSE_CONNECTIONS_PER_ADDRESS=64`,
handy in compose files and Kubernetes manifests), or the default below. docs/operators.md lists
them all; `teahouse serve --help` prints the same sentences, which live here in `help`.

A new limit is one field with a default and a `help`; nothing else needs to learn about it.
Zero means "no limit" wherever a limit could be switched off.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ENV_PREFIX = "TEAHOUSE_"


def _limit(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class Limits:
    # -- health and the store ---------------------------------------------------------------
    ready_deadline_s: float = _limit(
        1.0, "/health/ready answers 503 unless the store answers a ping within this many seconds")
    wait_replicas: int = _limit(
        0, "Redis only: before acknowledging a move, WAIT until this many replicas hold it "
           "(0: acknowledge once the primary has it; see docs/operators.md for the trade-off)")
    wait_timeout_ms: int = _limit(
        1000, "how long WAIT may take before the move is acknowledged anyway (and counted in metrics)")
    drain_s: float = _limit(
        10.0, "on SIGTERM the node stops accepting and closes every WebSocket with 1012 (clients reconnect "
              "elsewhere); then it waits up to this many seconds for requests in flight before it exits")
    # -- what one client address may do ----------------------------------------------------
    matches_per_address_per_minute: int = _limit(
        30, "matches one client address may create per minute (0: no limit)")
    connections_per_address: int = _limit(
        64, "WebSocket connections one client address may hold at once (0: no limit)")
    # -- what one connection may do ---------------------------------------------------------
    requests_per_second: float = _limit(
        50.0, "messages per second one connection may send, on average (0: no limit)")
    request_burst: int = _limit(
        100, "messages one connection may send at once before the per-second rate applies")
    outbound_bytes_per_second: int = _limit(
        4 << 20, "bytes per second of answers (legal moves, resyncs) one connection may ask for (0: no limit)")
    legal_moves_page: int = _limit(
        500, "legal moves per answer; a longer list is sent in pages (see SPEC.md)")
    # -- what this node and each match hold -------------------------------------------------
    live_matches_per_node: int = _limit(
        10_000, "match runtimes this node keeps loaded at once; more are refused (0: no limit)")
    spectators_per_match: int = _limit(
        1_000, "spectator connections one match may have on this node (0: no limit)")
    idle_seat_seconds: int = _limit(
        0, "an open match's seat taken but never joined for this long is freed again (0: never)")
    live_replays_per_address_per_minute: int = _limit(
        120, "replays of live matches (GET /api/matches/ID/replay) one client address may ask for per "
             "minute; more: 429 rate_limited (0: no limit; a finished match's replay is cached and not counted)")
    replay_cache_bytes: int = _limit(
        32 << 20, "bytes of encoded replays of finished matches this node keeps to answer again (0: none)")
    options_max_bytes: int = _limit(
        16 * 1024, "largest create-match `options`, as JSON bytes")
    # -- slow and idle clients --------------------------------------------------
    max_body_bytes: int = _limit(
        1 << 20, "largest HTTP request body, in bytes (larger: 413 body_too_large)")
    body_timeout_s: float = _limit(
        10.0, "seconds a request body may take to arrive after its headers (then 408 body_timeout)")
    header_timeout_s: float = _limit(
        10.0, "seconds a request's headers (a WebSocket handshake's too) may take to arrive; "
              "then the connection is closed without an answer")
    request_timeout_s: float = _limit(
        30.0, "seconds a whole HTTP request, body included, may take to arrive; then the connection is closed")
    matches_per_connection: int = _limit(
        64, "matches one WebSocket may watch (join or spectate) at once; more: error too_many_matches")
    idle_socket_s: float = _limit(
        60.0, "seconds a WebSocket may watch no match before it is closed with 4410")
    # -- retention --------------------------------------------------------------------------
    retention_days: int = _limit(
        0, "finished matches older than this many days are archived or deleted (0: kept forever)")
    retention_action: str = _limit(
        "archive", "what retention does to an old finished match: archive (unlisted, log kept) or delete")
    retention_check_s: float = _limit(
        3600.0, "how often, in seconds, each node looks for finished matches past retention_days")
    # -- analysis after the end ---------------------------------------------------------------
    analysis: bool = _limit(
        False, "analyse every finished match in the background (win chances at every commit, key "
               "moments: GET /api/matches/{id}/analysis); `--analysis` alone turns it on")
    analysis_playouts: int = _limit(
        16, "playouts per commit of an analysis: its work per match grows with it, its noise shrinks as its root")
    # -- browsers and operators ---------------------------------------------------------------
    cors_origins: tuple[str, ...] = _limit(
        (), "extra origins (comma separated, e.g. https://play.example.org) allowed to call the HTTP "
            "API from a browser and to open WebSockets; same-origin and localhost are always allowed")
    admin_token: str = _limit(
        "", "bearer token of the admin API (/admin/...); empty: the admin API is switched off")
    apps: str = _limit(
        "", "a JSON file of the third-party apps whose users may play with the app's signed tokens "
            "(docs/operators.md); empty: none")
    # -- webhooks ----------------------------------------------------------------------------------
    webhooks_per_player: int = _limit(
        5, "webhooks one player may register (SPEC 2.19)")
    webhook_attempts: int = _limit(
        8, "tries of one webhook delivery before it is marked failed")
    webhook_retry_s: float = _limit(
        1.0, "seconds before a failed webhook delivery is tried again, doubled after each failure (at most 600)")
    webhook_timeout_s: float = _limit(
        5.0, "seconds a webhook receiver has to answer one delivery")
    webhook_sweep_s: float = _limit(
        30.0, "seconds between two looks for commits whose webhooks no node derived (a node that died)")
    public_url: str = _limit(
        "", "the server's public address (e.g. https://play.example.org), which the match links in webhook "
            "payloads start with; empty: the address a webhook was registered at")

    # -- reading them ---------------------------------------------------------------------------
    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """Add one `--flag` per limit; an absent flag falls back to the environment, then the default."""
        group = parser.add_argument_group("limits (each also settable as TEAHOUSE_<NAME> in the environment)")
        for f in dataclasses.fields(cls):
            # a switch (a boolean limit) is turned on by its flag alone, or set by a value
            switch: dict[str, Any] = {"nargs": "?", "const": "true"} if isinstance(f.default, bool) else {}
            group.add_argument("--" + f.name.replace("_", "-"), dest=f"limit_{f.name}", default=None,
                               metavar=f.name.upper(), **switch,
                               help=f"{f.metadata['help']} (default: {_show(f.default)}; env {env_name(f.name)})")

    @classmethod
    def from_sources(cls, args: argparse.Namespace | None = None,
                     env: Mapping[str, str] | None = None) -> Limits:
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            raw = getattr(args, f"limit_{f.name}", None) if args is not None else None
            if raw is None:
                raw = env.get(env_name(f.name))
            if raw is not None:
                values[f.name] = _parse(f.name, f.default, raw)
        limits = cls(**values)
        limits.check()
        return limits

    def check(self) -> None:
        if self.retention_action not in ("archive", "delete"):
            raise ValueError("retention_action must be archive or delete")
        if self.webhook_attempts < 1 or self.webhook_timeout_s <= 0 or self.webhook_sweep_s <= 0:
            raise ValueError("webhook_attempts, webhook_timeout_s and webhook_sweep_s must be above zero")
        if self.analysis_playouts < 1:
            raise ValueError("analysis_playouts must be at least 1")
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, int | float) and value < 0:
                raise ValueError(f"{f.name} must not be negative")


def env_name(name: str) -> str:
    return ENV_PREFIX + name.upper()


def _show(default: Any) -> str:
    if isinstance(default, tuple):
        return ",".join(default) or "none"
    return repr(default) if isinstance(default, str) else str(default)


def _parse(name: str, default: Any, raw: str) -> Any:
    try:
        if isinstance(default, bool):
            return raw.strip().lower() in ("1", "true", "yes", "on")
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
        if isinstance(default, tuple):
            return tuple(part.strip() for part in raw.split(",") if part.strip())
        return raw
    except ValueError:
        raise ValueError(f"{name}: {raw!r} is not a valid {type(default).__name__}") from None
