"""The legal-moves flood of issue 13.3, with the per-connection limits on and off.

    .venv/bin/python bench/ops_flood.py [--matches 20] [--seconds 15] [--store sqlite]

One client (its own process) joins a 2-player Khan match at its opening (about 2,000 legal
moves, the crowded case) and floods `legal` without waiting for answers, reading and counting
what comes back; meanwhile `--matches` 2-player Pixies matches are played by clients that time
each move (send -> ack). Run twice: with the default limits, and with the request rate, the byte
budget and paging switched off (TEAHOUSE_REQUESTS_PER_SECOND=0, TEAHOUSE_OUTBOUND_BYTES_PER_SECOND=0,
TEAHOUSE_LEGAL_MOVES_PAGE=0). The per-seq cache of legal moves is not a limit and stays on in both.
A third run without the flooder gives the machine's floor. Prints, per run: the other matches' move latency p50/p99/max and moves played, and what the
flooder was sent (bytes, legal_moves answers, rate_limited refusals).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from _support import ROOT, SUBPROTOCOL, Server, connect, pack, unpack  # noqa: E402

OFF = {"TEAHOUSE_REQUESTS_PER_SECOND": "0", "TEAHOUSE_OUTBOUND_BYTES_PER_SECOND": "0",
       "TEAHOUSE_LEGAL_MOVES_PAGE": "0"}
WINDOW = 64  # legal requests the flooder keeps unanswered at once


def seat_up(url: str, game: str) -> tuple[str, list[str]]:
    mid = httpx.post(url + "/api/matches", json={"game": game, "players": 2}).json()["match"]
    tokens = [httpx.post(f"{url}/api/matches/{mid}/seats", json={}).json()["token"] for _ in range(2)]
    return mid, tokens


async def _hello(ws_url: str):
    ws = await connect(ws_url, subprotocols=[SUBPROTOCOL], max_size=2**26, compression=None)
    await ws.send(pack({"type": "hello"}))
    await ws.recv()
    return ws


def flooder(ws_url: str, mid: str, tokens: list[str], seconds: float, out: multiprocessing.Queue) -> None:
    async def run() -> tuple[int, int, int]:
        ws = await _hello(ws_url)
        # join the seat to act: try seat 0's token; the view says whose turn it is
        to_act = None
        for token in tokens:
            await ws.send(pack({"type": "join", "match": mid, "token": token}))
            while True:
                m = unpack(await ws.recv())
                if m["type"] == "view":
                    to_act = m["doc"]["status"]["to_act"]
                    seat = m["seat"]
                    break
            if seat in to_act:
                break
        sent_bytes = answers = refused = 0
        inflight = asyncio.Semaphore(WINDOW)
        end = time.monotonic() + seconds

        async def reader() -> None:
            nonlocal sent_bytes, answers, refused
            async for data in ws:
                sent_bytes += len(data)
                if data[:40].find(b"legal_moves") >= 0:
                    answers += 1
                    inflight.release()
                elif data[:60].find(b"rate_limited") >= 0:
                    refused += 1
                    inflight.release()

        task = asyncio.create_task(reader())
        while time.monotonic() < end:
            try:
                await asyncio.wait_for(inflight.acquire(), 1)
            except TimeoutError:
                continue
            await ws.send(pack({"type": "legal", "match": mid}))
        await ws.close()
        task.cancel()
        return sent_bytes, answers, refused

    out.put(asyncio.run(run()))


async def play_match(ws_url: str, mid: str, tokens: list[str], end: float, latencies: list[float]) -> None:
    conns = [await _hello(ws_url) for _ in tokens]
    rng = random.Random(mid)
    docs: list[dict] = [{}, {}]
    for ws, token in zip(conns, tokens, strict=True):
        await ws.send(pack({"type": "join", "match": mid, "token": token}))

    async def answer(ws, want: tuple[str, ...]) -> dict:
        while True:
            m = unpack(await ws.recv())
            if m["type"] in want:
                return m

    n = 0
    try:
        while time.monotonic() < end:
            for i, ws in enumerate(conns):
                await ws.send(pack({"type": "legal", "match": mid}))
                m = await answer(ws, ("legal_moves",))
                docs[i] = m
                if not m["moves"]:
                    continue
                n += 1
                t0 = time.perf_counter()
                await ws.send(pack({"type": "move", "match": mid, "id": f"b{n}", "command": rng.choice(m["moves"])}))
                r = await answer(ws, ("ack", "reject", "error"))
                if r["type"] == "ack":
                    latencies.append(time.perf_counter() - t0)
                if r["type"] == "error":
                    await asyncio.sleep(0.05)
            # a finished match: start another for this slot
            if all(not d.get("moves") for d in docs):
                return
    finally:
        for ws in conns:
            await ws.close()


async def players(url: str, ws_url: str, matches: int, seconds: float) -> list[float]:
    latencies: list[float] = []
    end = time.monotonic() + seconds

    async def slot() -> None:
        while time.monotonic() < end:
            mid, tokens = await asyncio.to_thread(seat_up, url, "pixies")
            await play_match(ws_url, mid, tokens, end, latencies)

    await asyncio.gather(*(slot() for _ in range(matches)))
    return latencies


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000)[int(q * 1000) - 1] * 1000 if len(values) > 10 else float("nan")


def run(label: str, env: dict[str, str], args: argparse.Namespace, flood: bool = True) -> None:
    saved = {k: os.environ.get(k) for k in OFF}
    os.environ.update(env)
    # the server runs this checkout's code (the venv's editable install may point at another)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    server = Server(args.store).start()
    try:
        mid, tokens = seat_up(server.url, "khan")
        out: multiprocessing.Queue = multiprocessing.Queue()
        proc = multiprocessing.Process(target=flooder, args=(server.ws_url, mid, tokens, args.seconds + 2, out))
        if flood:
            proc.start()
            time.sleep(2)  # the flood is under way before the matches start
        lat = asyncio.run(players(server.url, server.ws_url, args.matches, args.seconds))
        sent, answers, refused = out.get(timeout=60) if flood else (0, 0, 0)
        if flood:
            proc.join(10)
        print(f"{label:<12} other matches' moves: {len(lat):>6}  p50 {p(lat, 0.5):7.1f} ms  p99 {p(lat, 0.99):7.1f} ms  "
              f"max {max(lat) * 1000 if lat else float('nan'):7.1f} ms | flooder sent {sent / 2**20:8.1f} MiB in "
              f"{answers} legal_moves answers, {refused} rate_limited refusals ({args.seconds + 2:g} s)", flush=True)
    finally:
        server.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("--store", default="sqlite")
    args = ap.parse_args()
    run("no flood", {}, args, flood=False)  # the floor this machine gives, for comparison
    run("limits on", {}, args)
    run("limits off", OFF, args)


if __name__ == "__main__":
    main()
