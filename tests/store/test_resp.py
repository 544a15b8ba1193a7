"""service/store/resp.py: the commands of every move, packed byte for byte as redis-py would
pack them, on connections of our own made and driven through redis-py's public API only."""

from __future__ import annotations

import asyncio
import inspect
import time

import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import AbstractConnection, Connection, ConnectionPool
from redis.commands.core import AsyncScript
from redis.exceptions import ResponseError

from service.store import resp


@pytest.mark.parametrize("args", [
    ("EVALSHA", "a" * 40, 1, "th:{m1}:log", 57, b"\x00\xff\r\n binary"),
    ("EVAL", "return 'é' -- not ASCII", 0),
    ("XREAD", "COUNT", 500, "BLOCK", 5000, "STREAMS", "th:{a}:log", "th:{b}:log", "3-0", "0-0"),
    ("PING",),
    ("SET", "", b"", 0, -1),
])
def test_packed_as_redis_py_packs_it(args):
    assert resp.pack(*args) == b"".join(Connection().pack_command(*args))


def _params(fn: object) -> set[str]:
    return set(inspect.signature(fn).parameters)  # type: ignore[arg-type]


def test_the_redis_py_names_the_store_relies_on_are_public_and_there():
    """Every redis-py name service/store/ uses beyond the commands of `redis.asyncio.Redis`:
    none starts with an underscore, and each takes the arguments we pass. A release that drops
    or renames one fails here, not in production."""
    assert {"check_health"} <= _params(AbstractConnection.send_packed_command)
    assert {"timeout"} <= _params(AbstractConnection.read_response)
    assert {"nowait"} <= _params(AbstractConnection.disconnect)
    for name in ("connect", "pack_command", "pack_commands", "send_command", "is_connected"):
        assert hasattr(AbstractConnection, name), name
    assert {"socket_timeout", "socket_connect_timeout", "health_check_interval", "protocol"} <= _params(AbstractConnection)
    for name in ("from_url", "aclose", "make_connection"):
        assert hasattr(aioredis.BlockingConnectionPool, name), name
    pool = aioredis.BlockingConnectionPool.from_url("redis://127.0.0.1:1/0?socket_timeout=3")
    assert issubclass(pool.connection_class, AbstractConnection)
    assert pool.connection_kwargs["socket_timeout"] == 3
    for name in ("aclose", "register_script", "pipeline", "execute_command"):
        assert hasattr(aioredis.Redis, name), name
    script = aioredis.Redis(connection_pool=pool).register_script("return 1")
    assert isinstance(script, AsyncScript) and len(script.sha) == 40 and script.script == "return 1"
    for name in ("initialize", "get_node_from_key", "aclose", "ping", "pipeline"):
        assert hasattr(RedisCluster, name), name
    assert {"acquire_connection", "release"} <= set(dir(ClusterNode))
    cluster = RedisCluster(host="127.0.0.1", port=1)
    assert inspect.iscoroutinefunction(cluster.nodes_manager.initialize)


def test_an_own_connection_keeps_the_pools_settings_without_timeout_or_health_check():
    pool = ConnectionPool.from_url("redis://127.0.0.1:7001/3?socket_timeout=2.5&health_check_interval=30")
    conn = resp.own_connection(pool)
    assert (conn.host, conn.port, conn.db) == ("127.0.0.1", 7001, 3)  # type: ignore[attr-defined]
    assert conn.socket_timeout is None and conn.health_check_interval == 0
    assert conn.socket_connect_timeout == 2.5  # what the URL's socket_timeout meant for connecting
    assert resp.reply_timeout(pool) == 2.5
    assert resp.reply_timeout(ConnectionPool.from_url("redis://127.0.0.1:7001")) == resp.REPLY_TIMEOUT_S
    assert pool.connection_kwargs["socket_timeout"] == 2.5  # the pool's own are unchanged


@pytest.fixture
async def conn(redis_url):
    """A connection of our own to the test Redis, connected."""
    pool = ConnectionPool.from_url(redis_url)
    c = resp.own_connection(pool)
    await c.connect()
    yield c
    await c.disconnect()
    await pool.aclose()


async def test_commands_sent_back_to_back_are_answered_in_order(conn):
    """The appender pipelines: each command is written before the next is sent, then the
    replies are read in that order."""
    sends = [asyncio.ensure_future(resp.send(conn, "ECHO", f"n{i}")) for i in range(200)]
    await asyncio.gather(*sends)
    assert [await resp.reply(conn, 5) for _ in range(200)] == [f"n{i}".encode() for i in range(200)]


async def test_no_reply_in_time_is_a_timeout_and_closes_the_connection(conn):
    await resp.send(conn, "BLPOP", "resp-never-pushed", 0)  # Redis answers only on a push
    t0 = time.monotonic()
    with pytest.raises(TimeoutError):
        await resp.reply(conn, 0.2)
    assert time.monotonic() - t0 < 2
    assert not conn.is_connected  # its late reply can never be read as another command's


async def test_an_error_reply_is_raised_and_the_connection_goes_on(conn):
    await resp.send(conn, "NOSUCHCOMMAND")
    await resp.send(conn, "PING")
    with pytest.raises(ResponseError):
        await resp.reply(conn, 5)
    assert await resp.reply(conn, 5) in (b"PONG", "PONG")
