"""Shared plumbing of the platform benchmarks: a real server process, raw WebSocket clients,
client worker processes, /proc readings. Nothing here asserts; the scripts print figures.

A benchmark starts `.venv/bin/teahouse serve` on a free loopback port, with a temp SQLite
directory or a private redis-server (started as tests/support/redis_server.py does: appendonly,
fsync always, so both stores promise the same durability), and talks to it with
`websockets` + msgpack exactly as a third-party client would (protocol/SPEC.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import msgpack  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from tests.support.redis_server import RedisServer, free_port  # noqa: E402

SUBPROTOCOL = "teahouse.v1.msgpack"
CLK_TCK = os.sysconf("SC_CLK_TCK")
TEAHOUSE = ROOT / ".venv" / "bin" / "teahouse"


def pack(msg: dict[str, Any]) -> bytes:
    return msgpack.packb(msg, use_bin_type=True)


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


# -- /proc ---------------------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    """user + system CPU time of a process (its threads included), in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (FileNotFoundError, ProcessLookupError):
        return 0.0


def runq_wait_seconds(pid: int) -> float:
    """Time the process's main thread spent runnable but waiting for a CPU (schedstat)."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return 0.0


def loop_thread_seconds(pid: int) -> float:
    """CPU time of the process's main thread (the event loop's), user and system, with the
    scheduler's nanosecond accounting (schedstat) instead of /proc/<pid>/stat's 10 ms ticks."""
    try:
        with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
            return int(f.read().split()[0]) / 1e9
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return 0.0


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def machine() -> str:
    model = "?"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} cores ({model}), load avg {loadavg()}, python {sys.version.split()[0]}"


# -- the server --------------------------------------------------------------------------

# uvicorn re-raises SIGTERM after its graceful shutdown; a Python handler turns it into SystemExit.
# With TEAHOUSE_BENCH_PROFILE_WINDOW set, the profile starts off and SIGUSR1 / SIGUSR2 turn it on /
# off (bench/platform_loop.py --profile: the moves only, not the start-up and the joins);
# TEAHOUSE_BENCH_PROFILE_TIMER=thread times with the thread's CPU clock instead of the wall's.
_PROFILED = """
import cProfile, os, signal, sys, time
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
path, argv = sys.argv[1], sys.argv[2:]
prof = (cProfile.Profile(time.thread_time_ns, 1e-9) if os.environ.get("TEAHOUSE_BENCH_PROFILE_TIMER") == "thread"
        else cProfile.Profile())
if os.environ.get("TEAHOUSE_BENCH_PROFILE_WINDOW"):
    signal.signal(signal.SIGUSR1, lambda *_: prof.enable())
    signal.signal(signal.SIGUSR2, lambda *_: prof.disable())
else:
    prof.enable()
try:
    from service.cli import main
    main(argv)
except SystemExit:
    pass
finally:
    prof.disable()
    prof.dump_stats(path)
