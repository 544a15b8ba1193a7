"""One node's readers of many match streams: a few blocking XREADs instead of one per match.

A node follows the stream of every match its clients watch. One blocking XREAD per stream
meant one Redis connection per followed match (a single socket spectating thousands of matches
held thousands, against Redis's 10,000 clients for every node together). Here the streams are
shared out to groups of at most GROUP_SIZE, each read by ONE blocking `XREAD ... STREAMS k1 k2
...` on a connection of its own (service/store/resp.py); a new stream joins its group by
unblocking that read (`CLIENT UNBLOCK`), which is then sent again with the new key. The
connections a node holds for tailing are ceil(followed streams / GROUP_SIZE).

A stream whose top falls below what a follower has seen (Redis lost acknowledged writes) is
reported to that follower as `LogRewound`: checked every REWIND_CHECK_S, since a blocking read
past the top of a stream would otherwise just wait for ever.

While Redis is unreachable a group tries to reconnect with a growing wait (up to 2 s), quietly:
the store's reachability says once that it is down. Its followers keep their place, and the
first XREAD after the reconnection brings every commit they missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator
from typing import Any

from service.store import resp
from service.store.base import Commit
from service.store.follower import Follower, offer_entries
from service.store.outage import Backoff, Reachability
from service.store.redis_errors import unreachable

log = logging.getLogger("teahouse.store.redis")

GROUP_SIZE = 256
BLOCK_MS = 5000
REWIND_CHECK_S = 5.0
_UNBLOCK_RETRY_S = 0.05


class _Group:
    """Up to GROUP_SIZE streams read by one blocking XREAD on one connection."""

    def __init__(self, pool: Any, reachability: Reachability) -> None:
        self.pool = pool
        self.timeout = resp.reply_timeout(pool)
        self.reachability = reachability
        self.backoff = Backoff()
        self.followers: dict[str, set[Follower]] = {}
        self.generation = 0  # bumped by every change of the key set
        self.sent_generation = -1  # the key set of the XREAD in flight
        self.client_id: int | None = None
        self.conn: Any = None
        self.task: asyncio.Task | None = None
        self.last_check = time.monotonic()
        self.closed = False

    def size(self) -> int:
        return len(self.followers)

    async def run(self) -> None:
        while not self.closed:
            try:
                await self._read_forever()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the connection broke: a new one, the followers keep their place
                if self.closed:
                    return  # closed under a read (redis-py may swallow the cancel)
                if unreachable(exc):
                    self.reachability.failed(exc)
                else:
                    log.warning("stream reader failed (%s); reconnecting", exc)
                await self._drop()
                await asyncio.sleep(self.backoff.delay())

    async def _read_forever(self) -> None:
        self.conn = resp.own_connection(self.pool)
        await self.conn.connect()
        await resp.send(self.conn, "CLIENT", "ID")
        self.client_id = int(await resp.reply(self.conn, self.timeout))
        self.reachability.ok()
        self.backoff.reset()
        while not self.closed:
            if not self.followers:
                self.sent_generation = self.generation
                await asyncio.sleep(0.05)
                continue
            keys = list(self.followers)
            ids = [f"{min(f.after for f in self.followers[k])}-0" for k in keys]
            self.sent_generation = self.generation
            await resp.send(self.conn, "XREAD", "COUNT", 500, "BLOCK", BLOCK_MS, "STREAMS", *keys, *ids)
            # Redis answers a blocking XREAD within BLOCK_MS (nil if nothing came): later than
            # that plus a reply's deadline, the connection is dead.
            reply = await resp.reply(self.conn, BLOCK_MS / 1000 + self.timeout)
            self._dispatch(reply)
            if time.monotonic() - self.last_check >= REWIND_CHECK_S:
                await self._check_rewound()

    def _dispatch(self, reply: Any) -> None:
        # RESP3 answers a map of streams, RESP2 a list of [stream, entries] pairs; None: timeout
        # or unblocked.
        pairs = reply.items() if isinstance(reply, dict) else (reply or [])
        for key, entries in pairs:
            name = key.decode() if isinstance(key, bytes) else key
            offer_entries(list(self.followers.get(name, ())), entries)

    async def _check_rewound(self) -> None:
        """A stream whose top is below what a follower has: Redis lost acknowledged writes."""
        self.last_check = time.monotonic()
        keys = list(self.followers)
        for key in keys:
            had = {f: f.after for f in self.followers.get(key, ())}
            await resp.send(self.conn, "XREVRANGE", key, "+", "-", "COUNT", 1)
            top = await resp.reply(self.conn, self.timeout)
            last = int(top[0][0].split(b"-")[0]) if top else 0
            for f, seq in had.items():
                f.check_top(last, seq)

    async def add(self, f: Follower, unblocker: Any) -> None:
        self.followers.setdefault(f.key, set()).add(f)
        await self._refresh(unblocker)

    async def remove(self, f: Follower, unblocker: Any) -> None:
        group = self.followers.get(f.key)
        if group is not None:
            group.discard(f)
            if not group:
                del self.followers[f.key]
        # no need to wake the reader: an extra key in its XREAD costs nothing until it answers

    async def _refresh(self, unblocker: Any) -> None:
        """Make the reader send its XREAD again with the current key set."""
        self.generation += 1
        want = self.generation
        while self.sent_generation < want and self.task is not None and not self.task.done() and not self.closed:
            if self.client_id is not None:
                with contextlib.suppress(Exception):
                    await unblocker.execute_command("CLIENT", "UNBLOCK", self.client_id)
            await asyncio.sleep(_UNBLOCK_RETRY_S)

    async def _drop(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                await self.conn.disconnect(nowait=True)
        self.conn, self.client_id = None, None

    async def close(self) -> None:
        """Stop reading. The socket is dropped first: a read cancelled inside redis-py may
        otherwise wait for a reply that never comes (redis-py can swallow the cancellation)."""
        self.closed = True
        task, self.task = self.task, None
        if task is not None:
            task.cancel()
        await self._drop()
        if task is not None:
            await asyncio.wait([task], timeout=2)


class StreamReaders:
    """The node's stream readers; `follow` is what RedisStore.tail hands out."""

    def __init__(self, pool: Any, client: Any, reachability: Reachability) -> None:
        self.pool = pool
        self.client = client  # a pooled client, for CLIENT UNBLOCK
        self.reachability = reachability
        self.groups: list[_Group] = []

    @property
    def connections(self) -> int:
        return sum(1 for g in self.groups if g.conn is not None)

    def _group_for(self, key: str) -> _Group:
        for g in self.groups:
            if key in g.followers:
                return g
        for g in self.groups:
            if g.size() < GROUP_SIZE:
                return g
        g = _Group(self.pool, self.reachability)
        g.task = asyncio.create_task(g.run(), name="redis stream reader")
        self.groups.append(g)
        return g

    def own_followers(self, key: str, own: object) -> list[Follower]:
        """The followers of `key` whose reader is `own` (an append of theirs is under way)."""
        for g in self.groups:
            if key in g.followers:
                return [f for f in g.followers[key] if f.own is own]
        return []

    async def follow(self, key: str, after: int, own: object = None) -> AsyncGenerator[Commit, None]:
        f = Follower(key, after, own)
        group = self._group_for(key)
        await group.add(f, self.client)
        try:
            async with contextlib.aclosing(f.commits()) as commits:
                async for c in commits:
                    yield c
        finally:
            await group.remove(f, self.client)
            if not group.followers and group in self.groups:
                self.groups.remove(group)
                await group.close()

    async def close(self) -> None:
        for g in self.groups:
            await g.close()
        self.groups.clear()
