"""Matches on this node: creating them, handing out seats, loading live runtimes on demand.

Seat tokens are 256-bit random strings given once to the player who takes the seat; only
their sha256 is stored, so the store leaks no way to act for a player.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from service.bots import DEFAULT_STRENGTH, STRENGTHS
from service.games import GAMES, IllegalMove, get_game, playable
from service.games.chance import commit_rng, new_seed, seed_commitment
from service.games.interface import upcast
from service.games.preamble import normalized
from service.games.redealt import REDEAL
from service.match import replay
from service.match import time_control as clocks
from service.match.committed import system_move_id
from service.match.presence import PresencePoller
from service.match.ratings import Ratings
from service.match.runtime import Diverged, MatchRuntime
from service.match.settle import settle
from service.match.spectators import SpectatorOptionError, parse_delay, parse_mode
from service.ops import crash_points, metrics
from service.store import Claim, Commit, EventStore, MatchRecord, PlayerRecord, SeatRecord, StoreUnavailable

if TYPE_CHECKING:
    from service.match.webhooks import Webhooks

log = logging.getLogger("teahouse.lobby")

MIN_TURN_SECONDS = 1
MAX_TURN_SECONDS = 7 * 24 * 3600
ABSENT_POLICIES = ("bot", "random", "first")  # what the turn clock plays for a seat (SPEC 3.10)


class LobbyError(Exception):
    """A request the lobby refuses; `status` is the HTTP status it maps to."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status
        self.retry_after_s: float | None = None  # sent as Retry-After (429 rate_limited)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def seat_players(record: MatchRecord, seat: int, player: PlayerRecord | None) -> list[str | None] | None:
    """The start commit's `players` if `player` (None: a guest) takes `seat`: each seat's player
    id, or None when no seat has one (a match of guests keeps the start it always had)."""
    out = [player.id if s.seat == seat and player is not None else s.player for s in record.seats]
    return out if any(out) else None


def bot_player(strength: int) -> str:
    """The player id of the server's bots of one strength: bots are rated like everyone."""
    return f"bot:strength-{strength}"


def new_secret() -> str:
    """A link's secret (a private match's spectator key, a seat's invite): 256 random bits, shown
    once to the match's creator; the store keeps only its sha256, like a seat token's."""
    return secrets.token_urlsafe(32)


def new_match_id() -> str:
    """12 URL-safe characters, never starting with '-' (a command line would read an option)."""
    while True:
        mid = secrets.token_urlsafe(9)
        if mid[0] != "-":
            return mid


def _bot_seats(bots: Any, players: int) -> list[int | None] | None:
    """`bots`: a list of {"seat": n, "strength": s} (strength optional) -> strength per seat."""
    if bots is None:
        return None
    if not isinstance(bots, list):
        raise LobbyError("bad_field", "bots must be a list of {seat, strength} maps")
    out: list[int | None] = [None] * players
    for entry in bots:
        if not isinstance(entry, dict) or set(entry) - {"seat", "strength"}:
            raise LobbyError("bad_field", "each bot is a map with a seat and an optional strength")
        seat, strength = entry.get("seat"), entry.get("strength", DEFAULT_STRENGTH)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise LobbyError("bad_field", f"a bot's seat must be an integer from 0 to {players - 1}")
        if out[seat] is not None:
            raise LobbyError("bad_field", f"seat {seat} is given two bots")
        if isinstance(strength, bool) or not isinstance(strength, int) or strength not in STRENGTHS:
            raise LobbyError("bad_field", f"a bot's strength must be an integer from {STRENGTHS[0]} to {STRENGTHS[-1]}")
        out[seat] = strength
    return out


def same_clock(record: MatchRecord) -> dict[str, Any] | None:
    """The time control a match's fork or rematch keeps (a record from before time controls: its
    `turn_seconds`)."""
    if record.time_control is None and record.turn_seconds:
        return {"type": "per_move", "seconds": record.turn_seconds}
    return record.time_control


