"""A rematch: a new match that follows a finished one (protocol/SPEC.md 2.18).

The same game, seat count, options, clock and spectator options, under a fresh seed; every
player moves one seat down (the player of seat i plays seat i - 1, seat 0's the last seat), so
that whoever started last time does not start again in a game whose first player is a seat.
Any seat of the finished match asks for it with its token; the first ask makes the match (two
racing asks make one: the finished match's "rematch" link is set once) and each seat then
accepts (its new seat and token) or declines (the seat opens to anyone). Bots come along and
accept at once. The new match names its origin (`rematch_of`); the origin names it (`rematch`).

A seat a player held keeps that player: its new seat is kept for the same player id (written into
`rematch_of`, so every node and both stores agree), only that player's credential answers for it,
and the seat is taken as the player's, so a rematch of a rated match is rated again. A guest's
seat stays a guest's, answered with its token.
"""

from __future__ import annotations

from typing import Any

from service.match.lobby import Lobby, LobbyError, kept_for, new_secret, same_clock
from service.match.players import Players
from service.store import MatchRecord, PlayerRecord


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
        out.append({"seat": s.seat, "from_seat": rec.rematch_of["from_seats"][s.seat], "answer": answer,
                    "player": kept_for(rec, s.seat) if bots[s.seat] is None else s.player})
    return out


async def _asker(lobby: Lobby, players: Players, match_id: str, token: str,
                 credential: str | None) -> tuple[MatchRecord, int, PlayerRecord | None]:
    """The finished match, the seat that answers (the one `token` holds there, or without a token
    the one the credential's player held) and, for a player's seat, that player."""
    rec = await lobby.settled(match_id)
    if not rec.finished:
        raise LobbyError("match_live", "a rematch follows a finished match; this one is still played", 409)
    who = await players.authenticate(credential) if credential else None
    if token:
        seat = await lobby.seat_for_token(match_id, token)
    else:
        seat = next((s.seat for s in rec.seats if who is not None and s.player == who.id), None)
    if seat is None:
        raise LobbyError("bad_token", "only a seat of the finished match may ask for or answer its rematch: "
                         "send that seat's token (Authorization: Bearer), or its player's credential (player_key)", 403)
    held = rec.seats[seat].player
    if held is None:
        return rec, seat, None  # a guest's seat: its token answers, and it stays a guest's
    if who is None or who.id != held:
        raise LobbyError("player_required", f"seat {seat} of match {match_id} was player {held}'s: only that player's "
                         "credential (player_key: its key, or its app's token) answers for its rematch", 403)
    return rec, seat, who


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
    # Each player's new seat is kept for that player (a bot's seat is taken as the bot's at once).
    kept = [None if old.bots and old.bots[was] is not None else old.seats[was].player for was in from_seats]
    key = new_secret() if old.spectators == "link" else None
    rec = await lobby.create(old.game, n, old.options, old.listed, time_control=same_clock(old),
                             absent=old.absent, bots=bots or None, spectators=old.spectators,
                             spectator_delay=old.spectator_delay, spectator_key=key,
                             rematch_of={"match": old.id, "from_seats": from_seats, "players": kept})
    held = await lobby.store.set_link(old.id, "rematch", rec.id)
    if held != rec.id:
        # Another seat's ask made it first: ours was never shown to anyone.
        await lobby.store.delete_match(rec.id)
        await lobby.forget(rec.id)
        return held, None
    return rec.id, key


async def accept(lobby: Lobby, players: Players, match_id: str, token: str,
                 credential: str | None = None) -> dict[str, Any]:
    """The seat holding `token` in finished match `match_id` (or, without a token, the seat of the
    player `credential` proves) plays its rematch (made now if none is): {"match", "seat",
    "token"}, plus "spectator_key" for the one who made a "link" match. A player's seat answers
    only with that player's credential, and is taken as that player's."""
    old, seat, player = await _asker(lobby, players, match_id, token, credential)
    made, key = await _made(lobby, old)
    mine = new_seat(seat, old.players)
    rec = await lobby.record(made)
    if f"declined:{mine}" in rec.links:
        raise LobbyError("rematch_declined", f"seat {seat} declined this rematch; its seat {mine} is open to anyone", 409)
    got, new_token = await lobby.take_seat(made, mine, old.seats[seat].name, player=player, reserved_ok=True)
    out: dict[str, Any] = {"match": made, "seat": got, "token": new_token}
    if key is not None:
        out["spectator_key"] = key
    return out


async def decline(lobby: Lobby, players: Players, match_id: str, token: str,
                  credential: str | None = None) -> MatchRecord:
    """The seat holding `token` (or the credential's player) will not play the rematch: its seat
    there opens to anyone."""
    old, seat, _ = await _asker(lobby, players, match_id, token, credential)
    made = old.links.get("rematch")
    if not made:
        raise LobbyError("no_rematch", f"nobody has asked for a rematch of match {match_id}", 409)
    mine = new_seat(seat, old.players)
    rec = await lobby.record(made)
    if rec.seats[mine].taken:
        raise LobbyError("seat_taken", f"seat {seat} already accepted the rematch (seat {mine} there)", 409)
    await lobby.store.set_link(made, f"declined:{mine}", "1")
    return await lobby.record(made)
