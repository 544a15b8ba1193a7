"""The two commands of every move (the append's EVALSHA, the tail's XREAD), on connections of
Teahouse's own, through redis-py's public connection API only.

The append (service/store/redis.py) and the tail (service/store/redis_follow.py) each hold a
connection outside the pool: a move must not pay the pool's checkout, and a blocking read must
not hold a pooled connection. Three choices keep that path as cheap as writing to the socket
(bench/platform_store_tail.py measures it):

- `pack` builds the command's bytes itself: redis-py's `pack_command` encodes every argument
  through its encoder and builds the frame in several steps. The bytes are the same
  (tests/store/test_resp.py); arguments are bytes, str (UTF-8, as redis-py's default encoder)
  or int (in decimal); nothing else is sent this way.
- `own_connection` turns the socket timeout off: with one, `send_packed_command` runs every
  write under `asyncio.wait_for`, which on Python 3.11 starts a task per command. A reply is
  awaited under a deadline of our own instead (`reply`).
- It turns health checks off too: a PING sent before a command would take the reply of a
  command pipelined ahead of it. With no health check and an open connection,
  `send_packed_command` writes before its first await, so commands sent one after another
  reach Redis, and are answered, in the order they were sent (the appender relies on it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio.connection import AbstractConnection, ConnectionPool

# How long a reply may take where the store's URL sets no socket_timeout: as long as redis-py's
# own commands wait by default.
REPLY_TIMEOUT_S = 5.0


def pack(*args: bytes | str | int) -> bytes:
    """One command as a RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        elif isinstance(a, int):
            a = b"%d" % a
        out.append(b"$%d\r\n%b\r\n" % (len(a), a))
    return b"".join(out)


def reply_timeout(pool: ConnectionPool) -> float:
    """The seconds a reply may take: the URL's socket_timeout, else REPLY_TIMEOUT_S."""
    timeout = pool.connection_kwargs.get("socket_timeout")
    return float(timeout) if timeout else REPLY_TIMEOUT_S


def own_connection(pool: ConnectionPool) -> AbstractConnection:
    """A new connection with the pool's settings (address, TLS, credentials, database,
    protocol), which the pool neither hands out nor counts, without socket timeout or health
    checks. It connects on `connect()`."""
    kwargs = dict(pool.connection_kwargs)
    timeout = kwargs.pop("socket_timeout", None)
    if timeout and kwargs.get("socket_connect_timeout") is None:
        kwargs["socket_connect_timeout"] = timeout  # as redis-py would have taken it for connecting
    kwargs["socket_timeout"] = None
    kwargs["health_check_interval"] = 0
    conn: AbstractConnection = pool.connection_class(**kwargs)
    return conn


async def send(conn: AbstractConnection, *args: bytes | str | int) -> None:
    """Write one command on `conn` (made by `own_connection`); a broken connection raises
    redis-py's ConnectionError."""
    await conn.send_packed_command(pack(*args), check_health=False)


async def reply(conn: AbstractConnection, timeout: float) -> Any:
    """The next reply on `conn`. An error reply raises redis-py's ResponseError. No reply within
    `timeout` seconds raises TimeoutError (an OSError: the store is unreachable), and the
    connection is closed: a late reply must not be read as the next command's."""
    try:
        async with asyncio.timeout(timeout):
            return await conn.read_response()
    except TimeoutError:
        await conn.disconnect(nowait=True)
        raise
