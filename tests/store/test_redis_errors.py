"""service/store/redis_errors.py: which errors mean "the store is unreachable" (answered with the
retryable `store_unavailable`, docs/operators.md Store outage) and which are a bad request.

Every error here is raised by redis-py from a real redis-server's reply or a real socket, as the
store meets them: the module's docstring names Redis down, restarting (a refused connection), cut
off (a timeout), loading its data (LOADING), a replica without its master (MASTERDOWN) and a
cluster not serving (CLUSTERDOWN, TRYAGAIN)."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from redis import exceptions as rex
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from service.store.redis_errors import unreachable
from tests.support.redis_server import RedisServer, free_port


async def error_of(client: aioredis.Redis, *command: object) -> BaseException:
    try:
        await client.execute_command(*command)
    except Exception as exc:
        return exc
    raise AssertionError(f"{command} did not fail")


@pytest.fixture
async def client(redis_url):
    c = aioredis.Redis.from_url(redis_url)
    yield c
    await c.aclose()


async def reply(client: aioredis.Redis, line: str) -> BaseException:
    """The error redis-py raises for a reply that is exactly `-<line>` (sent by a script)."""
    return await error_of(client, "EVAL", "return redis.error_reply(ARGV[1])", 0, line)


async def test_a_refused_connection_is_unreachable():
    c = aioredis.Redis(port=free_port(), socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
    try:
        exc = await error_of(c, "PING")
    finally:
        await c.aclose()
    assert unreachable(exc)


async def test_a_timeout_is_unreachable(redis_url):
    c = aioredis.Redis.from_url(redis_url, socket_timeout=0.05)
    try:
        exc = await error_of(c, "BLPOP", "nobody-pushes-here", 5)
    finally:
        await c.aclose()
    assert isinstance(exc, rex.TimeoutError)
    assert unreachable(exc)


async def test_loading_is_unreachable(client):
    assert unreachable(await reply(client, "LOADING Redis is loading the dataset in memory"))


@pytest.mark.parametrize("line", [
    "CLUSTERDOWN The cluster is down",
    "TRYAGAIN Multiple keys request during rehashing of slot",
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
])
async def test_a_redis_not_serving_reply_is_unreachable(client, line):
    assert unreachable(await reply(client, line))


async def test_a_replica_without_its_master_is_unreachable(tmp_path):
    replica = RedisServer(tmp_path)
    replica.start()
    c = aioredis.Redis(port=replica.port)
    try:
        await c.config_set("replica-serve-stale-data", "no")
        await c.execute_command("REPLICAOF", "127.0.0.1", free_port())  # a master that is not there
        exc = await error_of(c, "GET", "th:{m}:log")
        assert isinstance(exc, rex.MasterDownError)
        assert unreachable(exc)
    finally:
        await c.aclose()
        replica.stop()


async def test_a_wrong_type_is_a_bad_request(client):
    await client.set("plain", "1")
    assert not unreachable(await error_of(client, "XADD", "plain", "1-0", "c", "x"))


async def test_an_xadd_below_the_top_is_a_bad_request_not_an_outage(client):
    # The conflict of two writers on one seq (DESIGN.md, The log) must reach the writer as such.
    await client.execute_command("XADD", "th:{m}:log", "2-0", "c", "x")
    assert not unreachable(await error_of(client, "XADD", "th:{m}:log", "1-0", "c", "y"))


async def test_an_unknown_script_and_a_script_error_are_bad_requests(client):
    assert not unreachable(await error_of(client, "EVALSHA", "0" * 40, 0))
    assert not unreachable(await reply(client, "ERR the match has no such seq"))


def test_errors_from_outside_redis():
    assert unreachable(ConnectionRefusedError(111, "Connection refused"))
    assert not unreachable(ValueError("bad"))
    assert not unreachable(KeyError("th:{m}:log"))
