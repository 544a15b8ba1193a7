"""A log that goes backwards is noticed.

If the store loses acknowledged commits (Redis `everysec` and a power loss, a failover to a
replica that was behind, an older SQLite file restored), the stream's last seq falls below what
a node had. Before, every move answered `busy` for ever and a restarted node silently served
the older history. Now the match goes to a visible `diverged` state: its watchers are told
(`error` `diverged`, ref the match id), moves/joins are refused with that code, the summary
says `state: diverged`, /health counts it, and nothing is built on the shorter log."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import httpx
import redis
from teahouse_client import TeahouseClient
from teahouse_client.client import ServerError

from tests.e2e.helpers import close_all, seat_players


def _lose_commits(store_url: str, match: str, keep: int) -> None:
    """Do to the store what a crash of its disk or a failover does: drop every commit after `keep`."""
    if store_url.startswith("redis"):
        r = redis.Redis.from_url(store_url)
        key = f"th:{{{match}}}:log"
        ids = [i for i, _ in r.xrange(key, f"({keep}-0", "+")]
        r.xdel(key, *ids)
        r.close()
    else:
        path = Path(store_url.split(":", 1)[1]) / "teahouse.sqlite3"
        db = sqlite3.connect(path, timeout=10)
        db.execute("DELETE FROM log WHERE match = ? AND seq > ?", (match, keep))
        db.commit()
        db.close()


async def _play(client, conns, views, mid, moves: int) -> None:
    for _ in range(moves):
        seat = views[0].status["to_act"][0]
        legal = await conns[seat].legal_moves(mid)
        seq = await conns[seat].move(mid, legal[0])
        await views[0].wait_for(lambda g, seq=seq: g.seq >= seq, timeout=10)


async def test_a_move_on_a_log_that_went_backwards_stops_the_match_visibly(server, store_url):
    client = TeahouseClient(server.url)
    mid = (await client.create_match("pixies", 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    await _play(client, conns, views, mid, 4)
    seen = views[0].seq
    assert seen == 5
    _lose_commits(store_url, mid, keep=3)

    seat = views[0].status["to_act"][0]
    legal = await conns[seat].legal_moves(mid)
    try:
        await asyncio.wait_for(conns[seat].move(mid, legal[0], "after-loss"), 15)
        raise AssertionError("a move on a log that lost commits was accepted")
    except ServerError as exc:
        assert exc.code == "diverged", exc.code  # not `busy` for ever
    # every watcher is told, unasked, with the match id as ref
    other = conns[1 - seat]
    for _ in range(50):
        if any(e.get("code") == "diverged" and e.get("ref") == mid for e in other.errors):
            break
        await asyncio.sleep(0.1)
    assert any(e.get("code") == "diverged" and e.get("ref") == mid for e in other.errors)
    summary = await client.match(mid)
    assert summary["state"] == "diverged" and summary["seq"] == 3
    assert httpx.get(server.url + "/health").json()["diverged_matches"] >= 1
    # nobody can come back and be shown the shorter history as if nothing happened
    fresh = await client.connect().open()
    try:
        await fresh.spectate(mid)
        raise AssertionError("spectating a diverged match was allowed")
    except ServerError as exc:
        assert exc.code == "diverged"
    # and nothing was written on the shorter log
    assert (await client.match(mid))["seq"] == 3
    assert "the store lost acknowledged commits" in server.log_text()
    await close_all(fresh, *conns)
    await client.aclose()


async def test_a_quiet_match_whose_log_went_backwards_is_noticed_by_its_watchers(server, store_url):
    client = TeahouseClient(server.url)
    mid = (await client.create_match("pixies", 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    await _play(client, conns, views, mid, 3)
    spectator = await client.connect().open()
    await spectator.spectate(mid)
    _lose_commits(store_url, mid, keep=2)
    # nobody moves: the node's tail notices on its own
    for _ in range(150):
        if any(e.get("code") == "diverged" for e in spectator.errors):
            break
        await asyncio.sleep(0.1)
    assert [e["ref"] for e in spectator.errors if e.get("code") == "diverged"] == [mid]
    assert (await client.match(mid))["state"] == "diverged"
    await close_all(spectator, *conns)
    await client.aclose()
