"""1,000 spectators on one match: move -> last spectator latency, and encode work per move.

Part 1, in process: one handcards match (bench/games/handcards) through the server's own
MatchRuntime broadcast path (service.projection + runtime._broadcast) with N watcher stubs of
each wire encoding in use (v2 msgpack); counts the encode calls and the time spent encoding
per move for N = 1, 10, 100, 1,000. "Encode once per audience" means those do not grow with N.

Part 2, a real server: `teahouse serve --bench-games` (SQLite, synchronous=FULL by default, or
Redis with appendfsync always), 4 seats in this process and N spectators spread over
`--clients` forked processes, all protocol v2 msgpack. The seats play the 60 moves of a match
one after the other; a move's latency is from the seat sending it to the last spectator
receiving its patch (perf_counter is the same clock in every process on Linux).

Run:
  .venv/bin/python bench/platform_spectators.py --spectators 1000 --store sqlite
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
from typing import Any

import _support as S
import httpx
import msgpack
from websockets.asyncio.client import connect

os.environ["TEAHOUSE_BENCH_GAMES"] = "1"  # the server (a child process) plays handcards too

from protocol import codec  # noqa: E402
from protocol.v2 import decode_frame  # noqa: E402
from service.games import enable_bench_games, get_game  # noqa: E402
from service.games.playout import playout  # noqa: E402

SUB = "teahouse.v2.msgpack"


# -- part 1: encode work per move vs spectators, in process ----------------------------------

class _Watcher:
    __slots__ = ("encoding", "got")

    def __init__(self, encoding: str) -> None:
        self.encoding, self.got = encoding, 0

    def deliver(self, data: bytes) -> None:
        self.got += len(data)


def encode_work(spectators: int) -> tuple[float, float, int]:
    """(encode calls per move, encode µs per move, bytes delivered per move) for one match
    with `spectators` spectator watchers and its 4 seats."""
    from service.projection import Projection

    enable_bench_games()
    game = get_game("handcards")
    steps = list(playout(game, 4, "spectators", {"seed": 11}))
    proj = Projection(game, "bench-match1", 1)
    watchers: dict[Any, list[_Watcher]] = {s: [_Watcher("v2.msgpack")] for s in range(4)}
    watchers[None] = [_Watcher("v2.msgpack") for _ in range(spectators)]
    for audience in watchers:
        proj.watch(audience, steps[0].after, 1)
    calls, spent = 0, 0.0
    real = codec.encode

    def counted(message: Any, encoding: str) -> bytes:
        nonlocal calls, spent
        t = time.perf_counter()
        out = real(message, encoding)
        spent += time.perf_counter() - t
        calls += 1
        return out

    import service.projection as projection_module

    projection_module.encode = counted  # type: ignore[assignment]
    try:
        for step in steps[1:]:
            for audience, frame in proj.advance(step.after, step.seq).items():
                for w in watchers[audience]:
                    w.deliver(frame.encoded(w.encoding))
    finally:
        projection_module.encode = real  # type: ignore[assignment]
    moves = len(steps) - 1
    delivered = sum(w.got for ws in watchers.values() for w in ws)
    return calls / moves, spent / moves * 1e6, delivered // moves


# -- part 2: a real server -----------------------------------------------------------------

def spectator_worker(index: int, barrier, queue, ws_url: str, match: str, n: int) -> None:
    queue.put(asyncio.run(_spectators(barrier, ws_url, match, n)))


async def _spectators(barrier, ws_url: str, match: str, n: int) -> dict[int, float]:
    last: dict[int, float] = {}
    ready = 0

    async def one() -> None:
        nonlocal ready
        async with connect(ws_url, subprotocols=[SUB], compression=None, open_timeout=120,
                           ping_interval=None, max_size=1 << 22) as ws:
            await ws.send(msgpack.packb({"type": "hello"}))
            await ws.send(msgpack.packb({"type": "spectate", "match": match}))
            viewed = False
            async for frame in ws:
                t = time.perf_counter()
                msg = decode_frame(frame, "msgpack")  # v2: [4 ref + kind, seq, ...] (SPEC 12.3)
                if isinstance(msg, list) and msg[0] % 4 == 2:  # finished
                    break
                if isinstance(msg, list) and msg[0] % 4 == 0:
                    seq = msg[1]
                    if t > last.get(seq, 0.0):
                        last[seq] = t
                elif isinstance(msg, dict):
                    if msg.get("type") == "view" and not viewed:
                        viewed = True
                        ready += 1

    tasks = []
    for _ in range(n):
        tasks.append(asyncio.create_task(one()))
        await asyncio.sleep(0.002)  # do not stampede the accept queue
    while ready < n:
        await asyncio.sleep(0.05)
    await asyncio.get_running_loop().run_in_executor(None, barrier.wait)
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.get_running_loop().run_in_executor(None, barrier.wait)
    return last


async def _play(url: str, ws_url: str, tokens: list[str], match: str) -> dict[int, float]:
    """The seats play a whole match, one move at a time; returns seq -> send time."""
    seats = []
    for token in tokens:
        ws = await connect(ws_url, subprotocols=[SUB], compression=None, ping_interval=None, max_size=1 << 22)
        await ws.send(msgpack.packb({"type": "hello"}))
        await ws.send(msgpack.packb({"type": "join", "match": match, "token": token}))
        seats.append(ws)
    sent: dict[int, float] = {}
    hands: dict[int, list[str]] = {}

    async def until_view(i: int, ws: Any) -> None:
        while True:
            msg = decode_frame(await ws.recv(), "msgpack")
            if isinstance(msg, dict) and msg.get("type") == "view":
                hands[i] = [c["id"] for c in msg["doc"]["view"]["hand"]]
                return

    await asyncio.gather(*(until_view(i, ws) for i, ws in enumerate(seats)))
    async with httpx.AsyncClient(base_url=url) as http:
        for move in range(60):
            seat = move % 4
            ws = seats[seat]
            legal = None
            await ws.send(msgpack.packb({"type": "legal", "match": match}))
            while legal is None:
                msg = decode_frame(await ws.recv(), "msgpack")
                if isinstance(msg, dict) and msg.get("type") == "legal_moves":
                    legal = msg["moves"]
            seq = move + 2
            sent[seq] = time.perf_counter()
            await ws.send(msgpack.packb({"type": "move", "match": match, "id": f"m{move}", "command": legal[0]}))
            while True:  # the ack: [4 ref + 1, seq, id]
                msg = decode_frame(await ws.recv(), "msgpack")
                if isinstance(msg, list) and msg[0] % 4 == 1:
                    break
            await asyncio.sleep(0.02)  # one move in flight, and room for the fan-out to finish
        await http.get("/health")
    for ws in seats:
        await ws.close()
    return sent


def server_run(store: str, spectators: int, clients: int) -> tuple[list[float], float, float]:
    with S.Server(store) as srv:
        with httpx.Client(base_url=srv.url, timeout=60) as http:
            m = http.post("/api/matches", json={"game": "handcards", "players": 4, "options": {"seed": 5},
                                                 "listed": False}).json()
            tokens = [http.post(f"/api/matches/{m['match']}/seats", json={"seat": s}).json()["token"]
                      for s in range(4)]
        per = [spectators // clients + (1 if i < spectators % clients else 0) for i in range(clients)]
        box: dict[str, Any] = {}

        def measure() -> None:
            box["cpu0"] = S.cpu_seconds(srv.pid)
            box["sent"] = asyncio.run(_play(srv.url, srv.ws_url, tokens, m["match"]))
            box["cpu1"] = S.cpu_seconds(srv.pid)

        results = S.run_workers(clients, _dispatch, (srv.ws_url, m["match"], per), measure, lambda: None)
        rss = S.rss_kib(srv.pid)
    last: dict[int, float] = {}
    for r in results:
        for seq, t in r.items():
            last[seq] = max(last.get(seq, 0.0), t)
    sent = box["sent"]
    lat = [(last[s] - sent[s]) * 1000 for s in sent if s in last]
    cpu_ms = (box["cpu1"] - box["cpu0"]) * 1000 / max(1, len(sent))
    return lat, cpu_ms, rss / 1024


def _dispatch(index: int, barrier, queue, ws_url: str, match: str, per: list[int]) -> None:
    spectator_worker(index, barrier, queue, ws_url, match, per[index])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spectators", type=int, default=1000)
    ap.add_argument("--store", default="sqlite", help="sqlite or redis")
    ap.add_argument("--clients", type=int, default=4, help="spectator client processes")
    ap.add_argument("--skip-server", action="store_true", help="part 1 only")
    args = ap.parse_args()
    random.seed(1)
    print(f"platform_spectators: machine: {S.machine()}")
    print("part 1, in process (handcards, 4 seats + N spectators, every connection v2 msgpack):")
    print(f"{'spectators':>10} {'encode calls/move':>18} {'encode us/move':>15} {'bytes handed out/move':>22}")
    for n in (1, 10, 100, 1000):
        calls, us, out = encode_work(n)
        print(f"{n:>10} {calls:>18.1f} {us:>15.1f} {out:>22,}")
    if args.skip_server:
        return
    lat, cpu_ms, rss = server_run(args.store, args.spectators, args.clients)
    lat.sort()
    q = (lambda p: lat[min(len(lat) - 1, int(p / 100 * len(lat)))]) if lat else (lambda p: float("nan"))
    print(f"part 2, a real server ({args.store}), 1 handcards match, 4 seats + {args.spectators} spectators "
          f"in {args.clients} client processes, {len(lat)} moves one at a time:")
    print(f"  move -> last spectator: p50 {q(50):.1f} ms, p99 {q(99):.1f} ms, max {lat[-1] if lat else float('nan'):.1f} ms;"
          f" server CPU {cpu_ms:.2f} ms per move; server RSS {rss:.0f} MiB")


if __name__ == "__main__":
    main()
