"""Players that keep score of what the server acknowledged, for the fault tests
(a Redis Cluster master killed mid-play; a node killed behind a load balancer) and for
bench/ops_failover.py, which prints the same figures.

A player plays random legal moves with its own move ids and remembers every ack. When the
server answers `store_unavailable` or `busy` it sends the same move (same id) again; when the
socket drops it reconnects (the SDK's `reconnect`, which joins again from its last seq) and
sends the same move again. Afterwards the log, read straight from the store, must hold every
acknowledged move id: one that is missing is an acknowledged move the store lost.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import websockets
from teahouse_client import TeahouseClient
from teahouse_client.client import Connection, MatchView, Rejected, ServerError

from service.store import EventStore, open_store

RETRYABLE = ("store_unavailable", "busy")
SOCKET_GONE = (ConnectionError, TimeoutError, OSError, websockets.ConnectionClosed, websockets.InvalidHandshake)


@dataclass
class Ledger:
    """What every player of a run saw."""

    # match -> move id -> (when it was first sent, when it was acknowledged)
    acked: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)  # error codes the server answered
    diverged: set[str] = field(default_factory=set)
    reconnects: list[float] = field(default_factory=list)  # seconds from losing a socket to joined again
    close_codes: Counter[int | None] = field(default_factory=Counter)  # of the sockets lost (None: no close frame)

    def count(self) -> int:
        return sum(len(m) for m in self.acked.values())


class Player:
    def __init__(self, client: TeahouseClient, match: str, token: str, ledger: Ledger, seed: int) -> None:
        self.client, self.match, self.token, self.ledger = client, match, token, ledger
        self.rng = random.Random(seed)
        self.conn: Connection | None = None
        self.view: MatchView | None = None
        self.ids = 0
        self.prefix = f"p{seed}"

    async def start(self) -> None:
        self.conn = await self.client.connect().open()
        self.view = await self.conn.join(self.match, self.token)

    async def play(self, stop: asyncio.Event, deadline: float) -> None:
        """Until the match is over, `stop` is set, or the match is diverged."""
        assert self.conn is not None and self.view is not None
        loop = asyncio.get_running_loop()
        while not stop.is_set() and self.match not in self.ledger.diverged:
            if loop.time() > deadline:
                raise TimeoutError(f"{self.match}: still playing at the deadline")
            try:
                await self.view.wait_for(lambda g: g.over or g.my_turn, timeout=0.5)
            except TimeoutError:
                continue
            except SOCKET_GONE:
                await self._reconnect(stop, deadline)
                continue
            if self.view.over:
                return
            await self._one_move(stop, deadline)

    async def _one_move(self, stop: asyncio.Event, deadline: float) -> None:
        assert self.conn is not None and self.view is not None
        seq = self.view.seq
        try:
            moves = await self.conn.legal_moves(self.match)
        except SOCKET_GONE:
            await self._reconnect(stop, deadline)
            return
        except ServerError as exc:
            self._note(exc)
            return
        if not moves:
            return
        move = self.rng.choice(moves)
        self.ids += 1
        move_id = f"{self.prefix}-{self.ids}"
        sent = time.monotonic()
        while not stop.is_set():
            try:
                await self.conn.move(self.match, move, move_id)
            except Rejected:
                return  # the state moved on (the same move already counted, or another seat acted)
            except ServerError as exc:
                self._note(exc)
                if exc.code in RETRYABLE:
                    await asyncio.sleep(0.2)
                    continue
                return
            except SOCKET_GONE:
                await self._reconnect(stop, deadline)
                continue  # the same move id again: answered once, whether or not it landed
            self.ledger.acked.setdefault(self.match, {})[move_id] = (sent, time.monotonic())
            try:
                await self.view.wait_for(lambda g: g.seq > seq or g.over, timeout=10)
            except (TimeoutError, *SOCKET_GONE):
                pass  # the loop looks again (and reconnects if the socket is gone)
            return

    def _note(self, exc: ServerError) -> None:
        self.ledger.errors[exc.code] += 1
        if exc.code == "diverged":
            self.ledger.diverged.add(self.match)

    async def _reconnect(self, stop: asyncio.Event, deadline: float) -> None:
        """Reconnect (through whatever the URL points at) until joined again."""
        assert self.conn is not None and self.view is not None
        lost = time.monotonic()
        closed = self.conn.closed
        if closed is not None:
            await asyncio.wait([closed], timeout=1)  # the SDK notes the close code just after the loss
        self.ledger.close_codes[closed.result()[0] if closed is not None and closed.done() else None] += 1
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            if loop.time() > deadline:
                raise TimeoutError(f"{self.match}: could not reconnect by the deadline")
            try:
                self.view.presence = None  # presence ends the answer to the join (SPEC 3.3)
                await self.conn.reconnect()
                # joined again once the view (or a patch past it) arrives on the new socket
                await self.view.wait_for(lambda g: g.presence is not None, timeout=5)
                self.ledger.reconnects.append(time.monotonic() - lost)
                return
            except SOCKET_GONE:
                await asyncio.sleep(0.2)

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()


async def seat_players(client: TeahouseClient, match: str, players: int, ledger: Ledger,
                       seed: int) -> list[Player]:
    out = []
    for i in range(players):
        token = (await client.take_seat(match, name=f"p{i}"))["token"]
        out.append(Player(client, match, token, ledger, seed * 10 + i))
    for p in out:
        await p.start()
    return out


class Run:
    """`matches` matches of `game` played by SDK players until `finish`; `until` waits for a
    condition meanwhile, failing with the first player's error or at the deadline."""

    def __init__(self, client: TeahouseClient, game: str, players: int, matches: int, timeout: float) -> None:
        self.client, self.game, self.seats, self.count = client, game, players, matches
        self.ledger = Ledger()
        self.ids: list[str] = []
        self.players: list[Player] = []
        self.timeout = timeout
        self.stop = asyncio.Event()
        self.tasks: list[asyncio.Task] = []

    async def start(self) -> None:
        self.ids = [(await self.client.create_match(self.game, self.seats))["match"] for _ in range(self.count)]
        for i, m in enumerate(self.ids):
            self.players += await seat_players(self.client, m, self.seats, self.ledger, seed=i)
        self.deadline = asyncio.get_running_loop().time() + self.timeout
        self.tasks = [asyncio.create_task(p.play(self.stop, self.deadline)) for p in self.players]

    async def until(self, predicate: Callable[[], object], what: str) -> None:
        loop = asyncio.get_running_loop()
        while not predicate():
            for t in self.tasks:
                if t.done() and t.exception() is not None:
                    raise t.exception()  # type: ignore[misc]
            if loop.time() > self.deadline:
                raise TimeoutError(what)
            await asyncio.sleep(0.05)

    def first_ack_sent_after(self, match: str, since: float) -> float | None:
        """When the first move of `match` sent after `since` was acknowledged (None: not yet)."""
        return min((acked for sent, acked in self.ledger.acked.get(match, {}).values() if sent > since), default=None)

    async def finish(self) -> None:
        self.stop.set()
        await asyncio.gather(*self.tasks)

    async def close(self) -> None:
        for p in self.players:
            await p.close()


async def lost_moves(store: EventStore, ledger: Ledger) -> dict[str, list[str]]:
    """Acknowledged move ids the log does not hold, per match."""
    lost: dict[str, list[str]] = {}
    for match, acked in ledger.acked.items():
        logged = {c.move_id for c in await store.read(match)}
        missing = sorted(set(acked) - logged)
        if missing:
            lost[match] = missing
    return lost


async def count_lost(store_url: str, ledger: Ledger) -> int:
    """How many acknowledged moves the store at `store_url` no longer holds."""
    store = open_store(store_url)
    try:
        return sum(len(v) for v in (await lost_moves(store, ledger)).values())
    finally:
        await store.close()


def tracebacks(*logs: str) -> list[str]:
    """Each traceback in the logs (to its first line that does not start with a space)."""
    out = []
    for text in logs:
        for chunk in text.split("Traceback (most recent call last):")[1:]:
            lines = chunk.splitlines()
            end = next((i for i, line in enumerate(lines[1:], 1) if line and not line.startswith(" ")), len(lines) - 1)
            out.append("\n".join(lines[:end + 1]))
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
