"""Bad input over a real socket: each case gets a structured error with a stable code, the
connection stays open (a ping still answers) and the log does not change."""

from __future__ import annotations

import asyncio

import httpx
import msgpack
import orjson
import pytest
import websockets
from teahouse_client import TeahouseClient

from tests.support.server import sqlite_server as running_sqlite_server


@pytest.fixture(scope="module")
def sqlite_server(tmp_path_factory):
    """This module's server, with the request rate and byte budget off: the slow-consumer test
    floods requests to fill an outbox, which those limits exist to stop (they are tested in
    tests/abuse/test_request_limits.py)."""
    env = {"TEAHOUSE_REQUESTS_PER_SECOND": "0", "TEAHOUSE_OUTBOUND_BYTES_PER_SECOND": "0"}
    with running_sqlite_server(tmp_path_factory.mktemp("bad-input"), env) as proc:
        yield proc


class Raw:
    """A bare WebSocket client, to send exactly the bytes a test wants."""

    def __init__(self, ws, encoding: str) -> None:
        self.ws, self.encoding = ws, encoding

    async def send(self, msg) -> None:
        await self.ws.send(msgpack.packb(msg) if self.encoding == "msgpack" else orjson.dumps(msg).decode())

    async def recv(self, kind: str | None = None, timeout: float = 5) -> dict:
        while True:
            frame = await asyncio.wait_for(self.ws.recv(), timeout)
            msg = msgpack.unpackb(frame, raw=False) if isinstance(frame, bytes) else orjson.loads(frame)
            if kind is None or msg["type"] == kind:
                return msg

    async def still_alive(self) -> None:
        await self.send({"type": "ping", "nonce": 99})
        assert (await self.recv("pong")) == {"type": "pong", "nonce": 99}


OPEN: list = []


@pytest.fixture(autouse=True)
async def _close_sockets():
    yield
    while OPEN:
        await OPEN.pop().close()


async def connect(server, encoding="msgpack", hello=True) -> Raw:
    ws = await _open(server, [f"teahouse.v1.{encoding}"])
    raw = Raw(ws, encoding)
    if hello:
        await raw.send({"type": "hello"})
        assert (await raw.recv())["type"] == "welcome"
    return raw


async def _open(server, subprotocols):
    ws = await websockets.connect(server.url.replace("http", "ws") + "/ws",
                                  subprotocols=subprotocols or None, max_size=2**24)
    OPEN.append(ws)
    return ws


@pytest.fixture
async def live(sqlite_server):
    """A started 2-player Pixies match: (client, match id, tokens, seat to act)."""
    client = TeahouseClient(sqlite_server.url)
    mid = (await client.create_match("pixies", 2))["match"]
    tokens = [(await client.take_seat(mid))["token"] for _ in range(2)]
    info = await client.replay(mid)
    yield client, mid, tokens, info["status"]["to_act"][0]
    await client.aclose()


async def log_seq(client, mid) -> int:
    return (await client.match(mid))["seq"]


async def expect_error(raw: Raw, code: str) -> dict:
    msg = await raw.recv("error")
    assert msg["code"] == code, msg
    assert isinstance(msg["message"], str) and msg["message"]
    return msg


# -- negotiation ---------------------------------------------------------------------------

@pytest.mark.parametrize("offered", [["teahouse.v9.msgpack"], []])
async def test_unknown_protocol_version_is_closed_with_a_reason(sqlite_server, offered):
    ws = await _open(sqlite_server, offered)
    with pytest.raises(websockets.ConnectionClosed) as info:
        await asyncio.wait_for(ws.recv(), 5)
    assert info.value.rcvd.code == 4406
    assert "teahouse.v1.msgpack" in info.value.rcvd.reason


async def test_json_encoding_is_negotiated(sqlite_server):
    raw = await connect(sqlite_server, "json", hello=False)
    assert raw.ws.subprotocol == "teahouse.v1.json"
    await raw.send({"type": "hello"})
    assert (await raw.recv())["encoding"] == "json"


# -- malformed frames ------------------------------------------------------------------------

