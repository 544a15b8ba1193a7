"""The Starlette app: HTTP routes for the lobby and replays; the WebSocket endpoint's parts.

The app factory only composes. /ws is not an ASGI route: uvicorn hands each upgraded connection
to service.ws.edge.EdgeProtocol (`teahouse serve`), which finds the Endpoint this app's lifespan
offers in its state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from service.bots import pool as bot_pool
from service.games import GAMES, get_game
from service.http import admin
from service.http.guards import install_log_redaction, json_body, seat_token
from service.http.origins import OriginGuard
from service.match import replay, retention
from service.match.lobby import Lobby, LobbyError, open_hand
from service.match.narration import names_of, story
from service.match.runtime import DIVERGED_SEEN
from service.ops import logs, metrics, pauses
from service.ops.access import AccessLog
from service.ops.limits import Limits
from service.store import EventStore, MatchRecord, StoreUnavailable, open_store
from service.ws.address_limits import ConnectionCounts, CreationWindow
from service.ws.edge import ENDPOINT_KEY, Endpoint
from service.ws.idle import IdleSweep
from service.ws.session import STORE_UNAVAILABLE

log = logging.getLogger("teahouse.app")
WEB = Path(__file__).resolve().parent.parent / "clients" / "web"
JS = Path(__file__).resolve().parent.parent / "clients" / "js"  # the JS SDK, imported by the web client
# The JSON Schema of each game's view (docs/games/schemas/<id>.view.json), served as it is.
VIEW_SCHEMAS = Path(__file__).resolve().parent.parent / "docs" / "games" / "schemas"


def json(data: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(data), status_code=status, media_type="application/json")


def problem(code: str, message: str, status: int) -> Response:
    return json({"error": {"code": code, "message": message}}, status)


# How long a client should wait before trying again while the store is unreachable.
RETRY_AFTER_S = 1


def store_unavailable() -> Response:
    response = problem("store_unavailable", STORE_UNAVAILABLE, 503)
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response


MATCH_STATES = ("open", "live", "finished", "diverged")


def _summary(rec: MatchRecord, seq: int | None = None) -> dict[str, Any]:
    taken = sum(s.taken for s in rec.seats)
    state = "finished" if rec.finished else ("live" if taken == rec.players else "open")
    if rec.diverged is not None:
        state = "diverged"  # its log lost commits a node had seen (docs/operators.md)
    options, fixed = public_options(rec)
    out: dict[str, Any] = {
        "match": rec.id, "game": rec.game, "players": rec.players, "options": options,
        "fixed_chance": fixed, "listed": rec.listed, "state": state, "created": rec.created,
        "seats": [{"seat": s.seat, "taken": s.taken, "name": s.name} for s in rec.seats],
        "seed_sha256": rec.seed_sha256, "forked_from": _public_fork(rec.forked_from),
        "open_hand": open_hand(rec),
        "turn_seconds": rec.turn_seconds, "absent": rec.absent,
        "bots": [{"seat": seat, "strength": strength} for seat, strength in enumerate(rec.bots or []) if strength is not None],
    }
    if seq is not None:
        out["seq"] = seq
    if rec.finished:
        out["seed"] = rec.seed
        out["bot_seed"] = rec.bot_seed
        out["result"] = rec.result
    return out


def public_options(rec: MatchRecord) -> tuple[dict[str, Any], list[str]]:
    """The options anyone may read, and the names of those that fixed hidden chance. While the
    match is live the values of a game's secret options (a deck's order...) would deal every hand
    to whoever reads the lobby; once it is over they are public with the log."""
    secret = get_game(rec.game).secret_options
    fixed = sorted(k for k in rec.options if k in secret)
    if rec.finished:
        return rec.options, fixed
    return {k: v for k, v in rec.options.items() if k not in secret}, fixed


def _public_fork(forked: dict[str, Any] | None) -> dict[str, Any] | None:
    # The parent's seed is public once the parent is finished, which a fork requires.
    return forked


def create_app(store: EventStore | None = None, store_url: str | None = None,
               limits: Limits | None = None) -> Starlette:
    holder: dict[str, Any] = {"limits": limits if limits is not None else Limits.from_sources()}
    lim: Limits = holder["limits"]
    creations = CreationWindow(lim.matches_per_address_per_minute)
    connections = ConnectionCounts(lim.connections_per_address)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        install_log_redaction()
        s = store if store is not None else open_store(store_url or "sqlite:teahouse-data", lim.wait_replicas,
                                                       lim.wait_timeout_ms)
        holder["store"], holder["lobby"] = s, Lobby(s, max_live=lim.live_matches_per_node,
                                                  idle_seat_seconds=lim.idle_seat_seconds)
        holder["lobby"].start()
        logs.set_node(holder["lobby"].node)
        _watch_gauges(holder["lobby"])
        pauses.settle_gc()
        watch = pauses.PauseWatch()
        watch.start()
        keeping = asyncio.create_task(retention.run_forever(
            s, lim.retention_days, lim.retention_action, lim.retention_check_s, holder["lobby"].forget),
            name="retention") if lim.retention_days else None
        # service/ws/edge.py serves /ws with this endpoint
        yield {ENDPOINT_KEY: Endpoint(lobby, lim, connections, IdleSweep(lim.idle_socket_s))}
        if keeping is not None:
            keeping.cancel()
            await asyncio.gather(keeping, return_exceptions=True)
        await watch.close()
        await holder["lobby"].close()
        bot_pool.shutdown()
        if store is None:
            await s.close()

    def lobby() -> Lobby:
        return holder["lobby"]

    # Read once here, not on the event loop per request.
    schemas = {g: (VIEW_SCHEMAS / f"{g}.view.json").read_bytes() for g in GAMES
               if (VIEW_SCHEMAS / f"{g}.view.json").is_file()}

    def handles_errors(fn):
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

    async def live(request: Request) -> Response:
        """The process answers: a liveness probe restarts a node only when this fails."""
        return json({"ok": True})

    async def ready(request: Request) -> Response:
        """The store answers a ping within Limits.ready_deadline_s: a readiness probe sends
        clients elsewhere (or nowhere) while it does not. /health is the same answer."""
        s: EventStore = holder["store"]
        body: dict[str, Any] = {"ok": True, "store": s.name, "games": list(GAMES),
                                "live_matches": lobby().live_count, "diverged_matches": len(DIVERGED_SEEN)}
        try:
            await asyncio.wait_for(s.ping(), holder["limits"].ready_deadline_s)
        except (StoreUnavailable, TimeoutError):
            body["ok"] = False
            body["error"] = {"code": "store_unavailable", "message": "the store did not answer a ping within "
                             f"{holder['limits'].ready_deadline_s:g} s"}
            response = json(body, 503)
            response.headers["Retry-After"] = str(RETRY_AFTER_S)
            return response
        return json(body)

    async def games(request: Request) -> Response:
        return json([{"id": g.id, "name": g.name, "min_players": g.min_players,
                      "max_players": g.max_players, "rules_version": g.rules_version}
                     for g in map(get_game, GAMES)])

    @handles_errors
    async def view_schema(request: Request) -> Response:
        schema = schemas.get(request.path_params["game"])
        if schema is None:
            raise LobbyError("unknown_game", f"unknown game; known: {', '.join(schemas)}", 404)
        return Response(schema, media_type="application/schema+json")

    @handles_errors
    async def game_reference(request: Request) -> Response:
        game_id = request.path_params["game"]
        if game_id not in GAMES:
            raise LobbyError("unknown_game", f"unknown game {game_id!r}; known: {', '.join(GAMES)}", 404)
        g = get_game(game_id)
        players = _int_param(request.query_params.get("players"), "players", g.min_players,
                             g.min_players, g.max_players)
        return json({"game": game_id, "players": players, "reference": g.reference({}, players)})

    @handles_errors
    async def match_reference(request: Request) -> Response:
        rec = await lobby().record(request.path_params["match"])
        g = get_game(rec.game)
        return json({"game": rec.game, "players": rec.players, "reference": g.reference(rec.options, rec.players)})

    def count_creation(request: Request) -> None:
        """A client address creates at most matches_per_address_per_minute matches a minute."""
        wait = creations.hit(request.client.host if request.client else "")
        if wait:
            exc = LobbyError("rate_limited", f"this address created {lim.matches_per_address_per_minute} matches "
                             f"in the last minute, its limit; try again in {math.ceil(wait)} s", 429)
            exc.retry_after_s = wait
            raise exc

    @handles_errors
    async def create_match(request: Request) -> Response:
        body = await json_body(request, holder["limits"])
        options = body.get("options")
        if lim.options_max_bytes and options is not None and len(orjson.dumps(options)) > lim.options_max_bytes:
            raise LobbyError("options_too_large", f"options may be at most {lim.options_max_bytes} bytes "
                             "written as JSON", 413)
        count_creation(request)
        rec = await lobby().create(body.get("game"), body.get("players"), body.get("options"),
                                   body.get("listed", True), turn_seconds=body.get("turn_seconds"),
                                   absent=body.get("absent", "bot"), bots=body.get("bots"))
        return json(_summary(rec, await lobby().store.last_seq(rec.id) if rec.bots else 0), 201)

    @handles_errors
    async def list_matches(request: Request) -> Response:
        want = request.query_params.get("state")
        if want and want not in MATCH_STATES:
            raise LobbyError("bad_field", f"state must be one of: {', '.join(MATCH_STATES)}")
        recs = [await lobby().free_idle_seats(r) for r in await lobby().store.list_matches()]
        rows = [_summary(r) for r in recs]
        if want:
            rows = [r for r in rows if r["state"] == want]
        return json(rows)

    @handles_errors
    async def get_match(request: Request) -> Response:
        match_id = request.path_params["match"]
        rec = await lobby().settled(match_id)
        return json(_summary(rec, await lobby().store.last_seq(match_id)))

    @handles_errors
    async def take_seat(request: Request) -> Response:
        body = await json_body(request, holder["limits"])
        seat, token = await lobby().take_seat(request.path_params["match"], body.get("seat"), body.get("name"))
        return json({"match": request.path_params["match"], "seat": seat, "token": token}, 201)

    @handles_errors
    async def match_log(request: Request) -> Response:
        match_id = request.path_params["match"]
        rec = await lobby().settled(match_id)
        if not rec.finished:
            raise LobbyError("match_live", "the raw log is public once the match is over; "
                             "while it is live use /replay, which shows an audience's view", 409)
        commits = await lobby().store.read(match_id)
        final = replay.state_at(rec, commits, len(commits))
        said = story(get_game(rec.game), commits, names_of(rec.seats, rec.players), final)
        return json({**_summary(rec, len(commits)), "rules_version": rec.rules_version,
                     "commits": [{**c.public(), "said": s["said"]} for c, s in zip(commits, said, strict=True)]})

    @handles_errors
    async def replay_at(request: Request) -> Response:
        match_id = request.path_params["match"]
        q = request.query_params
        rec = await lobby().settled(match_id)
        last = await lobby().store.last_seq(match_id)
        seq = _int_param(q.get("seq"), "seq", last, 0, last)
        token = seat_token(request)
        seat = None
        if q.get("seat") not in (None, "", "spectator"):
            seat = _int_param(q.get("seat"), "seat", 0, 0, rec.players - 1)
            if not rec.finished and await lobby().seat_for_token(match_id, token) != seat:
                raise LobbyError("bad_token", "a live match shows a seat's view only to that seat's token", 403)
        commits = await lobby().store.read(match_id, 0, seq)
        return json(replay.at(rec, commits, seq, seat))

    @handles_errors
    async def fork(request: Request) -> Response:
        body = await json_body(request, holder["limits"])
        count_creation(request)
        rec = await lobby().fork(request.path_params["match"], body.get("seq"), body.get("exact", False))
        return json(_summary(rec, await lobby().store.last_seq(rec.id)), 201)

    async def metrics_route(request: Request) -> Response:
        return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)

    routes: list[BaseRoute] = [
        Route("/metrics", metrics_route),
        Route("/health", ready),
        Route("/health/live", live),
        Route("/health/ready", ready),
        Route("/api/games", games),
        Route("/api/games/{game}/reference", game_reference),
        Route("/api/games/{game}/view-schema", view_schema),
        Route("/api/matches", create_match, methods=["POST"]),
        Route("/api/matches", list_matches, methods=["GET"]),
        Route("/api/matches/{match}", get_match),
        Route("/api/matches/{match}/seats", take_seat, methods=["POST"]),
        Route("/api/matches/{match}/log", match_log),
        Route("/api/matches/{match}/reference", match_reference),
        Route("/api/matches/{match}/replay", replay_at),
        Route("/api/matches/{match}/fork", fork, methods=["POST"]),
        *admin.routes(lobby, lim.admin_token, _summary, handles_errors, _int_param),
    ]
    if (WEB / "index.html").exists():
        routes += [
            Route("/", lambda r: RedirectResponse("/web/")),
            Route("/web/", lambda r: FileResponse(WEB / "index.html")),
            Mount("/web", StaticFiles(directory=WEB), name="web"),
        ]
    if (JS / "teahouse.js").exists():
        routes.append(Mount("/js", StaticFiles(directory=JS), name="js"))
    # Browsers: CORS for allowed origins, other origins refused (HTTP and WebSocket alike); the
    # access log outside it, so that refusals are logged too.
    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(AccessLog), Middleware(OriginGuard, origins=lim.cors_origins)])


def _watch_gauges(lobby: Lobby) -> None:
    """The gauges that count what the node holds, read at each scrape of /metrics."""
    metrics.watch(metrics.LOADED_MATCHES, lambda: lobby.live_count)
    metrics.watch(metrics.AUDIENCES, lambda: sum(len(rt.watchers) for rt in lobby.loaded()))
    metrics.watch(metrics.WATCHERS, lambda: sum(len(group) for rt in lobby.loaded() for group in rt.watchers.values()))
    metrics.watch(metrics.DIVERGED_MATCHES, lambda: len(DIVERGED_SEEN))


def app_from_env() -> Starlette:
    """The app of one process of `teahouse serve --workers N`: the parent puts the store URL in
    TEAHOUSE_STORE_URL and its limit flags in their TEAHOUSE_ variables (service.cli)."""
    return create_app(store_url=os.environ["TEAHOUSE_STORE_URL"], limits=Limits.from_sources())


def _int_param(raw: str | None, name: str, default: int, lo: int, hi: int) -> int:
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise LobbyError("bad_field", f"{name} must be an integer") from None
    if not lo <= value <= hi:
        raise LobbyError("bad_field", f"{name} must be from {lo} to {hi}")
    return value
