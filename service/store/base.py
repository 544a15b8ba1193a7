"""The event store: one async interface, two backends (embedded SQLite, Redis streams).

A match's log is a sequence of commits numbered 1, 2, 3, ... with no gaps. `append` takes the
commit whose seq the writer expects to be next; if another writer got there first it raises
`Conflict`, and the writer reloads and decides again. That unique (match, seq) is the only
concurrency control Teahouse needs, whatever the number of server nodes.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import AsyncGenerator, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import msgpack

from protocol.codec import packb

if TYPE_CHECKING:
    from service.store.durability import Durability
    from service.store.outage import Reachability

EVENT_SCHEMA = 1

# The move ids the rules refused, remembered in the store so that a resend gets the same reject
# from any node (SPEC 3.5): the last REMEMBERED_REJECTIONS of each match, each for
# REJECTION_TTL_MS after it was refused.
REMEMBERED_REJECTIONS = 1024
REJECTION_TTL_MS = 3_600_000


class Claim(enum.IntEnum):
    """What a seat claim did: false only when another token holds the seat."""

    REFUSED = 0
    HELD = 1  # taken now, or already held by the same token (a retried claim)
    STARTED = 2  # held, and this claim filled the match and appended its start


class Conflict(Exception):
    """Another writer committed this seq first (or the seq would leave a gap)."""


class StoreUnavailable(Exception):
    """The store cannot be reached right now (Redis down, restarting or loading; an SQLite I/O
    error). Nothing is known to have changed: clients get the retryable `store_unavailable`
    and send the same request again in a moment (a move with the same id is answered once)."""


class Rejected(Exception):
    """The commit's move id was refused by the rules before (on any node), and the refusal is
    still remembered: it is not appended, and the mover gets that same refusal again."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


def rejection_key(seat: int | None, move_id: str) -> str:
    """How a refused (seat, move id) is named in the store."""
    return f"{'' if seat is None else seat}:{move_id}"


class LogRewound(Exception):
    """The log ends below a seq a reader already had: the store lost acknowledged commits
    (Redis with `appendfsync everysec` and a power loss, or a failover to a replica that was
    behind). Nothing may be built on the shorter log silently; see docs/operators.md."""

    def __init__(self, match: str, known: int, last: int) -> None:
        super().__init__(f"{match}: the log ends at seq {last}, below seq {known} already seen")
        self.match, self.known, self.last = match, known, last


@dataclass
class Commit:
    seq: int
    seat: int | None
    command: dict[str, Any]
    events: list[dict[str, Any]]
    move_id: str | None = None
    ts: int = 0  # ms since the epoch
    schema: int = EVENT_SCHEMA
    # The start commit only: the player id holding each seat (None: a guest), so who played a
    # match is part of its log, which ratings and histories are folded from.
    players: list[str | None] | None = None

    def pack(self) -> bytes:
        # Not dataclasses.asdict: it deep-copies the events, on the hot path of every move.
        return packb(self.public())

    @classmethod
    def unpack(cls, data: bytes) -> Commit:
        return cls(**msgpack.unpackb(data, raw=False))

    def public(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": self.seq, "seat": self.seat, "command": self.command,
                               "events": self.events, "move_id": self.move_id, "ts": self.ts, "schema": self.schema}
        if self.players is not None:
            out["players"] = self.players
        return out


@dataclass
class SeatRecord:
    seat: int
    taken: bool = False
    name: str | None = None
    token_hash: str | None = None
    # When the seat was taken (ms since the epoch; None: before this was recorded) and whether
    # its token has joined since: a seat taken and never joined may be freed (idle_seat_seconds).
    claimed_at: int | None = None
    joined: bool = False
    player: str | None = None  # the player id that took it (a key, an app's user, a bot); None: a guest


@dataclass
class PlayerRecord:
    """A player: an id and a display name. `key_hash` is the sha256 of its player key (like a
    seat token's, the key itself is never stored); None for an app's user or a bot, who hold no key."""

    id: str
    name: str
    created: int
    key_hash: str | None = None


@dataclass
class HookRecord:
    """A webhook a player registered (service/match/hooks.py). `secret` signs every delivery, so
    the server keeps it as is (an HMAC needs the key itself); it is shown to its owner once.
    `site`: the server's public address the match links in its payloads start with."""

    id: str
    owner: str
    url: str
    events: list[str]
    secret: str
    created: int
    site: str = ""

    def pack(self) -> bytes:
        return msgpack.packb(asdict(self), use_bin_type=True)

    @classmethod
    def unpack(cls, data: bytes) -> HookRecord:
        return cls(**msgpack.unpackb(data, raw=False))