async def test_hello_is_required_first(sqlite_server):
    raw = await connect(sqlite_server, hello=False)
    await raw.send({"type": "spectate", "match": "x"})
    await expect_error(raw, "hello_required")
    await raw.send({"type": "hello"})
    assert (await raw.recv())["type"] == "welcome"
    await raw.send({"type": "hello"})
    await expect_error(raw, "already_greeted")


@pytest.mark.parametrize("frame,code", [
    (b"\xc1", "bad_frame"),                       # a byte msgpack never uses
    (b"\x92\x01", "bad_frame"),                   # a truncated array
    ("a text frame", "bad_frame"),                # text on a msgpack connection
    (msgpack.packb([1, 2]), "not_a_map"),
    (msgpack.packb({"type": "fly"}), "unknown_type"),
    (msgpack.packb({"kind": "hello"}), "bad_field"),
    (msgpack.packb({"type": "spectate", "match": 5}), "bad_field"),
    (msgpack.packb({"type": "resync", "match": "m", "since": True}), "bad_field"),
    (msgpack.packb({"type": "resync", "match": "m", "since": -1}), "bad_field"),
    (msgpack.packb({"type": "join", "match": "m"}), "bad_field"),
    (msgpack.packb({"type": "spectate", "match": "m" * 500}), "bad_field"),
    (msgpack.packb({"type": "ping", "nonce": {"a": 1}}), "bad_field"),
])
async def test_malformed_frames_get_an_error_and_the_connection_lives(sqlite_server, frame, code):
    raw = await connect(sqlite_server)
    await raw.ws.send(frame)
    await expect_error(raw, code)
    await raw.still_alive()


async def test_malformed_json_frame(sqlite_server):
    raw = await connect(sqlite_server, "json")
    await raw.ws.send("{not json")
    await expect_error(raw, "bad_frame")
    await raw.ws.send('{"type": "ping", "nonce": "x"}')
    assert (await raw.recv("pong"))["nonce"] == "x"


async def test_oversized_frame_is_refused_but_not_fatal(sqlite_server):
    raw = await connect(sqlite_server)
    await raw.send({"type": "ping", "nonce": "x" * 10, "pad": "y" * 100_000})
    await expect_error(raw, "frame_too_large")
    await raw.still_alive()


async def test_frame_above_the_transport_limit_closes_with_1009(sqlite_server):
    raw = await connect(sqlite_server)
    # the server may close while the frame is still being sent: either call sees the close
    with pytest.raises((websockets.ConnectionClosed, ConnectionResetError)):
        await raw.ws.send(b"\x00" * (2 << 20))
        await raw.recv()
    assert raw.ws.close_code == 1009


# -- matches, tokens and seats -------------------------------------------------------------------

async def test_unknown_match(sqlite_server):
    raw = await connect(sqlite_server)
    await raw.send({"type": "spectate", "match": "no-such-match"})
    await expect_error(raw, "unknown_match")
    await raw.send({"type": "join", "match": "no-such-match", "token": "t"})
    await expect_error(raw, "unknown_match")
    await raw.still_alive()


async def test_bad_or_missing_token(sqlite_server, live):
    client, mid, tokens, _ = live
    raw = await connect(sqlite_server)
    await raw.send({"type": "join", "match": mid, "token": "not-a-token"})
    await expect_error(raw, "bad_token")
    await raw.send({"type": "join", "match": mid, "token": ""})
    await expect_error(raw, "bad_token")
    await raw.send({"type": "join", "match": mid})
    await expect_error(raw, "bad_field")
    await raw.still_alive()


