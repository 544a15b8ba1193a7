"""CPU per move of the store round trip and the match's tail, in process: one handcards match
at a time through a real MatchRuntime (decide, append, apply, and the runtime's own tail
following the log, as on a server), no watchers, one move in flight, on a real SQLite file or
a private redis-server (appendonly, fsync always). The work of a move without the store is in
bench/platform_commit.py; this one is about what the store and the tail add.

Prints, per move: the process's CPU (each thread apart: the event loop's, SQLite's), the
redis-server's CPU, context switches, and how many commits were decoded (Commit.unpack) and
handed to a runtime's tail (`_follow` saw them).

Run:
  .venv/bin/python bench/platform_store_tail.py --store sqlite [--moves 3000] [--rounds 3]
  .venv/bin/python bench/platform_store_tail.py --store redis
  .venv/bin/python bench/platform_store_tail.py --store sqlite --repo /path/to/other/checkout
  .venv/bin/python bench/platform_store_tail.py --store sqlite|redis --appends-only   # the append alone
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

CLK_TCK = os.sysconf("SC_CLK_TCK")


def thread_cpu() -> dict[str, float]:
    """CPU seconds (user + system) of each thread of this process, by thread name."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    out: dict[str, float] = {}
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        name = names.get(int(tid), "other")
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / CLK_TCK
    return out


def pid_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


async def appends_only(args: argparse.Namespace, url: str, redis_pid: int | None) -> None:
    """EventStore.append alone, one writer, one match a round: CPU per append by thread."""
    from service.store import Commit, open_store

    store = open_store(url)
    best: tuple[float, dict[str, float], float] | None = None
    for r in range(args.rounds + 1):  # the first round warms up (and grows the WAL)
        t0, p0 = thread_cpu(), time.process_time()
        s0 = pid_cpu(redis_pid) if redis_pid else 0.0
        for seq in range(1, args.moves + 1):
            await store.append(f"a{r}", Commit(
                seq=seq, seat=seq % 4, command={"type": "play", "card": f"c{seq}"},
                events=[{"type": "played", "seat": seq % 4, "card": f"c{seq}"}, {"type": "drew", "seat": seq % 4}],
                move_id=f"m{seq}", ts=int(time.time() * 1000)))
        p1, t1 = time.process_time(), thread_cpu()
        s1 = pid_cpu(redis_pid) if redis_pid else 0.0
        row = ((p1 - p0) / args.moves, {n: (t1[n] - t0.get(n, 0.0)) / args.moves for n in t1}, (s1 - s0) / args.moves)
        if r and (best is None or row[0] < best[0]):
            best = row
    await store.close()
    assert best is not None
    threads = ", ".join(f"{n} {v * 1e6:.0f}" for n, v in sorted(best[1].items()) if v > 0)
    print(f"platform_store_tail --appends-only: {args.repo.resolve()}; {args.store}; {args.moves} appends a round, "
          f"best of {args.rounds} (uvloop; load {os.getloadavg()[0]:.1f})")
    print(f"CPU per append: process {best[0] * 1e6:.1f} us; threads (jiffies) {threads} us"
          + (f"; redis-server {best[2] * 1e6:.0f} us" if redis_pid else ""))


