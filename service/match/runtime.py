"""A live match on this node: its folded state, its log position, its watchers.

The log is the truth. A runtime holds a cache of `fold(evolve, log, initial)` and moves it
forward only by applying commits in seq order, whether this node wrote them or another node
did (the tail loop reads them from the store). A command is decided against the cached state,
appended with the seq it expects; on a conflict the runtime catches up and decides again.
Nothing is sent to anyone that is not in the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import OrderedDict
from typing import Any, Protocol

from protocol import messages
from service.bots import DEFAULT_STRENGTH, bot_rng
from service.bots import pool as bot_pool
from service.games import Game, IllegalMove, fold, get_game
from service.games.chance import commit_rng
from service.games.preamble import normalized
from service.match.narration import commit_sentences, move_labels, names_of
from service.match.projection import Audience, Frame, Prepared, Projection
from service.match.settle import finished_result, note_repair, usable_snapshot
from service.ops import logs, metrics
from service.store import Commit, Conflict, EventStore, LogRewound, MatchRecord, StoreUnavailable
from service.store.base import EVENT_SCHEMA
from service.store.outage import Backoff

log = logging.getLogger("teahouse.runtime")

SNAPSHOT_EVERY = 50
PRESENCE_COALESCE_S = 0.05
CLOSE_WAIT_S = 2.0
DECIDE_ATTEMPTS = 8
REMEMBERED_REJECTIONS = 1024
# Move ids the server itself commits with (start, the turn clock) begin with this; a client's
# move id may not (session refuses it with `reserved_id`), so no seat can pre-empt one.
SYSTEM_MOVE_PREFIX = "sys:"
# A turn clock whose move failed (the store went away, the match was busy) tries again this soon.
CLOCK_RETRY_S = 1.0


def diverged_message(match: str, seen: int, last: int) -> str:
    return (f"match {match}: the server's log lost commits (it ends at seq {last}, seq {seen} had been "
            f"played); play is stopped until an operator restores it")


def system_move_id(*parts: object) -> str:
    return SYSTEM_MOVE_PREFIX + ":".join(str(p) for p in parts)


# Accepted move ids a snapshot carries: a client retries the moves it sent last, never one
# from a thousand commits ago.
SNAPSHOT_MOVE_IDS = 1024
# Every runtime on this node gets its own number: protocol v2 names matches by it in frames.
_REFS = itertools.count(1)


class Watcher(Protocol):
    """A connection watching a match (service.ws.session.Session implements it)."""

    encoding: str

    def deliver(self, data: bytes) -> None:
        """Write or queue one message's bytes without waiting; a watcher whose queue is full
        cuts itself off."""


# A broadcast writes at most this many connections' frames in one turn of the event loop; an
# audience larger than that (a crowd of spectators) gets its frames in the next turns, in order,
# after the seats have theirs: a thousand sockets written in one go would hold the loop (and
# every other match on this node) for several milliseconds.
FANOUT_CHUNK = 200


def fan_out(frame: Frame, watchers: Any) -> None:
    """Hand `frame` to every watcher: the bytes of an encoding are looked up once per run of
    watchers of that encoding, not once per watcher (and the same bytes object goes to each, so
    the transport frames it once: service/ws/wire.py)."""
    encoding = None
    data = b""
    for w in watchers:
        if w.encoding != encoding:
            encoding = w.encoding
            data = frame.encoded(encoding)
        w.deliver(data)


class Busy(Exception):
    pass


class _Ahead:
    """A commit's state and frames made while its append is in flight (MatchRuntime._append):
    `run` is called from the event loop, `prepared` is what it made, `discard` undoes it."""

    __slots__ = ("runtime", "commit", "prepared", "dropped")

    def __init__(self, runtime: MatchRuntime, commit: Commit) -> None:
        self.runtime, self.commit = runtime, commit
        self.prepared: Prepared | None = None
        self.dropped = False

    def run(self) -> None:
        if self.dropped or self.commit.seq == 1:
            return  # (the start commit's sentences need the seats' names read first: made after)
        try:
            self.prepared = self.runtime._prepare(self.commit)
            self.runtime._encode_ahead(self.prepared)
        except Exception:
            # Made again after the append, the old way: a failure there is the move's to report.
            log.debug("preparing commit %d of %s ahead failed", self.commit.seq, self.runtime.id, exc_info=True)
            self.discard()

    def discard(self) -> None:
        self.dropped = True
        if self.prepared is not None:
            self.runtime.projection.discard(self.prepared)
            self.prepared = None


class Diverged(Exception):
    """The match's log went backwards under this node: nothing more is decided on it until an
    operator has looked (docs/operators.md, "A log that went backwards")."""


# Matches this node found with a log shorter than what it had seen (exposed in /health).
DIVERGED_SEEN: set[str] = set()


class MatchRuntime:
    def __init__(self, store: EventStore, record: MatchRecord, node: str = "local") -> None:
        self.store = store
        self.node = node
        self.record = record
        self.game: Game = get_game(record.game)
        self.state: dict[str, Any] = self.game.initial(record.options, record.players)
        self.seq = 0
        self.lock = asyncio.Lock()
        self.ref = next(_REFS)
        self.projection = Projection(self.game, record.id, self.ref)
        self._commits = metrics.COMMITS.labels(self.game.id)  # (a label lookup per commit costs ~4 µs)
        self.watchers: dict[Audience, set[Watcher]] = {}
        # (seat, client move id) -> seq of the commit it produced: retries get the same ack.
        self.accepted: dict[tuple[int | None, str], int] = {}
        self.rejected: OrderedDict[tuple[int | None, str], tuple[str, str]] = OrderedDict()
        self._tail_task: asyncio.Task | None = None
        self.closed = False
        self.last_active = time.monotonic()
        self._remote_presence: dict[str, tuple[list[int], int]] = {}
        self._presence_scheduled = False
        # The presence each watcher last received: it is sent one only when it changed for it.
        self._presence_seen: dict[Watcher, dict[str, Any]] = {}
        self.last_ts = 0  # the latest commit's time: the turn clock runs from it
        self.deadline: int | None = None
        self._clock_task: asyncio.Task | None = None
        self.diverged: dict[str, Any] | None = record.diverged
        self._bot_tasks: dict[int, asyncio.Task] = {}  # seat -> its bot thinking
        # (seat, page size) -> the answer to `legal` at self.seq, in pages: a crowded board's
        # list (thousands of moves, each labelled) is computed and encoded once per commit, not
        # once per request (issue 13.3). Emptied by every commit.
        self._legal: dict[tuple[int, int], list[Frame]] = {}
        self._finish_task: asyncio.Task | None = None  # marking finished, retried while the store is away
        # Frames of a broadcast not yet handed to all of their watchers (FANOUT_CHUNK), in
        # order: the head entry is sent from index _later_at on. A later frame for the same
        # audience queues behind them; a resync's answer or a watcher leaving sends them all
        # first, so no watcher sees its frames out of order or after it left.
        self._later: list[tuple[Audience, Frame, list[Watcher]]] = []
        self._later_at = 0
        self._later_handle: asyncio.Handle | None = None

    @property
    def idle(self) -> bool:
        """Nobody watches, nothing is being decided and no bot is due to move: the node may
        drop this cache."""
        return not self.watchers and not self.lock.locked() and not self._bots_to_act()

    @property
    def id(self) -> str:
        return self.record.id

    # -- loading and following the log ----------------------------------------------------
    async def load(self) -> None:
        snap = await self.store.load_snapshot(self.id)
        if snap is not None:
            self._restore(*snap)
        for c in await self.store.read(self.id, self.seq):
            self._fold_commit(c)
        result = finished_result(self.game, self.state)
        if result is not None and not self.record.finished:
            # The log is over, the record was never told (issue 13.1): the log is the truth.
            self.record.finished, self.record.result = True, result
            note_repair(self.record, self.seq)
            await self._record_finished(result)
        self._tail_task = asyncio.create_task(self._follow(), name=f"tail {self.id}")
        self._arm_clock()
        self._wake_bots()

    async def _follow(self) -> None:
        """Apply commits written by any node (this one included; those are skipped). While the
        store is unreachable, try again with a growing wait (at most 2 s): when it is back the
        tail restarts from this runtime's seq and catches up, with no help from anyone."""
        logs.MATCH.set(self.id)  # this task's log lines name the match
        backoff = Backoff()
        while not self.closed:
            try:
                # aclosing: the tail's cleanup runs here, in this task, when it is cancelled,
                # not later in the loop's garbage collection of async generators.
                # own=self: the commits this runtime appends are applied by submit, so the
                # tail moves past them without waking this task (issue 12).
                async with contextlib.aclosing(self.store.tail(self.id, self.seq, own=self)) as commits:
                    async for c in commits:
                        backoff.reset()
                        if c.seq > self.seq:
                            async with self.lock:
                                await self._catch_up()
            except asyncio.CancelledError:
                raise
            except LogRewound as exc:
                await self._diverge(exc.last)
                return
            except StoreUnavailable:
                pass  # said once for the node by the store's reachability (service/store/outage.py)
            except Exception:
                log.exception("tailing %s failed; retrying", self.id)
            await asyncio.sleep(backoff.delay())

    async def _catch_up(self) -> None:
        """Apply every commit after self.seq that is in the store. Hold the lock."""
        for c in await self.store.read(self.id, self.seq):
            await self._apply(c)

    def _fold_commit(self, c: Commit, state: dict[str, Any] | None = None) -> None:
        """Move the state to `c`'s (`state`: already folded, while its append was in flight)."""
        if c.seq != self.seq + 1:
            raise RuntimeError(f"{self.id}: commit {c.seq} after {self.seq}")
        self.state = state if state is not None else fold(self.game, c.events, self.state, self.record.rules_version)
        self.seq = c.seq
        self._legal.clear()
        self.last_ts = c.ts
        if c.move_id is not None:
            self.accepted[(c.seat, c.move_id)] = c.seq

    async def _apply(self, c: Commit, prepared: Prepared | None = None) -> None:
        """Apply `c` (durable in the log): fold it, send its patches, then the rest a commit
        does (finished, snapshot, clock, bots). `prepared`: its state and frames, made while
        its append was in flight (submit); without them they are made here."""
        if c.seq <= self.seq:
            if prepared is not None:
                self.projection.discard(prepared)
            return
        self.last_active = time.monotonic()
        # Folded before any await: a commit this runtime appended is applied by the time its
        # append returns to submit, since its tail moves past it (store.tail's `own`).
        self._fold_commit(c, prepared.state if prepared is not None else None)
        if prepared is None:
            if c.seq == 1:
                await self._refresh_names()
            said = commit_sentences(self.game, c.seat, c.command, c.events, c.move_id, self.names, self.state)
            prepared = self.projection.prepare(self.state, self.seq, said)
        self._broadcast(self.projection.install(prepared))
        status = self.game.status(self.state)
        if status["finished"] and not self.record.finished:
            result = dict(status["result"] or {})
            self.record.finished, self.record.result = True, result
            await self._record_finished(result)
            self._broadcast_all(self.projection.finished(self.seq, result, self.record.seed))
        if self.seq % SNAPSHOT_EVERY == 0:
            with contextlib.suppress(StoreUnavailable):  # a snapshot is a shortcut: the next one will do
                await self.store.save_snapshot(self.id, self.seq, self._snapshot())
        self._arm_clock()
        self._wake_bots()

    async def _record_finished(self, result: dict[str, Any]) -> None:
        """Mark the match finished in the store. The commit that ended it is already in the log,
        so a store that fails here does not fail that move: the mark is retried in the
        background until it lands (and any load repairs it from the log too)."""
        try:
            await self.store.mark_finished(self.id, result)
        except StoreUnavailable:
            self._finish_task = asyncio.create_task(self._finish_later(result), name=f"finish {self.id}")

    async def _finish_later(self, result: dict[str, Any]) -> None:
        backoff = Backoff()
        while True:
            await asyncio.sleep(backoff.delay())
            try:
                await self.store.mark_finished(self.id, result)
                return
            except StoreUnavailable:
                continue

    async def _submit_while_at(self, seq: int, seat: int, command: dict[str, Any], move_id: str) -> bool:
        """The server's own move for `seq`: while the store is unreachable, try again (with a
        growing wait) as long as the match is still at `seq` here. True once committed."""
        backoff = Backoff()
        while True:
            try:
                await self.submit(seat, command, move_id, at_seq=seq)
                return True
            except StoreUnavailable:
                if self.seq != seq or self.closed:
                    return False
                await asyncio.sleep(backoff.delay())

    # -- bots at the table ----------------------------------------------------------------
    def _bots_to_act(self) -> list[int]:
        bots = self.record.bots or []
        if self.seq == 0 or self.closed or not any(b is not None for b in bots):
            return []  # (no bot at the table: no status to build on every commit)
        status = self.game.status(self.state)
        if status["finished"]:
            return []
        return [seat for seat in status["to_act"] if seat < len(bots) and bots[seat] is not None]

    def _wake_bots(self) -> None:
        """Start a bot for each bot seat to act that is not already thinking."""
        for seat in self._bots_to_act():
            task = self._bot_tasks.get(seat)
            if task is None or task.done():
                strength = (self.record.bots or [])[seat]
                assert strength is not None
                self._bot_tasks[seat] = asyncio.create_task(
                    self._play_for(self.seq, seat, strength, "bot"), name=f"bot {self.id}:{seat}")

    async def _play_for(self, seq: int, seat: int, strength: int, mark: str) -> None:
        """Think off the event loop, then commit the move for `seat` if the match is still at
        `seq`. The move id (`sys:bot:` or `sys:clock:` + seq + seat) marks it in the log as played for
        the seat, and makes it commit once whichever node gets there first."""
        logs.MATCH.set(self.id)
        try:
            try:
                command: dict[str, Any] | None = (await bot_pool.think(
                    self.game.id, self.state, seat, self.record.players, strength,
                    f"{self.record.bot_seed}/{seq}")).command
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bot for %s seat %d failed at seq %d", self.id, seat, seq)
                command = None
            if self.seq != seq or self.closed:
                return
            if command is not None:
                try:
                    if await self._submit_while_at(seq, seat, command, system_move_id(mark, seq, seat)) and mark == "bot":
                        metrics.BOT_MOVES.inc()
                    return
                except IllegalMove:
                    log.error("bot for %s seat %d chose an illegal move at seq %d", self.id, seat, seq)
            # A failed bot must not stall the table: a random legal move instead.
            moves = self.game.legal_moves(self.state, seat)
            if moves:
                fallback = bot_rng(self.record.bot_seed or "", "fallback", seq, seat).choice(moves)
                if await self._submit_while_at(seq, seat, fallback, system_move_id(mark, seq, seat)) and mark == "bot":
                    metrics.BOT_MOVES.inc()
        except (IllegalMove, Busy):
            pass  # the match moved on while the bot thought; the new seq wakes it again
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot for %s seat %d failed at seq %d", self.id, seat, seq)
        finally:
            if self._bot_tasks.get(seat) is asyncio.current_task():
                del self._bot_tasks[seat]  # done thinking: the seat may get a new bot task
            if self.seq != seq:
                self._wake_bots()

    # -- a log that went backwards ----------------------------------------------------------------
    async def _diverge(self, last: int) -> None:
        """Stop: the store's log ends at `last`, below this node's seq. Building on the shorter
        log would fork the history clients have seen, so the match is marked `diverged` in the
        store (every node and the match summary see it), its watchers are told and let go."""
        if self.diverged is not None:
            return
        self.diverged = {"seen_seq": self.seq, "log_seq": last, "node": self.node, "ts": int(time.time() * 1000)}
        DIVERGED_SEEN.add(self.id)
        log.error("match %s: the log ends at seq %d but this node had seq %d: the store lost acknowledged "
                  "commits; the match is marked diverged (docs/operators.md)", self.id, last, self.seq)
        if self._clock_task is not None:
            self._clock_task.cancel()
        with contextlib.suppress(Exception):
            await self.store.mark_diverged(self.id, self.diverged)
        self._broadcast_all(Frame(messages.error("diverged", diverged_message(self.id, self.seq, last), self.id,
                                                  self.id)))
        self.watchers.clear()
        self.closed = True  # the lobby drops it; a new load sees the mark

    # -- snapshots: a shortcut for the fold, valid only under the rules that made them -------
    def _snapshot(self) -> dict[str, Any]:
        """The state, the rules it was folded under, and the latest move ids (so that a load
        from the snapshot answers retries without reading the log before it)."""
        recent = sorted(self.accepted.items(), key=lambda kv: kv[1])[-SNAPSHOT_MOVE_IDS:]
        return {"rules_version": self.game.rules_version, "event_schema": EVENT_SCHEMA, "state": self.state,
                "moves": [[seat, move_id, seq] for (seat, move_id), seq in recent]}

    def _restore(self, seq: int, snap: dict[str, Any]) -> None:
        if not usable_snapshot(self.game, snap):
            return  # made by other rules (or before snapshots said which): fold the log instead
        self.seq, self.state = seq, snap["state"]
        for seat, move_id, at in snap["moves"]:
            self.accepted[(seat, move_id)] = at

    # -- the turn clock -------------------------------------------------------------------
    def _arm_clock(self) -> None:
        """(Re)start the clock for the current seq. Every node watching the match runs it;
        the clock's move id makes the timed-out move commit once whichever node fires first."""
        if self._clock_task is not None:
            self._clock_task.cancel()
            self._clock_task = None
        if not self.record.turn_seconds and self.deadline is None:
            return  # no clock, and none announced: nothing to say (and no status to build)
        status = self.game.status(self.state)
        running = bool(self.record.turn_seconds) and self.seq > 0 and not status["finished"] and status["to_act"]
        deadline = self.last_ts + (self.record.turn_seconds or 0) * 1000 if running else None
        if deadline != self.deadline or running:
            self.deadline = deadline
            self._broadcast_all(Frame(messages.clock(self.id, self.seq, deadline)))
        if deadline is not None:
            self._clock_task = asyncio.create_task(self._expire(self.seq, deadline), name=f"clock {self.id}")

    async def _expire(self, seq: int, deadline: int) -> None:
        logs.MATCH.set(self.id)
        await asyncio.sleep(max(0.0, deadline / 1000 - time.time()))
        if self.seq == seq and not self.closed:
            metrics.CLOCK_EXPIRIES.inc()
        # Until the state moves on, keep trying: a clock that gives up stops the match for ever.
        while self.seq == seq and not self.closed:
            try:
                for seat in self.game.status(self.state)["to_act"]:
                    moves = self.game.legal_moves(self.state, seat)
                    if not moves or self.seq != seq:
                        continue
                    if self.record.absent in ("bot", "random"):
                        # The absent seat's move comes from a bot (strength 0 plays at random).
                        await self._play_for(seq, seat, DEFAULT_STRENGTH if self.record.absent == "bot" else 0, "clock")
                        continue
                    try:
                        await self.submit(seat, moves[0], system_move_id("clock", seq, seat), at_seq=seq)
                    except IllegalMove:
                        pass  # the state moved on under the clock: the new seq has a clock of its own
                if self.seq != seq:
                    return
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:
                pass  # said once for the node by the store's reachability
            except Exception as exc:
                log.warning("turn clock of %s failed at seq %d (%s); retrying", self.id, seq, exc)
            await asyncio.sleep(CLOCK_RETRY_S)

    # -- commands -------------------------------------------------------------------------
    async def submit(self, seat: int | None, command: dict[str, Any], move_id: str | None,
                     at_seq: int | None = None) -> int:
        """Decide, append and apply one command; return its seq or raise IllegalMove/Busy.
        `at_seq`: the server's own moves (clock, bots) were chosen for that seq only."""
        key = (seat, move_id) if move_id is not None else None
        arrived = time.perf_counter()
        async with self.lock:
            if self.diverged is not None:
                raise Diverged(self.id)
            if key is not None:
                if key in self.accepted:
                    return self.accepted[key]
                if key in self.rejected:
                    raise IllegalMove(*self.rejected[key])
            for _ in range(DECIDE_ATTEMPTS):
                if at_seq is not None and self.seq != at_seq:
                    raise Busy(f"{self.id}: at seq {self.seq}, not {at_seq}")
                try:
                    events = self.game.decide(self.state, seat, command, commit_rng(self.record.seed, self.seq + 1))
                except IllegalMove as exc:
                    if key is not None:
                        self.rejected[key] = (exc.code, exc.message)
                        if len(self.rejected) > REMEMBERED_REJECTIONS:
                            self.rejected.popitem(last=False)
                    raise
                # The log keeps the command's declared fields only (the preamble refused any
                # other): what a client adds never becomes permanent. The move id stays, for
                # idempotent retries.
                c = Commit(seq=self.seq + 1, seat=seat, command=normalized(self.game.commands, seat, command),
                           events=events, move_id=move_id, ts=int(time.time() * 1000))
                try:
                    started = time.perf_counter()
                    prepared = await self._append(c)
                    metrics.APPEND_SECONDS.observe(time.perf_counter() - started)
                    self._commits.inc()
                except Conflict:
                    before = self.seq
                    await self._catch_up()  # another node won this seq: decide again on its result
                    if key is not None and key in self.accepted:
                        return self.accepted[key]
                    if self.seq == before:
                        # Nothing new to catch up with, yet the seq is taken: is the log now
                        # shorter than what this node has? Then deciding again can never win.
                        last = await self.store.last_seq(self.id)
                        if last < self.seq:
                            await self._diverge(last)
                            raise Diverged(self.id) from None
                    continue
                await self._apply(c, prepared)  # the patches are queued for every watcher here
                metrics.FANOUT_SECONDS.observe(time.perf_counter() - arrived)
                return c.seq
            raise Busy(f"{self.id}: gave up after {DECIDE_ATTEMPTS} conflicting appends")

    async def _append(self, c: Commit) -> Prepared | None:
        """Append `c` to the log and, while the store has it in flight (the SQLite thread's
        fsync, the round trip to Redis: the loop would be idle), fold it and make its frames,
        so that once it is durable only sending them is left (issue 12). Nothing of it is
        installed or sent here: if the append fails, what was made is discarded and the
        match is as it was. None: nothing was made before the append returned."""
        ahead = _Ahead(self, c)
        # Both stores hand the append over (queued for the writer thread, written to the Redis
        # socket) before their first await that waits: a callback queued now runs once this
        # task waits there, after the append has started.
        handle = asyncio.get_running_loop().call_soon(ahead.run)
        try:
            await self.store.append(self.id, c, own=self)
        except BaseException:
            handle.cancel()
            ahead.discard()
            raise
        handle.cancel()
        return ahead.prepared

    def _prepare(self, c: Commit) -> Prepared:
        """`c`'s state and frames, before its append is known to be durable (see _append)."""
        state = fold(self.game, c.events, self.state, self.record.rules_version)
        said = commit_sentences(self.game, c.seat, c.command, c.events, c.move_id, self.names, state)
        return self.projection.prepare(state, c.seq, said, speculative=True)

    def _encode_ahead(self, prepared: Prepared) -> None:
        """Encode each prepared frame in its watchers' encodings (the first FANOUT_CHUNK's):
        sending it is then only handing over bytes."""
        for audience, frame in prepared.frames.items():
            group = self.watchers.get(audience)
            if group:
                for encoding in {w.encoding for w in itertools.islice(group, FANOUT_CHUNK)}:
                    frame.encoded(encoding)

    def legal_pages(self, seat: int, page_size: int) -> list[Frame]:
        """The `legal_moves` answers for `seat` at this seq: one frame per page of `page_size`
        moves (0: one page), at least one page (an empty list is one empty page)."""
        key = (seat, page_size)
        pages = self._legal.get(key)
        if pages is None:
            moves = self.game.legal_moves(self.state, seat)
            labels = self.labels(seat, moves)
            size = page_size or max(len(moves), 1)
            count = max(1, -(-len(moves) // size))
            pages = [Frame(messages.legal_moves(self.id, self.seq, moves[i * size:(i + 1) * size],
                                                labels[i * size:(i + 1) * size], page=i, pages=count,
                                                total=len(moves)))
                     for i in range(count)]
            self._legal[key] = pages
        return pages

    def labels(self, seat: int, moves: list[dict[str, Any]]) -> list[str]:
        """A sentence per move in `moves`, as `seat` sees it."""
        return move_labels(self.game, self.game.view(self.state, seat), seat, moves, self.names)

    @property
    def names(self) -> list[str]:
        return names_of(self.record.seats, self.record.players)

    async def _refresh_names(self) -> None:
        """The start commit comes once every seat is taken: the seats (and their names) are
        final from then on, but this cache may have loaded the record before they were."""
        try:
            fresh = await self.store.get_match(self.id)
        except StoreUnavailable:
            return
        except Exception:
            log.exception("reading the seats of %s failed; narrating with the names known", self.id)
            return
        if fresh is not None:
            self.record.seats = fresh.seats

    def status(self) -> dict[str, Any]:
        return dict(self.game.status(self.state))

    # -- watchers -------------------------------------------------------------------------
    def attach(self, watcher: Watcher, audience: Audience, since: int | None) -> None:
        """Add a watcher and send it what it is missing: patches after `since`, or a full view."""
        self.last_active = time.monotonic()
        self.projection.watch(audience, self.state, self.seq)
        self.watchers.setdefault(audience, set()).add(watcher)
        self.resync(watcher, audience, since)
        if self.record.finished:
            watcher.deliver(self.projection.finished(self.seq, self.record.result,
                                                     self.record.seed).encoded(watcher.encoding))
        # Presence is part of the answer (SPEC 3.3), before the clock and before the reply to
        # the client's next request; the others hear of the change at the coalesced flush.
        current = self.presence()
        self._presence_seen[watcher] = current
        watcher.deliver(self.projection.presence(current).encoded(watcher.encoding))
        self._presence_soon()
        if self.deadline is not None:
            watcher.deliver(Frame(messages.clock(self.id, self.seq, self.deadline)).encoded(watcher.encoding))

    def answer_resync(self, watcher: Watcher, audience: Audience, since: int) -> None:
        """A client's resync: what it missed (possibly nothing), then the current presence,
        which ends the answer, so that even an empty one is acknowledged (SPEC 3.7)."""
        self._flush_later()
        self.resync(watcher, audience, since)
        current = self.presence()
        self._presence_seen[watcher] = current
        watcher.deliver(self.projection.presence(current).encoded(watcher.encoding))

    def resync(self, watcher: Watcher, audience: Audience, since: int | None) -> None:
        frames = self.projection.since(audience, since, watcher.encoding) if since is not None else None
        if frames is None:
            frames = [self.projection.full(audience)]
        for f in frames:
            watcher.deliver(f.encoded(watcher.encoding))

    def detach(self, watcher: Watcher) -> None:
        self.last_active = time.monotonic()
        self._flush_later()
        for audience, group in list(self.watchers.items()):
            if watcher in group:
                group.discard(watcher)
                if not group:
                    del self.watchers[audience]
                    self.projection.unwatch(audience)
        self._presence_seen.pop(watcher, None)
        self._presence_soon()

    def local_counts(self) -> tuple[list[int], int]:
        return ([len(self.watchers.get(s, ())) for s in range(self.record.players)],
                len(self.watchers.get(None, ())))

    def presence(self) -> dict[str, Any]:
        """Who is connected, over every node: a seat is present if any node holds a connection."""
        seats, spectators = self.local_counts()
        present = [n > 0 for n in seats]
        for node, (other_seats, other_specs) in self._remote_presence.items():
            if node == self.node:
                continue
            present = [p or n > 0 for p, n in zip(present, other_seats, strict=False)]
            spectators += other_specs
        return messages.presence(self.id, present, spectators)

    def remote_presence(self, by_node: dict[str, tuple[list[int], int]]) -> None:
        """The other nodes' counts for this match (the lobby polls them for all its matches at
        once, service/match/presence.py); broadcast presence if it changed."""
        self._remote_presence = by_node
        if not self.closed:
            self._broadcast_presence()

    def _broadcast(self, frames: dict[Audience, Frame]) -> None:
        for audience, frame in frames.items():
            group = self.watchers.get(audience)
            if group:
                self._emit(audience, frame, group)

    def _broadcast_all(self, frame: Frame) -> None:
        for audience, group in list(self.watchers.items()):
            self._emit(audience, frame, group)

    def _emit(self, audience: Audience, frame: Frame, group: Any) -> None:
        """`frame` to the watchers in `group` (of `audience`): at once, unless the group is a
        crowd (more than FANOUT_CHUNK connections: the spectators) or the audience still has
        deferred frames; then in the next turns of the loop, after the seats have theirs."""
        if len(group) <= FANOUT_CHUNK and not any(a == audience for a, _, _ in self._later):
            fan_out(frame, list(group))
            return
        self._later.append((audience, frame, list(group)))
        if self._later_handle is None:
            self._later_handle = asyncio.get_running_loop().call_soon(self._send_later)

    def _send_later(self) -> None:
        """Send the next FANOUT_CHUNK of the deferred frames; come back for the rest."""
        self._later_handle = None
        budget = FANOUT_CHUNK
        while self._later and budget > 0:
            _, frame, group = self._later[0]
            start = self._later_at
            end = min(len(group), start + budget)
            fan_out(frame, itertools.islice(group, start, end))
            budget -= end - start
            if end == len(group):
                del self._later[0]
                self._later_at = 0
            else:
                self._later_at = end
        if self._later:
            self._later_handle = asyncio.get_running_loop().call_soon(self._send_later)

    def _flush_later(self) -> None:
        """Send every deferred frame now: before a resync's answer or a change of watchers."""
        if self._later_handle is not None:
            self._later_handle.cancel()
            self._later_handle = None
        later, start = self._later, self._later_at
        self._later, self._later_at = [], 0
        for _, frame, group in later:
            fan_out(frame, itertools.islice(group, start, None))
            start = 0

    def _presence_soon(self) -> None:
        """Coalesce presence: a burst of joins or leaves sends one presence frame, not one per
        change to every watcher (which would cost the square of the audience)."""
        if not self._presence_scheduled:
            self._presence_scheduled = True
            asyncio.get_running_loop().call_later(PRESENCE_COALESCE_S, self._flush_presence)

    def _flush_presence(self) -> None:
        self._presence_scheduled = False
        if not self.closed:
            self._broadcast_presence()

    def _broadcast_presence(self) -> None:
        """Send the presence to every watcher for whom it changed (encoded once per encoding)."""
        current = self.presence()
        frame = self.projection.presence(current)
        seen = self._presence_seen
        for audience, group in list(self.watchers.items()):
            told = [w for w in group if seen.get(w) != current]
            for w in told:
                seen[w] = current
            if told:
                self._emit(audience, frame, told)

    async def close(self) -> None:
        self._flush_later()
        self.closed = True
        tasks = [t for t in (self._tail_task, self._clock_task, self._finish_task, *self._bot_tasks.values())
                 if t is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            # Bounded: a library that swallows a cancel must not hold a shutdown hostage.
            await asyncio.wait(tasks, timeout=CLOSE_WAIT_S)
        if self.store.shared:
            with contextlib.suppress(Exception):
                await self.store.publish_presence(self.id, self.node, [0] * self.record.players, 0)