async def test_moves_that_must_not_reach_the_log(sqlite_server, live):
    client, mid, tokens, actor = live
    idle = 1 - actor
    before = await log_seq(client, mid)

    # not joined
    raw = await connect(sqlite_server)
    await raw.send({"type": "move", "match": mid, "id": "m1", "command": {"type": "take_card"}})
    await expect_error(raw, "not_joined")

    # a spectator cannot move
    await raw.send({"type": "spectate", "match": mid})
    await raw.recv("view")
    await raw.send({"type": "move", "match": mid, "id": "m2", "command": {"type": "take_card"}})
    await expect_error(raw, "not_seated")
    await raw.send({"type": "legal", "match": mid})
    await expect_error(raw, "not_seated")

    # the acting seat's legal move, sent by the idle seat: out of turn
    acting = await connect(sqlite_server)
    await acting.send({"type": "join", "match": mid, "token": tokens[actor]})
    await acting.recv("view")
    await acting.send({"type": "legal", "match": mid})
    move = (await acting.recv("legal_moves"))["moves"][0]
    other = await connect(sqlite_server)
    await other.send({"type": "join", "match": mid, "token": tokens[idle]})
    assert (await other.recv("view"))["seat"] == idle
    await other.send({"type": "move", "match": mid, "id": "m3", "command": move})
    rej = await other.recv("reject")
    assert rej["id"] == "m3" and rej["code"] == "not_your_turn" and rej["message"]

    # a move naming another seat than the one joined
    await other.send({"type": "move", "match": mid, "id": "m4", "command": move, "seat": actor})
    await expect_error(other, "wrong_seat")

    # illegal moves by the acting seat: junk commands and wrong arguments
    for i, cmd in enumerate([{"type": "take_card", "card": "NOPE", "target_cell": 1},
                             {"type": "fly_away"}, {"type": "take_card", "card": 7}]):
        await acting.send({"type": "move", "match": mid, "id": f"bad{i}", "command": cmd})
        rej = await acting.recv("reject")
        assert rej["code"] and rej["message"]
    # a command that is not a map with a string type
    await acting.send({"type": "move", "match": mid, "id": "m5", "command": {"card": 1}})
    await expect_error(acting, "bad_field")
    await acting.send({"type": "move", "match": mid, "id": "m6", "command": {"type": "x", "a": {1: 2}}})
    await expect_error(acting, "bad_field")

    assert await log_seq(client, mid) == before, "no bad input reaches the log"
    for r in (raw, acting, other):
        await r.still_alive()
    # and the well-formed move still works on the same connection
    await acting.send({"type": "move", "match": mid, "id": "good", "command": move})
    assert (await acting.recv("ack"))["seq"] == before + 1


async def test_presence_is_visible_to_everyone(sqlite_server, live):
    client, mid, tokens, _ = live
    spec = await connect(sqlite_server)
    await spec.send({"type": "spectate", "match": mid})
    await spec.recv("view")
    p = await spec.recv("presence")
    assert p["seats"] == [False, False] and p["spectators"] == 1
    seat0 = await connect(sqlite_server)
    await seat0.send({"type": "join", "match": mid, "token": tokens[0]})
    p = await spec.recv("presence")
    assert p["seats"] == [True, False]
    await seat0.ws.close()
    p = await spec.recv("presence")
    assert p["seats"] == [False, False]


async def test_resync_from_a_seq_sends_the_missing_patches(sqlite_server, live):
    client, mid, tokens, actor = live
    spec = await connect(sqlite_server)
    await spec.send({"type": "spectate", "match": mid})
    start = await spec.recv("view")
    acting = await connect(sqlite_server)
    await acting.send({"type": "join", "match": mid, "token": tokens[actor]})
    await acting.send({"type": "legal", "match": mid})
    move = (await acting.recv("legal_moves"))["moves"][0]
    await acting.send({"type": "move", "match": mid, "id": "r1", "command": move})
    await acting.recv("ack")
    live_patch = await spec.recv("patch")
    await spec.send({"type": "resync", "match": mid, "since": start["seq"]})
    again = await spec.recv("patch")
    assert again == live_patch
    assert (await spec.recv())["type"] == "presence", "presence ends the answer (SPEC 3.7)"
    # a seq the server no longer keeps, or one from the future, gets a full view
    await spec.send({"type": "resync", "match": mid, "since": start["seq"] + 50})
    assert (await spec.recv())["type"] == "view"


