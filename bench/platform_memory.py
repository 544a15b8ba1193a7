"""Server memory per idle connection (and per loaded match): VmRSS of the server process (/proc/<pid>/status)
before and after opening N idle spectator connections, divided by N.

The matches (Pixies, 4 seats taken over HTTP, so they are live at seq 1) are created first
and each gets one warm-up spectator, so that the runtimes and the spectator projections are
already in the "before" figure; what is left is the cost of a connection itself (socket,
WebSocket protocol state, session, outbox, reader/writer tasks). The connections keep
reading (they are idle, not stalled), so the presence messages each join broadcasts to
the match are drained; their count is printed, as is the RSS after all are closed again.
Before that, `--idle-matches` live matches without any connection give the RSS of a loaded
match runtime and the server's CPU while nothing happens (each runtime tails its log).

Run:
  .venv/bin/python bench/platform_memory.py --store sqlite --connections 1000 --per-match 100
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import time

import _support as S
import httpx


async def live_match(http: httpx.AsyncClient, args: argparse.Namespace) -> str:
    """A match whose seats are all taken over HTTP: the server loads its runtime and starts it."""
    r = await http.post("/api/matches", json={"game": args.game, "players": args.players, "listed": False})
    mid = r.json()["match"]
    for i in range(args.players):
        await http.post(f"/api/matches/{mid}/seats", json={"seat": i})
    return mid


async def run(args: argparse.Namespace, srv: S.Server) -> None:
    http = httpx.AsyncClient(base_url=srv.url, timeout=120)
    if args.idle_matches:
        await live_match(http, args)
        await asyncio.sleep(args.settle)
        rss0 = S.rss_kib(srv.pid)
        for _ in range(args.idle_matches):
            await live_match(http, args)
        await asyncio.sleep(args.settle)
        rss1 = S.rss_kib(srv.pid)
        cpu0, t0 = S.cpu_seconds(srv.pid), time.perf_counter()
        await asyncio.sleep(args.idle_window)
        idle = (S.cpu_seconds(srv.pid) - cpu0) / (time.perf_counter() - t0)
        print(f"{args.idle_matches} live matches, no connection: RSS {rss0 / 1024:.1f} -> {rss1 / 1024:.1f} MiB "
              f"({(rss1 - rss0) / args.idle_matches:.1f} KiB per loaded match runtime); idle server CPU "
              f"{100 * idle:.1f}% of a core over {args.idle_window:.0f} s "
              f"({1000 * idle / args.idle_matches:.2f} ms/s per match)")
    n_matches = math.ceil(args.connections / args.per_match)
    ids = [await live_match(http, args) for _ in range(n_matches)]

    def ignore(conn: S.Conn, msg: dict, t: float) -> None:
        return None

    async def spectate(mid: str) -> S.Conn:
        c = await S.Conn.open(srv.ws_url, ignore)
        await c.request(("view", mid), {"type": "spectate", "match": mid})
        return c

    warm = [await spectate(mid) for mid in ids]
    await asyncio.sleep(args.settle)
    before = S.rss_kib(srv.pid)
    cpu0 = S.cpu_seconds(srv.pid)
    gate = asyncio.Semaphore(32)

    async def one(i: int) -> S.Conn:
        async with gate:
            return await spectate(ids[i % n_matches])

    t0 = time.perf_counter()
    conns = list(await asyncio.gather(*(one(i) for i in range(args.connections))))
    opened_s = time.perf_counter() - t0
    cpu_open = S.cpu_seconds(srv.pid) - cpu0
    await asyncio.sleep(args.settle)
    after = S.rss_kib(srv.pid)
    frames = sum(c.frames for c in conns)
    cut = sum(1 for c in conns if c.closed_code is not None)
    t1 = time.perf_counter()
    await asyncio.gather(*(c.close() for c in conns))
    closed_s = time.perf_counter() - t1
    await asyncio.sleep(args.settle)
    after_close = S.rss_kib(srv.pid)
    # Each match should now have its warm-up spectator and this probe: a presence message
    # counting more means watchers that left were never detached.
    seen: dict[str, int] = {}

    def presence(conn: S.Conn, msg: dict, t: float) -> None:
        if msg.get("type") == "presence":
            seen[msg["match"]] = msg["spectators"]

    probes = []
    for mid in ids:
        c = await S.Conn.open(srv.ws_url, presence)
        await c.request(("view", mid), {"type": "spectate", "match": mid})
        probes.append(c)
    await asyncio.sleep(0.5)
    ghosts = sum(max(0, seen.get(mid, 0) - 2) for mid in ids)
    await asyncio.gather(*(c.close() for c in warm + probes))
    await http.aclose()
    n = args.connections
    print(f"server RSS: {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB with {n} more idle spectators "
          f"-> {(after - before) / n:.1f} KiB per idle connection; {after_close / 1024:.1f} MiB after closing them")
    print(f"opening {n} connections (hello + spectate, 32 at a time): {opened_s:.1f} s, "
          f"{cpu_open:.1f} s of server CPU ({cpu_open / n * 1000:.2f} ms per connection); closing: {closed_s:.1f} s")
    print(f"frames received by the {n} connections while joining: {frames} "
          f"({frames - 3 * n} presence broadcasts beyond welcome/view/own presence, "
          f"{(frames - 3 * n) / n:.0f} per connection); connections closed by the server: {cut}")
    print(f"after closing them, presence still counts {ghosts} spectator(s) that left (should be 0)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", choices=["sqlite", "redis"], default="sqlite")
    ap.add_argument("--connections", type=int, default=1000)
    ap.add_argument("--per-match", type=int, default=100, help="spectators per match (default 100)")
    ap.add_argument("--game", default="pixies")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--idle-matches", type=int, default=200,
                    help="first, live matches with no connection, for their RSS and idle CPU (default 200)")
    ap.add_argument("--idle-window", type=float, default=10.0, help="seconds of idle CPU reading (default 10)")
    ap.add_argument("--settle", type=float, default=2.0, help="seconds to wait before each RSS reading")
    args = ap.parse_args()
    print(f"platform_memory: {args.store}, {args.connections} idle spectators, {args.per_match} per match; "
          f"machine: {S.machine()}")
    with S.Server(args.store) as srv:
        asyncio.run(run(args, srv))


if __name__ == "__main__":
    main()
