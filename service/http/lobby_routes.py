"""The lobby's HTTP routes (protocol/SPEC.md section 2): the games and their view schemas,
creating and listing matches, one match's summary, taking a seat."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.games import GAMES, get_game
from service.http.answers import guarded, json
from service.http.guards import json_body, seat_token
from service.http.readers import reader, visible_seq
from service.http.summary import MATCH_STATES, summary
from service.match import rematch
from service.match.lobby import Lobby, LobbyError, new_secret
from service.match.players import Players
from service.match.ratings import Ratings
from service.ops.limits import Limits
from service.ws.address_limits import CreationWindow

# The top-level fields POST /api/matches takes (SPEC 2.4); any other is refused with
# `unknown_field`, so a misspelt one never silently makes another match. A new field: one line.
CREATE_FIELDS = (
    "game",
    "players",
    "options",
    "listed",
    "turn_seconds",
    "time_control",
    "absent",
    "bots",
    "spectators",
    "spectator_delay",
)

# A seat token a client chooses: at least as long as the server's own (256 bits in base64url).
CHOSEN_TOKEN = re.compile(r"[A-Za-z0-9_-]{43,128}")


class LobbyRoutes:
    """The routes over the lobby that the app's lifespan opens (`lobby` returns it) and the
    operator's limits. `creation_room` is shared with the fork route, which creates a match too."""

    def __init__(self, lobby: Callable[[], Lobby], limits: Limits, schemas: Mapping[str, bytes],
                 players: Callable[[], Players], ratings: Callable[[], Ratings]) -> None:
        self.lobby, self.limits, self.schemas = lobby, limits, schemas
        self.players, self.ratings = players, ratings
        self.creations = CreationWindow(limits.matches_per_address_per_minute)

    def routes(self) -> list[Route]:
        return [
            Route("/api/games", self.games),
            Route("/api/games/{game}/view-schema", guarded(self.view_schema)),
            Route("/api/matches", guarded(self.create_match), methods=["POST"]),
            Route("/api/matches", guarded(self.list_matches), methods=["GET"]),
            Route("/api/matches/{match}", guarded(self.get_match)),
            Route("/api/matches/{match}/seats", guarded(self.take_seat), methods=["POST"]),
            Route("/api/matches/{match}/rematch", guarded(self.accept_rematch), methods=["POST"]),
            Route("/api/matches/{match}/rematch/decline", guarded(self.decline_rematch), methods=["POST"]),
        ]

    def creation_room(self, request: Request) -> Callable[[], None]:
        """A client address creates at most matches_per_address_per_minute matches a minute:
        raise 429 if it has no room now, else return what counts the creation once it is made
        (a request refused for its body, its game or its options costs nothing)."""
        address = request.client.host if request.client else ""
        wait = self.creations.room(address)
        if wait:
            exc = LobbyError("rate_limited", f"this address created {self.limits.matches_per_address_per_minute} "
                             f"matches in the last minute, its limit; try again in {math.ceil(wait)} s", 429)
            exc.retry_after_s = wait
            raise exc
        return lambda: self.creations.count(address)

    async def games(self, request: Request) -> Response:
        return json([{"id": g.id, "name": g.name, "min_players": g.min_players,
                      "max_players": g.max_players, "rules_version": g.rules_version,
                      "options": [{**o, "secret": o["name"] in g.secret_options} for o in g.options]}
                     for g in map(get_game, GAMES)])

    async def view_schema(self, request: Request) -> Response:
        schema = self.schemas.get(request.path_params["game"])
        if schema is None:
            raise LobbyError("unknown_game", f"unknown game; known: {', '.join(self.schemas)}", 404)
        return Response(schema, media_type="application/schema+json")

    async def create_match(self, request: Request) -> Response:
        lim = self.limits
        body = await json_body(request, lim)
        unknown = [name for name in body if name not in CREATE_FIELDS]
        if unknown:
            raise LobbyError("unknown_field", f"POST /api/matches does not take the field {unknown[0][:64]!r}; "
                             f"it takes: {', '.join(CREATE_FIELDS)}")
        options = body.get("options")
        if lim.options_max_bytes and options is not None and len(orjson.dumps(options)) > lim.options_max_bytes:
            raise LobbyError("options_too_large", f"options may be at most {lim.options_max_bytes} bytes "
                             "written as JSON", 413)
        counted = self.creation_room(request)
        lobby = self.lobby()
        # The spectator options (SPEC 2.4): a private match is unlisted unless the body says
        # otherwise (which the lobby refuses), and a "link" match's key is made here, shown once.
        spectators = body.get("spectators")
        key = new_secret() if spectators == "link" else None
        players = body.get("players")
        # One invite per seat, shown only here (a bot's seat is taken at once: its invite opens nothing).
        invites = [new_secret() for _ in range(players)] if isinstance(players, int) and 0 < players <= 64 else None
        rec = await lobby.create(body.get("game"), players, body.get("options"),
                                 body.get("listed", spectators in (None, "public")), turn_seconds=body.get("turn_seconds"),
                                 absent=body.get("absent", "bot"), bots=body.get("bots"),
                                 spectators=spectators, spectator_delay=body.get("spectator_delay"),
                                 spectator_key=key, invites=invites, time_control=body.get("time_control"))
        counted()
        # (the creator holds no seat: with bots in every seat, it reads as the public audience)
        out = summary(rec, await visible_seq(lobby, rec, None) if rec.bots else 0)
        if key is not None:
            out["spectator_key"] = key
        out["invites"] = [{"seat": s.seat, "invite": secret} for s, secret in zip(rec.seats, invites or [], strict=False)
                          if not s.taken]
        return json(out, 201)

    async def list_matches(self, request: Request) -> Response:
        want = request.query_params.get("state")
        if want and want not in MATCH_STATES:
            raise LobbyError("bad_field", f"state must be one of: {', '.join(MATCH_STATES)}")
        lobby = self.lobby()
        recs = [await lobby.free_idle_seats(r) for r in await lobby.store.list_matches()]
        rows = [summary(r) for r in recs]
        if want:
            rows = [r for r in rows if r["state"] == want]
        return json(rows)

    async def get_match(self, request: Request) -> Response:
        match_id = request.path_params["match"]
        lobby = self.lobby()
        rec = await lobby.settled(match_id)
        if not rec.finished and not all(s.taken for s in rec.seats):
            # An open match shows nothing played yet, and whoever takes a seat must read it
            # first: a private match is open to anyone holding its id until its seats are taken.
            return json(summary(rec, await lobby.store.last_seq(match_id)))
        out = summary(rec, await visible_seq(lobby, rec, await reader(request, lobby, rec)))
        if rec.finished:
            out["ratings"] = await self.ratings().match_changes(rec.game, rec.id)
        return json(out)

    async def take_seat(self, request: Request) -> Response:
        body = await json_body(request, self.limits)
        match = request.path_params["match"]
        # A token the client chose makes the request safe to send again (SPEC 2.7).
        chosen = seat_token(request) or None
        if chosen is not None and not CHOSEN_TOKEN.fullmatch(chosen):
            raise LobbyError("bad_field", "a seat token you choose (Authorization: Bearer <token>) is 43 to 128 "
                             "characters of A-Z, a-z, 0-9, '-' and '_': 256 random bits or more, in base64url")
        # A player's key (or an app's token) in `player_key` takes the seat for that player.
        credential = player_credential(body)
        player = await self.players().authenticate(credential) if credential else None
        seat, token = await self.lobby().take_seat(match, body.get("seat"), body.get("name"), chosen, player,
                                                   invite=body.get("invite"))
        return json({"match": match, "seat": seat, "token": token}, 201)

    async def accept_rematch(self, request: Request) -> Response:
        """Ask for the finished match's rematch, or accept it: the new seat and its token. The seat
        is the token's, or the player's whose credential is `player_key` (a player's seat needs it)."""
        credential = player_credential(await json_body(request, self.limits))
        return json(await rematch.accept(self.lobby(), self.players(), request.path_params["match"],
                                         seat_token(request), credential), 201)

    async def decline_rematch(self, request: Request) -> Response:
        credential = player_credential(await json_body(request, self.limits))
        lobby = self.lobby()
        rec = await rematch.decline(lobby, self.players(), request.path_params["match"], seat_token(request), credential)
        return json(summary(rec, await lobby.store.last_seq(rec.id)))


def player_credential(body: Mapping[str, object]) -> str | None:
    """The body's `player_key` (a player key or an app's token), None when absent or empty."""
    credential = body.get("player_key")
    if credential is not None and (not isinstance(credential, str) or not 0 < len(credential) <= 4096):
        raise LobbyError("bad_field", "player_key must be a player key or an app's token (a string)")
    return credential or None
