"""1,000 spectators on one match: move -> last spectator latency, and encode work per move.

Part 1, in process: one handcards match (bench/games/handcards) through the server's own
MatchRuntime broadcast path (service.match.projection + fanout.Fanout.send) with N watcher stubs of
each wire encoding in use (v2 msgpack); counts the encode calls and the time spent encoding
per move for N = 1, 10, 100, 1,000. "Encode once per audience" means those do not grow with N
(one call per audience, its wire encoding, which is also the form the projection keeps for a
reconnecting client's resync, service/match/projection.py KEPT_AS; plus the commit's sentences once).

Part 2, a real server: `teahouse serve --bench-games` (SQLite, synchronous=FULL by default, or
Redis with appendfsync always), 4 seats in this process and N spectators spread over
`--clients` forked processes, all protocol v2 msgpack. The seats play the 60 moves of a match
one after the other; a move's latency is from the seat sending it to the last spectator
receiving its patch (perf_counter is the same clock in every process on Linux). The spectators
are lean raw-socket clients (LeanSpectator): with a WebSocket library's client, two processes
of 500 connections each spend ~20 ms a move parsing and the figure measures them instead.

Run:
  .venv/bin/python bench/platform_spectators.py --spectators 1000 --store sqlite
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import random
import time
from typing import Any
from urllib.parse import urlsplit

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
    from service.match.fanout import fan_out
    from service.match.projection import Projection

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

    import service.match.projection as projection_module

    projection_module.encode = counted  # type: ignore[assignment]
    try:
        for step in steps[1:]:
            for audience, frame in proj.advance(step.after, step.seq).items():
                fan_out(frame, watchers[audience])
    finally:
        projection_module.encode = real  # type: ignore[assignment]
    moves = len(steps) - 1
    delivered = sum(w.got for ws in watchers.values() for w in ws)
    return calls / moves, spent / moves * 1e6, delivered // moves


# -- part 2: a real server -----------------------------------------------------------------

def spectator_worker(index: int, barrier, queue, ws_url: str, match: str, n: int) -> None:
    try:
        import uvloop
        queue.put(uvloop.run(_spectators(barrier, ws_url, match, n)))
    except ImportError:
        queue.put(asyncio.run(_spectators(barrier, ws_url, match, n)))


def _client_frame(payload: bytes, opcode: int = 0x2) -> bytes:
    """A client's WebSocket frame (RFC 6455 5.2): masked, with the all-zero key (valid, and
    the payload goes as it is)."""
    n = len(payload)
    head = bytes((0x80 | opcode, 0x80 | n)) if n < 126 else bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    return head + b"\0\0\0\0" + payload


class LeanSpectator(asyncio.Protocol):
    """A spectator that reads the server's frames with as little work as a client can do
    (RFC 6455 framing by hand, msgpack for the few bytes that say the seq), so that 1,000 of
    them in two processes measure when the server's bytes arrive, not a client library's
    parsing: `websockets` costs its client ~30-50 µs a frame, 500 connections a process
    ~20 ms a move. Records, per patch seq, when it arrived."""

    def __init__(self, host: str, path: str, match: str, last: dict[int, float], state: dict[str, Any]) -> None:
        self.host, self.path, self.match, self.last, self.state = host, path, match, last, state
        self.buf = b""
        self.upgraded = False
        self.viewed = False
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not an asyncio.Transport subclass
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write((f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nUpgrade: websocket\r\n"
                         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                         f"Sec-WebSocket-Protocol: {SUB}\r\n\r\n").encode())

    def data_received(self, data: bytes) -> None:
        t = time.perf_counter()
        buf = self.buf + data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                self.buf = buf
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                raise RuntimeError(f"handshake refused: {buf[:200]!r}")
            self.upgraded, buf = True, buf[end + 4:]
            assert self.transport is not None
            self.transport.write(_client_frame(msgpack.packb({"type": "hello"}))
                                 + _client_frame(msgpack.packb({"type": "spectate", "match": self.match})))
        at = 0
        size = len(buf)
        while size - at >= 2:
            op, n = buf[at] & 0x0F, buf[at + 1] & 0x7F
            head = 2
            if n == 126:
                if size - at < 4:
                    break
                n, head = int.from_bytes(buf[at + 2:at + 4], "big"), 4
            elif n == 127:
                if size - at < 10:
                    break
                n, head = int.from_bytes(buf[at + 2:at + 10], "big"), 10
            if size - at < head + n:
                break
            payload = buf[at + head:at + head + n]
            at += head + n
            if op == 0x2:
                self.message(decode_frame(payload, "msgpack"), t)
            elif op == 0x9 and self.transport is not None:  # ping: pong with its payload
                self.transport.write(_client_frame(payload, 0xA))
            elif op == 0x8:
                self.close()
        self.buf = buf[at:]

    def message(self, msg: Any, t: float) -> None:
        if isinstance(msg, list):  # v2: [4 ref + kind, seq, ...] (SPEC 12.3)
            kind = msg[0] % 4
            if kind == 0:  # a patch
                seq = msg[1]
                if t > self.last.get(seq, 0.0):
                    self.last[seq] = t
            elif kind == 2:  # finished
                self.close()
        elif isinstance(msg, dict) and msg.get("type") == "view" and not self.viewed:
            self.viewed = True
            self.state["ready"] += 1

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
        if not self.done.done():
            self.done.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def _spectators(barrier, ws_url: str, match: str, n: int) -> dict[int, float]:
    last: dict[int, float] = {}
    state = {"ready": 0}
    loop = asyncio.get_running_loop()
    where = urlsplit(ws_url)
    assert where.hostname is not None and where.port is not None
    clients = []
    for _ in range(n):
        _, client = await loop.create_connection(
            lambda: LeanSpectator(f"{where.hostname}:{where.port}", where.path, match, last, state),
            where.hostname, where.port)
        clients.append(client)
        await asyncio.sleep(0.002)  # do not stampede the accept queue
    while state["ready"] < n:
        await asyncio.sleep(0.05)
    await loop.run_in_executor(None, barrier.wait)
    await asyncio.gather(*(c.done for c in clients))
    await loop.run_in_executor(None, barrier.wait)
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


def server_run(store: str, spectators: int, clients: int) -> tuple[list[float], tuple[float, float], float]:
    with S.Server(store) as srv:
        with httpx.Client(base_url=srv.url, timeout=60) as http:
            m = http.post("/api/matches", json={"game": "handcards", "players": 4, "options": {"seed": 5},
                                                 "listed": False}).json()
            tokens = [http.post(f"/api/matches/{m['match']}/seats", json={"seat": s}).json()["token"]
                      for s in range(4)]
        per = [spectators // clients + (1 if i < spectators % clients else 0) for i in range(clients)]
        box: dict[str, Any] = {}

        def measure() -> None:
            box["cpu0"], box["loop0"] = _user_system(srv.pid), S.loop_thread_seconds(srv.pid)
            box["sent"] = asyncio.run(_play(srv.url, srv.ws_url, tokens, m["match"]))
            box["cpu1"], box["loop1"] = _user_system(srv.pid), S.loop_thread_seconds(srv.pid)

        results = S.run_workers(clients, _dispatch, (srv.ws_url, m["match"], per), measure, lambda: None)
        rss = S.rss_kib(srv.pid)
    last: dict[int, float] = {}
    for r in results:
        for seq, t in r.items():
            last[seq] = max(last.get(seq, 0.0), t)
    sent = box["sent"]
    lat = [(last[s] - sent[s]) * 1000 for s in sent if s in last]
    moves = max(1, len(sent))
    user_ms, sys_ms = ((b - a) * 1000 / moves for a, b in zip(box["cpu0"], box["cpu1"], strict=True))
    loop_ms = (box["loop1"] - box["loop0"]) * 1000 / moves
    return lat, (user_ms, sys_ms, loop_ms), rss / 1024


def _user_system(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process: the system part is the kernel's work for the
    socket writes (one per connection and frame, a floor no user-space change removes)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / S.CLK_TCK, int(fields[12]) / S.CLK_TCK


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
          f" server CPU {sum(cpu_ms[:2]):.2f} ms per move (user {cpu_ms[0]:.2f}, system {cpu_ms[1]:.2f};"
          f" the event loop's thread {cpu_ms[2]:.3f}),"
          f" {sum(cpu_ms[:2]) * 1000 / (args.spectators + 4):.1f} µs per frame written; server RSS {rss:.0f} MiB")


if __name__ == "__main__":
    main()