@dataclass
class DeliveryRecord:
    """One webhook notification in the outbox and the delivery log. Its id is a function of what
    the log implies (service/match/notices.py), so deriving it twice writes it once. `status`:
    pending (due at `next_at`, ms), delivered, or failed (given up, or its hook is gone)."""

    id: str
    owner: str
    hook: str
    event: str
    match: str
    seq: int
    payload: dict[str, Any]
    created: int
    attempts: int = 0
    status: str = "pending"
    last_status: int | None = None
    last_error: str | None = None
    delivered: int | None = None
    next_at: int = 0

    def pack(self) -> bytes:
        return msgpack.packb(asdict(self), use_bin_type=True)

    @classmethod
    def unpack(cls, data: bytes) -> DeliveryRecord:
        return cls(**msgpack.unpackb(data, raw=False))


@dataclass
class MatchRecord:
    id: str
    game: str
    players: int
    options: dict[str, Any]
    listed: bool
    seed: str
    seed_sha256: str
    created: int
    forked_from: dict[str, Any] | None = None
    turn_seconds: int | None = None  # the turn clock's seconds per move; None: none (or a Fischer clock)
    # The game's rules version and the event schema when the match was created: its log is
    # always folded as written under them (records from before this field: version 1).
    rules_version: int = 1
    event_schema: int = EVENT_SCHEMA
    absent: str = "bot"  # what the clock plays for a seat that lets it run out (ABSENT_POLICIES)
    bots: list[int | None] | None = None  # per seat: a server bot's strength, or None for a person
    bot_seed: str | None = None  # the bots' own randomness (never the match seed: that is chance)
    # Who may watch it while it is played (service/match/spectators.py, SPEC 2.4): "public", "link"
    # (with the spectator key, of which only the sha256 is kept, like a seat token's) or "off"; and
    # how far behind the public audience is held: {"commits": N}, {"seconds": T} or None.
    spectators: str = "public"
    spectator_key_hash: str | None = None
    spectator_delay: dict[str, int] | None = None
    finished: bool = False
    result: dict[str, Any] | None = None
    seats: list[SeatRecord] = field(default_factory=list)
    # Set when a node found the log shorter than what it had seen (LogRewound): what it knew.
    diverged: dict[str, Any] | None = None
    # Per seat, the sha256 of its invite secret (a one-time link that takes that seat; None: a
    # bot's seat, or a match made before invites). Like seat tokens, the secrets are never kept.
    invite_hashes: list[str | None] | None = None
    # A rematch: the finished match it follows, and for each of its seats the seat it had there
    # (service/match/rematch.py). Fixed when the match is made.
    rematch_of: dict[str, Any] | None = None
    # The time control (service/match/time_control.py); None: no clock. A match made before it
    # was recorded has only `turn_seconds` (per move).
    time_control: dict[str, Any] | None = None
    # Facts set once after creation, each at most once whoever races (EventStore.set_link):
    # "rematch" (the match that follows this one), "declined:<seat>" (a rematch seat refused).
    links: dict[str, str] = field(default_factory=dict)

    def pack(self) -> bytes:
        data = asdict(self)
        del data["seats"]  # seats live apart, so that claiming one is a single atomic write
        del data["diverged"]  # kept apart too: a node sets it without rewriting the record
        del data["links"]  # each set apart, once (set_link)
        return msgpack.packb(data, use_bin_type=True)

    @classmethod
    def unpack(cls, data: bytes, seats: list[SeatRecord]) -> MatchRecord:
        return cls(**msgpack.unpackb(data, raw=False), seats=seats)