async def run(args: argparse.Namespace, url: str, redis_pid: int | None) -> None:
    from service.match.runtime import MatchRuntime
    from service.store import Commit, open_store
    from service.store.base import MatchRecord, SeatRecord

    decoded = [0]
    unpack = Commit.unpack.__func__  # type: ignore[attr-defined]

    def counting_unpack(cls: Any, data: bytes) -> Any:
        decoded[0] += 1
        return unpack(cls, data)

    Commit.unpack = classmethod(counting_unpack)  # type: ignore[method-assign]
    followed = [0]
    catch_up = MatchRuntime._catch_up

    async def counting_catch_up(self: Any) -> None:
        followed[0] += 1
        await catch_up(self)

    store = open_store(url)
    k = 0

    async def one_match() -> tuple[int, MatchRuntime]:
        nonlocal k
        k += 1
        record = MatchRecord(id=f"m{k}-{time.time_ns()}", game="handcards", players=4, options={"seed": k},
                             listed=False, seed=f"s{k}", seed_sha256="", created=int(time.time() * 1000),
                             seats=[SeatRecord(seat=i, taken=True, name=f"p{i}", token_hash=f"t{i}")
                                    for i in range(4)])
        await store.create_match(record)
        rt = MatchRuntime(store, record)
        await rt.load()
        await rt.submit(None, {"type": "start"}, "start")
        return 0, rt

    async def play(rt: MatchRuntime) -> int:
        moves = 0
        while not rt.game.status(rt.state)["finished"]:
            seat = rt.state["turn"]
            hand = rt.state["hands"][seat]
            await rt.submit(seat, {"type": "play", "card": hand[moves % len(hand)]["id"]}, f"m{moves}")
            moves += 1
            await asyncio.sleep(0)  # let the tail run, as a server's next frame would
        await asyncio.sleep(0.01)
        await rt.close()
        return moves

    _, rt = await one_match()
    await play(rt)  # warm up: connections, scripts, statement cache
    MatchRuntime._catch_up = counting_catch_up  # type: ignore[method-assign]
    best: dict[str, Any] | None = None
    for _ in range(args.rounds):
        moves = 0
        decoded[0] = followed[0] = 0
        setup = 0.0
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t0, p0 = thread_cpu(), time.process_time()
        s0 = pid_cpu(redis_pid) if redis_pid else 0.0
        while moves < args.moves:
            c = time.process_time()
            _, rt = await one_match()
            setup += time.process_time() - c
            moves += await play(rt)
        p1, t1 = time.process_time(), thread_cpu()
        s1 = pid_cpu(redis_pid) if redis_pid else 0.0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        row = {
            "process": (p1 - p0 - setup) / moves, "setup": setup / moves,
            "threads": {n: (t1.get(n, 0.0) - t0.get(n, 0.0)) / moves for n in t1},
            "redis": (s1 - s0) / moves, "decoded": decoded[0] / moves, "followed": followed[0] / moves,
            "csw": ((r1.ru_nvcsw + r1.ru_nivcsw) - (r0.ru_nvcsw + r0.ru_nivcsw)) / moves, "moves": moves,
        }
        if best is None or row["process"] < best["process"]:
            best = row
    await store.close()
    assert best is not None
    threads = ", ".join(f"{n} {v * 1e6:.0f}" for n, v in sorted(best["threads"].items()) if v > 0)
    print(f"platform_store_tail: {args.repo.resolve()}; {args.store}; handcards, {best['moves']} moves a round, "
          f"best of {args.rounds} (uvloop; load {os.getloadavg()[0]:.1f})")
    print(f"CPU per move: process {best['process'] * 1e6:.1f} us (match set-up apart: {best['setup'] * 1e6:.1f}); "
          f"threads (jiffies, set-up included) {threads} us"
          + (f"; redis-server {best['redis'] * 1e6:.0f} us" if redis_pid else ""))
    print(f"per move: context switches {best['csw']:.2f}, commits decoded {best['decoded']:.2f}, "
          f"tail catch-ups {best['followed']:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", choices=("sqlite", "redis"), default="sqlite")
    ap.add_argument("--moves", type=int, default=3000, help="moves per round (whole matches)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds; the fastest is kept")
    ap.add_argument("--appends-only", action="store_true",
                    help="EventStore.append alone (no runtime, no tail): CPU per append by thread")
    ap.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent,
                    help="the checkout whose code is measured")
    args = ap.parse_args()
    sys.path.insert(0, str(args.repo.resolve()))
    sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
    from service.games import enable_bench_games

    enable_bench_games()
    import uvloop  # the loop `teahouse serve` runs on

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    with tempfile.TemporaryDirectory(prefix="teahouse-store-tail-") as tmp:
        if args.store == "redis":
            from tests.support.redis_server import RedisServer

            server = RedisServer(Path(tmp))
            server.start()
            try:
                assert server.proc is not None
                asyncio.run((appends_only if args.appends_only else run)(args, server.url, server.proc.pid))
            finally:
                server.stop()
        else:
            asyncio.run((appends_only if args.appends_only else run)(args, f"sqlite:{tmp}/db", None))


if __name__ == "__main__":
    main()
