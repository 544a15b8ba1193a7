"""Other matches' latency while one hostile client attacks the server (issue 15).

A real server process; `--matches` background matches (Pixies, 2 seats + 2 spectators each)
move at a steady pace from this process, and the move -> every recipient latency is timed in
windows: a quiet baseline, then one window per attack, each attack running in a forked
process of its own so that it does not slow this process's clock:

  content    POSTs creates whose Chinese Squared `content` holds `--content-chars` characters
             (the issue's 3,000), back to back; also prints the create time of the largest
             content set the server accepts (`--largest`)
  spectate   one WebSocket spectates `--spectate` matches; prints the runtimes (/health
             live_matches), Redis client connections and server RSS it pins
  slowloris  `--sockets` raw TCP connections each send half a request's headers and stall;
             prints how many the server still holds after `--hold` seconds
  bigbody    POSTs of a 20 MiB JSON body, back to back

Run (after, on this checkout; before, on an older checkout with `--server-root`):
  .venv/bin/python bench/platform_abuse.py --store redis
  .venv/bin/python bench/platform_abuse.py --store redis --server-root /path/to/old/checkout
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import random
import socket
import sys
import time
from typing import Any

import _support as S
import httpx

sys.path.insert(0, str(S.ROOT))
from tests.support.big_content import big_content  # noqa: E402

ATTACKS = ("content", "spectate", "slowloris", "bigbody")


class RootServer(S.Server):
    """S.Server, optionally running the service code of another checkout (`--server-root`)."""

    def __init__(self, store: str, root: str | None) -> None:
        super().__init__(store)
        self.root = root

    def start(self) -> RootServer:
        if self.root is None:
            super().start()
            return self
        real = S.TEAHOUSE
        # the other checkout's code, this virtualenv's packages
        shim = self.dir / "teahouse"
        shim.write_text(f"#!/bin/sh\ncd {self.root} && PYTHONPATH={self.root} exec {sys.executable} "
                        f"-m service.cli \"$@\"\n")
        shim.chmod(0o755)
        S.TEAHOUSE = shim
        try:
            super().start()
        finally:
            S.TEAHOUSE = real
        return self


# -- the background matches ------------------------------------------------------------------

async def background(url: str, ws_url: str, args: argparse.Namespace, windows: list[tuple[str, float, float]],
                     ready: Any) -> dict[str, list[float]]:
    """Play the matches; return latencies by window name (windows: (name, start, end) perf times)."""
    ns = argparse.Namespace(game="pixies", players=2, spectators=2)
    http = httpx.AsyncClient(base_url=url, timeout=120)
    rng = random.Random(7)
    failures: list[str] = []
    matches = [await S.new_live_match(http, ws_url, ns, random.Random(rng.random()), failures)
               for _ in range(args.matches)]
    ready.set()
    lat: dict[str, list[float]] = {name: [] for name, _, _ in windows}
    await asyncio.sleep(0)
    lost: dict[str, int] = {name: 0 for name, _, _ in windows}

    def running() -> bool:  # the windows are set once every match is ready
        end = windows[-1][2]
        return end == 0.0 or time.perf_counter() < end

    def window(t: float) -> str | None:
        for name, a, b in windows:
            if a <= t < b:
                return name
        return None

    async def play(slot: int) -> None:
        m = matches[slot]
        while running():
            if m.finished:
                await m.close()
                m = matches[slot] = await S.new_live_match(http, ws_url, ns, random.Random(rng.random()), failures)
            try:
                choice = await m.choose()
            except (TimeoutError, ConnectionError, RuntimeError):
                choice = None
            if choice is None:
                await asyncio.sleep(0.05)
                continue
            seat, command = choice
            expected = m.seq + 1
            everyone = m.all_received(expected)
            move_id = f"bg-{slot}-{expected}-{time.perf_counter_ns()}"
            t0 = time.perf_counter()
            name = window(t0)
            try:
                reply = await m.seats[seat].request(
                    move_id, {"type": "move", "match": m.id, "id": move_id, "command": command}, timeout=60)
                if reply["type"] == "ack":
                    t_all = await asyncio.wait_for(everyone, 60)
                    if name is not None:
                        lat[name].append(t_all - t0)
            except (TimeoutError, ConnectionError, RuntimeError):
                if name is not None:
                    lost[name] += 1
            finally:
                m.arrivals.pop(expected, None)
            await asyncio.sleep(args.interval * rng.uniform(0.5, 1.5))

    await asyncio.gather(*(play(i) for i in range(len(matches))))
    await asyncio.gather(*(m.close() for m in matches))
    await http.aclose()
    lat["_lost"] = [float(lost[n]) for n, _, _ in windows]
    return lat


# -- the attacks (each in a forked process; prints its own figures) ---------------------------

def attack(kind: str, url: str, args: argparse.Namespace, redis_url: str | None, server_pid: int,
           stop: Any, report: Any) -> None:
    try:
        report.put(asyncio.run(ATTACK_FNS[kind](url, args, redis_url, server_pid, stop)))
    except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not crash
        report.put(f"{kind}: the attack failed: {exc!r}")


async def _content(url: str, args: argparse.Namespace, redis_url: str | None, pid: int, stop: Any) -> str:
    body = {"game": "hieroglyphs", "players": 2, "options": {"content": big_content(args.content_chars)}}
    times, codes = [], []
    async with httpx.AsyncClient(base_url=url, timeout=300) as http:
        while not stop.is_set():
            t0 = time.perf_counter()
            r = await http.post("/api/matches", json=body)
            times.append(time.perf_counter() - t0)
            codes.append(r.status_code)
    size = len(httpx.Request("POST", url, json=body).content)
    return (f"content: {len(times)} creates of {args.content_chars} characters ({size / 1024:.0f} KiB) in the window, "
            f"statuses {sorted(set(codes))}, each {min(times, default=0):.3f}-{max(times, default=0):.3f} s")


async def _spectate(url: str, args: argparse.Namespace, redis_url: str | None, pid: int, stop: Any) -> str:
    import msgpack
    import websockets

    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        before = (await http.get("/health")).json().get("live_matches")
        ids = []
        for _ in range(args.spectate):
            r = await http.post("/api/matches", json={"game": "pixies", "players": 2, "listed": False})
            ids.append(r.json()["match"])
        redis_before = _redis_clients(redis_url)
        rss_before = S.rss_kib(pid)
        ws = await websockets.connect(url.replace("http", "ws") + "/ws", subprotocols=["teahouse.v1.msgpack"],
                                      max_size=1 << 24, ping_interval=None)
        await ws.send(msgpack.packb({"type": "hello"}))
        refused: dict[str, int] = {}

        async def drain() -> None:
            with contextlib.suppress(Exception):
                async for frame in ws:
                    msg = msgpack.unpackb(frame, raw=False)
                    if msg.get("type") == "error":
                        refused[msg["code"]] = refused.get(msg["code"], 0) + 1

        reader = asyncio.create_task(drain())
        for mid in ids:
            await ws.send(msgpack.packb({"type": "spectate", "match": mid}))
        await asyncio.sleep(3)
        live = (await http.get("/health")).json().get("live_matches")
        redis_after = _redis_clients(redis_url)
        rss_after = S.rss_kib(pid)
        while not stop.is_set():
            await asyncio.sleep(0.2)
        await ws.close()
        reader.cancel()
    return (f"spectate: one socket asked to spectate {args.spectate} matches: runtimes {before} -> {live}, "
            f"Redis client connections {redis_before} -> {redis_after}, server RSS {rss_before / 1024:.0f} -> "
            f"{rss_after / 1024:.0f} MiB, refusals {refused or 'none'}")


def _redis_clients(redis_url: str | None) -> int | str:
    if redis_url is None:
        return "n/a (sqlite)"
    import redis

    r = redis.Redis.from_url(redis_url)
    try:
        return int(r.info("clients")["connected_clients"]) - 1  # not this one
    finally:
        r.close()


async def _slowloris(url: str, args: argparse.Namespace, redis_url: str | None, pid: int, stop: Any) -> str:
    port = int(url.rsplit(":", 1)[1])
    socks = []
    for _ in range(args.sockets):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        s.setblocking(False)
        socks.append(s)
    t0 = time.monotonic()
    while time.monotonic() - t0 < args.hold:  # past the window if need be: the hold is the figure
        await asyncio.sleep(0.2)
    held = 0
    for s in socks:
        try:
            held += s.recv(1) != b""
        except BlockingIOError:
            held += 1  # nothing to read and not closed: still held
        except OSError:
            pass
    while not stop.is_set():
        await asyncio.sleep(0.2)
    for s in socks:
        s.close()
    return (f"slowloris: {args.sockets} connections with half-sent headers; still held by the server after "
            f"{time.monotonic() - t0:.0f} s: {held}")


async def _bigbody(url: str, args: argparse.Namespace, redis_url: str | None, pid: int, stop: Any) -> str:
    pad = b'{"game": "pixies", "players": 2, "pad": "' + b"x" * (20 << 20) + b'"}'
    statuses: dict[int, int] = {}
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        while not stop.is_set():
            try:
                r = await http.post("/api/matches", content=pad, headers={"Content-Type": "application/json"})
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            except httpx.HTTPError as exc:
                key = -1
                statuses[key] = statuses.get(key, 0) + 1
                del exc
    return f"bigbody: 20 MiB creates in the window, by status (-1: connection dropped): {statuses}"


ATTACK_FNS = {"content": _content, "spectate": _spectate, "slowloris": _slowloris, "bigbody": _bigbody}


def largest_create(url: str, chars: int) -> str:
    body = {"game": "hieroglyphs", "players": 2, "options": {"content": big_content(chars)}}
    t0 = time.perf_counter()
    r = httpx.post(url + "/api/matches", json=body, timeout=300)
    took = time.perf_counter() - t0
    size = len(httpx.Request("POST", url, json=body).content)
    return f"create with {chars} content characters ({size / 1024:.0f} KiB): {r.status_code} in {took * 1000:.0f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", choices=["sqlite", "redis"], default="redis")
    ap.add_argument("--server-root", default=None, help="run the service code of this checkout instead")
    ap.add_argument("--attacks", default=",".join(ATTACKS))
    ap.add_argument("--matches", type=int, default=10)
    ap.add_argument("--interval", type=float, default=0.2, help="mean seconds between two moves of one match")
    ap.add_argument("--window", type=float, default=15, help="seconds per window")
    ap.add_argument("--content-chars", type=int, default=3000)
    ap.add_argument("--largest", type=int, default=400, help="content characters of the largest accepted set")
    ap.add_argument("--spectate", type=int, default=2000)
    ap.add_argument("--sockets", type=int, default=2000)
    ap.add_argument("--hold", type=float, default=15)
    args = ap.parse_args()
    kinds = [k for k in args.attacks.split(",") if k]
    print(f"platform_abuse: {args.store}, server code {args.server_root or S.ROOT}; {args.matches} background "
          f"matches (2 seats + 2 spectators), one move per {args.interval:.2f} s each; {args.window:.0f} s windows")
    print(f"machine: {S.machine()}")
    os.environ.setdefault("TEAHOUSE_OPTIONS_MAX_BYTES", str(1 << 20))  # the engine's limit, not the operator's
    with RootServer(args.store, args.server_root) as srv:
        redis_url = srv.redis.url if srv.redis is not None else None
        if "content" in kinds:
            print(largest_create(srv.url, args.largest))
        ctx = multiprocessing.get_context("fork")
        lead = 2.0
        t = time.perf_counter() + 600  # replaced once the matches are set up
        windows = [("baseline", 0.0, 0.0)] + [(k, 0.0, 0.0) for k in kinds]

        async def run() -> dict[str, list[float]]:
            ready = asyncio.Event()
            task = asyncio.create_task(background(srv.url, srv.ws_url, args, windows, ready))
            await ready.wait()
            t0 = time.perf_counter() + lead
            for i, (name, _, _) in enumerate(list(windows)):
                windows[i] = (name, t0 + i * (args.window + lead), t0 + i * (args.window + lead) + args.window)
            reports = []
            for name, a, b in windows:
                await asyncio.sleep(max(0.0, a - time.perf_counter()))
                if name == "baseline":
                    await asyncio.sleep(max(0.0, b - time.perf_counter()))
                    continue
                stop, report = ctx.Event(), ctx.Queue()
                proc = ctx.Process(target=attack, args=(name, srv.url, args, redis_url, srv.pid, stop, report),
                                   daemon=True)
                proc.start()
                await asyncio.sleep(max(0.0, b - time.perf_counter()))
                stop.set()
                reports.append(await asyncio.to_thread(report.get, True, 600))
                proc.join(30)
                if proc.is_alive():
                    proc.kill()
            res = await task
            res["_reports"] = reports  # type: ignore[assignment]
            return res

        del t
        res = asyncio.run(run())
    print("other matches' move -> every recipient latency, by window:")
    for i, (name, _, _) in enumerate(windows):
        v = res[name]
        print(f"  {name:10s} moves {len(v):5d}  p50 {S.percentile(v, 50) * 1000:8.1f} ms  "
              f"p99 {S.percentile(v, 99) * 1000:8.1f} ms  max {max(v, default=0) * 1000:8.1f} ms  "
              f"lost {int(res['_lost'][i])}")
    for line in res["_reports"]:  # type: ignore[union-attr]
        print(line)


if __name__ == "__main__":
    main()