class EventStore(abc.ABC):
    """What the runtime needs from storage. Every method is safe to call concurrently."""

    name: str

    # -- matches ------------------------------------------------------------------------
    @abc.abstractmethod
    async def create_match(self, record: MatchRecord, commits: Sequence[Commit] = ()) -> None:
        """Write a new match and, for a fork, the commits it starts with: all of it, or nothing."""

    @abc.abstractmethod
    async def get_match(self, match_id: str) -> MatchRecord | None: ...

    @abc.abstractmethod
    async def list_matches(self, limit: int = 200) -> list[MatchRecord]:
        """Listed matches, newest first."""

    @abc.abstractmethod
    async def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str | None,
                         start: Commit | None = None, player: str | None = None) -> Claim:
        """Take a free seat for `token_hash` (for `player`, or a guest): HELD if `token_hash`
        holds it after the call (it took it now, or already held it: a retried claim), REFUSED
        if another token holds it, STARTED if it holds it and this call appended `start`.
        `start` (seq 1): appended in the same atomic write when every seat is then taken and the
        log is empty, so that no claim of a last seat ever exists without the match's start
        (a retried claim of a full match that never started appends it too)."""

    @abc.abstractmethod
    async def release_seat(self, match_id: str, seat: int, token_hash: str) -> None:
        """Free a seat again, if `token_hash` still holds it (a claim whose start failed)."""

    @abc.abstractmethod
    async def mark_joined(self, match_id: str, seat: int, token_hash: str) -> None:
        """Record that the token holding `seat` has joined (its seat no longer counts as idle)."""

    @abc.abstractmethod
    async def mark_finished(self, match_id: str, result: dict[str, Any] | None) -> None: ...

    @abc.abstractmethod
    async def all_matches(self, offset: int = 0, limit: int = 100) -> list[MatchRecord]:
        """Every match, unlisted ones too, newest first: `limit` of them from `offset`."""

    @abc.abstractmethod
    async def set_listed(self, match_id: str, listed: bool) -> None:
        """List or unlist a match (retention's archive unlists it; its log is kept)."""

    @abc.abstractmethod
    async def delete_match(self, match_id: str) -> None:
        """Remove a match and everything kept for it: record, seats, log, snapshot, analysis."""

    @abc.abstractmethod
    async def mark_diverged(self, match_id: str, info: dict[str, Any] | None) -> None:
        """Record that the match's log went backwards (`info`: what was seen), or clear it (None)."""

    @abc.abstractmethod
    async def set_link(self, match_id: str, name: str, value: str) -> str:
        """Set the match's link `name` to `value` unless it has one already; return the value it
        holds now (the first writer's, when two race)."""

    @abc.abstractmethod
    async def count_diverged(self) -> int:
        """Matches marked diverged and not cleared, whichever node marked them (/health)."""

    # -- players -----------------------------------------------------------------------------
    @abc.abstractmethod
    async def put_player(self, player: PlayerRecord) -> bool:
        """Write a new player; False (and nothing written) if the id is taken."""

    @abc.abstractmethod
    async def get_player(self, player_id: str) -> PlayerRecord | None: ...

    @abc.abstractmethod
    async def player_for_key(self, key_hash: str) -> PlayerRecord | None:
        """The player whose key has this sha256, or None."""

    @abc.abstractmethod
    async def add_player_match(self, player_id: str, match_id: str, created: int) -> None:
        """Index a match under a player who took one of its seats (idempotent)."""

    @abc.abstractmethod
    async def player_matches(self, player_id: str) -> list[str]:
        """The ids of the matches the player took a seat in, newest first."""

    @abc.abstractmethod
    async def add_finished(self, game: str, match_id: str, ts: int) -> None:
        """Index a finished match of `game` under the time of its last commit (idempotent): the
        order in which ratings fold finished matches."""

    @abc.abstractmethod
    async def finished_matches(self, game: str) -> list[tuple[int, str]]:
        """Every finished match of `game` as (ts of its last commit, id), in that order."""

    # -- webhooks: registrations, the outbox and its delivery log -------------------------------
    @abc.abstractmethod
    async def add_hook(self, hook: HookRecord, limit: int) -> bool:
        """Register `hook` unless its owner has `limit` hooks already (then False, nothing written)."""

    @abc.abstractmethod
    async def hooks(self, owner: str) -> list[HookRecord]:
        """The owner's hooks, oldest first."""

    @abc.abstractmethod
    async def remove_hook(self, owner: str, hook_id: str) -> bool:
        """Forget one of the owner's hooks; False if it has none of that id."""

    @abc.abstractmethod
    async def hook_owners(self) -> list[str]:
        """Every owner with at least one hook."""

    @abc.abstractmethod
    async def add_deliveries(self, deliveries: Sequence[DeliveryRecord]) -> int:
        """Put each delivery in the outbox (due at its `next_at`) and its owner's log, unless one
        of its id exists already (a delivery derived again): that one is left as it is. Returns
        how many were new."""

    @abc.abstractmethod
    async def due_deliveries(self, now: int, limit: int) -> list[str]:
        """Ids of pending deliveries due at `now` (ms), the most overdue first."""

    @abc.abstractmethod
    async def claim_delivery(self, delivery_id: str, now: int, until: int) -> DeliveryRecord | None:
        """Take a due pending delivery for sending: atomically move its `next_at` to `until` (a
        lease: if the claimer dies, it is due again then) and return it; None if it is not pending
        or not due (another node claimed it)."""

    @abc.abstractmethod
    async def save_delivery(self, delivery: DeliveryRecord) -> None:
        """Write a delivery's outcome: still pending (due again at its `next_at`) or settled
        (delivered or failed: out of the outbox, kept in the log)."""

    @abc.abstractmethod
    async def deliveries(self, owner: str, offset: int, limit: int) -> tuple[int, list[DeliveryRecord]]:
        """The owner's delivery log, newest first: (total, one page)."""

    @abc.abstractmethod
    async def hook_cursor(self, match_id: str) -> int:
        """The last seq of the match whose notifications were derived (0: none)."""

    @abc.abstractmethod
    async def set_hook_cursor(self, match_id: str, seq: int) -> None:
        """Move the match's cursor to `seq` (never back)."""

    # -- the log --------------------------------------------------------------------------
    @abc.abstractmethod
    async def append(self, match_id: str, commit: Commit, own: object = None) -> None:
        """Durably append `commit`; raise Conflict unless commit.seq == last seq + 1, and
        Rejected (appending nothing) if its (seat, move id) has a refusal remembered
        (remember_rejection). `own`: the appender's token, as given to its own `tail` (see there)."""

    @abc.abstractmethod
    async def remember_rejection(self, match_id: str, seat: int | None, move_id: str, code: str,
                                 message: str) -> tuple[str, str]:
        """Remember that the rules refused `move_id` of `seat` with (code, message), unless a
        refusal of it is remembered already; return the refusal remembered (the first). Kept for
        REJECTION_TTL_MS, and only the last REMEMBERED_REJECTIONS of a match (the oldest is
        forgotten first)."""

    @abc.abstractmethod
    async def read(self, match_id: str, after: int = 0, until: int | None = None) -> list[Commit]:
        """Commits with after < seq <= until, in order."""

    @abc.abstractmethod
    async def last_seq(self, match_id: str) -> int: ...

    @abc.abstractmethod
    def tail(self, match_id: str, after: int, own: object = None) -> AsyncGenerator[Commit, None]:
        """Every commit with seq > after, in order, once each, waiting for new ones forever.
        Raises LogRewound if the log turns out to end below a seq it had (or below `after`).

        `own` (not None): a token that the tail's reader also passes to `append` on this store
        object. A commit it appends with that token, one append at a time, while the tail is
        right behind it, is not yielded (the tail only moves past it): the appender applies its
        own commits, and the tail is for everybody else's (an own commit would cost a wake-up,
        and on Redis a decode, for nothing). Own appends made otherwise (several in
        flight at once) may be yielded, still once each and in order. Commits of other tokens,
        other store objects and other nodes are always yielded."""

    # -- analyses (service/match/analysis.py: a finished match's chances, made once) ------------
    @abc.abstractmethod
    async def save_analysis(self, match_id: str, analysis: dict[str, Any]) -> None:
        """Keep a finished match's analysis (a later one for the same match replaces it)."""

    @abc.abstractmethod
    async def load_analysis(self, match_id: str) -> dict[str, Any] | None: ...

    # -- snapshots (a shortcut for the fold, never the truth) ------------------------------
    @abc.abstractmethod
    async def save_snapshot(self, match_id: str, seq: int, state: dict[str, Any]) -> None: ...

    @abc.abstractmethod
    async def load_snapshot(self, match_id: str) -> tuple[int, dict[str, Any]] | None: ...

    # -- presence: how many connections each node holds per audience of a match -------------
    shared = False  # True where several nodes share the store and must see each other's presence

    async def publish_presence(self, match_id: str, node: str, seats: list[int], spectators: int) -> None:
        """Record this node's connection counts for a match (all zero: the node left).
        A store that only one node uses has nothing to record."""
        return None

    async def read_presence(self, match_id: str) -> dict[str, tuple[list[int], int]]:
        """Every live node's (seat counts, spectator count) for a match, by node id."""
        return {}

    async def publish_presences(self, node: str, counts: dict[str, tuple[list[int], int]]) -> None:
        """publish_presence for many matches at once (a backend may batch them)."""
        for match_id, (seats, spectators) in counts.items():
            await self.publish_presence(match_id, node, seats, spectators)

    async def read_presences(self, match_ids: list[str]) -> dict[str, dict[str, tuple[list[int], int]]]:
        """read_presence for many matches at once, by match id."""
        return {m: await self.read_presence(m) for m in match_ids}

    # -- reachability ----------------------------------------------------------------------
    async def ping(self) -> None:
        """Answer if the store answers (raise StoreUnavailable if not): /health/ready."""
        await self.last_seq("health:ping")

    async def durability(self) -> Durability:
        """Whether what `append` acknowledged survives a power loss, from the store's settings
        (raise StoreUnavailable if they cannot be read now). A store that fsyncs every append
        before returning keeps the default."""
        from service.store.durability import FSYNCED

        return FSYNCED

    @property
    def reachability(self) -> Reachability:
        """Up or down as the latest call found it (one log line per change: service/store/outage.py)."""
        found = self.__dict__.get("_reachability")
        if found is None:
            from service.store.outage import Reachability

            found = self.__dict__["_reachability"] = Reachability(self.name)
        return found

    async def close(self) -> None:
        return None


def pack_state(seq: int, state: dict[str, Any]) -> bytes:
    return msgpack.packb({"seq": seq, "state": state}, use_bin_type=True)


def unpack_state(data: bytes) -> tuple[int, dict[str, Any]]:
    d = msgpack.unpackb(data, raw=False)
    return d["seq"], d["state"]