def open_hand(record: MatchRecord) -> bool:
    """Whether what this fork's seats cannot see may be read in its origin's public log: an
    exact continuation, or a fork from seq 0 whose options fix chance (a stacked deck), since
    there is nothing dealt yet to deal again (SPEC 11)."""
    origin = record.forked_from
    if not origin:
        return False
    fixed = any(k in get_game(record.game).secret_options for k in record.options)
    return bool(origin.get("exact")) or (origin.get("seq") == 0 and fixed)


def invited_seat(record: MatchRecord, invite: Any) -> int:
    """The seat `invite` opens in `record` (LobbyError 403 `bad_invite` if none)."""
    if not isinstance(invite, str) or not invite:
        raise LobbyError("bad_field", "invite must be the secret of a seat's invite link")
    digest = hash_token(invite)
    for seat, held in enumerate(record.invite_hashes or []):
        if held is not None and hmac.compare_digest(held, digest):
            return seat
    raise LobbyError("bad_invite", f"this invite opens no seat of match {record.id}", 403)


def reserved_seats(record: MatchRecord) -> set[int]:
    """A rematch's seats still waiting for their players to accept or decline: nobody else may
    take them. A declined seat is free for anyone; a bot's seat is taken from the start."""
    if record.rematch_of is None:
        return set()
    return {s.seat for s in record.seats if not s.taken and f"declined:{s.seat}" not in record.links}


def kept_for(record: MatchRecord, seat: int) -> str | None:
    """The player a rematch's seat is kept for (the one who held its seat in the finished match);
    None for a guest's seat, a bot's, or a match that is no rematch."""
    if record.rematch_of is None:
        return None
    players = record.rematch_of.get("players") or [None] * record.players
    return players[seat]


@dataclass
class Forked:
    """What a fork made: the match, its spectator key (a `link` fork), and the seat and token of
    a forker who sat down at once."""
    record: MatchRecord
    spectator_key: str | None = None
    seat: int | None = None
    token: str | None = None


