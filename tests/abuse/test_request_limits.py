"""Expensive requests as a weapon. Real servers, real sockets.

A client that pipelines requests without reading the answers spends its burst and is refused
with `rate_limited` (naming the refused request, with `retry_after_ms`); one that waits for each
answer is never refused at the defaults; answers to `legal` and `resync` count against a byte
budget; a long list of legal moves (Khan's opening: about 2,000) comes in pages (SPEC 3.6)."""

from __future__ import annotations

import asyncio
import time

import msgpack
import pytest
import websockets
from teahouse_client import Rejected, Stale, TeahouseClient

from service.ops.limits import Limits
from tests.e2e.helpers import close_all, seat_players
from tests.support.server import sqlite_server

BYTES_PER_S, PAGE = 200_000, 300


@pytest.fixture(scope="module")
def default_server(tmp_path_factory):
    with sqlite_server(tmp_path_factory.mktemp("defaults")) as proc:
        yield proc


@pytest.fixture(scope="module")
def budget_server(tmp_path_factory):
    env = {"TEAHOUSE_OUTBOUND_BYTES_PER_SECOND": str(BYTES_PER_S), "TEAHOUSE_LEGAL_MOVES_PAGE": str(PAGE)}
    with sqlite_server(tmp_path_factory.mktemp("budget"), env) as proc:
        yield proc


async def _raw(server) -> websockets.ClientConnection:
    ws = await websockets.connect(server.url.replace("http", "ws") + "/ws", subprotocols=["teahouse.v1.msgpack"],
                                  max_size=2**24, ping_interval=None)
    await ws.send(msgpack.packb({"type": "hello"}))
    assert msgpack.unpackb(await ws.recv())["type"] == "welcome"
    return ws


def _pipelined(ws, messages: list[dict]) -> None:
    """Write every message's frame to the socket in one write, as a client that never waits for
    an answer does: the server reads them all before it has answered the first."""
    for m in messages:
        ws.protocol.send_binary(msgpack.packb(m))
    ws.transport.write(b"".join(ws.protocol.data_to_send()))


async def _read(ws, n: int, timeout: float = 30) -> list[dict]:
    out = []
    while len(out) < n:
        out.append(msgpack.unpackb(await asyncio.wait_for(ws.recv(), timeout)))
    return out


