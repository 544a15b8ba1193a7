"""One node's readers of many match streams on Redis Cluster.

On a single Redis a node shares a few blocking `XREAD`s over all the streams it follows
(service/store/redis_follow.py). On a cluster that cannot work: the streams of one XREAD must
share a hash slot, and every match has a slot of its own. So a node learns of new commits
from sharded pub/sub instead: the append script also does `SPUBLISH th:{M}:tick <seq>` (the
channel shares the match's slot, so the script touches one slot), and the node holds ONE
subscriber connection per master, on which it `SSUBSCRIBE`s the tick channel of every match it
follows (one command per channel: channels of different slots may share a connection, not a
command). A tick makes the node read the stream after what its followers have (`XRANGE`,
through the cluster client, which follows MOVED).

Pub/sub forgets: a message sent while a subscriber reconnects is gone. So the streams are
read (a) once a subscription is confirmed, (b) after every reconnect, and (c) every POLL_S
anyway, which is also when a stream whose top fell below a follower's seq is reported as
`LogRewound` (a failover to a replica that had not received the latest commits).

Failover and resharding: a subscriber whose connection breaks, or that is told `sunsubscribe`
(its slot moved away), makes the node heal: reload the topology, subscribe every channel
again on its current owner, read every stream. Healing retries with backoff until it works.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncGenerator
from typing import Any

from redis.asyncio import Connection

from service.store.base import Commit
from service.store.follower import Follower, offer_entries

log = logging.getLogger("teahouse.store.redis_cluster")

POLL_S = 2.0
READ_COUNT = 500
READERS = 16  # streams read at once after a tick storm or a heal
SUBSCRIBE_TIMEOUT_S = 3.0
HEAL_BACKOFF_S = (0.1, 0.2, 0.4, 0.8, 1.0)


def tick_channel(stream_key: str) -> str:
    """`th:{M}:log` -> `th:{M}:tick`: same hash tag, same slot."""
    return stream_key.rsplit(":", 1)[0] + ":tick"


def stream_of(channel: str) -> str:
    return channel.rsplit(":", 1)[0] + ":log"


class _Subscriber:
    """One connection to one master, subscribed to the tick channels of the streams it owns."""

    def __init__(self, host: str, port: int, on_tick: Any, on_lost: Any) -> None:
        self.host, self.port = host, port
        # RESP2: messages are plain replies here (RESP3 would route them to a push handler).
        self.conn = Connection(host=host, port=port, protocol=2, socket_connect_timeout=2, socket_timeout=5)
        self.channels: set[str] = set()
        self.confirmations: dict[str, asyncio.Future[None]] = {}
        self._on_tick, self._on_lost = on_tick, on_lost
        self.task: asyncio.Task | None = None
        self.started: asyncio.Future[None] | None = None
        self.closed = False

    async def start(self) -> None:
        await self.conn.connect()
        if self.closed:
            return
        self.task = asyncio.create_task(self._read(), name=f"cluster ticks {self.host}:{self.port}")

    async def subscribe(self, channel: str) -> None:
        """SSUBSCRIBE and wait until Redis confirms: only then is a tick sure to arrive."""
        fut = self.confirmations.setdefault(channel, asyncio.get_running_loop().create_future())
        await self.conn.send_command("SSUBSCRIBE", channel)
        await asyncio.wait_for(asyncio.shield(fut), SUBSCRIBE_TIMEOUT_S)
        self.channels.add(channel)

    async def unsubscribe(self, channel: str) -> None:
        self.channels.discard(channel)
        if self.closed:
            return  # (a command on a closed connection would open it again)
        with contextlib.suppress(Exception):
            await self.conn.send_command("SUNSUBSCRIBE", channel)

    async def _read(self) -> None:
        try:
            while not self.closed:
                msg = await self.conn.read_response(timeout=math.inf)
                kind, channel = msg[0], msg[1].decode()
                if kind == b"smessage":
                    self._on_tick(channel, msg[2])
                elif kind == b"ssubscribe":
                    fut = self.confirmations.pop(channel, None)
                    if fut is not None and not fut.done():
                        fut.set_result(None)
                elif kind == b"sunsubscribe" and channel in self.channels:
                    # Not asked for: the slot moved to another node (resharding, failover).
                    self.channels.discard(channel)
                    self._on_lost(f"{channel} moved away from {self.host}:{self.port}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not self.closed:
                self._on_lost(f"subscriber {self.host}:{self.port} failed ({type(exc).__name__}: {exc})")
        finally:
            for fut in self.confirmations.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("the subscriber connection was lost"))
                    fut.exception()

    async def close(self) -> None:
        self.closed = True
        with contextlib.suppress(Exception):
            await self.conn.disconnect(nowait=True)
        if self.task is not None:
            self.task.cancel()
            await asyncio.wait([self.task], timeout=2)


class ClusterFollowers:
    """The node's followers of match streams on a cluster; `follow` is what ClusterStore.tail
    hands out. `client` is the store's redis.asyncio.RedisCluster."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.followers: dict[str, set[Follower]] = {}
        self.subscribers: dict[str, _Subscriber] = {}  # by node name
        self.owner: dict[str, str] = {}  # channel -> node name it is subscribed on
        self.dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._healing: asyncio.Task | None = None
        self._tasks = [asyncio.create_task(self._reader(), name="cluster stream reader"),
                       asyncio.create_task(self._poll(), name="cluster stream poll")]
        self._rewind_check: set[str] = set()
        self._reads: set[asyncio.Task] = set()
        self.closed = False

    @property
    def connections(self) -> int:
        return len(self.subscribers)

    def own_followers(self, key: str, own: object) -> list[Follower]:
        """The followers of `key` whose reader is `own` (an append of theirs is under way)."""
        return [f for f in self.followers.get(key, ()) if f.own is own]

    async def follow(self, key: str, after: int, own: object = None) -> AsyncGenerator[Commit, None]:
        f = Follower(key, after, own)
        first = key not in self.followers
        self.followers.setdefault(key, set()).add(f)
        try:
            if first:
                await self._subscribe(tick_channel(key))
            self._mark(key)  # what landed before the subscription was confirmed
            async with contextlib.aclosing(f.commits()) as commits:
                async for c in commits:
                    yield c
        finally:
            group = self.followers.get(key)
            if group is not None:
                group.discard(f)
                if not group:
                    del self.followers[key]
                    if not self.closed:
                        await self._unsubscribe(tick_channel(key))

    # -- subscriptions ------------------------------------------------------------------------
    async def _subscribe(self, channel: str) -> None:
        """Subscribe on the channel's owner; if that fails, healing will (the stream is still
        read every POLL_S meanwhile)."""
        try:
            await self.client.initialize()  # the slot map, once (a no-op when the client has it)
            node = self.client.get_node_from_key(channel)
            sub = await self._subscriber(node.host, node.port, node.name)
            await sub.subscribe(channel)
            self.owner[channel] = node.name
        except Exception as exc:
            self._lost(f"subscribing {channel} failed ({type(exc).__name__}: {exc})")

    async def _unsubscribe(self, channel: str) -> None:
        name = self.owner.pop(channel, None)
        sub = self.subscribers.get(name) if name is not None else None
        if sub is not None:
            await sub.unsubscribe(channel)

    async def _subscriber(self, host: str, port: int, name: str) -> _Subscriber:
        """The node's subscriber, connected (followers arriving together share its start)."""
        sub = self.subscribers.get(name)
        if sub is None or sub.closed:
            sub = _Subscriber(host, port, self._tick, self._lost)
            self.subscribers[name] = sub
            sub.started = asyncio.ensure_future(sub.start())
        assert sub.started is not None
        try:
            await asyncio.shield(sub.started)
        except BaseException:
            if self.subscribers.get(name) is sub:
                del self.subscribers[name]
            await sub.close()
            raise
        return sub

    def _lost(self, why: str) -> None:
        if self.closed:
            return
        if self._healing is None or self._healing.done():
            log.warning("cluster tail: %s; resubscribing", why)
            self._healing = asyncio.create_task(self._heal(), name="cluster tail heal")

    async def _heal(self) -> None:
        """Start over: fresh topology, every channel subscribed on its owner, every stream read."""
        for attempt in range(1_000_000):
            await asyncio.sleep(HEAL_BACKOFF_S[min(attempt, len(HEAL_BACKOFF_S) - 1)])
            if self.closed:
                return
            subs, self.subscribers, self.owner = list(self.subscribers.values()), {}, {}
            for sub in subs:
                await sub.close()
            try:
                await self.client.nodes_manager.initialize()
                for key in list(self.followers):
                    channel = tick_channel(key)
                    node = self.client.get_node_from_key(channel)
                    sub = await self._subscriber(node.host, node.port, node.name)
                    await sub.subscribe(channel)
                    self.owner[channel] = node.name
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.info("cluster tail: healing failed (%s: %s); retrying", type(exc).__name__, exc)
                continue
            for key in self.followers:
                self._mark(key)
            log.warning("cluster tail: resubscribed %d streams on %d nodes", len(self.owner), len(self.subscribers))
            return

    # -- reading -----------------------------------------------------------------------------
    def _tick(self, channel: str, seq: bytes) -> None:
        """A commit `seq` landed: read the stream, unless every follower has it already (the
        node's own appends: their tails moved past them when the append returned)."""
        key = stream_of(channel)
        followers = self.followers.get(key)
        if followers and int(seq) <= min(f.after for f in followers):
            return
        self._mark(key)

    def _mark(self, key: str) -> None:
        self.dirty.add(key)
        self._wake.set()

    async def _poll(self) -> None:
        while not self.closed:
            await asyncio.sleep(POLL_S)
            self._rewind_check.update(self.followers)
            for key in self.followers:
                self._mark(key)

    async def _reader(self) -> None:
        gate = asyncio.Semaphore(READERS)
        while not self.closed:
            await self._wake.wait()
            self._wake.clear()
            keys, self.dirty = self.dirty, set()
            for key in keys:
                await gate.acquire()
                task = asyncio.create_task(self._read(key))
                self._reads.add(task)
                task.add_done_callback(self._reads.discard)
                task.add_done_callback(lambda _: gate.release())

    async def _read(self, key: str) -> None:
        followers = self.followers.get(key)
        if not followers:
            return
        after = min(f.after for f in followers)
        try:
            entries = await self.client.xrange(key, f"({after}-0", "+", count=READ_COUNT)
            if entries:
                offer_entries(list(followers), entries)
                if len(entries) == READ_COUNT:
                    self._mark(key)
            elif key in self._rewind_check:
                self._rewind_check.discard(key)
                had = {f: f.after for f in followers}
                top = await self.client.xrevrange(key, "+", "-", count=1)
                last = int(top[0][0].split(b"-")[0]) if top else 0
                for f, seq in had.items():
                    f.check_top(last, seq)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # failing over: read again soon (the poll would, later)
            log.info("cluster tail: reading %s failed (%s); again shortly", key, type(exc).__name__)
            await asyncio.sleep(0.25)
            self._mark(key)

    async def close(self) -> None:
        self.closed = True
        tasks = [t for t in (*self._tasks, self._healing, *self._reads) if t is not None]
        for t in tasks:
            t.cancel()
        for sub in self.subscribers.values():
            await sub.close()
        self.subscribers.clear()
        if tasks:
            await asyncio.wait(tasks, timeout=2)

