"""CPU per move of a real server, split by thread: the event loop's thread and the others (the
SQLite writer's, or Redis's client), in the rig's scenario a (bench/peers): one handcards match
at a time, 4 seats + 8 spectators, every connection protocol v2 msgpack with `hello` `said:
false` (as the rig's adapter), one move in flight: a seat moves when the previous move's ack and
its patch have reached all 12 connections. No `legal` requests: the driver folds the game itself
(handcards deals from its `seed` option) to know each hand.

CPU is read from /proc/<pid>/task/*/schedstat (nanoseconds on a CPU, user and system), before
and after each match's moves (connections and joins are outside the window), so other jobs on the
machine inflate it far less than wall time; a loaded machine still costs some (caches, frequency).
The same windows' user and system clock ticks per thread (/proc/<pid>/task/*/stat) give the split
between the server's own code and the kernel, summed over all matches (a tick is 10 ms).

With --callgrind the server runs under valgrind's callgrind, counting instructions only while
the moves are played (callgrind_control toggles it around each match's moves), one count per
thread: a machine's load does not move them (a move's I/O timing still does a little: how many
frames one read brings). Slow (~50x): use few matches.

With --profile PATH the server runs under cProfile, on only while the moves are played (SIGUSR1 /
SIGUSR2, bench/_support.py), timed by the loop thread's CPU clock; the stats go to PATH (read them
with pstats: per-function figures over the moves, divided by the moves printed).

Run:
  .venv/bin/python bench/platform_loop.py [--store sqlite|redis] [--matches 5]
  .venv/bin/python bench/platform_loop.py --matches 2 --callgrind    # instructions per move and thread
  .venv/bin/python bench/platform_loop.py --matches 10 --profile /tmp/moves.prof
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _support as S
import httpx
import msgpack
from websockets.asyncio.client import connect

os.environ["TEAHOUSE_BENCH_GAMES"] = "1"  # the server (a child process) plays handcards too

from protocol.v2 import decode_frame  # noqa: E402
from service.games import enable_bench_games, fold, get_game  # noqa: E402

SUB = "teahouse.v2.msgpack"
SPECTATORS = 8


def thread_ns(pid: int) -> tuple[int, int]:
    """(the main thread's, every other thread's) nanoseconds on a CPU so far."""
    loop = others = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue  # a thread that ended meanwhile
        if int(tid) == pid:
            loop = ns
        else:
            others += ns
    return loop, others


TICK_US = 1e6 / os.sysconf("SC_CLK_TCK")


def thread_ticks(pid: int) -> tuple[int, int, int, int]:
    """User and system clock ticks so far (fields 14 and 15 of /proc/<pid>/task/<tid>/stat):
    (the main thread's user, its system, every other thread's user, their system). Ticks are
    coarse (10 ms): only their sum over many moves means anything."""
    out = [0, 0, 0, 0]
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rpartition(")")[2].split()  # the name may hold spaces
        except (FileNotFoundError, ProcessLookupError):
            continue
        base = 0 if int(tid) == pid else 2
        out[base] += int(fields[11])      # utime: field 14 counted from the pid
        out[base + 1] += int(fields[12])  # stime: field 15
    return out[0], out[1], out[2], out[3]


class Watcher:
    """One connection: the seqs of the patches it received, and its acks."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seen = 0
        self.acked = 0
        self.changed = asyncio.Event()
        self.view = asyncio.Event()

    async def read(self) -> None:
        async for data in self.ws:
            msg = decode_frame(data, "msgpack")
            if isinstance(msg, dict):
                if msg.get("type") == "view":
                    self.seen = msg["seq"]
                    self.view.set()
                continue
            kind = msg[0] & 3
            if kind == 0:
                self.seen = msg[1]
            elif kind == 1:
                self.acked = msg[1]
            self.changed.set()

    async def until(self, seq: int, ack: bool = False) -> None:
        while self.seen < seq or (ack and self.acked < seq):
            self.changed.clear()
            await self.changed.wait()


def instrument(pid: int, on: bool) -> None:
    subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(pid)], check=True, capture_output=True)


def profile(pid: int, on: bool) -> None:
    os.kill(pid, signal.SIGUSR1 if on else signal.SIGUSR2)


