from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from service.store import Conflict, open_store
from tests.store.contract import StoreContract, commit


class TestRedisStore(StoreContract):
    @pytest.fixture
    async def store(self, redis_url):
        s = open_store(redis_url)
        yield s
        await s.close()


async def test_layout_is_a_stream_per_match_with_seq_ids(redis_url):
    s = open_store(redis_url)
    for seq in (1, 2):
        await s.append("abc", commit(seq))
    r = aioredis.Redis.from_url(redis_url)
    entries = await r.xrange("th:{abc}:log")
    assert [e[0] for e in entries] == [b"1-0", b"2-0"]
    info = await r.xinfo_stream("th:{abc}:log")
    assert info["length"] == 2
    await r.aclose()
    await s.close()


async def test_cancelled_tail_does_not_poison_other_calls(redis_url):
    s = open_store(redis_url)
    await s.append("c", commit(1))

    async def reader():
        async for _ in s.tail("c", after=1):
            pass

    task = asyncio.create_task(reader())
    await asyncio.sleep(0.2)  # blocked in XREAD now
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await s.append("c", commit(2))
    assert [c.seq for c in await s.read("c")] == [1, 2]
    await s.close()


async def test_wait_replicas_waits_then_acknowledges_and_counts_a_timeout(redis_url):
    """WAIT 1 on a Redis without replicas: the append still lands and is acknowledged after
    wait_timeout_ms, and the timeout is counted (Limits.wait_replicas)."""
    import time

    s = open_store(redis_url, wait_replicas=1, wait_timeout_ms=200)
    t = time.monotonic()
    await s.append("w", commit(1))
    assert time.monotonic() - t >= 0.19, "the ack waited for the replica"
    assert s.wait_timeouts == 1
    with pytest.raises(Conflict):
        await s.append("w", commit(1))
    assert [c.seq for c in await s.read("w")] == [1]
    await s.close()
