"""End to end on real sockets: a real uvicorn process, real stores, real WebSocket clients."""

from __future__ import annotations

import asyncio
import random

from teahouse_client import TeahouseClient

from tests.e2e.helpers import (
    assert_log_verifies,
    assert_no_leaks,
    close_all,
    doc_of,
    play_resilient,
    seat_players,
    states_by_seq,
)


async def test_three_bots_and_two_spectators_finish_pixies(server):
    client = TeahouseClient(server.url)
    match = await client.create_match("pixies", 3)
    mid = match["match"]
    specs = [await client.connect(record=True).open() for _ in range(2)]
    spec_views = [await s.spectate(mid) for s in specs]
    seats, conns, views = await seat_players(client, mid, 3)

    await asyncio.gather(*[play_resilient(c, mid, random.Random(i)) for i, c in enumerate(conns)])
    for v in spec_views:
        await v.wait_for(lambda g: g.finished is not None)

    log = await client.log(mid)
    final = log["seq"]
    assert final == len(log["commits"]) > 20
    assert all(v.seq == final for v in views + spec_views)

    # every audience's live document equals the replay of the log for that audience
    for i, v in enumerate(views):
        rep = await client.replay(mid, final, seat=i)
        assert doc_of(v) == {"view": rep["view"], "status": rep["status"]}
    rep = await client.replay(mid, final)
    for v in spec_views:
        assert doc_of(v) == {"view": rep["view"], "status": rep["status"]}
        assert v.finished["seed"] == log["seed"]

    # no frame to another seat or a spectator carries a seat's hidden card (exact bytes)
    states = states_by_seq("pixies", 3, {}, log["commits"])
    for i, c in enumerate(conns):
        assert assert_no_leaks("pixies", 3, states, i, c.frames) > 100, "the canary never flew"
    for s in specs:
        assert assert_no_leaks("pixies", 3, states, None, s.frames) > 100

    # provably fair: the revealed seed re-decides every commit to its logged events
    assert_log_verifies("pixies", 3, {}, log)
    assert log["result"]["winners"]
    assert sum(v.resyncs for v in views + spec_views) == 0, "no patch should go missing on a calm run"
    await close_all(*conns, *specs)
    await client.aclose()


async def test_kill_mid_match_and_resume_on_the_same_store(server):
    client = TeahouseClient(server.url)
    match = await client.create_match("pixies", 3)
    mid = match["match"]
    spec = await client.connect().open()
    spec_view = await spec.spectate(mid)
    seats, conns, views = await seat_players(client, mid, 3, record=False)
    players = [asyncio.create_task(play_resilient(c, mid, random.Random(10 + i))) for i, c in enumerate(conns)]
    spec_task = asyncio.create_task(_follow_spectator(spec, mid))

    await spec_view.wait_for(lambda g: g.seq >= 25, timeout=60)
    server.kill()
    before = spec_view.seq
    await asyncio.sleep(0.3)
    server.start()  # same port, same store: a new process knows only the log

    await asyncio.wait_for(asyncio.gather(*players), 120)
    await asyncio.wait_for(spec_task, 60)
    log = await client.log(mid)
    seqs = [c["seq"] for c in log["commits"]]
    assert seqs == list(range(1, len(seqs) + 1)), "no gap, no duplicate"
    assert log["seq"] > before
    move_ids = [(c["seat"], c["move_id"]) for c in log["commits"] if c["move_id"]]
    assert len(move_ids) == len(set(move_ids)), "no move applied twice"
    assert_log_verifies("pixies", 3, {}, log)
    for i, v in enumerate(views):
        rep = await client.replay(mid, log["seq"], seat=i)
        assert v.seq == log["seq"] and doc_of(v) == {"view": rep["view"], "status": rep["status"]}
    rep = await client.replay(mid, log["seq"])
    assert doc_of(spec_view) == {"view": rep["view"], "status": rep["status"]}
    await close_all(*conns, spec)
    await client.aclose()


async def _follow_spectator(conn, mid: str) -> None:
    """A spectator that reconnects after the server dies and follows the match to its end."""
    while True:
        try:
            await conn.matches[mid].wait_for(lambda g: g.over, timeout=30)
            return
        except (TimeoutError, ConnectionError):
            pass
        if conn.closed is not None and conn.closed.done():
            while True:
                await asyncio.sleep(0.2)
                try:
                    await conn.reconnect()
                    break
                except Exception:
                    continue


async def test_idempotent_retry_gets_the_original_answer(server):
    client = TeahouseClient(server.url)
    mid = (await client.create_match("pixies", 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    await views[0].wait_for(lambda g: g.status.get("to_act"))
    actor = views[0].status["to_act"][0]
    conn = conns[actor]
    move = (await conn.legal_moves(mid))[0]
    seq = await conn.move(mid, move, move_id="retry-me")
    assert await conn.move(mid, move, move_id="retry-me") == seq
    # after a reconnect too, the answer comes from the log
    await conn.reconnect()
    assert await conn.move(mid, move, move_id="retry-me") == seq
    log_seq = (await client.match(mid))["seq"]
    assert log_seq == seq
    await close_all(*conns)
    await client.aclose()