async def one_match(url: str, ws_url: str, pid: int, k: int,
                    toggle: Callable[[int, bool], None] | None = None) -> tuple[int, int, int, tuple[int, ...]]:
    """Play one match; (moves, loop ns, other threads' ns, thread_ticks' differences) over its moves."""
    game = get_game("handcards")
    options = {"seed": 1000 + k}
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        m = (await http.post("/api/matches", json={"game": "handcards", "players": 4, "options": options,
                                                    "listed": False})).json()
        tokens = [(await http.post(f"/api/matches/{m['match']}/seats", json={"seat": s})).json()["token"]
                  for s in range(4)]
    match = m["match"]
    watchers: list[Watcher] = []
    for i in range(4 + SPECTATORS):
        ws = await connect(ws_url, subprotocols=[SUB], compression=None, ping_interval=None, max_size=1 << 22)
        await ws.send(msgpack.packb({"type": "hello", "said": False}))
        join = {"type": "join", "match": match, "token": tokens[i]} if i < 4 else {"type": "spectate", "match": match}
        await ws.send(msgpack.packb(join))
        watchers.append(Watcher(ws))
    readers = [asyncio.create_task(w.read()) for w in watchers]
    for w in watchers:
        await asyncio.wait_for(w.view.wait(), 30)
    # the start commit (seq 1) comes when the last seat joins: wait for it everywhere
    for w in watchers:
        await asyncio.wait_for(w.until(1), 30)
    state = game.initial(options, 4)
    state = fold(game, game.decide(state, None, {"type": "start"}, None), state, 1)  # the seed fixes the deal
    seq = 1
    await asyncio.sleep(0.2)  # the joins' presence broadcasts are out of the window
    if toggle is not None:
        toggle(pid, True)
    loop0, others0 = thread_ns(pid)
    ticks0 = thread_ticks(pid)
    while not game.status(state)["finished"]:
        seat = state["turn"]
        command = {"type": "play", "card": state["hands"][seat][0]["id"]}
        await watchers[seat].ws.send(msgpack.packb({"type": "move", "match": match, "id": f"m{seq}",
                                                    "command": command}))
        seq += 1
        await asyncio.wait_for(watchers[seat].until(seq, ack=True), 30)
        for w in watchers:
            await asyncio.wait_for(w.until(seq), 30)
        state = fold(game, game.decide(state, seat, command, None), state, 1)
    loop1, others1 = thread_ns(pid)
    ticks = tuple(b - a for a, b in zip(ticks0, thread_ticks(pid), strict=True))
    if toggle is not None:
        toggle(pid, False)
    for w in watchers:
        await w.ws.close()
    for r in readers:
        r.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    return seq - 1, loop1 - loop0, others1 - others0, ticks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", default="sqlite", help="sqlite or redis")
    ap.add_argument("--matches", type=int, default=5, help="60-move matches, one after the other")
    ap.add_argument("--callgrind", action="store_true", help="count instructions per move and thread")
    ap.add_argument("--profile", metavar="PATH", help="cProfile the server over the moves only, into PATH")
    args = ap.parse_args()
    enable_bench_games()
    print(f"platform_loop: machine: {S.machine()}")
    per: list[tuple[float, float]] = []
    out = Path(tempfile.mkdtemp(prefix="teahouse-callgrind-"))
    if args.callgrind:
        os.environ["TEAHOUSE_BENCH_WRAP"] = (f"valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes "
                                             f"--callgrind-out-file={out}/cg.%p")
    elif args.profile:
        os.environ.update(TEAHOUSE_BENCH_PROFILE=args.profile, TEAHOUSE_BENCH_PROFILE_WINDOW="1",
                          TEAHOUSE_BENCH_PROFILE_TIMER="thread")
    toggle = instrument if args.callgrind else profile if args.profile else None
    total = 0
    ticks = [0, 0, 0, 0]
    with S.Server(args.store) as srv:
        started = time.monotonic()
        for k in range(args.matches):
            moves, loop_ns, others_ns, match_ticks = asyncio.run(
                one_match(srv.url, srv.ws_url, srv.pid, k, toggle))
            ticks = [a + b for a, b in zip(ticks, match_ticks, strict=True)]
            per.append((loop_ns / moves / 1000, others_ns / moves / 1000))
            total += moves
        wall = time.monotonic() - started
        pid = srv.pid
    if args.callgrind:
        report_callgrind(out, pid, total)
        return
    if args.profile:
        report_profile(args.profile, total)
    print(f"{args.store}: {args.matches} handcards matches, 4 seats + {SPECTATORS} spectators, v2 msgpack said:false, "
          f"one move in flight ({wall:.0f} s)")
    loops, others = [p[0] for p in per], [p[1] for p in per]
    print("  per match, CPU us per move, loop thread / other threads: "
          + ", ".join(f"{a:.0f}/{b:.0f}" for a, b in per))
    print(f"  median: the event loop's thread {statistics.median(loops):.0f} us, the other threads "
          f"{statistics.median(others):.0f} us; min loop {min(loops):.0f} us")
    lu, ls, ou, os_ = (t * TICK_US / total for t in ticks)
    print(f"  user / system, us per move over all {total} moves (clock ticks): the event loop's thread "
          f"{lu:.0f} / {ls:.0f}, the other threads {ou:.0f} / {os_:.0f}")


def report_profile(path: str, moves: int, top: int = 45) -> None:
    """The profile's functions with the most CPU per move, inclusive and their own (cProfile's
    overhead inflates small functions: compare shapes, not absolute figures)."""
    import pstats  # (only here)

    stats = pstats.Stats(path).stats  # type: ignore[attr-defined]
    root = str(S.ROOT) + "/"
    rows = sorted(((ct, tt, n, f"{file.replace(root, '')}:{line}({name})")
                   for (file, line, name), (_, n, tt, ct, _) in stats.items()), reverse=True)
    print(f"cProfile over {moves} moves ({path}): µs of the loop thread's CPU per move, inclusive / own, calls per move")
    for ct, tt, n, where in rows[:top]:
        print(f"  {ct * 1e6 / moves:8.1f} {tt * 1e6 / moves:8.1f} {n / moves:7.2f}  {where}")


def report_callgrind(out: Path, pid: int, moves: int) -> None:
    """Callgrind's per-thread totals (cg.<pid>-<thread number>, 01 = the main thread)."""
    counts: dict[int, int] = {}
    for f in out.glob(f"cg.{pid}-*"):
        found = re.search(r"^totals: (\d+)", f.read_text(errors="replace"), re.M)
        counts[int(f.name.rsplit("-", 1)[1])] = int(found.group(1)) if found else 0
    loop = counts.pop(1, 0)
    print(f"callgrind, {moves} moves: instructions per move: the event loop's thread {loop / moves / 1000:,.0f}k, "
          f"the other threads {sum(counts.values()) / moves / 1000:,.0f}k ({out})")


if __name__ == "__main__":
    main()
