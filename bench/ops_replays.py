"""Replay loops against one node while other matches are played.

    .venv/bin/python bench/ops_replays.py [--clients 4] [--matches 4] [--seconds 10] [--store sqlite]

One 2-player Pixies match is played to its end by the server's bots; `--clients` client
processes then loop on `GET /api/matches/ID/replay` of it (each seq in turn, as fast as the
answers come back), while `--matches` other 2-player Pixies matches are played by clients that
time each move (send -> ack). Three runs of `--seconds` each: no replay loop (the floor), the
loop on the finished match (answered from the replay cache after the first pass), and the loop
on a live match (each replay folded anew, limited per address: most are answered 429).
Prints, per run: the other matches' move p50/p99/max and moves played, the server's CPU (% of one
core, while the matches play), and the replays answered per second by status. Bounded: about 3 x (`--seconds` + 5) seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from _support import Server, cpu_seconds  # noqa: E402
from ops_flood import p, players, seat_up  # noqa: E402


def finished_match(url: str) -> tuple[str, int]:
    bots = [{"seat": 0, "strength": 0}, {"seat": 1, "strength": 0}]
    mid = httpx.post(url + "/api/matches", json={"game": "pixies", "players": 2, "bots": bots}).json()["match"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        summary = httpx.get(f"{url}/api/matches/{mid}").json()
        if summary["state"] == "finished":
            return mid, summary["seq"]
        time.sleep(0.2)
    raise SystemExit("the bots did not finish the match in 120 s")


def replayer(url: str, mid: str, top: int, seconds: float, out: multiprocessing.Queue) -> None:
    """One client looping on the replay of `mid`, seq 0..top in turn; counts answers by status."""
    statuses: Counter[int] = Counter()
    end = time.monotonic() + seconds
    with httpx.Client(base_url=url, timeout=30) as http:
        seq = 0
        while time.monotonic() < end:
            statuses[http.get(f"/api/matches/{mid}/replay", params={"seq": seq}).status_code] += 1
            seq = (seq + 1) % (top + 1)
    out.put(dict(statuses))


def run(label: str, server: Server, args: argparse.Namespace, target: tuple[str, int] | None) -> None:
    out: multiprocessing.Queue = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=replayer, args=(server.url, *target, args.seconds + 1, out))
             for _ in range(args.clients)] if target else []
    for proc in procs:
        proc.start()
    if procs:
        time.sleep(1)  # the loop is under way before the matches start
    cpu0 = cpu_seconds(server.pid)
    lat = asyncio.run(players(server.url, server.ws_url, args.matches, args.seconds))
    cpu = cpu_seconds(server.pid) - cpu0
    statuses: Counter[int] = Counter()
    for _ in procs:
        statuses.update(out.get(timeout=60))
    for proc in procs:
        proc.join(10)
    rate = ", ".join(f"{code}: {n / (args.seconds + 1):.0f}/s" for code, n in sorted(statuses.items())) or "none"
    print(f"{label:<16} other matches' moves: {len(lat):>5}  p50 {p(lat, 0.5):6.1f} ms  p99 {p(lat, 0.99):6.1f} ms  "
          f"max {max(lat) * 1000 if lat else float('nan'):6.1f} ms | server CPU {cpu / args.seconds * 100:3.0f}% | "
          f"replays answered ({args.clients} clients): {rate}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=4, help="replay-looping client processes")
    ap.add_argument("--matches", type=int, default=4, help="other matches played (and timed) meanwhile")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--store", default="sqlite")
    args = ap.parse_args()
    with Server(args.store) as server:
        finished = finished_match(server.url)
        live_mid, _ = seat_up(server.url, "pixies")  # started, then left at its first turns
        live_top = httpx.get(f"{server.url}/api/matches/{live_mid}").json()["seq"]
        print(f"finished match {finished[0]} ({finished[1]} commits), live match {live_mid}", flush=True)
        run("no replays", server, args, None)
        run("finished replays", server, args, finished)
        run("live replays", server, args, (live_mid, live_top))


if __name__ == "__main__":
    main()