"""


class Server:
    """`teahouse serve` on a free port, with a temp SQLite dir or a private redis-server."""

    def __init__(self, store: str) -> None:
        if store not in ("sqlite", "redis"):
            raise SystemExit(f"--store must be sqlite or redis, not {store!r}")
        self.store = store
        self.dir = Path(tempfile.mkdtemp(prefix=f"teahouse-bench-{store}-"))
        self.redis: RedisServer | None = None
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.log = self.dir / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def redis_pid(self) -> int | None:
        return self.redis.proc.pid if self.redis is not None and self.redis.proc is not None else None

    def start(self) -> Server:
        stop_on_sigterm()
        if self.store == "redis":
            if shutil.which("redis-server") is None:
                raise SystemExit("redis-server is not installed (`make test` installs it)")
            self.redis = RedisServer(self.dir)
            self.redis.start()
            store_url = self.redis.url
        else:
            store_url = f"sqlite:{self.dir / 'data'}"
        self.port = free_port()
        cmd = [str(TEAHOUSE), "serve", "--host", "127.0.0.1", "--port", str(self.port), "--store", store_url]
        profile = os.environ.get("TEAHOUSE_BENCH_PROFILE")  # a path: run the server under cProfile
        if profile:
            cmd = [sys.executable, "-c", _PROFILED, profile, *cmd[1:]]
        # a command the server runs under (e.g. valgrind: bench/platform_loop.py --callgrind)
        wrap = shlex.split(os.environ.get("TEAHOUSE_BENCH_WRAP", ""))
        if wrap:
            cmd = [*wrap, sys.executable, *cmd]
        # every benchmark client shares one address: the per-address limits would count them as one
        env = {"TEAHOUSE_MATCHES_PER_ADDRESS_PER_MINUTE": "0", "TEAHOUSE_CONNECTIONS_PER_ADDRESS": "0",
               "TEAHOUSE_LIVE_REPLAYS_PER_ADDRESS_PER_MINUTE": "0", **os.environ}
        # The venv may be shared by several checkouts, its editable install pointing at another
        # one: put this checkout first, so the server measured is the code next to this script.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                cmd,
                stdout=log, stderr=subprocess.STDOUT, cwd=self.dir, env=env,
            )
        deadline = time.monotonic() + (600 if wrap else 30)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"the server exited: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/health", timeout=1).status_code == 200:
                    return self
            time.sleep(0.1)
        raise SystemExit("the server did not answer /health within 30 s")

    def errors(self) -> list[str]:
        """Lines of the server log that report an error (tracebacks, 'failed')."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return []
        return [ln for ln in text.splitlines() if "Error" in ln or "failed" in ln or "Traceback" in ln]

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(120 if os.environ.get("TEAHOUSE_BENCH_PROFILE") or os.environ.get("TEAHOUSE_BENCH_WRAP") else 10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            self.proc = None
        if self.redis is not None:
            self.redis.stop()
            self.redis = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        errs = self.errors()
        if errs:
            kept = Path(tempfile.gettempdir()) / f"teahouse-bench-server-{self.port}.log"
            shutil.copy(self.log, kept)
            distinct = sorted({ln.strip()[:160] for ln in errs if not ln.startswith(("  ", "Traceback"))})
            print(f"server log ({kept}): {len(errs)} error line(s); distinct: {distinct[:4]}")
        self.stop()


# -- raw WebSocket connections ---------------------------------------------------------------

class Conn:
    """One msgpack WebSocket session. Every received message goes to `on_message(conn, msg, t)`."""

    def __init__(self, ws: Any, on_message: Callable[[Conn, dict[str, Any], float], None]) -> None:
        self.ws = ws
        self.on_message = on_message
        self.waiting: dict[Any, asyncio.Future] = {}
        self.frames = 0
        self.bytes = 0
        self.closed_code: int | None = None
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, ws_url: str, on_message: Callable[[Conn, dict[str, Any], float], None]) -> Conn:
        ws = await connect(ws_url, subprotocols=[SUBPROTOCOL], compression=None, max_size=1 << 22,
                           open_timeout=60, ping_interval=None)
        conn = cls(ws, on_message)
        await conn.request("welcome", {"type": "hello", "client": "teahouse-bench"})
        return conn

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                t = time.perf_counter()
                self.frames += 1
                self.bytes += len(frame)
                msg = unpack(frame)
                kind = msg.get("type")
                key: Any = None
                if kind in ("ack", "reject"):
                    key = msg["id"]
                elif kind in ("welcome",):
                    key = kind
                elif kind in ("view", "legal_moves"):
                    key = (kind, msg.get("match"))
                elif kind == "error":
                    key = "error"
                if key is not None:
                    fut = self.waiting.pop(key, None)
                    if kind == "error" and fut is None and self.waiting:
                        # An error answers whatever this connection is waiting for.
                        key, fut = self.waiting.popitem()
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                self.on_message(self, msg, t)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not crash on a close
            self.closed_code = getattr(self.ws, "close_code", None)
            for fut in self.waiting.values():
                if not fut.done():
                    fut.set_exception(ConnectionError(f"connection lost: {exc!r}"))
        else:
            self.closed_code = getattr(self.ws, "close_code", None)
            for fut in self.waiting.values():
                if not fut.done():
                    fut.set_exception(ConnectionError(f"connection closed ({self.closed_code})"))

    def expect(self, key: Any) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        self.waiting[key] = fut
        return fut

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(pack(msg))

    async def request(self, key: Any, msg: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
        fut = self.expect(key)
        await self.send(msg)
        reply = await asyncio.wait_for(fut, timeout)
        if reply.get("type") == "error":
            raise RuntimeError(f"server error {reply.get('code')}: {reply.get('message')}")
        return reply

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 5)
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader


