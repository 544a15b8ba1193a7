"""A rematch: a new match that follows a finished one (protocol/SPEC.md 2.18).

The same game, seat count, options, clock and spectator options, under a fresh seed; every
player moves one seat down (the player of seat i plays seat i - 1, seat 0's the last seat), so
that whoever started last time does not start again in a game whose first player is a seat.
Any seat of the finished match asks for it with its token; the first ask makes the match (two
racing asks make one: the finished match's "rematch" link is set once) and each seat then
accepts (its new seat and token) or declines (the seat opens to anyone). Bots come along and
accept at once. The new match names its origin (`rematch_of`); the origin names it (`rematch`).
"""

from __future__ import annotations

from typing import Any

from service.match.lobby import Lobby, LobbyError, new_secret, same_clock
from service.store import MatchRecord


def new_seat(old: int, players: int) -> int:
    """The seat the player of `old` gets in the rematch."""
    return (old - 1) % players


def answers(rec: MatchRecord) -> list[dict[str, Any]] | None:
    """For a rematch, each seat: the seat its player had, and where its answer stands."""
    if rec.rematch_of is None:
        return None
    bots = rec.bots or [None] * rec.players
    out = []
    for s in rec.seats:
        if bots[s.seat] is not None:
            answer = "bot"
        elif f"declined:{s.seat}" in rec.links:
            answer = "declined"
        else:
            answer = "accepted" if s.taken else "waiting"
        out.append({"seat": s.seat, "from_seat": rec.rematch_of["from_seats"][s.seat], "answer": answer})
    return out


async def _asker(lobby: Lobby, match_id: str, token: str) -> tuple[MatchRecord, int]:
    """The finished match and the seat `token` holds in it."""
    rec = await lobby.settled(match_id)
    if not rec.finished:
        raise LobbyError("match_live", "a rematch follows a finished match; this one is still played", 409)
    seat = await lobby.seat_for_token(match_id, token) if token else None
    if seat is None:
        raise LobbyError("bad_token", "only a seat of the finished match may ask for or answer its rematch: "
                         "send that seat's token (Authorization: Bearer)", 403)
    return rec, seat


async def _made(lobby: Lobby, old: MatchRecord) -> tuple[str, str | None]:
    """The rematch of `old`: the one already made, or a new one (and its spectator key, if it has
    one and this call made it)."""
    made = old.links.get("rematch")
    if made:
        return made, None
    n = old.players
    from_seats = [(seat + 1) % n for seat in range(n)]
    bots = [{"seat": seat, "strength": old.bots[was]} for seat, was in enumerate(from_seats)
            if old.bots and old.bots[was] is not None]
    key = new_secret() if old.spectators == "link" else None
    rec = await lobby.create(old.game, n, old.options, old.listed, time_control=same_clock(old),
                             absent=old.absent, bots=bots or None, spectators=old.spectators,
                             spectator_delay=old.spectator_delay, spectator_key=key,
                             rematch_of={"match": old.id, "from_seats": from_seats})
    held = await lobby.store.set_link(old.id, "rematch", rec.id)
    if held != rec.id:
        # Another seat's ask made it first: ours was never shown to anyone.
        await lobby.store.delete_match(rec.id)
        await lobby.forget(rec.id)
        return held, None
    return rec.id, key


async def accept(lobby: Lobby, match_id: str, token: str) -> dict[str, Any]:
    """The seat holding `token` in finished match `match_id` plays its rematch (made now if
    none is): {"match", "seat", "token"}, plus "spectator_key" for the one who made a "link" match."""
    old, seat = await _asker(lobby, match_id, token)
    made, key = await _made(lobby, old)
    mine = new_seat(seat, old.players)
    rec = await lobby.record(made)
    if f"declined:{mine}" in rec.links:
        raise LobbyError("rematch_declined", f"seat {seat} declined this rematch; its seat {mine} is open to anyone", 409)
    got, new_token = await lobby.take_seat(made, mine, old.seats[seat].name, reserved_ok=True)
    out: dict[str, Any] = {"match": made, "seat": got, "token": new_token}
    if key is not None:
        out["spectator_key"] = key
    return out


async def decline(lobby: Lobby, match_id: str, token: str) -> MatchRecord:
    """The seat holding `token` will not play the rematch: its seat there opens to anyone."""
    old, seat = await _asker(lobby, match_id, token)
    made = old.links.get("rematch")
    if not made:
        raise LobbyError("no_rematch", f"nobody has asked for a rematch of match {match_id}", 409)
    mine = new_seat(seat, old.players)
    rec = await lobby.record(made)
    if rec.seats[mine].taken:
        raise LobbyError("seat_taken", f"seat {seat} already accepted the rematch (seat {mine} there)", 409)
    await lobby.store.set_link(made, f"declined:{mine}", "1")
    return await lobby.record(made)
