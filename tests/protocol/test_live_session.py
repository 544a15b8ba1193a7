"""SPEC §2-§5 against the running server: replay the recorded session and compare its shape.

make_vectors.capture drives a real server process (`teahouse serve`, temporary SQLite store)
over real sockets through every step of the example session and asserts the order of frames SPEC §3 promises. Here it runs
again and the result is compared with the committed vectors: the same messages of the same
types with the same fields, the same error codes and HTTP statuses. Game content (cards,
scores) is not compared, so a rules change does not fail this test; a protocol change does.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tools.make_vectors import VECTORS, Recorder, capture


@pytest.fixture(scope="module")
def live() -> Recorder:
    rec = Recorder()
    capture(rec)
    return rec


def _shape(msg: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: type(v).__name__ for k, v in msg.items()}
    out["type"] = msg["type"]
    if msg["type"] in ("error", "reject"):
        out["code"] = msg["code"]
    return out


def test_the_same_frames_with_the_same_shapes(live):
    index = {e["name"]: e for e in orjson.loads((VECTORS / "index.json").read_bytes())}
    assert set(live.frames) == set(index)
    for name, (direction, msg, _) in live.frames.items():
        assert direction == index[name]["direction"], name
        assert _shape(msg) == _shape(index[name]["value"]), name


def test_client_frames_are_identical(live):
    index = {e["name"]: e for e in orjson.loads((VECTORS / "index.json").read_bytes())}
    for name, (direction, msg, _) in live.frames.items():
        if direction == "client" and name not in ("move", "move_with_seat"):  # these carry game commands
            assert msg == index[name]["value"], name


def test_invalid_frames_get_the_same_codes(live):
    recorded = orjson.loads((VECTORS / "invalid.json").read_bytes())
    assert [(v["name"], v["code"]) for v in live.invalid] == [(v["name"], v["code"]) for v in recorded]


def test_http_calls_answer_the_same_statuses_and_codes(live):
    recorded = orjson.loads((VECTORS / "http.json").read_bytes())

    def summary(calls: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(c["name"], c["method"], c["path"], c["status"], c["content_type"],
                 c["response"]["error"]["code"] if isinstance(c["response"], dict) and "error" in c["response"]
                 else None) for c in calls]

    assert summary(live.http) == summary(recorded)


def test_the_unsupported_subprotocol_close(live):
    close = orjson.loads((VECTORS / "close.json").read_bytes())
    assert live.unsupported == (close["code"], close["reason"])


# -- SPEC §1.3, §8, §9 on a real server process (uvicorn, as `teahouse serve` runs it) --------------

def _ws_url(server) -> str:
    return server.url.replace("http://", "ws://") + "/ws"


async def test_an_unknown_subprotocol_is_closed_with_4406(sqlite_server):
    import websockets

    async with websockets.connect(_ws_url(sqlite_server), subprotocols=["teahouse.v9.cbor"]) as ws:
        with pytest.raises(websockets.ConnectionClosed):
            await ws.recv()
    assert ws.close_code == 4406
    assert "teahouse.v1.msgpack" in ws.close_reason


async def test_no_subprotocol_at_all_is_closed_with_4406(sqlite_server):
    import websockets

    async with websockets.connect(_ws_url(sqlite_server)) as ws:
        with pytest.raises(websockets.ConnectionClosed):
            await ws.recv()
    assert ws.close_code == 4406 and "offered: none" in ws.close_reason


async def test_permessage_deflate_is_declined(sqlite_server):
    import websockets

    async with websockets.connect(_ws_url(sqlite_server), subprotocols=["teahouse.v1.json"]) as ws:  # offers deflate
        assert ws.subprotocol == "teahouse.v1.json"
        assert not ws.protocol.extensions


async def test_frame_limits_64_kib_is_an_error_1_mib_closes_1009(sqlite_server):
    import websockets

    from protocol.codec import decode, encode

    async with websockets.connect(_ws_url(sqlite_server), subprotocols=["teahouse.v1.msgpack"], compression=None,
                                  max_size=2**24) as ws:
        await ws.send(encode({"type": "hello"}, "msgpack"))
        assert decode(await ws.recv(), "msgpack")["type"] == "welcome"
        await ws.send('{"type":"ping"}')  # a text frame on a msgpack connection
        assert decode(await ws.recv(), "msgpack")["code"] == "bad_frame"
        await ws.send(encode({"type": "ping", "pad": "x" * 70_000}, "msgpack"))
        assert decode(await ws.recv(), "msgpack")["code"] == "frame_too_large"
        await ws.send(encode({"type": "ping", "nonce": 7}, "msgpack"))  # still open
        assert decode(await ws.recv(), "msgpack") == {"type": "pong", "nonce": 7}
        # one byte over 1 MiB; the server may close while it is still being sent
        with pytest.raises((websockets.ConnectionClosed, ConnectionResetError)):
            await ws.send(b"\x00" * ((1 << 20) + 1))
            await ws.recv()
    assert ws.close_code == 1009


async def test_the_513th_queued_frame_cuts_the_connection_with_4408():
    # SPEC §8/§9: the outbox holds 512 frames; a client that lets it fill is closed with 4408.
    from service.ws.session import OUTBOX, Session

    cuts: list[tuple[int, str]] = []

    class FullSocket:
        """A connection whose socket takes nothing (its write buffer is full)."""

        def send_now(self, data: bytes) -> bool:
            return False

        def wake(self) -> None:
            pass

        def cut(self, code: int, reason: str) -> None:
            cuts.append((code, reason))

        def resume(self) -> None:
            pass

    session = Session(None, "json", FullSocket())  # type: ignore[arg-type]
    assert OUTBOX == 512
    for _ in range(OUTBOX):
        session.deliver(b"{}")
    assert cuts == []
    session.deliver(b"{}")
    assert cuts == [(4408, "slow consumer: reconnect and resync")]
    session.deliver(b"{}")  # nothing more is queued or reported once cut
    assert len(cuts) == 1 and len(session.outbox) == OUTBOX
