"""Who reads a match over HTTP, and how far: a seat (by its token, `Authorization: Bearer`) reads
its own match live; anyone else is the public audience, which a private match refuses without
its spectator key (the `key` query parameter: SPEC 2.4) and a spectator delay holds behind
(service/match/spectators.py). The summary, the replay, the log and a fork all ask here."""

from __future__ import annotations

from starlette.requests import Request

from service.http.guards import seat_token
from service.match.lobby import Lobby
from service.match.spectators import needs_log, public_seq
from service.store import MatchRecord


def spectator_key(request: Request) -> str | None:
    """The spectator link's key of a request (the log lines blank it: guards.redact)."""
    return request.query_params.get("key") or None


async def reader(request: Request, lobby: Lobby, rec: MatchRecord) -> int | None:
    """The seat the request's token holds in `rec`, or None: the public audience, once a
    private match has let it in (LobbyError 403 `spectators_off` or `spectator_key` if not)."""
    seat = await seat_holder(request, lobby, rec)
    if seat is None:
        lobby.check_public(rec, spectator_key(request))
    return seat


async def seat_holder(request: Request, lobby: Lobby, rec: MatchRecord) -> int | None:
    """The seat the request's token holds in `rec`, or None (nothing is refused here)."""
    token = seat_token(request)
    return await lobby.seat_for_token(rec.id, token) if token else None


async def visible_seq(lobby: Lobby, rec: MatchRecord, seat: int | None) -> int:
    """The last seq `seat` (None: the public audience) may see of `rec` now."""
    last = await lobby.store.last_seq(rec.id)
    if seat is not None or not rec.spectator_delay or rec.finished:  # the delay ends with the match
        return last
    commits = await lobby.store.read(rec.id, 0, last) if needs_log(rec) else []
    return public_seq(rec, commits, last)
