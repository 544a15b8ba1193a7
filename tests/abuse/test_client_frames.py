"""RFC 6455 on /ws, with frames written byte for byte by the test: several frames in one TCP
write (a control frame among them), a frame split over many writes, 16-bit lengths, and the
frames a server must refuse (unmasked: 1002, reserved bits without an extension: 1002, a text
frame that is not UTF-8: 1007). The server reads the common frames itself (service/ws/edge.py)
and leaves everything else to websockets' parser, so both paths are exercised here."""

from __future__ import annotations

import asyncio
import base64
import os
import struct

import orjson
import pytest

from tests.support.server import ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("frames")
    proc = ServerProcess(f"sqlite:{work / 'data'}", work / "server.log")
    proc.start()
    yield proc
    proc.stop()


def frame(payload: bytes, opcode: int = 1, *, fin: bool = True, masked: bool = True, rsv: int = 0) -> bytes:
    """A client frame (RFC 6455 5.2)."""
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | rsv << 4 | opcode])
    bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 65536:
        head += bytes([bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", n)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def text(message: dict) -> bytes:
    return frame(orjson.dumps(message))


async def _open(server) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    port = int(server.url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                  "Sec-WebSocket-Protocol: teahouse.v1.json\r\n\r\n").encode())
    response = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert response.startswith(b"HTTP/1.1 101"), response
    return reader, writer


async def _read(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The next server frame: (opcode, payload). Server frames are not masked."""
    head = await asyncio.wait_for(reader.readexactly(2), 10)
    assert head[0] & 0x80 and not head[1] & 0x80  # final, not masked
    n = head[1] & 0x7F
    if n == 126:
        (n,) = struct.unpack("!H", await reader.readexactly(2))
    elif n == 127:
        (n,) = struct.unpack("!Q", await reader.readexactly(8))
    return head[0] & 0x0F, await reader.readexactly(n)


async def _messages(reader: asyncio.StreamReader, count: int) -> list[tuple[int, object]]:
    out: list[tuple[int, object]] = []
    while len(out) < count:
        opcode, payload = await _read(reader)
        out.append((opcode, orjson.loads(payload) if opcode == 1 else payload))
    return out


async def _shut(writer: asyncio.StreamWriter) -> None:
    writer.close()
    try:
        await writer.wait_closed()
    except (ConnectionError, OSError):
        pass  # the server has closed it first


async def _close_code(reader: asyncio.StreamReader) -> int:
    while True:
        opcode, payload = await _read(reader)
        if opcode == 8:
            return struct.unpack("!H", payload[:2])[0]


async def test_frames_written_together_are_answered_in_order_with_a_ping_among_them(server):
    reader, writer = await _open(server)
    writer.write(text({"type": "hello"}) + frame(b"are you there", opcode=9)
                 + text({"type": "ping", "nonce": 1}) + text({"type": "ping", "nonce": "two"}))
    got = await _messages(reader, 4)
    assert (10, b"are you there") in got  # the control frame's pong, with its payload (any time)
    answers = [m for op, m in got if op == 1]
    assert answers[0]["type"] == "welcome"  # type: ignore[index]
    assert answers[1:] == [{"type": "pong", "nonce": 1}, {"type": "pong", "nonce": "two"}]
    await _shut(writer)


@pytest.mark.parametrize("count, pad", [(40, 0), (12, 20_000)])
async def test_requests_behind_one_that_waits_for_the_store_are_answered_in_order(server, count, pad):
    """`spectate` waits for the store; the requests read behind it (more than the frames, or the
    bytes, the server holds before it stops reading the socket: edge.HELD_FRAMES, HELD_BYTES)
    wait for its answer and are then answered one by one, in order, none lost, both from the
    bytes already read and from those left in the socket."""
    from service.ws.edge import HELD_BYTES, HELD_FRAMES

    assert count > 2 * HELD_FRAMES or count * pad > 2 * HELD_BYTES

    def ping(i: int) -> bytes:
        return text({"type": "ping", "nonce": i, **({"pad": "x" * pad} if pad else {})})

    reader, writer = await _open(server)
    writer.write(text({"type": "hello"}) + text({"type": "spectate", "match": "nosuchmatch1"})
                 + b"".join(ping(i) for i in range(count // 2)))
    await writer.drain()
    writer.write(b"".join(ping(i) for i in range(count // 2, count)))
    got = [m for _, m in await _messages(reader, 2 + count)]
    assert got[0]["type"] == "welcome"  # type: ignore[index]
    assert got[1]["type"] == "error" and got[1]["code"] == "unknown_match"  # type: ignore[index]
    assert got[2:] == [{"type": "pong", "nonce": i} for i in range(count)]
    await _shut(writer)


async def test_a_frame_sent_one_byte_at_a_time_is_read_whole(server):
    reader, writer = await _open(server)
    data = text({"type": "hello"}) + text({"type": "ping", "nonce": 7})
    for i in range(len(data)):
        writer.write(data[i:i + 1])
        await writer.drain()
        await asyncio.sleep(0.001)
    got = await _messages(reader, 2)
    assert got[0][1]["type"] == "welcome" and got[1][1] == {"type": "pong", "nonce": 7}  # type: ignore[index]
    await _shut(writer)


async def test_a_frame_with_a_16_bit_length_and_one_split_after_its_header(server):
    reader, writer = await _open(server)
    hello = text({"type": "hello", "client": "c" * 180})  # 126..65535 bytes: a 16-bit length
    assert hello[1] & 0x7F == 126
    ping = text({"type": "ping", "nonce": 3})
    writer.write(hello + ping[:3])
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.write(ping[3:])
    got = await _messages(reader, 2)
    assert got[0][1]["type"] == "welcome" and got[1][1] == {"type": "pong", "nonce": 3}  # type: ignore[index]
    await _shut(writer)


@pytest.mark.parametrize("bad, code", [
    (frame(orjson.dumps({"type": "ping", "nonce": 1}), masked=False), 1002),  # RFC 6455 5.1
    (frame(orjson.dumps({"type": "ping", "nonce": 1}), rsv=4), 1002),  # RSV1 without an extension (5.2)
    (frame(b"\xa2\xff\xfe"), 1007),  # a text frame that is not UTF-8 (8.1)
])
async def test_frames_a_server_must_refuse_close_the_connection(server, bad, code):
    reader, writer = await _open(server)
    # after a good frame in the same write: the refusal is not lost behind the frames read first
    writer.write(text({"type": "hello"}) + bad)
    assert await _close_code(reader) == code
    await _shut(writer)
