"""service/store/resp.py packs the commands of every move itself: byte for byte what redis-py
would send for the same arguments."""

from __future__ import annotations

import pytest
from redis.asyncio.connection import Connection

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