class Lobby:
    def __init__(self, store: EventStore, idle_seconds: float = 120.0, max_live: int = 0,
                 idle_seat_seconds: float = 0, ratings: Ratings | None = None) -> None:
        self.store = store
        self.ratings = ratings  # the node's ratings fold: a rated match's `finished` tells its changes
        self.idle_seconds = idle_seconds
        self.max_live = max_live  # Limits.live_matches_per_node (0: no limit)
        self.idle_seat_seconds = idle_seat_seconds  # Limits.idle_seat_seconds (0: seats never expire)
        self._live: dict[str, MatchRuntime] = {}
        self._loading: dict[str, asyncio.Future[MatchRuntime]] = {}
        self._sweeper: asyncio.Task | None = None
        self.node = secrets.token_hex(6)  # names this node's entries in shared presence
        # Matches this node found with a log shorter than what it had seen (/health, a gauge).
        self._diverged: set[str] = set()
        self.presence = PresencePoller(store, self.node, lambda: list(self._live.values()))
        # Told the id of every match this node sees finish (the analysis queue, when it runs).
        self.on_finish: Callable[[str], None] | None = None
        # The node's webhooks (service/match/webhooks.py), which every runtime it loads tells its commits.
        self.webhooks: Webhooks | None = None

    def start(self) -> None:
        """Begin dropping runtimes nobody has watched for `idle_seconds` (the log keeps them)."""
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="lobby sweeper")
        self.presence.start()

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(max(self.idle_seconds / 4, 0.05))
            await self.sweep()

    async def sweep(self) -> int:
        now = time.monotonic()
        stale = [rt for rt in self._live.values() if rt.idle and now - rt.last_active >= self.idle_seconds]
        for rt in stale:
            del self._live[rt.id]
            await rt.close()
        return len(stale)

    @property
    def live_count(self) -> int:
        return len(self._live)

    @property
    def diverged_count(self) -> int:
        """How many matches this node found with a log that went backwards."""
        return len(self._diverged)

    def loaded(self) -> list[MatchRuntime]:
        """The match runtimes this node holds now."""
        return list(self._live.values())

    # -- creating ------------------------------------------------------------------------
    async def create(self, game_id: Any, players: Any, options: Any = None, listed: Any = True,
                     forked_from: dict[str, Any] | None = None, turn_seconds: Any = None,
                     commits: Sequence[Commit] = (), absent: Any = "bot", bots: Any = None,
                     seed: str | None = None, spectators: Any = None, spectator_delay: Any = None,
                     spectator_key: str | None = None, invites: Sequence[str] | None = None,
                     rematch_of: dict[str, Any] | None = None, time_control: Any = None) -> MatchRecord:
        """A new match. `spectators` ("public", "link", "off") and `spectator_delay` are the
        spectator options (SPEC 2.4); a "link" match needs the `spectator_key` its creator is
        given (new_secret), of which only the hash is stored. `invites`: one secret per
        seat (new_secret), shown once to the creator; each takes its seat (take_seat), and only
        their hashes are stored. `rematch_of`: see service/match/rematch.py."""
        if not isinstance(game_id, str):
            raise LobbyError("bad_field", f"game must be a string, one of: {', '.join(GAMES)}")
        if not playable(game_id):
            raise LobbyError("unknown_game", f"unknown game {game_id[:40]!r}; known: {', '.join(GAMES)}")
        game = get_game(game_id)
        if isinstance(players, bool) or not isinstance(players, int):
            raise LobbyError("bad_field", "players must be an integer")
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise LobbyError("bad_field", "options must be a map")
        if not isinstance(listed, bool):
            raise LobbyError("bad_field", "listed must be true or false")
        if turn_seconds is not None and (isinstance(turn_seconds, bool) or not isinstance(turn_seconds, int)
                                         or not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS):
            raise LobbyError("bad_field", f"turn_seconds must be an integer from {MIN_TURN_SECONDS} "
                             f"to {MAX_TURN_SECONDS}, or null for no clock")
        try:
            tc = clocks.parse(time_control, turn_seconds)
        except clocks.TimeControlError as exc:
            raise LobbyError("bad_field", str(exc)) from None
        if absent not in ABSENT_POLICIES:
            raise LobbyError("bad_field", f"absent must be one of: {', '.join(ABSENT_POLICIES)}")
        try:
            mode, delay = parse_mode(spectators), parse_delay(spectator_delay)
        except SpectatorOptionError as exc:
            raise LobbyError("bad_field", str(exc)) from None
        if mode != "public" and listed:
            raise LobbyError("bad_field", f"a match with spectators {mode!r} is private: it is never listed "
                             "(leave listed out, or false)")
        if (mode == "link") != (spectator_key is not None):
            raise LobbyError("bad_field", "only a match with spectators 'link' has a spectator key")
        try:
            # The engine checks the seat count and the options. Off the event loop: a large
            # option (a content set) takes milliseconds that other matches must not wait for.
            if options:
                await asyncio.to_thread(game.initial, options, players)
            else:
                game.initial(options, players)
        except IllegalMove as exc:
            raise LobbyError(exc.code, exc.message) from None
        strengths = _bot_seats(bots, players)
        seed = seed or new_seed()
        record = MatchRecord(
            id=new_match_id(), game=game_id, players=players, options=options, listed=listed,
            seed=seed, seed_sha256=seed_commitment(seed), created=int(time.time() * 1000),
            forked_from=forked_from, turn_seconds=clocks.per_move_seconds(tc), time_control=tc,
            rules_version=game.rules_version,
            absent=absent, bots=strengths, bot_seed=new_seed(), spectators=mode,
            spectator_key_hash=hash_token(spectator_key) if spectator_key is not None else None,
            spectator_delay=delay, seats=[SeatRecord(seat=i) for i in range(players)],
            invite_hashes=[hash_token(i) for i in invites] if invites is not None else None,
            rematch_of=rematch_of,
        )
        for seat, strength in enumerate(strengths or ()):
            if strength is not None:
                # A bot's seat has a token nobody holds: only the server plays it. Written with
                # the record, and so is the start of a match of bots only: all of it, or nothing.
                record.seats[seat] = SeatRecord(seat=seat, taken=True, name=f"bot (strength {strength})",
                                                token_hash=hash_token(secrets.token_urlsafe(32)),
                                                player=bot_player(strength))
        if not commits and all(s.taken for s in record.seats):
            start = await self._start_commit(record)
            commits = [replace(start, players=[s.player for s in record.seats])] if start is not None else []
        await self.store.create_match(record, commits)
        if strengths is not None:
            await self._started(record.id)
            record = await self.record(record.id)
        return record

    async def fork(self, match_id: str, seq: Any, exact: Any = False, listed: Any = False,
                   seat: Any = None, name: Any = None, bot_strength: Any = None) -> Forked:
        """A new match that starts from `seq` of a finished match, with fresh seats and seed, and
        its spectator key if it has one: a fork keeps its origin's spectator options (a private
        match's history stays as private in its forks), with a key of its own. It is unlisted
        unless `listed`: forks are studies, not tables looking for players.

        "Continue from here": with `seat`, the forker takes that seat at once (the answer holds
        its token); with `bot_strength` too, every other seat is a server bot of that strength.

        The origin's log is public: a fork that kept its shuffles would be open-handed. So,
        unless `exact`, its first own commit deals again, under its own committed seed,
        everything no seat could see (SPEC 11); each seat keeps its hand and the public history.
        """
        if not isinstance(exact, bool):
            raise LobbyError("bad_field", "exact must be true or false")
        source = await self.settled(match_id)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                 or not 0 <= seat < source.players):
            raise LobbyError("bad_field", f"seat must be an integer from 0 to {source.players - 1}")
        if bot_strength is not None and seat is None:
            raise LobbyError("bad_field", "bot_strength needs the seat the forker takes: the bots play every other seat")
        bots = None if bot_strength is None else [
            {"seat": s, "strength": bot_strength} for s in range(source.players) if s != seat]
        if not source.finished:
            # A live match's hidden cards are secret: a fork, whose log is public once it ends,
            # would publish them while the origin is still being played.
            raise LobbyError("match_live", "only a finished match can be forked", 409)
        last = await self.store.last_seq(match_id)
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= last:
            raise LobbyError("bad_field", f"seq must be an integer from 0 to {last}")
        commits = await self.store.read(match_id, 0, seq)
        game = get_game(source.game)
        state = await asyncio.to_thread(replay.state_at, source, commits, seq)
        if seq > 0 and game.status(state)["finished"]:
            raise LobbyError("bad_field", f"the match is already over at seq {seq}; fork from earlier")
        # The copied commits keep their facts (read as the current rules read them, which the
        # fork is played under); their move ids belong to the old seats. They are written with
        # the record, in one transaction: no fork ever exists half-copied, nor without its redeal.
        copied = [Commit(seq=c.seq, seat=c.seat, command=c.command, ts=c.ts,
                         events=upcast(game, c.events, source.rules_version)) for c in commits]
        seed = new_seed()
        if not exact and seq > 0 and game.redeal is not None:
            command = {"type": REDEAL}
            events = await asyncio.to_thread(game.decide, state, None, command, commit_rng(seed, seq + 1))
            copied.append(Commit(seq=seq + 1, seat=None, command=command, events=events,
                                 move_id=system_move_id(REDEAL), ts=int(time.time() * 1000)))
        origin = {"match": match_id, "seq": seq, "seed": source.seed, "exact": exact}
        key = new_secret() if source.spectators == "link" else None
        if name is not None and (not isinstance(name, str) or len(name) > 40):
            raise LobbyError("bad_field", "name must be a string of at most 40 characters")
        rec = await self.create(source.game, source.players, source.options, listed, forked_from=origin,
                                time_control=same_clock(source), commits=copied, absent=source.absent,
                                bots=bots, seed=seed, spectators=source.spectators,
                                spectator_delay=source.spectator_delay, spectator_key=key)
        token = None
        if seat is not None:
            seat, token = await self.take_seat(rec.id, seat, name)
            rec = await self.record(rec.id)
        return Forked(rec, key, seat, token)

    # -- seats ----------------------------------------------------------------------------
    async def take_seat(self, match_id: str, seat: Any = None, name: Any = None,
                        token: str | None = None, player: PlayerRecord | None = None, invite: Any = None,
                        reserved_ok: bool = False) -> tuple[int, str]:
        """Claim a seat (the one asked for, the one `invite` opens, or any free one); return it and
        its token. `token`: the one the client chose (SPEC 2.7), else a new one. A token that
        already holds a seat of the match is answered that seat: the same request again, whose
        answer was lost (a crash, the store unreachable). `player`: the seat is that player's
        (kept with the seat, and written into the start commit, so the log says who played);
        None: a guest. A rematch's seats wait for their players (reserved_seats) unless
        `reserved_ok` (their answer); a seat kept for a player (kept_for) is that player's to take,
        which is its answer too.

        Claiming the last seat starts the match in the same atomic write (store.claim_seat), so
        no failure anywhere leaves a full match that never started."""
        record = await self.record(match_id)
        if name is not None and (not isinstance(name, str) or len(name) > 40):
            raise LobbyError("bad_field", "name must be a string of at most 40 characters")
        if player is not None and name is None:
            name = player.name
        reserved = set() if reserved_ok else reserved_seats(record)
        mine = [s for s in sorted(reserved) if player is not None and kept_for(record, s) == player.id]
        if mine and seat in (None, mine[0]):
            seat = mine[0]
            reserved.discard(seat)
        if invite is not None:
            invited = invited_seat(record, invite)
            if seat is not None and seat != invited:
                raise LobbyError("bad_field", "this invite opens another seat; leave seat out")
            seat, reserved = invited, set()
        free = [s.seat for s in record.seats if not s.taken and s.seat not in reserved]
        if seat is None:
            candidates = free
        elif isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < record.players:
            raise LobbyError("bad_field", f"seat must be an integer from 0 to {record.players - 1}")
        elif seat in reserved and not record.seats[seat].taken:
            keeper = kept_for(record, seat)
            raise LobbyError("seat_reserved", f"seat {seat} is kept for player {keeper}: only that player's credential "
                             "takes it, unless it declines" if keeper else
                             f"seat {seat} waits for its player's answer to the rematch", 409)
        else:
            candidates = [seat]
        token = token or secrets.token_urlsafe(32)
        digest = hash_token(token)
        held = [s.seat for s in record.seats if s.token_hash is not None and hmac.compare_digest(s.token_hash, digest)]
        if held:
            if seat is not None and seat != held[0]:
                raise LobbyError("token_in_use", f"this token already holds seat {held[0]} of this match; "
                                 "a token holds one seat", 409)
            candidates = held
        elif player is not None and any(s.player == player.id for s in record.seats):
            raise LobbyError("player_seated", f"player {player.id} already holds a seat of this match", 409)
        elif len(free) <= 1 and free:
            # This claim may start the match, which needs a runtime here: a full node refuses
            # it now, while the seat is still free.
            await self.runtime(match_id)
        start = await self._start_commit(record)
        crash_points.reached("seat.read")
        for s in candidates:
            start_here = replace(start, players=seat_players(record, s, player)) if start is not None else None
            began = time.perf_counter()
            claimed = await self.store.claim_seat(match_id, s, digest, name, start_here, player.id if player else None)
            if claimed:
                if claimed is Claim.STARTED:  # this node appended the start, with the claim
                    metrics.APPEND_SECONDS.observe(time.perf_counter() - began)
                    metrics.COMMITS.labels(record.game).inc()
                crash_points.reached("seat.claimed")
                if player is not None:
                    await self.store.add_player_match(player.id, match_id, record.created)
                await self._started(match_id)
                crash_points.reached("seat.started")
                return s, token
        await self._started(match_id)  # a full match that never started (an older server's) starts now
        if seat is not None:
            raise LobbyError("seat_taken", f"seat {seat} is taken", 409)
        if reserved:
            raise LobbyError("seat_reserved", "the free seats of this rematch wait for their players' answers", 409)
        raise LobbyError("match_full", "every seat of this match is taken", 409)

    async def _start_commit(self, record: MatchRecord) -> Commit | None:
        """The match's first commit, `start` (seq 1), made before a seat is claimed so that the
        store writes it with the claim that fills the match; None for a fork, whose log starts
        with its origin's commits (and a fork from seq 0, which has none, starts as usual)."""
        if record.forked_from and record.forked_from.get("seq"):
            return None
        game = get_game(record.game)
        command = {"type": "start"}

        def decide() -> list[dict[str, Any]]:
            return game.decide(game.initial(record.options, record.players), None, command,
                               commit_rng(record.seed, 1))

        try:
            events = await asyncio.to_thread(decide) if record.options else decide()
        except IllegalMove:
            return None  # (the runtime decides it once the seats are full, as it would any command)
        return Commit(seq=1, seat=None, command=normalized(game.commands, None, command), events=events,
                      move_id=system_move_id("start"), ts=int(time.time() * 1000))

    async def _started(self, match_id: str) -> None:
        """After a claim: a full match is loaded here (its bots move, its watchers get the
        start) and, if its start is still missing, started. The claim stands whatever happens
        here: a failure is the next request's or the next load's to repair."""
        try:
            await self._start_if_full(match_id)
        except Exception as exc:
            log.warning("%s: loading a full match to start it failed (%s: %s)",
                        match_id, type(exc).__name__, exc)

    async def _start_if_full(self, match_id: str) -> None:
        record = await self.store.get_match(match_id)
        if record is None or not all(s.taken for s in record.seats):
            return
        runtime = await self.runtime(match_id)
        runtime.record.seats = record.seats  # every seat's name is known now: the commits' words use them
        await self._start_missing(runtime)

    async def _start_missing(self, runtime: MatchRuntime) -> None:
        """Commit the start of a match whose seats are all taken and whose log is empty (the
        claim of its last seat writes it, but a match from an older server may lack it): the
        same commit from any node (its explicit seq and system move id), so any node may."""
        if runtime.seq != 0 or not all(s.taken for s in runtime.record.seats):
            return
        players = [s.player for s in runtime.record.seats]
        try:
            await runtime.submit(None, {"type": "start"}, system_move_id("start"),
                                 players=players if any(players) else None)
        except (IllegalMove, Diverged):
            pass  # another node started it between our look and our decide (or the log is lost)

    def check_public(self, record: MatchRecord, key: str | None) -> None:
        """Refuse the public audience of a private match (SPEC 2.4): `off` to everyone, `link`
        to whoever lacks its spectator key. A seat's token is checked before, by the caller:
        a seat may always read its own match."""
        if record.spectators == "off":
            raise LobbyError("spectators_off", f"match {record.id} is private: it has no spectators, "
                             "and only its seats may read it", 403)
        if record.spectators == "link":
            digest = record.spectator_key_hash or ""
            if not key or not hmac.compare_digest(hash_token(key), digest):
                raise LobbyError("spectator_key", f"match {record.id} is watched by its spectator link only: "
                                 "send the link's key" + (" (this one is not it)" if key else ""), 403)

    async def seat_for_token(self, match_id: str, token: str, joining: bool = False) -> int | None:
        """The seat `token` holds in the match, or None. `joining`: the token is joining now,
        so its seat stops counting as idle (idle_seat_seconds)."""
        try:
            record = await self.record(match_id)
        except LobbyError:
            return None
        digest = hash_token(token)
        for s in record.seats:
            if s.token_hash is not None and hmac.compare_digest(s.token_hash, digest):
                if joining and not s.joined:
                    await self.store.mark_joined(match_id, s.seat, s.token_hash)
                return s.seat
        return None

    # -- looking up -------------------------------------------------------------------------
    async def record(self, match_id: str) -> MatchRecord:
        rec = await self.store.get_match(match_id) if isinstance(match_id, str) else None
        if rec is None:
            raise LobbyError("unknown_match", f"no match has the id {match_id!r}", 404)
        return await self.free_idle_seats(rec)

    async def free_idle_seats(self, rec: MatchRecord) -> MatchRecord:
        """Free the seats of an open match that were taken more than idle_seat_seconds ago and
        never joined: their tokens stop working and the seats can be taken again. Lazily, when
        anyone looks at the match, so every node agrees without a sweeper. A started match's
        seats are final."""
        if not self.idle_seat_seconds or all(s.taken for s in rec.seats):
            return rec
        cutoff = int(time.time() * 1000) - int(self.idle_seat_seconds * 1000)
        bots = rec.bots or []
        stale = [s for s in rec.seats if s.taken and not s.joined and s.claimed_at is not None
                 and s.claimed_at <= cutoff and not (s.seat < len(bots) and bots[s.seat] is not None)]
        if not stale or await self.store.last_seq(rec.id) > 0:
            return rec
        for s in stale:
            assert s.token_hash is not None
            await self.store.release_seat(rec.id, s.seat, s.token_hash)
            log.info("%s: seat %d was taken %d s ago and never joined: freed", rec.id, s.seat, self.idle_seat_seconds)
        fresh = await self.store.get_match(rec.id)
        return fresh if fresh is not None else rec

    def _finished(self, match_id: str) -> None:
        if self.on_finish is not None:
            self.on_finish(match_id)

    async def forget(self, match_id: str) -> None:
        """Drop this node's runtime of a match (it was deleted)."""
        rt = self._live.pop(match_id, None)
        if rt is not None:
            await rt.close()

    async def settled(self, match_id: str) -> MatchRecord:
        """The match's record, finished if its log says so (repairing a missing mark, 13.1).
        A runtime loaded here already knows; otherwise the snapshot and the commits after it
        are folded once."""
        rec = await self.record(match_id)
        rt = self._live.get(match_id)
        if rt is not None and not rt.closed:
            if rt.record.finished and not rec.finished:
                rec.finished, rec.result = True, rt.record.result
            return rec
        return await settle(self.store, rec)

    async def runtime(self, match_id: str) -> MatchRuntime:
        rt = self._live.get(match_id)
        if rt is not None and not rt.closed:
            return rt
        if rt is not None:  # closed under us (its log went backwards): load it again
            del self._live[match_id]
        pending = self._loading.get(match_id)
        if pending is not None:
            return await asyncio.shield(pending)
        if self.max_live and len(self._live) + len(self._loading) >= self.max_live:
            await self.sweep()  # runtimes nobody needs any more make room first
            if len(self._live) + len(self._loading) >= self.max_live:
                raise LobbyError("node_full", f"this node holds {self.max_live} live matches, its limit; "
                                 "try again later (or on another node)", 503)
        fut: asyncio.Future[MatchRuntime] = asyncio.get_running_loop().create_future()
        self._loading[match_id] = fut
        try:
            rt = MatchRuntime(self.store, await self.record(match_id), self.node, on_diverge=self._diverged.add,
                              on_finish=self._finished, ratings=self.ratings, webhooks=self.webhooks)
            await rt.load()
            self._live[match_id] = rt
            fut.set_result(rt)
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._loading[match_id]
        with contextlib.suppress(StoreUnavailable):  # (the next load or claim tries again)
            await self._start_missing(rt)
        return rt

    async def close(self) -> None:
        await self.presence.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
        for rt in list(self._live.values()):
            await rt.close()
        self._live.clear()