# -- HTTP -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("body,status,code", [
    ({"game": "chess", "players": 2}, 400, "unknown_game"),
    ({"players": 2}, 400, "bad_field"),
    ({"game": None, "players": 2}, 400, "bad_field"),
    ({"game": 7, "players": 2}, 400, "bad_field"),
    ({"game": "pixies", "players": 9}, 400, None),
    ({"game": "pixies", "players": "two"}, 400, "bad_field"),
    ({"game": "pixies", "players": 2, "options": [1]}, 400, "bad_field"),
    ({"game": "pixies", "players": 2, "options": {"no_such_option": 1}}, 400, None),
])
async def test_bad_match_creation(sqlite_server, body, status, code):
    r = httpx.post(sqlite_server.url + "/api/matches", json=body)
    assert r.status_code == status
    err = r.json()["error"]
    assert err["message"] and (code is None or err["code"] == code)
    assert "None" not in err["message"], "a message is a sentence, not a Python repr"


@pytest.mark.parametrize("query,status", [("?state=weird", 400), ("?state=LIVE", 400), ("?state=live", 200),
                                          ("?state=", 200), ("", 200)])
async def test_listing_by_state_refuses_unknown_states(sqlite_server, query, status):
    r = httpx.get(sqlite_server.url + "/api/matches" + query)
    assert r.status_code == status
    if status == 400:
        assert r.json()["error"]["code"] == "bad_field"


# -- SPEC 3.2 and 7.1: before hello, what is not hello or ping is hello_required --------------

@pytest.mark.parametrize("msg", [
    {"type": "shout"},
    {"type": "move", "match": "m"},
    {"type": "resync", "match": "m", "since": True},
    {"type": "leave", "match": "m"},
    {"match": "m"},
])
async def test_before_hello_every_other_message_is_hello_required(sqlite_server, msg):
    raw = await connect(sqlite_server, hello=False)
    await raw.send(msg)
    await expect_error(raw, "hello_required")
    await raw.send({"type": "ping", "nonce": 1})
    assert (await raw.recv())["type"] == "pong"


@pytest.mark.parametrize("frame,code", [
    (msgpack.packb(msgpack.ExtType(5, b"xyz")), "not_a_map"),                  # a bare ext value
    (msgpack.packb({"type": "ping", 1: 2}), "bad_field"),                       # a non-string key
    (msgpack.packb({"type": "ping", "nonce": msgpack.ExtType(1, b"")}), "bad_field"),
])
async def test_ext_values_and_non_string_keys_have_their_documented_codes(sqlite_server, frame, code):
    raw = await connect(sqlite_server)
    await raw.ws.send(frame)
    await expect_error(raw, code)
    await raw.still_alive()


@pytest.mark.parametrize("later", [{1: "integer key"}, 1.5, b"bin", msgpack.ExtType(5, b"ext"), [{2: [3.25]}]],
                         ids=["int key", "float", "bin", "ext", "nested"])
async def test_an_unknown_field_may_hold_anything(sqlite_server, later):
    """SPEC 1.2 and 7.1: a field the message does not define is ignored whatever it holds."""
    raw = await connect(sqlite_server)
    await raw.ws.send(msgpack.packb({"type": "ping", "nonce": 7, "later": later}, use_bin_type=True))
    assert await raw.recv() == {"type": "pong", "nonce": 7}


@pytest.mark.parametrize("encoding", ["msgpack", "json"])
async def test_the_nesting_limit_of_spec_9_on_a_live_connection(sqlite_server, encoding):
    """SPEC 9: 1024 levels, the message's map included, are accepted; one more is bad_frame."""
    def nested(arrays: int) -> bytes | str:
        if encoding == "json":
            return '{"type":"ping","nonce":5,"x":' + "[" * arrays + "]" * arrays + "}"
        head = b"\x83" + b"".join(msgpack.packb(v) for v in ("type", "ping", "nonce", 5, "x"))
        return head + b"\x91" * (arrays - 1) + b"\x90"
    raw = await connect(sqlite_server, encoding)
    await raw.ws.send(nested(1023))
    assert await raw.recv() == {"type": "pong", "nonce": 5}
    await raw.ws.send(nested(1024))
    await expect_error(raw, "bad_frame")
    await raw.still_alive()


