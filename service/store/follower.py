"""One tail of a Redis stream (RedisStore.tail): the last seq it has, the queue its commits
wait in, and the append its own reader has in flight.

The node's readers (service/store/redis_follow.py on one Redis, redis_cluster_follow.py on a
cluster) bring every entry of the stream, this node's own appends included: our XADD wakes our
own blocking XREAD. A commit the tail's reader appended itself (`own`, see EventStore.tail) is
applied by that reader, so the tail moves past it: never decoded, never queued, no wake-up
(bench/platform_store_tail.py counts the decodes). Which entry is the reader's own is known two ways, whichever comes first:

- the append returned: the tail, right behind it, moves to its seq (`appended`), and the
  entry, when the reader brings it, is at or below `after`;
- the reader brings the entry while the append still waits for its reply: it is ours if its
  bytes are the ones being appended (`expected`). Should that append then fail after all (its
  reply lost with the connection), the commit is in the log and the tail hands it over.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterable
from typing import Any

from service.store.base import Commit, LogRewound


class Follower:
    """One tail: its stream key, the last seq it has, and where its entries are queued."""

    __slots__ = ("key", "after", "own", "queue", "expected", "passed")

    def __init__(self, key: str, after: int, own: object = None) -> None:
        self.key = key
        self.after = after
        self.own = own
        self.queue: asyncio.Queue[list[Commit] | LogRewound] = asyncio.Queue()
        # The append its own reader has in flight (seq, entry bytes), and whether the stream
        # reader already moved past that entry as ours.
        self.expected: tuple[int, bytes] | None = None
        self.passed = False

    def offer(self, commits: list[Commit]) -> None:
        """Queue the commits this follower does not have yet (readers may overlap)."""
        fresh = [c for c in commits if c.seq > self.after]
        if fresh:
            self.after = fresh[-1].seq
            self.queue.put_nowait(fresh)

    def check_top(self, last: int, had: int) -> None:
        """The stream's top, read after this follower was at `had`, is `last`: below `had`, the
        store lost commits. The position from before the read is the one to compare: the node's
        own append may be answered, and move `after` past the top the read saw, while the read's
        reply is on its way."""
        if last < had:
            self.queue.put_nowait(LogRewound(self.key, had, last))

    def expect(self, seq: int, data: bytes) -> None:
        """Its reader is appending `data` as `seq`."""
        self.expected, self.passed = (seq, data), False

    def appended(self, commit: Commit, ok: bool) -> None:
        """Its reader's append of `commit` returned (ok) or failed."""
        mine = self.expected is not None and self.expected[0] == commit.seq
        passed = self.passed and mine
        if mine:  # (one append is tracked at a time: a later expect() replaced an earlier one)
            self.expected, self.passed = None, False
        if ok:
            if self.after == commit.seq - 1:
                self.after = commit.seq  # not brought yet: passed without decoding when it is
        elif passed:
            # Taken for ours, but the append failed (a lost reply): the entry is in the log
            # all the same, and its reader does not have it.
            self.queue.put_nowait([commit])

    async def commits(self) -> AsyncGenerator[Commit, None]:
        while True:
            item = await self.queue.get()
            if isinstance(item, LogRewound):
                raise item
            for c in item:
                yield c


def _value(fields: Any) -> bytes:
    """An entry's commit bytes: fields as a map (RESP3) or a flat list (RESP2)."""
    if isinstance(fields, dict):
        return fields[b"c"]
    return dict(zip(fields[::2], fields[1::2], strict=True))[b"c"]


def entry_commits(entries: list[Any]) -> list[Commit]:
    """XRANGE / XREAD entries ([id, [field, value, ...]] or [id, {field: value}]) as commits."""
    return [Commit.unpack(_value(fields)) for _id, fields in entries]


def offer_entries(followers: Iterable[Follower], entries: list[Any]) -> None:
    """Hand each follower the entries of its stream that it does not have, in order: each one
    decoded once, and only if a follower needs it (not at or below its seq, not its own)."""
    parsed = [(int(entry_id.split(b"-", 1)[0]), fields) for entry_id, fields in entries]
    decoded: dict[int, Commit] = {}
    for f in followers:
        fresh: list[Commit] = []
        for seq, fields in parsed:
            if seq <= f.after:
                continue
            expected = f.expected
            if expected is not None and expected[0] == seq == f.after + 1 and _value(fields) == expected[1]:
                f.after, f.passed = seq, True  # its own append, still waiting for its reply
                continue
            c = decoded.get(seq)
            if c is None:
                c = decoded[seq] = Commit.unpack(_value(fields))
            fresh.append(c)
            f.after = seq
        if fresh:
            f.queue.put_nowait(fresh)