def apply_inplace(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """protocol.patch.apply without the defensive deep copies (the ops are freshly decoded)."""
    for op in ops:
        path, kind = op["path"], op["op"]
        if not path:
            doc = op["value"]
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        if kind == "remove":
            del parent[last]
        elif kind == "add" and isinstance(parent, list):
            parent.insert(last, op["value"])
        else:
            parent[last] = op["value"]
    return doc


# -- one match as a set of connections -------------------------------------------------------

class LiveMatch:
    """A match of `players` seated connections and `spectators` spectator connections.

    The first spectator (or seat 0 when there are none) keeps the document current, which
    tells whose turn it is. `on_patch(seq, t)` is called once per patch per connection.
    """

    def __init__(self, http: httpx.AsyncClient, ws_url: str, game: str, players: int, spectators: int,
                 rng: random.Random) -> None:
        self.http, self.ws_url, self.game = http, ws_url, game
        self.players, self.spectators, self.rng = players, spectators, rng
        self.id = ""
        self.seats: list[Conn] = []
        self.watchers: list[Conn] = []
        self.tracker: Conn | None = None
        self.doc: dict[str, Any] = {}
        self.seq = 0
        # seq -> [connections that have its patch, future resolved with the time the last one did]
        self.arrivals: dict[int, list[Any]] = {}
        self._seq_waiters: list[tuple[int, asyncio.Future]] = []
        self.cut = 0  # connections closed by the server (e.g. 4408 slow consumer)

    @property
    def conns(self) -> list[Conn]:
        return self.seats + self.watchers

    @property
    def finished(self) -> bool:
        return bool(self.doc.get("status", {}).get("finished"))

    @property
    def to_act(self) -> list[int]:
        return list(self.doc.get("status", {}).get("to_act") or [])

    async def setup(self) -> None:
        r = await self.http.post("/api/matches", json={"game": self.game, "players": self.players, "listed": False})
        r.raise_for_status()
        self.id = r.json()["match"]
        tokens = []
        for i in range(self.players):
            r = await self.http.post(f"/api/matches/{self.id}/seats", json={"seat": i, "name": f"bench{i}"})
            r.raise_for_status()
            tokens.append(r.json()["token"])
        for token in tokens:
            c = await Conn.open(self.ws_url, self._on_message)
            self.seats.append(c)
            view = await c.request(("view", self.id), {"type": "join", "match": self.id, "token": token})
            if self.spectators == 0 and self.tracker is None:
                self.tracker, self.doc, self.seq = c, view["doc"], view["seq"]
        for _ in range(self.spectators):
            c = await Conn.open(self.ws_url, self._on_message)
            if self.tracker is None:
                self.tracker = c
            self.watchers.append(c)
            view = await c.request(("view", self.id), {"type": "spectate", "match": self.id})
            if c is self.tracker:
                self.doc, self.seq = view["doc"], view["seq"]

    def _on_message(self, conn: Conn, msg: dict[str, Any], t: float) -> None:
        if msg.get("type") != "patch":
            return
        seq = msg["seq"]
        if conn is self.tracker and seq == self.seq + 1:
            self.doc = apply_inplace(self.doc, msg["ops"])
            self.seq = seq
            if self._seq_waiters:
                still = []
                for want, fut in self._seq_waiters:
                    if self.seq >= want:
                        if not fut.done():
                            fut.set_result(t)
                    else:
                        still.append((want, fut))
                self._seq_waiters = still
        entry = self.arrivals.get(seq)
        if entry is not None:
            entry[0] += 1
            if entry[0] == len(self.conns) and not entry[1].done():
                entry[1].set_result(t)

    def all_received(self, seq: int) -> asyncio.Future:
        """A future resolved with the perf_counter time the last connection got patch `seq`."""
        fut = asyncio.get_running_loop().create_future()
        self.arrivals[seq] = [0, fut]
        return fut

    async def tracked(self, seq: int, timeout: float = 60) -> None:
        if self.seq >= seq:
            return
        fut = asyncio.get_running_loop().create_future()
        self._seq_waiters.append((seq, fut))
        await asyncio.wait_for(fut, timeout)

    async def choose(self) -> tuple[int, dict[str, Any]] | None:
        """The seat to act and a random legal move of it (a `legal` round trip), or None."""
        to_act = self.to_act
        if not to_act or self.finished:
            return None
        seat = self.rng.choice(to_act)
        reply = await self.seats[seat].request(("legal_moves", self.id), {"type": "legal", "match": self.id})
        if not reply["moves"]:
            return None
        return seat, self.rng.choice(reply["moves"])

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.conns))
        self.cut += sum(1 for c in self.conns if c.closed_code not in (None, 1000))


