"""Webhook delivery latency: from a commit to its `your_turn` at a receiver on loopback.

    .venv/bin/python bench/platform_webhooks.py [--matches 200] [--parallel 8] [--store sqlite]

A real server (`teahouse serve`, bench/_support.py) and a real HTTP receiver in this process
(asyncio streams, answering 200). One player registers a hook for `your_turn`; then `--matches`
2-player Pixies matches with a bot in seat 1 and the player first are started, `--parallel` at a
time, by the player taking seat 0: the start commit makes it the player's turn. Prints the
commit -> receipt latency (the payload's `ts`, the commit's time, to the request's arrival;
p50/p90/p99/max, in ms, on one machine's clock), the last seat's claim time (p50/p99), how many
deliveries arrived and how many twice. Bounded: the matches, then up to 30 s for stragglers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from _support import Server, machine, percentile  # noqa: E402


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=200)
    ap.add_argument("--parallel", type=int, default=8)
    ap.add_argument("--store", default="sqlite")
    args = ap.parse_args()

    arrivals: list[tuple[float, dict]] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
        body = await reader.readexactly(length)
        arrivals.append((time.time() * 1000, json.loads(body)))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    receiver = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = receiver.sockets[0].getsockname()[1]
    with Server(args.store) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            key = (await http.post("/api/players", json={"name": "bench"})).json()["key"]
            r = await http.post("/api/players/me/webhooks", json={"url": f"http://127.0.0.1:{port}/h", "events": ["your_turn"]},
                                headers={"Authorization": f"Bearer {key}"})
            assert r.status_code == 201, r.text
            claims: list[float] = []
            slots = asyncio.Semaphore(args.parallel)

            async def one() -> None:
                async with slots:
                    made = await http.post("/api/matches", json={"game": "pixies", "players": 2, "options": {"first_player": 0},
                                                                 "bots": [{"seat": 1, "strength": 0}]})
                    t = time.perf_counter()
                    r = await http.post(f"/api/matches/{made.json()['match']}/seats", json={"seat": 0, "player_key": key})
                    claims.append((time.perf_counter() - t) * 1000)
                    assert r.status_code == 201, r.text

            await asyncio.gather(*[one() for _ in range(args.matches)])
            deadline = time.monotonic() + 30
            while len({p["id"] for _, p in arrivals}) < args.matches and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
    receiver.close()
    lat = [at - p["ts"] for at, p in arrivals]
    ids = [p["id"] for _, p in arrivals]
    print(f"machine: {machine()}; store {args.store}; {args.matches} matches, {args.parallel} at a time")
    print(f"commit -> your_turn received (ms): p50 {percentile(lat, 50):.1f}  p90 {percentile(lat, 90):.1f}  "
          f"p99 {percentile(lat, 99):.1f}  max {max(lat, default=float('nan')):.1f}")
    print(f"last seat's claim (ms): p50 {percentile(claims, 50):.1f}  p99 {percentile(claims, 99):.1f}")
    print(f"deliveries: {len(set(ids))} of {args.matches} arrived, {len(ids) - len(set(ids))} twice")


if __name__ == "__main__":
    asyncio.run(main())
