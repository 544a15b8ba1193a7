"""A live match on this node: the commit loop over its log.

The log is the truth. A runtime holds a cache of `fold(evolve, log, initial)` and moves it
forward only by applying commits in seq order, whether this node wrote them or another node
did (the tail loop reads them from the store). A command is decided against the cached state
and appended with the seq it expects; on a conflict the runtime catches up and decides again.
Nothing is sent to anyone that is not in the log.

One way through: decide, append, apply. Applying a commit folds its events once, computes the
game's status once, installs every watched audience's patch (service/match/projection.py) and
hands the resulting `Committed` (service/match/committed.py) to its subscribers, in this order:
the fan-out to the watchers (fanout.py), the delayed spectators of a match with a spectator
delay (delayed.py: their own projection, behind), the legal-move pages (legal.py), the finish
mark (settle.py), the turn clock (clock.py), the seat bots (seat_bots.py) and the webhooks
(webhooks.py: derived in a task of their own, never holding up the commit). Presence (presence.py)
follows the watchers, not the commits. The clock and the bots send their moves to `submit`, as
a client does.

What the rest of the server uses of a runtime (service/ws/session.py, service/match/lobby.py,
the presence poller, app.py's gauges):
  - reading: `id`, `ref`, `seq`, `state`, `game`, `record`, `diverged`, `closed`, `idle`,
    `last_active`, `watched`, `watchers` (audience -> connections; not to be changed);
  - the match: `load()`, `submit(seat, command, move_id)`, `close()`;
  - a connection: `attach`, `detach`, `answer_resync`, `legal_pages`;
  - presence: `local_counts()`, `remote_presence(by_node)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from protocol import messages
from service.games import Game, IllegalMove, fold, get_game
from service.games.chance import commit_rng
from service.games.preamble import normalized
from service.match.clock import TurnClock
from service.match.committed import SYSTEM_MOVE_PREFIX, Busy, Committed, Stale
from service.match.delayed import DelayedSpectators
from service.match.fanout import FANOUT_CHUNK, Fanout, Watcher
from service.match.legal import LegalPages
from service.match.narration import commit_sentences, names_of
from service.match.presence import MatchPresence
from service.match.projection import Audience, Frame, Prepared, Projection
from service.match.ratings import Ratings
from service.match.seat_bots import SeatBots
from service.match.settle import FinishMark, usable_snapshot
from service.ops import logs, metrics
from service.store import Commit, Conflict, EventStore, LogRewound, MatchRecord, Rejected, StoreUnavailable
from service.store.base import EVENT_SCHEMA, REMEMBERED_REJECTIONS
from service.store.outage import Backoff

if TYPE_CHECKING:
    from service.match.webhooks import Webhooks

# (The session and the tests name these through the runtime, the module they talk to.)
__all__ = ["CLOSE_WAIT_S", "DECIDE_ATTEMPTS", "FANOUT_CHUNK", "REMEMBERED_REJECTIONS", "SNAPSHOT_EVERY",
           "SYSTEM_MOVE_PREFIX", "Busy", "Diverged", "MatchRuntime", "Stale", "diverged_message"]

log = logging.getLogger("teahouse.runtime")

SNAPSHOT_EVERY = 50
CLOSE_WAIT_S = 2.0
DECIDE_ATTEMPTS = 8
# Accepted move ids a snapshot carries: a client retries the moves it sent last, never one
# from a thousand commits ago.
SNAPSHOT_MOVE_IDS = 1024
# Every runtime on this node gets its own number: protocol v2 names matches by it in frames.
_REFS = itertools.count(1)


def diverged_message(match: str, seen: int, last: int) -> str:
    return (f"match {match}: the server's log lost commits (it ends at seq {last}, seq {seen} had been "
            f"played); play is stopped until an operator restores it")


class Diverged(Exception):
    """The match's log went backwards under this node: nothing more is decided on it until an
    operator has looked (docs/operators.md, "A log that went backwards")."""


class _Ahead:
    """A commit's fold, status and frames, made while its append is in flight (see
    MatchRuntime._append): `run` is called from the event loop; `drop` forgets all of it (the
    append failed), `drop_frames` only the frames (making them failed: they are made again
    after the append)."""

    __slots__ = ("runtime", "commit", "state", "status", "prepared", "dropped")

    def __init__(self, runtime: MatchRuntime, commit: Commit) -> None:
        self.runtime, self.commit = runtime, commit
        self.state: dict[str, Any] | None = None
        self.status: dict[str, Any] | None = None
        self.prepared: Prepared | None = None
        self.dropped = False

    def run(self) -> None:
        if self.dropped:
            return
        rt, c = self.runtime, self.commit
        try:
            self.state = fold(rt.game, c.events, rt.state, rt.record.rules_version)
            self.status = dict(rt.game.status(self.state))
            if c.seq == 1:
                return  # (the start commit's sentences need the seats' names read first: made after)
            said = commit_sentences(rt.game, c.seat, c.command, c.events, c.move_id, rt.names, self.state,
                                   self.status)
            self.prepared = rt.projection.prepare(self.state, c.seq, said, speculative=True, status=self.status)
            rt.fanout.encode_ahead(self.prepared.frames)
        except Exception:
            # Made again after the append: a failure there is the move's to report.
            log.debug("preparing commit %d of %s ahead failed", c.seq, rt.id, exc_info=True)
            self.drop_frames()

    def drop_frames(self) -> None:
        if self.prepared is not None:
            self.runtime.projection.discard(self.prepared)
            self.prepared = None

    def drop(self) -> None:
        self.dropped = True
        self.drop_frames()
        self.state = self.status = None


class MatchRuntime:
    def __init__(self, store: EventStore, record: MatchRecord, node: str = "local",
                 on_diverge: Callable[[str], None] | None = None,
                 on_finish: Callable[[str], None] | None = None, ratings: Ratings | None = None,
                 webhooks: Webhooks | None = None) -> None:
        """`on_diverge(match id)`: called once when this runtime finds its log went backwards
        (the lobby counts such matches for /health and the metrics). `on_finish(match id)`:
        called once the match is marked finished (the analysis queue). `ratings`: the node's
        ratings fold, whose changes a rated match's `finished` carries. `webhooks`: the node's,
        told every commit after the others (service/match/webhooks.py)."""
        self.store = store
        self.node = node
        self.record = record
        self.game: Game = get_game(record.game)
        self.state: dict[str, Any] = self.game.initial(record.options, record.players)
        self.status: dict[str, Any] = {}  # game.status(state), as of `seq` (set by load)
        self.seq = 0
        self.last_ts = 0  # the latest commit's time: the turn clock runs from it
        self.lock = asyncio.Lock()
        self.ref = next(_REFS)
        self.projection = Projection(self.game, record.id, self.ref)
        self._commits = metrics.COMMITS.labels(self.game.id)  # (looked up once, not per commit)
        # (seat, client move id) -> seq of the commit it produced: retries get the same ack.
        self.accepted: dict[tuple[int | None, str], int] = {}
        self._tail_task: asyncio.Task | None = None
        self.closed = False
        self.last_active = time.monotonic()
        self.diverged: dict[str, Any] | None = record.diverged
        self._on_diverge = on_diverge
        # The subscribers (see the module's docstring).
        self.fanout = Fanout()
        self.legal = LegalPages(record.id, self.game, lambda: self.names)
        self.finish = FinishMark(store, record, self.fanout, self.projection, on_finish, ratings)
        self.bots = SeatBots(self.game, record, self.submit)
        self.clock = TurnClock(self.game, record, self.fanout, self.submit, self.bots.play_for)
        self.presence = MatchPresence(record.id, node, record.players, self.fanout, self.projection)
        # A match with a spectator delay shows its spectators a projection of their own, behind.
        self.delayed = (DelayedSpectators(self.game, record, self.fanout, lambda: self.names, self.ref)
                        if record.spectator_delay else None)
        self.notices = webhooks.for_match(record) if webhooks is not None else None

    @property
    def idle(self) -> bool:
        """Nobody watches, nothing is being decided and no bot is due to move: the node may
        drop this cache."""
        return not self.fanout.watchers and not self.lock.locked() and not self.bots.due()

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def watchers(self) -> dict[Audience, set[Watcher]]:
        return self.fanout.watchers

    @property
    def watched(self) -> bool:
        return bool(self.fanout.watchers)

    # -- loading and following the log ----------------------------------------------------
    async def load(self) -> None:
        # The delayed spectators' position may lie before any snapshot: such a match folds its
        # whole log (and keeps the states the delay still holds back).
        snap = await self.store.load_snapshot(self.id) if self.delayed is None else None
        if snap is not None:
            self._restore(*snap)
        for c in await self.store.read(self.id, self.seq):
            self._fold_commit(c, fold(self.game, c.events, self.state, self.record.rules_version))
            if self.delayed is not None:
                self.delayed.loaded(c, self.state)
        self.status = dict(self.game.status(self.state))
        await self.finish.loaded(self.seq, self.status)
        self._tail_task = asyncio.create_task(self._follow(), name=f"tail {self.id}")
        at = Committed(self.seq, None, self.state, self.status, self.last_ts, {})
        if self.delayed is not None:
            self.delayed.on_commit(at)
        self.legal.on_commit(at)
        await self.clock.load(self.store)
        self.clock.on_commit(at)
        self.bots.on_commit(at)
        if self.notices is not None:
            self.notices.on_commit(at, self.finish.changes, self.clock.banks)

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
                # tail moves past them without waking this task.
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

    def _fold_commit(self, c: Commit, state: dict[str, Any]) -> None:
        """Move to `c`, whose events folded into `state`."""
        if c.seq != self.seq + 1:
            raise RuntimeError(f"{self.id}: commit {c.seq} after {self.seq}")
        self.state = state
        self.seq = c.seq
        self.last_ts = c.ts
        if c.move_id is not None:
            self.accepted[(c.seat, c.move_id)] = c.seq

    async def _apply(self, c: Commit, ahead: _Ahead | None = None) -> None:
        """Apply `c` (durable in the log): fold it, install its patches, and hand the commit to
        the subscribers. `ahead`: what was made while its append was in flight (submit)."""
        if c.seq <= self.seq:
            if ahead is not None:
                ahead.drop()
            return
        self.last_active = time.monotonic()
        state, status = (ahead.state, ahead.status) if ahead is not None else (None, None)
        if state is None or status is None:
            state = fold(self.game, c.events, self.state, self.record.rules_version)
            status = dict(self.game.status(state))
        # Moved on before any await: a commit this runtime appended is applied by the time its
        # append returns to submit, since its tail moves past it (store.tail's `own`).
        self._fold_commit(c, state)
        self.status = status
        prepared = ahead.prepared if ahead is not None else None
        if prepared is None:
            if c.seq == 1:
                await self._refresh_names()
            said = commit_sentences(self.game, c.seat, c.command, c.events, c.move_id, self.names, state, status)
            prepared = self.projection.prepare(state, c.seq, said, status=status)
        # (the projection keeps the previous status object while it says the same: the
        # documents shown from here on share it, and the next commit's diff settles it by identity)
        self.status = status = prepared.status
        done = Committed(c.seq, c, state, status, c.ts, self.projection.install(prepared))
        self.fanout.on_commit(done)
        if self.delayed is not None:
            self.delayed.on_commit(done)  # (released in full before a finish is announced)
        self.legal.on_commit(done)
        await self.finish.on_commit(done)
        if c.seq % SNAPSHOT_EVERY == 0:
            with contextlib.suppress(StoreUnavailable):  # a snapshot is a shortcut: the next one will do
                await self.store.save_snapshot(self.id, c.seq, self._snapshot())
        self.clock.on_commit(done)
        self.bots.on_commit(done)
        if self.notices is not None:
            self.notices.on_commit(done, self.finish.changes, self.clock.banks)

    # -- commands -------------------------------------------------------------------------
    async def submit(self, seat: int | None, command: dict[str, Any], move_id: str | None,
                     at_seq: int | None = None, decided_at: int | None = None,
                     players: list[str | None] | None = None) -> int:
        """Decide, append and apply one command; return its seq or raise IllegalMove/Busy.
        `at_seq`: the server's own moves (clock, bots) were chosen for that seq only.
        `decided_at`: a client's `at` (SPEC 4.5): the seq of the document it chose the move on;
        at any other seq the move is refused with Stale, unless its id was already committed
        (a retry gets its ack whatever it says). `players`: the start commit's player per seat."""
        key = (seat, move_id) if move_id is not None else None
        arrived = time.perf_counter()
        async with self.lock:
            if self.diverged is not None:
                raise Diverged(self.id)
            if key is not None and key in self.accepted:
                return self.accepted[key]
            if decided_at is not None and decided_at > self.seq:
                await self._catch_up()  # the client saw a commit this node has not read yet
                if key is not None and key in self.accepted:
                    return self.accepted[key]
            for _ in range(DECIDE_ATTEMPTS):
                if at_seq is not None and self.seq != at_seq:
                    raise Busy(f"{self.id}: at seq {self.seq}, not {at_seq}")
                if decided_at is not None and self.seq != decided_at:
                    raise Stale(self.id, decided_at, self.seq)
                try:
                    events = self.game.decide(self.state, seat, command, commit_rng(self.record.seed, self.seq + 1))
                except IllegalMove as exc:
                    if decided_at is not None and await self._behind_the_log():
                        # Refused by a position this node had not brought up to date: the
                        # client's `at` is behind the match, which is what it must hear.
                        await self._catch_up()
                        if key is not None and key in self.accepted:
                            return self.accepted[key]
                        raise Stale(self.id, decided_at, self.seq) from None
                    if key is not None:
                        # Remembered in the store, where every node looks (SPEC 3.5): a resend
                        # of this id gets this refusal, or the one remembered first.
                        code, message = await self.store.remember_rejection(self.id, *key, exc.code, exc.message)
                        # Another node may have committed this id (sent to it too) just before
                        # the refusal was stored, after which no node can: the log then answers.
                        await self._catch_up()
                        if key in self.accepted:
                            return self.accepted[key]
                        raise IllegalMove(code, message) from None
                    raise
                # The log keeps the command's declared fields only (the preamble refused any
                # other): what a client adds never becomes permanent. The move id stays, for
                # idempotent retries.
                c = Commit(seq=self.seq + 1, seat=seat, command=normalized(self.game.commands, seat, command),
                           events=events, move_id=move_id, ts=int(time.time() * 1000), players=players)
                try:
                    started = time.perf_counter()
                    ahead = await self._append(c)
                    metrics.APPEND_SECONDS.observe(time.perf_counter() - started)
                    self._commits.inc()
                except Rejected as exc:
                    # The id was refused before (on any node): the same answer, though the rules
                    # would take the move at this position.
                    raise IllegalMove(exc.code, exc.message) from None
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
                await self._apply(c, ahead)  # the patches are queued for every watcher here
                metrics.FANOUT_SECONDS.observe(time.perf_counter() - arrived)
                return c.seq
            raise Busy(f"{self.id}: gave up after {DECIDE_ATTEMPTS} conflicting appends")

    async def _behind_the_log(self) -> bool:
        """Whether another node has appended commits this one has not read yet (a shared store
        only; an unreachable store says no: the rules' answer then stands)."""
        if not self.store.shared:
            return False
        try:
            return await self.store.last_seq(self.id) > self.seq
        except StoreUnavailable:
            return False

    async def _append(self, c: Commit) -> _Ahead:
        """Append `c` to the log and, while the store has it in flight (the SQLite thread's
        fsync, the round trip to Redis: the loop would be idle), fold it and make its frames,
        so that once it is durable only sending them is left. Nothing of it is installed or
        sent here: if the append fails, what was made is dropped and the match is as it was."""
        ahead = _Ahead(self, c)
        # Both stores hand the append over (queued for the writer thread, written to the Redis
        # socket) before their first await that waits: a callback queued now runs once this
        # task waits there, after the append has started.
        handle = asyncio.get_running_loop().call_soon(ahead.run)
        try:
            await self.store.append(self.id, c, own=self)
        except BaseException:
            handle.cancel()
            ahead.drop()
            raise
        handle.cancel()
        return ahead

    def legal_pages(self, seat: int, page_size: int) -> list[Frame]:
        """The `legal_moves` answers for `seat` at this seq (service/match/legal.py)."""
        return self.legal.pages(seat, page_size)

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

    # -- watchers -------------------------------------------------------------------------
    def attach(self, watcher: Watcher, audience: Audience, since: int | None, reply: str = "join",
               ref: str | None = None) -> None:
        """Add a watcher and send it what it is missing: patches after `since`, or a full view.
        `reply` and `ref`: the request answered (join or spectate) and its `ref`, which the
        answer's last frame, its presence, carries (SPEC 3.3)."""
        self.last_active = time.monotonic()
        delayed = self.delayed if audience is None else None
        if delayed is not None:
            delayed.projection.watch(None, delayed.state, delayed.seq, delayed.status)
        else:
            self.projection.watch(audience, self.state, self.seq, self.status)
        self.fanout.add(watcher, audience)
        self._resync(watcher, audience, since)
        if self.record.finished:
            watcher.deliver(self.finish.frame(self.seq).encoded(watcher.encoding))
        clock = self.clock.frame(self.seq) if delayed is None else None  # (a deadline of the live position)
        if clock is not None:
            watcher.deliver(clock.encoded(watcher.encoding))
        # Presence ends the answer (SPEC 3.3), before the reply to the client's next request;
        # the others hear of the change at the coalesced flush.
        self.presence.tell(watcher, reply, ref)
        self.presence.changed()

    def answer_resync(self, watcher: Watcher, audience: Audience, since: int, ref: str | None = None) -> None:
        """A client's resync: what it missed (possibly nothing), then the current presence,
        which ends the answer, so that even an empty one is acknowledged (SPEC 3.7)."""
        self.fanout.flush()
        self._resync(watcher, audience, since)
        self.presence.tell(watcher, "resync", ref)

    def _projection_of(self, audience: Audience) -> Projection:
        return self.delayed.projection if self.delayed is not None and audience is None else self.projection

    def _resync(self, watcher: Watcher, audience: Audience, since: int | None) -> None:
        projection = self._projection_of(audience)
        frames = projection.since(audience, since, watcher.encoding) if since is not None else None
        if frames is None:
            frames = [projection.full(audience)]
        for f in frames:
            watcher.deliver(f.encoded(watcher.encoding))

    def detach(self, watcher: Watcher) -> None:
        self.last_active = time.monotonic()
        for audience in self.fanout.remove(watcher):
            self._projection_of(audience).unwatch(audience)
        self.presence.forget(watcher)

    def local_counts(self) -> tuple[list[int], int]:
        return self.fanout.counts(self.record.players)

    def remote_presence(self, by_node: dict[str, tuple[list[int], int]]) -> None:
        """The other nodes' counts for this match (the lobby polls them for all its matches at
        once, service/match/presence.py); watchers are told if the presence changed."""
        self.presence.remote(by_node)

    # -- a log that went backwards ----------------------------------------------------------------
    async def _diverge(self, last: int) -> None:
        """Stop: the store's log ends at `last`, below this node's seq. Building on the shorter
        log would fork the history clients have seen, so the match is marked `diverged` in the
        store (every node and the match summary see it), its watchers are told and let go."""
        if self.diverged is not None:
            return
        self.diverged = {"seen_seq": self.seq, "log_seq": last, "node": self.node, "ts": int(time.time() * 1000)}
        if self._on_diverge is not None:
            self._on_diverge(self.id)
        log.error("match %s: the log ends at seq %d but this node had seq %d: the store lost acknowledged "
                  "commits; the match is marked diverged (docs/operators.md)", self.id, last, self.seq)
        self.clock.stop()
        with contextlib.suppress(Exception):
            await self.store.mark_diverged(self.id, self.diverged)
        self.fanout.send_all(Frame(messages.error("diverged", diverged_message(self.id, self.seq, last), self.id,
                                                  self.id)))
        self.fanout.watchers.clear()
        self._stop()  # the lobby drops it; a new load sees the mark

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

    # -- closing --------------------------------------------------------------------------
    def _stop(self) -> None:
        self.closed = True
        if self.delayed is not None:
            self.delayed.stop()
        self.bots.stop()
        self.presence.closed = True

    async def close(self) -> None:
        self.fanout.flush()
        tasks = [t for t in (self._tail_task, self.clock.task, self.finish.task, *self.bots.tasks,
                             *(self.notices.tasks if self.notices is not None else ())) if t is not None]
        self._stop()
        for task in tasks:
            task.cancel()
        if tasks:
            # Bounded: a library that swallows a cancel must not hold a shutdown hostage.
            await asyncio.wait(tasks, timeout=CLOSE_WAIT_S)
        if self.store.shared:
            with contextlib.suppress(Exception):
                await self.store.publish_presence(self.id, self.node, [0] * self.record.players, 0)
