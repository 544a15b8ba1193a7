"""Move -> all recipients latency, through a real server process and real WebSocket clients.

For each of N concurrent matches (Pixies, 4 seats + 8 spectators by default), the seat to
act asks for its legal moves, then sends one at random; the latency of that move is the time
from sending it to the moment every connection of the match (seats and spectators) has
received the patch with its seq. Moves of one match are paced (`--interval`, jittered
x0.5..x1.5) so that the server is loaded, not saturated; platform_throughput.py measures
saturation. Clients run in `--clients` forked processes (the matches are split between them,
all connections of a match stay in one process so one clock times it).

With `--thinking-bots K`, K extra matches whose two seats are both the server's strongest bots
(`--bot-game`, default khan) play themselves during the run, so K bots are always waiting for or
using the server's bot workers (service/bots/pool.py: worker processes, off the event loop);
the latency of the paced matches then shows whether a thinking bot delays other matches' moves.

Run:
  .venv/bin/python bench/platform_latency.py --store sqlite --matches 1
  .venv/bin/python bench/platform_latency.py --store redis --matches 200
  .venv/bin/python bench/platform_latency.py --store sqlite --matches 20 --thinking-bots 20
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

import _support as S
import httpx


def worker(index: int, barrier, queue, url: str, ws_url: str, n: int, args: argparse.Namespace) -> None:
    queue.put(asyncio.run(_worker(index, barrier, url, ws_url, n, args)))


async def _worker(index: int, barrier, url: str, ws_url: str, n: int, args: argparse.Namespace) -> dict:
    rng = random.Random(f"{args.seed}-{index}")
    http = httpx.AsyncClient(base_url=url, timeout=120, limits=httpx.Limits(max_connections=16))
    gate = asyncio.Semaphore(8)
    setup_failures: list[str] = []

    async def new_match() -> S.LiveMatch:
        async with gate:
            return await S.new_live_match(http, ws_url, args, random.Random(rng.random()), setup_failures)

    t_setup = time.perf_counter()
    matches = list(await asyncio.gather(*(new_match() for _ in range(n))))
    setup_s = time.perf_counter() - t_setup
    out = {"all": [], "ack": [], "rejects": 0, "lost": 0, "mismatch": 0, "matches_played": 0,
           "setup_s": setup_s, "frames": 0, "cut": 0, "setup_failures": setup_failures}
    await S.barrier_wait(barrier)
    deadline = time.perf_counter() + args.duration

    async def play(slot: int) -> None:
        m = matches[slot]
        await asyncio.sleep(rng.uniform(0, args.interval))
        while time.perf_counter() < deadline:
            if m.finished:
                out["matches_played"] += 1
                out["frames"] += sum(c.frames for c in m.conns)
                await m.close()
                out["cut"] += m.cut
                m = matches[slot] = await new_match()
            choice = await m.choose()
            if choice is None:
                await asyncio.sleep(0.01)
                continue
            seat, command = choice
            expected = m.seq + 1
            everyone = m.all_received(expected)
            move_id = f"b{index}-{slot}-{expected}"
            t0 = time.perf_counter()
            try:
                reply = await m.seats[seat].request(
                    move_id, {"type": "move", "match": m.id, "id": move_id, "command": command}, timeout=30)
                t_ack = time.perf_counter()
                if reply["type"] == "reject":
                    out["rejects"] += 1
                    continue
                if reply["seq"] != expected:
                    out["mismatch"] += 1
                t_all = await asyncio.wait_for(everyone, 30)
            except (TimeoutError, ConnectionError, RuntimeError):
                out["lost"] += 1
                continue
            finally:
                m.arrivals.pop(expected, None)
            out["all"].append(t_all - t0)
            out["ack"].append(t_ack - t0)
            pause = args.interval * rng.uniform(0.5, 1.5)
            await asyncio.sleep(min(pause, max(0.0, deadline - time.perf_counter())))

    await asyncio.gather(*(play(i) for i in range(n)))
    await S.barrier_wait(barrier)
    out["frames"] += sum(c.frames for m in matches for c in m.conns)
    await asyncio.gather(*(m.close() for m in matches))
    out["cut"] += sum(m.cut for m in matches)
    await http.aclose()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", choices=["sqlite", "redis"], default="sqlite")
    ap.add_argument("--matches", type=int, default=1)
    ap.add_argument("--game", default="pixies")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--spectators", type=int, default=8)
    ap.add_argument("--interval", type=float, default=None,
                    help="mean seconds between two moves of one match (default: 0.05 x matches, at most 1)")
    ap.add_argument("--duration", type=float, default=30, help="seconds of measurement (default 30)")
    ap.add_argument("--clients", type=int, default=None,
                    help="client processes (default: 1 up to 20 matches, else 2)")
    ap.add_argument("--seed", default="latency")
    ap.add_argument("--thinking-bots", type=int, default=0,
                    help="extra all-bot matches (strength 5) thinking during the run")
    ap.add_argument("--bot-game", default="khan")
    args = ap.parse_args()
    if args.interval is None:
        args.interval = min(1.0, 0.05 * args.matches)
    k = args.clients or (1 if args.matches <= 20 else 2)
    k = max(1, min(k, args.matches))
    shares = [args.matches // k + (1 if i < args.matches % k else 0) for i in range(k)]
    conns = args.matches * (args.players + args.spectators)
    print(f"platform_latency: {args.store}, {args.matches} match(es) of {args.game} "
          f"({args.players} seats + {args.spectators} spectators = {conns} connections), "
          f"one move per {args.interval:.2f} s per match (offered {args.matches / args.interval:.0f} moves/s), "
          f"{args.duration:.0f} s, {k} client process(es)")
    print(f"machine: {S.machine()}")
    with S.Server(args.store) as srv:
        cpu = S.CpuWindow()
        cpu.add("server", [srv.pid])
        if args.thinking_bots:
            bots = [{"seat": 0, "strength": 5}, {"seat": 1, "strength": 5}]
            for _ in range(args.thinking_bots):
                httpx.post(srv.url + "/api/matches", json={"game": args.bot_game, "players": 2, "bots": bots},
                           timeout=60).raise_for_status()
            time.sleep(2)  # the pool's workers start
            workers = S.child_pids(srv.pid)
            cpu.add("bot workers", workers)
            print(f"thinking bots: {args.thinking_bots} all-bot {args.bot_game} matches (strength 5), "
                  f"{len(workers)} bot worker process(es)")
        if srv.redis_pid:
            cpu.add("redis-server", [srv.redis_pid])
        rss: dict[str, int] = {}

        def begin() -> None:
            cpu.add("clients", S.run_workers.pids)
            rss["before"] = S.rss_kib(srv.pid)
            cpu.begin()

        def end() -> None:
            cpu.finish()
            rss["after"] = S.rss_kib(srv.pid)

        jobs = [(srv.url, srv.ws_url, shares[i], args) for i in range(k)]
        results = S.run_workers(k, _dispatch, (jobs,), begin, end)
    lat = [x for r in results for x in r["all"]]
    ack = [x for r in results for x in r["ack"]]
    window = cpu.t1 - cpu.t0

    def ms(v: float) -> str:
        return f"{v * 1000:.1f}"

    print(f"setup: {max(r['setup_s'] for r in results):.1f} s to create the matches and open the connections")
    print(f"moves timed: {len(lat)} ({len(lat) / window:.0f} moves/s), rejected {sum(r['rejects'] for r in results)}, "
          f"lost/timed out {sum(r['lost'] for r in results)}, seq mismatches {sum(r['mismatch'] for r in results)}, "
          f"matches finished and replaced {sum(r['matches_played'] for r in results)}, "
          f"connections cut by the server {sum(r['cut'] for r in results)}")
    print(f"move -> all {args.players + args.spectators} recipients: p50 {ms(S.percentile(lat, 50))} ms, "
          f"p90 {ms(S.percentile(lat, 90))} ms, p99 {ms(S.percentile(lat, 99))} ms, max {ms(max(lat, default=0))} ms")
    print(f"move -> ack to the mover:      p50 {ms(S.percentile(ack, 50))} ms, "
          f"p90 {ms(S.percentile(ack, 90))} ms, p99 {ms(S.percentile(ack, 99))} ms")
    print(cpu.report())
    failures = [f for r in results for f in r["setup_failures"]]
    if failures:
        print(f"match set-ups the server failed (each tried again): {len(failures)}, first: {failures[0]}")
    print(f"server RSS {rss['before'] / 1024:.0f} MiB -> {rss['after'] / 1024:.0f} MiB; "
          f"frames received by clients {sum(r['frames'] for r in results)}; load avg now {S.loadavg()}")


def _dispatch(index: int, barrier, queue, jobs: list) -> None:
    url, ws_url, n, args = jobs[index]
    worker(index, barrier, queue, url, ws_url, n, args)


if __name__ == "__main__":
    main()
