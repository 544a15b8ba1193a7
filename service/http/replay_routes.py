"""The routes that read a match's log (protocol/SPEC.md section 2): the raw log and the game record
once it is over, the replay of any seq from an audience's view, a fork from any seq, and the
games' reference data."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.games import GAMES, get_game
from service.http.answers import guarded, int_param, json
from service.http.guards import json_body
from service.http.readers import reader, seat_holder, spectator_key, visible_seq
from service.http.replay_cache import IMMUTABLE_MAX_AGE_S, ReplayCache
from service.http.replay_cache import matches as etag_matches
from service.http.summary import summary
from service.match import record, replay
from service.match.analysis import Analyst
from service.match.lobby import Lobby, LobbyError
from service.match.narration import names_of, story
from service.ops import metrics
from service.ops.limits import Limits
from service.store import Commit, MatchRecord
from service.ws.address_limits import CreationWindow

# Seconds a client is told to wait before asking again for an analysis still queued.
RETRY_ANALYSIS_S = 2

# The fields POST .../fork takes (SPEC 2.10); any other is refused with `unknown_field`.
FORK_FIELDS = ("seq", "exact", "listed", "seat", "name", "bot_strength")


class ReplayRoutes:
    """The routes over the lobby that the app's lifespan opens (`lobby` returns it). A fork creates
    a match, so it is counted by the same per-address window as a creation (`creation_room`).
    A replay folds the log up to its seq: a finished match's is kept encoded (`cache`), a live
    match's is counted per client address (`live_replays`)."""

    def __init__(self, lobby: Callable[[], Lobby], limits: Limits,
                 creation_room: Callable[[Request], Callable[[], None]],
                 analyst: Callable[[], Analyst | None] = lambda: None) -> None:
        self.lobby, self.limits, self.creation_room = lobby, limits, creation_room
        self.analyst = analyst
        self.cache = ReplayCache(limits.replay_cache_bytes)
        self.live_replays = CreationWindow(limits.live_replays_per_address_per_minute)  # a sliding minute

    def routes(self) -> list[Route]:
        return [
            Route("/api/games/{game}/reference", guarded(self.game_reference)),
            Route("/api/matches/{match}/log", guarded(self.match_log)),
            Route("/api/matches/{match}/record", guarded(self.match_record)),
            Route("/api/matches/{match}/analysis", guarded(self.match_analysis)),
            Route("/api/matches/{match}/reference", guarded(self.match_reference)),
            Route("/api/matches/{match}/replay", guarded(self.replay_at)),
            Route("/api/matches/{match}/fork", guarded(self.fork), methods=["POST"]),
        ]

    async def game_reference(self, request: Request) -> Response:
        game_id = request.path_params["game"]
        if game_id not in GAMES:
            raise LobbyError("unknown_game", f"unknown game {game_id!r}; known: {', '.join(GAMES)}", 404)
        g = get_game(game_id)
        players = int_param(request.query_params.get("players"), "players", g.min_players,
                            g.min_players, g.max_players)
        return json({"game": game_id, "players": players, "reference": g.reference({}, players)})

    async def match_reference(self, request: Request) -> Response:
        rec = await self.lobby().record(request.path_params["match"])
        g = get_game(rec.game)
        return json({"game": rec.game, "players": rec.players, "reference": g.reference(rec.options, rec.players)})

    async def _finished(self, request: Request, what: str) -> tuple[MatchRecord, list[Commit]]:
        """A finished match and its whole log. A live match's events hold its secrets and its
        seed is not out yet, so neither the raw log nor the record is served before the end."""
        match_id = request.path_params["match"]
        lobby = self.lobby()
        rec = await lobby.settled(match_id)
        await reader(request, lobby, rec)
        if not rec.finished:
            raise LobbyError("match_live", f"{what} is public once the match is over; "
                             "while it is live use /replay, which shows an audience's view", 409)
        return rec, await lobby.store.read(match_id)

    async def match_log(self, request: Request) -> Response:
        rec, commits = await self._finished(request, "the raw log")
        final = replay.state_at(rec, commits, len(commits))
        said = story(get_game(rec.game), commits, names_of(rec.seats, rec.players), final)
        return json({**summary(rec, len(commits)), "rules_version": rec.rules_version,
                     "analysis": await self._analysis_state(rec.id),
                     "commits": [{**c.public(), "said": s["said"]} for c, s in zip(commits, said, strict=True)]})

    async def _analysis_state(self, match_id: str) -> str:
        """What GET .../analysis will answer (SPEC 2.8): "made", "queued" (it queues it) or "off"."""
        if await self.lobby().store.load_analysis(match_id) is not None:
            return "made"
        analyst = self.analyst()
        if analyst is None:
            return "off"
        analyst.finished(match_id)
        return "queued"

    async def match_record(self, request: Request) -> Response:
        rec, commits = await self._finished(request, "the game record")
        analysis = await self.lobby().store.load_analysis(rec.id)
        body = await asyncio.to_thread(record.encode, rec, commits, analysis)  # a fold of the whole match
        return Response(body, media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="{rec.id}.teahouse.jsonl"'})

    async def match_analysis(self, request: Request) -> Response:
        """A finished match's analysis (SPEC 2.14): 200 once made, 202 while it is queued."""
        match_id = request.path_params["match"]
        lobby = self.lobby()
        rec = await lobby.settled(match_id)
        await reader(request, lobby, rec)
        if not rec.finished:
            raise LobbyError("match_live", "a match is analysed once it is over (its hidden cards and seed are "
                             "public then); this one is still being played", 409)
        doc = await lobby.store.load_analysis(match_id)
        if doc is not None:
            return json(doc)
        analyst = self.analyst()
        if analyst is None:
            raise LobbyError("no_analysis", f"match {match_id} has no analysis, and this server does not analyse "
                             "matches (its operator has not turned analysis on)", 404)
        analyst.finished(match_id)  # (it may have finished on another node, or before a restart)
        out = json({"match": match_id, "state": "queued", "ahead": analyst.ahead(match_id) or 0,
                    "retry_after_s": RETRY_ANALYSIS_S}, 202)
        out.headers["Retry-After"] = str(RETRY_ANALYSIS_S)
        return out

    async def replay_at(self, request: Request) -> Response:
        match_id = request.path_params["match"]
        q = request.query_params
        lobby = self.lobby()
        rec = await lobby.settled(match_id)
        holder = await seat_holder(request, lobby, rec)
        seat = None
        if q.get("seat") not in (None, "", "spectator"):
            seat = int_param(q.get("seat"), "seat", 0, 0, rec.players - 1)
            if not rec.finished and holder != seat:
                raise LobbyError("bad_token", "a live match shows a seat's view only to that seat's token", 403)
        if holder is None:
            lobby.check_public(rec, spectator_key(request))
        # The public audience of a delayed live match sees nothing past its delayed seq: a later
        # seq is refused as if the log ended there, so that not even the live seq shows.
        top = await visible_seq(lobby, rec, holder)
        seq = int_param(q.get("seq"), "seq", top, 0, top)
        if not rec.finished:
            self._count_live_replay(request)
            commits = await lobby.store.read(match_id, 0, seq)
            return json(await asyncio.to_thread(replay.at, rec, commits, seq, seat))
        # Finished: every audience may read every seat, and nothing at a seq changes any more.
        key = (match_id, seq, seat)
        found = self.cache.get(key)
        if found is None:
            metrics.REPLAYS.labels("miss").inc()
            commits = await lobby.store.read(match_id, 0, seq)
            body = await asyncio.to_thread(_encoded_replay, rec, commits, seq, seat)
            found = self.cache.put(key, body)
        # A match watched by link only is not for shared caches (its URL carries the key).
        headers = {"ETag": found.etag, "Cache-Control": ("public" if rec.spectators == "public" else "private")
                   + f", max-age={IMMUTABLE_MAX_AGE_S}, immutable"}
        if etag_matches(request.headers.get("if-none-match"), found.etag):
            metrics.REPLAYS.labels("not_modified").inc()
            return Response(status_code=304, headers=headers)
        metrics.REPLAYS.labels("hit").inc()
        return Response(found.body, media_type="application/json", headers=headers)

    def _count_live_replay(self, request: Request) -> None:
        """A live match's replay is folded anew each time: at most live_replays_per_address_per_minute
        per client address, else 429 rate_limited with Retry-After (as creations are limited)."""
        address = request.client.host if request.client else ""
        wait = self.live_replays.hit(address)
        if wait:
            metrics.REPLAYS.labels("limited").inc()
            exc = LobbyError("rate_limited", f"this address asked for {self.limits.live_replays_per_address_per_minute} "
                             f"replays of live matches in the last minute, its limit; try again in {math.ceil(wait)} s",
                             429)
            exc.retry_after_s = wait
            raise exc
        metrics.REPLAYS.labels("live").inc()

    async def fork(self, request: Request) -> Response:
        body = await json_body(request, self.limits)
        unknown = [name for name in body if name not in FORK_FIELDS]
        if unknown:
            raise LobbyError("unknown_field", f"a fork does not take the field {unknown[0][:64]!r}; "
                             f"it takes: {', '.join(FORK_FIELDS)}")
        lobby = self.lobby()
        # (a live match is refused by the lobby: it is forked only once finished, so no fork
        # reaches past what its public audience sees)
        await reader(request, lobby, await lobby.settled(request.path_params["match"]))
        counted = self.creation_room(request)
        made = await lobby.fork(request.path_params["match"], body.get("seq"), body.get("exact", False),
                                listed=body.get("listed", False), seat=body.get("seat"), name=body.get("name"),
                                bot_strength=body.get("bot_strength"))
        counted()
        rec = made.record
        # (a forker who sat down reads as that seat; bots may already have moved past the copies)
        out = summary(rec, await visible_seq(lobby, rec, made.seat))
        if made.spectator_key is not None:
            out["spectator_key"] = made.spectator_key
        if made.token is not None:
            out["seat"], out["token"] = made.seat, made.token
        return json(out, 201)


def _encoded_replay(rec: MatchRecord, commits: list[Commit], seq: int, seat: int | None) -> bytes:
    return orjson.dumps(replay.at(rec, commits, seq, seat))