async def new_live_match(http: httpx.AsyncClient, ws_url: str, args: Any, rng: random.Random,
                         failures: list[str], attempts: int = 5) -> LiveMatch:
    """Set up a LiveMatch, trying again (and recording why) when the server fails a step."""
    for attempt in range(attempts):
        m = LiveMatch(http, ws_url, args.game, args.players, args.spectators, rng)
        try:
            await m.setup()
            return m
        except (RuntimeError, ConnectionError, TimeoutError, httpx.HTTPError, OSError) as exc:
            failures.append(f"{type(exc).__name__}: {exc}"[:200])
            await m.close()
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


# -- client worker processes -----------------------------------------------------------------

def run_workers(n: int, target: Callable[..., Any], args: tuple, measure: Callable[[], None],
                after: Callable[[], None]) -> list[Any]:
    """Run `target(index, barrier, queue, *args)` in n forked processes.

    Each worker sets up, waits at the barrier, runs, waits at the barrier again, and puts its
    result on the queue. `measure` runs in this process between the two barriers' release
    (first call) and `after` after the second, so CPU readings bracket the measured window.
    Returns the results and records the worker pids in `run_workers.pids`.
    """
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(n + 1)
    queue = ctx.Queue()
    procs = [ctx.Process(target=_guarded, args=(target, i, barrier, queue, *args), daemon=True)
             for i in range(n)]
    for p in procs:
        p.start()
    run_workers.pids = [p.pid for p in procs]  # type: ignore[attr-defined]
    try:
        try:
            barrier.wait(timeout=900)
            measure()
            barrier.wait(timeout=900)
            after()
        except threading.BrokenBarrierError:
            errors = []
            with contextlib.suppress(Exception):
                while True:
                    errors.append(queue.get(timeout=5))
            raise SystemExit("a client worker failed:\n" + "\n".join(
                str(e.get("error", e)) if isinstance(e, dict) else str(e) for e in errors)) from None
        results = [queue.get(timeout=300) for _ in procs]
    finally:
        for p in procs:
            p.join(30)
            if p.is_alive():
                p.terminate()
    return results


def _guarded(target: Callable[..., Any], index: int, barrier: Any, queue: Any, *args: Any) -> None:
    try:
        target(index, barrier, queue, *args)
    except BaseException:
        queue.put({"error": f"worker {index}: {traceback.format_exc()}"})
        barrier.abort()
        raise SystemExit(1) from None


def stop_on_sigterm() -> None:
    """Turn SIGTERM (e.g. from `timeout`) into SystemExit, so the server is stopped on the way out."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


async def barrier_wait(barrier: Any) -> None:
    await asyncio.to_thread(barrier.wait, 900)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


def child_pids(pid: int) -> list[int]:
    """The direct children of a process (e.g. the server's bot workers), from /proc."""
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return sorted(set(out))


class CpuWindow:
    """CPU seconds of named processes over a wall-clock window."""

    def __init__(self) -> None:
        self.pids: dict[str, list[int]] = {}
        self.start: dict[str, float] = {}
        self.t0 = self.t1 = 0.0
        self.end: dict[str, float] = {}

    def add(self, name: str, pids: list[int]) -> None:
        self.pids[name] = [p for p in pids if p]

    def _read(self) -> dict[str, float]:
        out = {name: sum(cpu_seconds(p) for p in pids) for name, pids in self.pids.items()}
        if "server" in self.pids:
            out["server runq"] = sum(runq_wait_seconds(p) for p in self.pids["server"])
        return out

    def begin(self) -> None:
        self.t0, self.start = time.perf_counter(), self._read()

    def finish(self) -> None:
        self.t1, self.end = time.perf_counter(), self._read()

    def share(self, name: str) -> float:
        return (self.end[name] - self.start[name]) / (self.t1 - self.t0)

    def report(self) -> str:
        wall = self.t1 - self.t0
        parts = [f"{name} {100 * self.share(name):.0f}%" for name in self.pids]
        text = f"CPU over the {wall:.1f} s window (100% = one core of {os.cpu_count()}): " + ", ".join(parts)
        if "server runq" in self.end:
            text += (f"; the server's event-loop thread waited for a CPU {100 * self.share('server runq'):.0f}% "
                     f"of the window (machine shared with other jobs)")
        return text