async def test_errors_about_a_match_name_it(sqlite_server, live):
    client, mid, tokens, _ = live
    raw = await connect(sqlite_server)
    await raw.send({"type": "join", "match": mid, "token": "not-a-token"})
    assert (await expect_error(raw, "bad_token"))["match"] == mid
    await raw.send({"type": "legal", "match": mid})
    assert (await expect_error(raw, "not_joined"))["match"] == mid
    await raw.send({"type": "spectate", "match": "nope"})
    assert (await expect_error(raw, "unknown_match"))["match"] == "nope"
    await raw.send({"type": "ping", "nonce": "x" * 100})
    assert "match" not in await expect_error(raw, "bad_field")


async def test_http_errors_are_structured(sqlite_server, live):
    client, mid, tokens, _ = live
    base = sqlite_server.url
    r = httpx.post(base + "/api/matches", content=b"{oops", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
    r = httpx.get(base + "/api/matches/nope")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_match"
    r = httpx.post(base + f"/api/matches/{mid}/seats", json={})
    assert r.status_code == 409 and r.json()["error"]["code"] == "match_full"
    r = httpx.get(base + f"/api/matches/{mid}/log")
    assert r.status_code == 409 and r.json()["error"]["code"] == "match_live"
    r = httpx.get(base + f"/api/matches/{mid}/replay", params={"seat": 0})
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"
    r = httpx.get(base + f"/api/matches/{mid}/replay", params={"seat": 0},
                  headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code == 200 and r.json()["seat"] == 0
    r = httpx.get(base + f"/api/matches/{mid}/replay", params={"seq": "x"})
    assert r.status_code == 400
    r = httpx.post(base + f"/api/matches/{mid}/fork", json={"seq": 1})
    assert r.status_code == 409 and r.json()["error"]["code"] == "match_live"


# -- slow consumers -------------------------------------------------------------------------------

async def until_presence(raw: Raw, spectators: int, timeout: float = 10) -> None:
    async def wait() -> None:
        while (await raw.recv("presence", timeout=timeout))["spectators"] != spectators:
            pass
    await asyncio.wait_for(wait(), timeout)


def _outbox_cuts(url: str) -> float:
    text = httpx.get(url + "/metrics").text
    return next(float(line.split()[-1]) for line in text.splitlines() if line.startswith("teahouse_outbox_cuts_total "))


async def test_a_client_that_stops_reading_is_cut_and_nobody_waits(sqlite_server, live):
    from teahouse_client.bot import run_match

    client, mid, tokens, _ = live
    observer = await connect(sqlite_server)
    await observer.send({"type": "spectate", "match": mid})
    await observer.recv("view")
    slow = await connect(sqlite_server)
    await slow.send({"type": "spectate", "match": mid})
    await until_presence(observer, spectators=2)
    cuts_before = _outbox_cuts(sqlite_server.url)
    # Ask for full views and never read them: the socket buffers fill, then the outbox. How
    # much the kernel buffers varies, so flood in rounds until the server lets go of it.
    other_match = asyncio.create_task(run_match(sqlite_server.url, "pixies", 3, quiet=True))
    cut = False
    for _ in range(20):
        for _ in range(2000):
            await slow.send({"type": "resync", "match": mid, "since": 10_000})
        try:
            await until_presence(observer, spectators=1, timeout=1)
            cut = True
            break
        except TimeoutError:
            continue
    assert cut, "the server never cut the client that stopped reading"
    # Meanwhile a whole other match played out at full speed on the same server.
    summary = await asyncio.wait_for(other_match, 60)
    assert summary["state"] == "finished"
    code = None
    try:
        while True:
            await asyncio.wait_for(slow.ws.recv(), 10)
    except websockets.ConnectionClosed as exc:
        code = exc.rcvd.code if exc.rcvd else None
    assert code == 4408
    assert _outbox_cuts(sqlite_server.url) - cuts_before == 1  # counted in /metrics (docs/operators.md)
    # the cut client comes back and resyncs
    again = await connect(sqlite_server)
    await again.send({"type": "spectate", "match": mid, "since": 0})
    assert (await again.recv())["type"] in ("view", "patch")
