"""A long run at a steady, human pace: does the node stay flat?

    .venv/bin/python bench/soak.py [--minutes 60] [--interval-minutes 5] [--matches 200]
                                   [--spectators 2] [--rate 0.2] [--store sqlite|redis]

`--matches` 2-player Pixies matches, each with its two seats and `--spectators` spectator
connections, are played at `--rate` moves per second per match (the seat to act asks for its
legal moves and plays one; moves are spread over the period, not sent together); a finished
match is replaced by a new one, so the node keeps creating, loading and dropping runtimes. Every
`--interval-minutes` it prints one line: the server's RSS and open file descriptors, its
event-loop lag over the interval (the p99 bucket and the worst bucket of
`teahouse_loop_lag_seconds`, read from /metrics), and the move -> every recipient latency
(from sending a move to the moment both seats and every spectator have its patch) p50/p99/max,
with the moves played, matches finished and errors. A last line compares the first interval
with the last. Bounded by `--minutes` plus set-up (about a minute for 200 matches).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from _support import LiveMatch, Server, new_live_match, percentile, rss_kib  # noqa: E402

BUCKET = re.compile(r'^teahouse_loop_lag_seconds_bucket\{le="([^"]+)"\} (\S+)$', re.M)


class Interval:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.finished = 0
        self.errors: list[str] = []


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def lag_buckets(url: str) -> dict[float, float]:
    """The cumulative counts of the server's loop-lag histogram, by upper bound (s)."""
    text = httpx.get(url + "/metrics", timeout=10).text
    return {float("inf") if le == "+Inf" else float(le): float(n) for le, n in BUCKET.findall(text)}


def lag_summary(before: dict[float, float], after: dict[float, float]) -> str:
    """p99 and worst bucket of the lag samples taken between two scrapes (upper bounds, ms)."""
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]  # cumulative
    total = counts[-1] if counts else 0
    if not total:
        return "lag n/a"
    p99 = next(b for b, c in zip(bounds, counts, strict=True) if c >= 0.99 * total)
    worst = next(b for b, c in zip(bounds, counts, strict=True) if c >= total)
    return f"lag p99 <= {_ms(p99)} worst <= {_ms(worst)} ({int(total)} samples)"


def _ms(bound: float) -> str:
    return ">1000 ms" if bound == float("inf") else f"{bound * 1000:g} ms"


async def play_slot(http: httpx.AsyncClient, args: argparse.Namespace, rng: random.Random, end: float,
                    current: list[Interval], period: float) -> None:
    await asyncio.sleep(rng.random() * period)  # spread the matches over the period
    n = 0
    while time.monotonic() < end:
        failures: list[str] = []
        try:
            m: LiveMatch = await new_live_match(http, args.ws_url, args, rng, failures)
        except Exception as exc:  # noqa: BLE001 - a soak reports and goes on
            current[0].errors.append(f"setup: {type(exc).__name__}: {exc}"[:160])
            await asyncio.sleep(period)
            continue
        current[0].errors.extend(failures)
        try:
            next_at = time.monotonic()
            while time.monotonic() < end and not m.finished:
                next_at += period
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))
                choice = await m.choose()
                if choice is None:
                    break
                seat, command = choice
                n += 1
                move_id = f"soak-{m.id}-{n}"
                seq = m.seq + 1
                everyone = m.all_received(seq)
                t0 = time.perf_counter()
                reply = await m.seats[seat].request(
                    move_id, {"type": "move", "match": m.id, "id": move_id, "command": command}, timeout=30)
                if reply.get("type") != "ack":
                    current[0].errors.append(f"{reply.get('type')}: {reply.get('code')}")
                    m.arrivals.pop(seq, None)
                    continue
                t_last = await asyncio.wait_for(everyone, 30)
                current[0].latencies.append(t_last - t0)
                m.arrivals.pop(seq, None)
                await m.tracked(seq)
            if m.finished:
                current[0].finished += 1
        except Exception as exc:  # noqa: BLE001
            current[0].errors.append(f"{type(exc).__name__}: {exc}"[:160])
        finally:
            await m.close()


async def soak(server: Server, args: argparse.Namespace) -> None:
    args.ws_url = server.ws_url
    period = 1.0 / args.rate
    current = [Interval()]
    start = time.monotonic()
    end = start + args.minutes * 60
    rows: list[tuple[int, int, float]] = []
    async with httpx.AsyncClient(base_url=server.url, timeout=60,
                                 limits=httpx.Limits(max_connections=20)) as http:
        slots = [asyncio.create_task(play_slot(http, args, random.Random(i), end, current, period))
                 for i in range(args.matches)]
        print(f"server pid {server.pid}, {args.matches} matches x (2 seats + {args.spectators} spectators) at "
              f"{args.rate:g} moves/s each, {args.minutes:g} min, a line every {args.interval_minutes:g} min", flush=True)
        print(f"{'t (min)':>7} {'RSS MiB':>8} {'fds':>5}  {'moves':>6} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} "
              f"{'done':>5} {'errors':>6}  loop", flush=True)
        lag_before = await asyncio.to_thread(lag_buckets, server.url)
        while time.monotonic() < end:
            await asyncio.sleep(min(args.interval_minutes * 60, max(0.0, end - time.monotonic())))
            done, current[0] = current[0], Interval()
            lag_after = await asyncio.to_thread(lag_buckets, server.url)
            rss, fds = rss_kib(server.pid), open_fds(server.pid)
            lat = done.latencies
            p99 = percentile(lat, 99) * 1000
            rows.append((rss, fds, p99))
            print(f"{(time.monotonic() - start) / 60:7.1f} {rss / 1024:8.1f} {fds:5d}  {len(lat):6d} "
                  f"{percentile(lat, 50) * 1000:7.1f} {p99:7.1f} {(max(lat) if lat else float('nan')) * 1000:7.1f} "
                  f"{done.finished:5d} {len(done.errors):6d}  {lag_summary(lag_before, lag_after)}"
                  + (f"  first error: {done.errors[0]}" if done.errors else ""), flush=True)
            lag_before = lag_after
        await asyncio.gather(*slots, return_exceptions=True)
    if len(rows) >= 2:
        (rss0, fds0, p0), (rss1, fds1, p1) = rows[0], rows[-1]
        print(f"first -> last interval: RSS {rss0 / 1024:.1f} -> {rss1 / 1024:.1f} MiB ({(rss1 - rss0) / 1024:+.1f}), "
              f"fds {fds0} -> {fds1} ({fds1 - fds0:+d}), move p99 {p0:.1f} -> {p1:.1f} ms", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=60, help="length of the run (default 60)")
    ap.add_argument("--interval-minutes", type=float, default=5, help="a line of figures every this many minutes")
    ap.add_argument("--matches", type=int, default=200)
    ap.add_argument("--spectators", type=int, default=2, help="spectator connections per match")
    ap.add_argument("--rate", type=float, default=0.2, help="moves per second per match")
    ap.add_argument("--store", choices=["sqlite", "redis"], default="sqlite")
    args = ap.parse_args()
    args.game, args.players = "pixies", 2
    with Server(args.store) as server:
        asyncio.run(soak(server, args))


if __name__ == "__main__":
    main()
