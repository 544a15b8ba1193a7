"""Two server processes on one Redis, no sticky sessions: seats and spectators spread over
both nodes play one match; each node follows the other's commits from the stream."""

from __future__ import annotations

import asyncio
import random

import pytest
from teahouse_client import TeahouseClient
from teahouse_client.client import Rejected

from protocol.v2 import Expander, decode_frame
from tests.e2e.helpers import assert_log_verifies, close_all, doc_of, play_resilient
from tests.support.server import ServerProcess


@pytest.fixture
async def clients(redis_url, tmp_path):
    """Clients of two server processes that share one Redis."""
    nodes = [ServerProcess(redis_url, tmp_path / f"{name}.log").start() for name in "ab"]
    ca, cb = TeahouseClient(nodes[0].url), TeahouseClient(nodes[1].url)
    try:
        yield ca, cb
    finally:
        await ca.aclose()
        await cb.aclose()
        for node in nodes:
            node.stop()


async def test_a_match_played_across_two_nodes(clients):
    ca, cb = clients
    mid = (await ca.create_match("pixies", 4))["match"]
    # seats are taken through either node; the last one starts the match
    tokens = [(await (ca if i % 2 else cb).take_seat(mid))["token"] for i in range(4)]
    conns = [await (ca if i % 2 else cb).connect().open() for i in range(4)]
    views = [await c.join(mid, t) for c, t in zip(conns, tokens, strict=True)]
    specs = [await ca.connect().open(), await cb.connect().open()]
    spec_views = [await s.spectate(mid) for s in specs]
    await asyncio.wait_for(
        asyncio.gather(*[play_resilient(c, mid, random.Random(i)) for i, c in enumerate(conns)]), 90)
    log = await cb.log(mid)
    final = log["seq"]
    for v in spec_views:
        await v.wait_for(lambda g: g.seq == final)
    for i, v in enumerate(views):
        assert v.seq == final
        rep = await ca.replay(mid, final, seat=i)
        assert doc_of(v) == {"view": rep["view"], "status": rep["status"]}
    rep = await cb.replay(mid, final)
    assert all(doc_of(v) == {"view": rep["view"], "status": rep["status"]} for v in spec_views)
    assert [c["seq"] for c in log["commits"]] == list(range(1, final + 1))
    assert_log_verifies("pixies", 4, {}, log)
    await close_all(*conns, *specs)


async def test_presence_is_seen_across_nodes(clients):
    ca, cb = clients
    mid = (await ca.create_match("pixies", 2))["match"]
    tokens = [(await ca.take_seat(mid))["token"] for _ in range(2)]
    watcher = await ca.connect().open()
    wv = await watcher.spectate(mid)
    p0 = await cb.connect().open()
    await p0.join(mid, tokens[0])
    # seat 0 and a second spectator connect on node b; the spectator on node a sees them
    s2 = await cb.connect().open()
    await s2.spectate(mid)
    await wv.wait_for(lambda g: g.presence and g.presence["seats"] == [True, False]
                      and g.presence["spectators"] == 2, timeout=10)
    await p0.close()
    await wv.wait_for(lambda g: g.presence["seats"] == [False, False], timeout=10)
    await close_all(watcher, s2)


async def test_a_client_never_gets_the_same_presence_twice_in_a_row(clients):
    """Presence is sent to a client only when it changed for that client, however many nodes
    publish it: connections arriving on one node while the other node's spectators come and go
    (so a remote change can land between a join and the coalesced flush)."""
    ca, cb = clients
    mid = (await ca.create_match("pixies", 2))["match"]
    stop = asyncio.Event()

    async def churn() -> None:
        while not stop.is_set():
            c = await cb.connect().open()
            await c.spectate(mid)
            await asyncio.sleep(0.15)
            await c.close()
            await asyncio.sleep(0.15)

    arrivals = []
    churning = asyncio.create_task(churn())
    try:
        for _ in range(40):
            c = await ca.connect(record=True).open()
            arrivals.append(c)
            await c.spectate(mid)
            await asyncio.sleep(0.07)
        await asyncio.sleep(1.5)
    finally:
        stop.set()
        await churning
        await close_all(*arrivals)
    repeats = 0
    for c in arrivals:
        ex = Expander()  # protocol v2 sends presence compact (SPEC 12.3)
        sent = [m for m in (ex.expand(decode_frame(f, "msgpack")) for f in c.frames) if m["type"] == "presence"]
        assert sent, "spectate is always answered with a presence"
        repeats += sum(a == b for a, b in zip(sent, sent[1:], strict=False))
    assert repeats == 0, f"{repeats} presence frames repeated the one before"


async def test_a_refused_move_id_gets_the_same_reject_from_either_node(clients):
    """SPEC 3.5: an id the rules refused answers that same reject when it is sent again, on any
    node, even once the position would take the move: seat 1 takes a card out of turn on node
    a (`not_your_turn`); after seat 0's move the same command is legal, yet the same id, sent
    again on node b or on node a, is still `not_your_turn`. A new id is taken."""
    ca, cb = clients
    mid = (await ca.create_match("pixies", 2, {"first_player": 0}))["match"]
    tokens = [(await ca.take_seat(mid))["token"] for _ in range(2)]
    c0, c1a, c1b = await ca.connect().open(), await ca.connect().open(), await cb.connect().open()
    v0 = await c0.join(mid, tokens[0])
    await c1a.join(mid, tokens[1])
    v1b = await c1b.join(mid, tokens[1])
    market = await c0.legal_moves(mid)
    assert v0.seq == 1 and len(market) == 4
    mine, theirs = market[0], market[1]
    with pytest.raises(Rejected) as first:
        await c1a.move(mid, theirs, move_id="out-of-turn")
    assert first.value.code == "not_your_turn"
    assert await c0.move(mid, mine) == 2
    await v1b.wait_for(lambda g: g.seq == 2, timeout=10)
    for conn in (c1b, c1a):
        with pytest.raises(Rejected) as again:
            await conn.move(mid, theirs, move_id="out-of-turn", at=2)
        assert (again.value.code, again.value.message) == (first.value.code, first.value.message)
    assert (await ca.match(mid))["seq"] == 2, "nothing was committed"
    assert await c1b.move(mid, theirs, move_id="in-turn", at=2) == 3, "the move itself is legal now"
    await close_all(c0, c1a, c1b)
