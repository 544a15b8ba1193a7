"""The edge's own handling of RFC 6455 that no other test reaches, against a real server."""

from __future__ import annotations

import msgpack
import orjson
import pytest
import websockets
from websockets.asyncio.client import connect


def _ws_url(server, path: str = "/ws") -> str:
    return server.url.replace("http", "ws") + path


async def test_a_fragmented_message_is_one_message(sqlite_server):
    # RFC 6455 5.4: a message may come in fragments; the receiver handles the whole message.
    async with connect(_ws_url(sqlite_server), subprotocols=["teahouse.v1.json"], compression=None) as ws:
        text = orjson.dumps({"type": "ping", "nonce": "in three parts"}).decode()
        await ws.send(iter([text[:5], text[5:12], text[12:]]))
        assert orjson.loads(await ws.recv()) == {"type": "pong", "nonce": "in three parts"}
    async with connect(_ws_url(sqlite_server), subprotocols=["teahouse.v1.msgpack"], compression=None) as ws:
        binary = msgpack.packb({"type": "ping", "nonce": 5})
        await ws.send(iter([binary[:3], binary[3:]]))
        assert msgpack.unpackb(await ws.recv()) == {"type": "pong", "nonce": 5}


async def test_a_websocket_to_another_path_is_refused_403(sqlite_server):
    with pytest.raises(websockets.InvalidStatus) as got:
        async with connect(_ws_url(sqlite_server, "/not-ws")):
            pass
    assert got.value.response.status_code == 403