async def _seated(server, game: str):
    """A started 2-player match, its SDK connections, and a raw socket joined as the seat to act."""
    client = TeahouseClient(server.url)
    mid = (await client.create_match(game, 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    seat = views[0].status["to_act"][0]
    ws = await _raw(server)
    await ws.send(msgpack.packb({"type": "join", "match": mid, "token": seats[seat]["token"]}))
    return client, mid, conns, seat, ws


async def test_a_pipelined_flood_is_refused_and_every_refusal_names_its_request(default_server):
    ws = await _raw(default_server)
    flood = 600
    t0 = time.monotonic()
    _pipelined(ws, [{"type": "ping", "nonce": i} for i in range(flood)])
    answers = await _read(ws, flood)
    elapsed = time.monotonic() - t0
    pongs = [a for a in answers if a["type"] == "pong"]
    refused = [a for a in answers if a["type"] == "error"]
    assert len(pongs) + len(refused) == flood, "every request is answered, accepted or refused"
    assert refused, "a flood of pipelined requests must be refused"
    for r in refused:
        assert r["code"] == "rate_limited" and r["ref"] == "ping" and r["retry_after_ms"] > 0
        assert "ping" in r["message"]
    # a burst, then the rate (the first ping and slack for the clock)
    lim = Limits()
    assert len(pongs) <= lim.request_burst + lim.requests_per_second * elapsed + 5
    # refused, not cut: a request sent after the advertised delay is answered
    await asyncio.sleep(refused[-1]["retry_after_ms"] / 1000 + 0.1)
    await ws.send(msgpack.packb({"type": "ping", "nonce": "after"}))
    assert (await _read(ws, 1))[0] == {"type": "pong", "nonce": "after"}
    await ws.close()


async def test_a_refused_move_names_its_id_and_the_sdk_sends_it_again(default_server):
    client = TeahouseClient(default_server.url)
    mid = (await client.create_match("pixies", 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    seat = views[0].status["to_act"][0]
    conn = conns[seat]
    legal = await conn.legal_moves(mid)
    # the SDK pipelining 200 moves (one is played, the others come too late for the turn):
    # those refused for the rate are sent again after the delay, so every one gets its final
    # answer: the rules' reject or, as the SDK sends the seq it decided on (`at`), stale
    results = await asyncio.gather(*(conn.move(mid, legal[0], f"sdk-{i}") for i in range(200)),
                                   return_exceptions=True)
    assert results.count(2) == 1
    assert all(isinstance(r, (Rejected, Stale)) for r in results if r != 2), [r for r in results if r != 2][:3]
    assert any(e["code"] == "rate_limited" for e in conn.errors), "the flood was refused, then retried"
    # a raw client pipelining moves: each refusal names the move id it refuses, and that move is not played
    other = 1 - seat
    await views[other].wait_for(lambda v: v.seq == 2)
    legal = await conns[other].legal_moves(mid)
    ws = await _raw(default_server)
    await ws.send(msgpack.packb({"type": "join", "match": mid, "token": seats[other]["token"]}))
    ids = [f"flood-{i}" for i in range(8)]
    _pipelined(ws, [{"type": "ping"}] * 150 + [{"type": "move", "match": mid, "id": i, "command": legal[0]} for i in ids])
    answers: dict[str, dict] = {}
    while len(answers) < len(ids):
        m = (await _read(ws, 1))[0]
        key = m.get("id") if m["type"] in ("ack", "reject") else m.get("ref")
        if key in ids:
            answers[key] = m
    refused = [i for i in ids if answers[i]["type"] == "error"]
    assert refused, answers
    for i in refused:
        assert answers[i]["code"] == "rate_limited" and answers[i]["match"] == mid and answers[i]["retry_after_ms"] > 0
    acked = [i for i in ids if answers[i]["type"] == "ack"]
    assert len(acked) <= 1 and (await client.match(mid))["seq"] == 2 + len(acked)
    await ws.close()
    await close_all(*conns)
    await client.aclose()


async def test_one_request_in_flight_is_never_rate_limited_at_the_defaults(default_server):
    client = TeahouseClient(default_server.url)
    mid = (await client.create_match("khan", 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    for _ in range(3 * Limits().request_burst):
        await conns[0].ping()
    seat = views[0].status["to_act"][0]
    for _ in range(5):  # the answers are cached: asking again is cheap, and not refused
        assert len(await conns[seat].legal_moves(mid)) > 1000
    assert not [e for c in conns for e in c.errors], "no request of a one-in-flight client is refused"
    await close_all(*conns)
    await client.aclose()


async def test_khans_two_thousand_moves_come_in_pages(budget_server):
    client, mid, conns, seat, ws = await _seated(budget_server, "khan")
    pages = []
    while True:
        await ws.send(msgpack.packb({"type": "legal", "match": mid, "page": len(pages)}))
        while (m := msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10)))["type"] not in ("legal_moves", "error"):
            pass
        if m["type"] == "error":  # the byte budget: wait as told, ask again
            assert m["code"] == "rate_limited" and m["ref"] == "legal", m
            await asyncio.sleep(m["retry_after_ms"] / 1000)
            continue
        pages.append(m)
        if len(pages) == m["pages"]:
            break
    total = pages[0]["total"]
    assert total > 1500 and pages[0]["pages"] == -(-total // PAGE)
    assert [p["page"] for p in pages] == list(range(len(pages)))
    assert all(len(p["moves"]) <= PAGE and len(p["labels"]) == len(p["moves"]) for p in pages)
    moves = [m for p in pages for m in p["moves"]]
    assert len(moves) == total and len({msgpack.packb(m) for m in moves}) == total
    assert len({p["seq"] for p in pages}) == 1
    # a page past the last is refused with a code; the SDK joins every page into one list
    await asyncio.sleep(1)
    await ws.send(msgpack.packb({"type": "legal", "match": mid, "page": len(pages)}))
    while (m := msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10)))["type"] != "error":
        pass
    assert m["code"] == "bad_field" and m["ref"] == "legal"
    await ws.close()
    sdk = await conns[seat].legal_moves(mid)
    assert sdk == moves
    # and the last page's last move is a move the rules accept
    assert await conns[seat].move(mid, moves[-1]) == 2
    await close_all(*conns)
    await client.aclose()


async def test_legal_moves_past_the_byte_budget_are_refused_and_the_sdk_waits(budget_server):
    client, mid, conns, seat, ws = await _seated(budget_server, "khan")
    received = 0
    refused = None
    t0 = time.monotonic()
    for _ in range(40):  # one request in flight: only the byte budget can refuse it
        await ws.send(msgpack.packb({"type": "legal", "match": mid}))
        while True:
            data = await asyncio.wait_for(ws.recv(), 10)
            m = msgpack.unpackb(data)
            if m["type"] in ("legal_moves", "error"):
                break
        if m["type"] == "error":
            refused = m
            break
        received += len(data)
    assert refused is not None, "asking for far more bytes than the budget must be refused"
    assert refused["code"] == "rate_limited" and refused["ref"] == "legal" and refused["retry_after_ms"] > 0
    assert received <= BYTES_PER_S * (1 + time.monotonic() - t0) + 40_000  # the budget, plus one answer
    await ws.close()
    # the SDK is refused too, and retries after the delay: it still gets every move
    t1 = time.monotonic()
    for _ in range(3):
        assert len(await conns[seat].legal_moves(mid)) > 1500
    assert time.monotonic() - t1 > 0.5, "three full lists (1 MB) are more than the budget allows at once"
    await close_all(*conns)
    await client.aclose()


async def test_one_request_in_flight_is_never_refused_even_far_above_the_rate(tmp_path):
    """With a rate of 1 a second and a burst of 2, a client that waits for each answer still
    sends 60 requests in a few seconds unrefused; the same requests pipelined are refused."""
    env = {"TEAHOUSE_REQUESTS_PER_SECOND": "1", "TEAHOUSE_REQUEST_BURST": "2"}
    with sqlite_server(tmp_path, env) as server:
        client = TeahouseClient(server.url)
        conn = await client.connect().open()
        t0 = time.monotonic()
        for _ in range(60):
            await conn.ping()
        assert time.monotonic() - t0 < 30 and not conn.errors, conn.errors[:1]
        ws = await _raw(server)
        t1 = time.monotonic()
        _pipelined(ws, [{"type": "ping", "nonce": i} for i in range(10)])
        answers = await _read(ws, 10)
        accepted = sum(a["type"] == "pong" for a in answers)
        assert accepted < 10 and accepted <= 1 + 2 + (time.monotonic() - t1) * 1 + 1, answers
        await ws.close()
        await conn.close()
        await client.aclose()

