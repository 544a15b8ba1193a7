"""Committed moves per second at saturation, through a real server process.

Many concurrent matches (Pixies, 4 seats; spectators optional); in each, the seat to act asks
for its legal moves and sends one at random as soon as the previous move's ack (and the
patch that says whose turn it is) came back: no pacing, so the server or its store
saturates. A finished match is replaced by a new one (its set-up is inside the window).
Clients run in `--clients` forked processes.

Run:
  .venv/bin/python bench/platform_throughput.py --store sqlite --matches 100
  .venv/bin/python bench/platform_throughput.py --store redis --matches 100
  .venv/bin/python bench/platform_throughput.py --store sqlite --matches 100 --store-only --duration 10
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

import _support as S
import httpx


def _dispatch(index: int, barrier, queue, jobs: list) -> None:
    url, ws_url, n, args = jobs[index]
    queue.put(asyncio.run(_worker(index, barrier, url, ws_url, n, args)))


async def _worker(index: int, barrier, url: str, ws_url: str, n: int, args: argparse.Namespace) -> dict:
    rng = random.Random(f"{args.seed}-{index}")
    http = httpx.AsyncClient(base_url=url, timeout=120, limits=httpx.Limits(max_connections=16))
    gate = asyncio.Semaphore(8)
    setup_failures: list[str] = []

    async def new_match() -> S.LiveMatch:
        async with gate:
            return await S.new_live_match(http, ws_url, args, random.Random(rng.random()), setup_failures)

    matches = list(await asyncio.gather(*(new_match() for _ in range(n))))
    out = {"acks": 0, "rejects": 0, "errors": 0, "finished": 0, "rtt": [], "frames": 0, "cut": 0,
           "setup_failures": setup_failures}
    await S.barrier_wait(barrier)
    deadline = time.perf_counter() + args.duration

    async def play(slot: int) -> None:
        m = matches[slot]
        k = 0
        while time.perf_counter() < deadline:
            if m.finished:
                out["finished"] += 1
                out["frames"] += sum(c.frames for c in m.conns)
                await m.close()
                out["cut"] += m.cut
                m = matches[slot] = await new_match()
            try:
                choice = await m.choose()
                if choice is None:
                    await asyncio.sleep(0.01)
                    continue
                seat, command = choice
                k += 1
                move_id = f"t{index}-{slot}-{k}"
                t0 = time.perf_counter()
                reply = await m.seats[seat].request(
                    move_id, {"type": "move", "match": m.id, "id": move_id, "command": command}, timeout=60)
                if reply["type"] == "reject":
                    out["rejects"] += 1
                    continue
                out["rtt"].append(time.perf_counter() - t0)
                if time.perf_counter() <= deadline:
                    out["acks"] += 1
                await m.tracked(reply["seq"])
            except (TimeoutError, ConnectionError, RuntimeError):
                out["errors"] += 1
                await asyncio.sleep(0.05)

    await asyncio.gather(*(play(i) for i in range(n)))
    await S.barrier_wait(barrier)
    out["frames"] += sum(c.frames for m in matches for c in m.conns)
    await asyncio.gather(*(m.close() for m in matches))
    out["cut"] += sum(m.cut for m in matches)
    await http.aclose()
    return out


async def store_only(args: argparse.Namespace) -> None:
    """Raw EventStore.append rate, in process: --matches writers, each on its own match."""
    from service.store import Commit, open_store

    with S.Server(args.store) as srv:  # only for its temp dir and private redis-server
        srv.proc.terminate()
        url = srv.redis.url if srv.redis else f"sqlite:{srv.dir / 'only'}"
        store = open_store(url)
        count = 0
        lat: list[float] = []
        deadline = time.perf_counter() + args.duration

        async def writer(m: int) -> None:
            nonlocal count
            seq = 0
            while time.perf_counter() < deadline:
                seq += 1
                c = Commit(seq=seq, seat=seq % 4, command={"type": "pick", "card": seq},
                           events=[{"type": "picked", "seat": seq % 4, "card": seq}], move_id=f"m{seq}")
                t = time.perf_counter()
                await store.append(f"match{m}", c)
                lat.append(time.perf_counter() - t)
                count += 1

        t0 = time.perf_counter()
        await asyncio.gather(*(writer(m) for m in range(args.matches)))
        wall = time.perf_counter() - t0
        await store.close()
    print(f"store only ({args.store}, {args.matches} concurrent writers, in process): {count / wall:.0f} appends/s, "
          f"append p50 {S.percentile(lat, 50) * 1000:.2f} ms, p99 {S.percentile(lat, 99) * 1000:.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", choices=["sqlite", "redis"], default="sqlite")
    ap.add_argument("--matches", type=int, default=100)
    ap.add_argument("--game", default="pixies")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--spectators", type=int, default=0)
    ap.add_argument("--duration", type=float, default=20, help="seconds of measurement (default 20)")
    ap.add_argument("--clients", type=int, default=None, help="client processes (default: 1 up to 10 matches, else 2)")
    ap.add_argument("--seed", default="throughput")
    ap.add_argument("--store-only", action="store_true",
                    help="measure only EventStore.append in process (no server, no WebSockets)")
    args = ap.parse_args()
    if args.store_only:
        print(f"machine: {S.machine()}")
        asyncio.run(store_only(args))
        return
    k = args.clients or (1 if args.matches <= 10 else 2)
    k = max(1, min(k, args.matches))
    shares = [args.matches // k + (1 if i < args.matches % k else 0) for i in range(k)]
    print(f"platform_throughput: {args.store}, {args.matches} concurrent match(es) of {args.game} "
          f"({args.players} seats + {args.spectators} spectators), moves as fast as acks return, "
          f"{args.duration:.0f} s, {k} client process(es)")
    print(f"machine: {S.machine()}")
    with S.Server(args.store) as srv:
        cpu = S.CpuWindow()
        cpu.add("server", [srv.pid])
        if srv.redis_pid:
            cpu.add("redis-server", [srv.redis_pid])

        def begin() -> None:
            cpu.add("clients", S.run_workers.pids)
            cpu.begin()

        jobs = [(srv.url, srv.ws_url, shares[i], args) for i in range(k)]
        results = S.run_workers(k, _dispatch, (jobs,), begin, cpu.finish)
        rss = S.rss_kib(srv.pid)
    window = cpu.t1 - cpu.t0
    acks = sum(r["acks"] for r in results)
    rtt = [x for r in results for x in r["rtt"]]
    print(f"committed moves: {acks} in {window:.1f} s = {acks / window:.0f} moves/s "
          f"(+ one `legal` round trip per move); matches finished {sum(r['finished'] for r in results)}; "
          f"rejected {sum(r['rejects'] for r in results)}; errors/timeouts {sum(r['errors'] for r in results)}; "
          f"connections cut {sum(r['cut'] for r in results)}")
    print(f"move -> ack at saturation: p50 {S.percentile(rtt, 50) * 1000:.1f} ms, "
          f"p99 {S.percentile(rtt, 99) * 1000:.1f} ms")
    print(cpu.report())
    failures = [f for r in results for f in r["setup_failures"]]
    if failures:
        print(f"match set-ups the server failed (each tried again): {len(failures)}, first: {failures[0]}")
    print(f"server RSS at the end {rss / 1024:.0f} MiB; frames received by clients "
          f"{sum(r['frames'] for r in results)}; load avg now {S.loadavg()}")


if __name__ == "__main__":
    main()
