"""The SDK's bot rides through a node restart (a draining node closes every socket
with 1012 so that clients reconnect): its socket is opened again, the seat joined again from
the seq it holds, and the match is played to the end. Real server process, SIGTERM, same store."""

from __future__ import annotations

import asyncio
import random

from teahouse_client.bot import play_seat
from teahouse_client.client import MatchView, TeahouseClient

from tests.support.server import sqlite_server

CLOSE_SERVICE_RESTART = 1012  # SPEC: the node is going away; connect again


async def test_bots_finish_a_match_across_a_node_restart(tmp_path):
    with sqlite_server(tmp_path) as server:
        client = TeahouseClient(server.url)
        mid = (await client.create_match("pixies", 2))["match"]
        seats = [await client.take_seat(mid, seat=s) for s in range(2)]
        await client.aclose()
        conns = [await TeahouseClient(server.url).connect().open() for _ in range(3)]
        views = [await c.join(mid, s["token"]) for c, s in zip(conns, seats, strict=False)]
        await conns[2].spectate(mid)  # never reconnected: it shows how the node closed its sockets
        restarted_at: list[int] = []

        def restart_once(game: MatchView, move: dict) -> None:
            # Blocking on purpose: nothing of the bots runs while the node drains and comes back.
            if not restarted_at and game.seq >= 4:
                restarted_at.append(game.seq)
                server.terminate()  # SIGTERM: the drain closes every WebSocket with 1012
                server.start()  # same port, same SQLite store

        await asyncio.wait_for(asyncio.gather(*[
            play_seat(conn, view, random.Random(seat), restart_once)
            for seat, (conn, view) in enumerate(zip(conns, views, strict=False))]), timeout=120)

        assert restarted_at, "the node was restarted mid-match"
        code, _reason = await asyncio.wait_for(conns[2].closed, timeout=10)
        assert code == CLOSE_SERVICE_RESTART
        after = TeahouseClient(server.url)
        summary = await after.match(mid)
        log = await after.log(mid)
        await after.aclose()
        for conn in conns:
            await conn.close()
    assert summary["state"] == "finished"
    assert summary["seq"] > restarted_at[0]
    seqs = [c["seq"] for c in log["commits"]]
    assert seqs == list(range(1, len(seqs) + 1)), "one unbroken log across the restart"
