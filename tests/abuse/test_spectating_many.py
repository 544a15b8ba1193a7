"""Spectating many matches pins nothing per match.

Each spectated match used to load a runtime with its own Redis connection (a blocking XREAD)
and its own presence loop: one socket spectating thousands of matches held thousands of
Redis connections. Now a connection watches at most `matches_per_connection` matches
(`too_many_matches`), tails share a few blocking XREADs per node, and presence is polled once
per node. Real server, real Redis, real sockets."""

from __future__ import annotations

import asyncio

import httpx
import msgpack
import redis
import websockets

from service.ops.limits import Limits

SOCKETS = 4


def _redis_clients(url: str) -> int:
    r = redis.Redis.from_url(url)
    try:
        return int(r.info("clients")["connected_clients"]) - 1
    finally:
        r.close()


async def _spectator(server, matches: list[str]) -> tuple[websockets.ClientConnection, dict[str, int]]:
    ws = await websockets.connect(server.url.replace("http", "ws") + "/ws", subprotocols=["teahouse.v1.msgpack"],
                                  max_size=1 << 24, ping_interval=None)
    await ws.send(msgpack.packb({"type": "hello"}))
    for mid in matches:
        await ws.send(msgpack.packb({"type": "spectate", "match": mid}))
    answers: dict[str, int] = {}
    want = len(matches)
    while sum(answers.values()) < want:
        msg = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 30), raw=False)
        if msg["type"] == "view":
            answers["view"] = answers.get("view", 0) + 1
        elif msg["type"] == "error":
            answers[msg["code"]] = answers.get(msg["code"], 0) + 1
    return ws, answers


async def test_sockets_spectating_many_matches_hold_few_redis_connections(redis_url, tmp_path):
    from tests.support.server import ServerProcess

    server = ServerProcess(redis_url, tmp_path / "server.log").start()
    try:
        limit = Limits.matches_per_connection
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
            ids = [(await http.post("/api/matches", json={"game": "pixies", "players": 2, "listed": False})).json()["match"]
                   for _ in range(SOCKETS * limit + 20)]
            before = _redis_clients(redis_url)
            sockets = []
            for k in range(SOCKETS):
                chunk = ids[k * limit:(k + 1) * limit] + (ids[-20:] if k == 0 else [])
                ws, answers = await _spectator(server, chunk)
                sockets.append(ws)
                # the first socket asked for 20 more than it may watch
                assert answers == ({"view": limit, "too_many_matches": 20} if k == 0 else {"view": limit})
            await asyncio.sleep(2)  # presence polls, tails settle
            health = (await http.get("/health")).json()
            held = _redis_clients(redis_url) - before
            assert health["live_matches"] == SOCKETS * limit
            # one shared XREAD per 256 streams, plus the few pooled connections in use;
            # it used to be one connection per match (256 here)
            assert held <= 12, held
            # a commit still reaches a spectator of every group: take the seats of one match
            mid = ids[SOCKETS * limit - 1]
            for _ in range(2):
                assert (await http.post(f"/api/matches/{mid}/seats", json={})).status_code == 201
            last = sockets[-1]
            for _ in range(200):
                msg = msgpack.unpackb(await asyncio.wait_for(last.recv(), 10), raw=False)
                if msg["type"] == "patch" and msg["match"] == mid:
                    break
            else:
                raise AssertionError("the spectator never saw the start of its match")
        for ws in sockets:
            await ws.close()
    finally:
        server.stop()
