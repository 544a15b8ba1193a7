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

    @pytest.fixture
    async def twin(self, redis_url):
        s = open_store(redis_url)  # another node on the same Redis
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

    from service.ops import metrics

    def counted() -> float:
        return metrics.REGISTRY.get_sample_value("teahouse_wait_timeouts_total") or 0.0

    before = counted()
    s = open_store(redis_url, wait_replicas=1, wait_timeout_ms=200)
    t = time.monotonic()
    await s.append("w", commit(1))
    assert time.monotonic() - t >= 0.19, "the ack waited for the replica"
    assert s.wait_timeouts == 1
    assert counted() == before + 1, "counted in /metrics"
    with pytest.raises(Conflict):
        await s.append("w", commit(1))
    assert [c.seq for c in await s.read("w")] == [1]
    await s.close()


async def test_wait_replicas_acknowledges_once_a_real_replica_holds_the_commit(tmp_path):
    """WAIT 1 with a replica attached: the append returns well before the timeout, counts no
    timeout, and the replica already has the commit when it does."""
    import contextlib
    import shutil
    import subprocess
    import time

    from redis.exceptions import ConnectionError as RedisConnectionError

    from tests.support.redis_server import RedisServer, free_port

    primary = RedisServer(tmp_path)
    primary.start()
    port = free_port()
    (tmp_path / "replica").mkdir()
    replica = subprocess.Popen(
        [shutil.which("redis-server"), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path / "replica"),
         "--save", "", "--replicaof", "127.0.0.1", str(primary.port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = aioredis.Redis(port=port)
    s = open_store(primary.url, wait_replicas=1, wait_timeout_ms=5000)
    try:
        deadline = time.monotonic() + 15
        while True:  # the replica's process may not listen yet, then it syncs
            with contextlib.suppress(RedisConnectionError):
                if (await r.info("replication")).get("master_link_status") == "up":
                    break
            assert time.monotonic() < deadline, "the replica did not sync"
            await asyncio.sleep(0.1)
        for seq in (1, 2, 3):
            t = time.monotonic()
            await s.append("rep", commit(seq))
            assert time.monotonic() - t < 2.5, "acknowledged by the replica, not by the timeout"
            assert len(await r.xrange("th:{rep}:log")) == seq, "the replica holds it at the ack"
        assert s.wait_timeouts == 0
    finally:
        await s.close()
        await r.aclose()
        replica.terminate()
        replica.wait(10)
        primary.stop()


async def test_an_own_append_whose_reply_is_lost_still_reaches_the_tail(redis_url):
    """The entry lands and our reader brings it (taken for the appender's own), then the
    append's reply is lost with its connection: the append fails, so its appender does not
    have the commit, and the tail must hand it over after all."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from service.store import StoreUnavailable

    s = open_store(redis_url)
    me = object()
    got: asyncio.Queue[int] = asyncio.Queue()

    async def reader() -> None:
        async for c in s.tail("lost", after=0, own=me):
            await got.put(c.seq)

    task = asyncio.create_task(reader())
    real = s._appender.evalsha

    async def reply_lost(*args, **kwargs):
        await real(*args, **kwargs)
        await asyncio.sleep(0.3)  # our reader has brought the entry by now
        raise RedisConnectionError("connection lost before the reply was read")

    try:
        await asyncio.sleep(0.3)
        await s.append("lost", commit(1), own=me)
        s._appender.evalsha = reply_lost
        with pytest.raises(StoreUnavailable):
            await s.append("lost", commit(2), own=me)
        assert [c.seq for c in await s.read("lost")] == [1, 2]
        assert await asyncio.wait_for(got.get(), 5) == 2
        assert got.empty()
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await s.close()


async def test_the_append_checks_the_top_of_a_stream_whose_length_is_not_its_top(redis_url):
    """The append script takes the stream's length for its top seq; on a stream with entries
    deleted (by hand: Teahouse never deletes) the top entry decides, as for any other."""
    s = open_store(redis_url)
    for seq in (1, 2, 3):
        await s.append("holes", commit(seq))
    r = aioredis.Redis.from_url(redis_url)
    await r.xdel("th:{holes}:log", "1-0", "2-0")  # length 1, top 3
    await r.aclose()
    for wrong in (2, 3, 5):
        with pytest.raises(Conflict):
            await s.append("holes", commit(wrong))
    await s.append("holes", commit(4))
    assert [c.seq for c in await s.read("holes")] == [3, 4]
    await s.close()


async def test_appends_of_many_matches_sent_together_each_get_their_own_reply(redis_url):
    """Appends in flight together share the appender's connection (pipelined): each one's
    reply is its own seq, whatever the others are."""
    s = open_store(redis_url)
    try:
        for i in range(40):
            for seq in range(1, i % 5 + 1):
                await s.append(f"piped-{i}", commit(seq))
        c = commit(1)

        async def append(i: int) -> int:
            seq = i % 5 + 1
            return int(await s._appender.evalsha(s._append_script, [f"th:{{piped-{i}}}:log"], [seq, c.pack()]))

        assert await asyncio.gather(*(append(i) for i in range(40))) == [i % 5 + 1 for i in range(40)]
        assert s.tail_connections == 0  # no tail: the appends went on the appender alone
    finally:
        await s.close()


async def test_a_tail_whose_reply_is_late_reconnects_and_never_takes_it_for_a_rewound_log(redis_url, monkeypatch):
    """The event loop held up past a reply's deadline (a long fold, a GC pause) while the tail
    waits for the top of its stream: that is a late reply, not an empty stream. The tail
    reconnects, keeps its place, and reports no LogRewound."""
    import time

    from service.store import redis_follow

    monkeypatch.setattr(redis_follow, "REWIND_CHECK_S", 0.0)  # check the top after every read
    monkeypatch.setattr(redis_follow, "BLOCK_MS", 20)
    url = redis_url + ("&" if "?" in redis_url else "?") + "socket_timeout=0.2"
    s = open_store(url)
    for seq in (1, 2, 3):
        await s.append("late", commit(seq))
    got: list[int] = []

    async def follow() -> None:
        async for c in s.tail("late", after=3):
            got.append(c.seq)

    task = asyncio.create_task(follow())
    try:
        for seq in range(4, 10):
            await asyncio.sleep(0.05)
            time.sleep(0.4)  # the loop is held up: every deadline under way passes meanwhile
            await s.append("late", commit(seq))
        for _ in range(100):
            if len(got) == 6 or task.done():
                break
            await asyncio.sleep(0.05)
        if task.done():
            task.result()  # a LogRewound raised by the tail fails the test here
        assert got == [4, 5, 6, 7, 8, 9]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await s.close()
