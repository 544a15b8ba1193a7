"""What one durable move costs at the least on this machine, below any server's code: the
system calls a move of the rig's scenario a cannot do without, each timed alone in a tight
loop with no Python server around it (issue 12's "server CPU per move <= Colyseus's").

- `wire`: a move arrives on one loopback TCP socket and one small frame leaves on each of 12
  (4 seats + 8 spectators, as in scenario a): one epoll wait, one recv, 12 sends. Colyseus pays
  this too. The 12 clients live in a child process that sends the next move only once all 12
  frames arrived (one move in flight, like the rig); the CPU counted is the serving thread's
  (user + system: on loopback the receiving side's TCP work runs in the sender's system time).
- `sqlite`: one commit of one ~150-byte row, WAL, `synchronous=FULL` (Teahouse's default: the
  ack waits for the fsync that holds the move), in the calling thread (no hand-off).
- `redis`: one XADD of ~150 bytes over a raw socket to a private redis-server (appendonly,
  `appendfsync everysec` as the rig's, then `always`): the client's CPU and redis-server's.

Prints CPU per move for each (and the stores' median wall time per append) and the floor of a durable move (wire + store). Asserts nothing.

Run:
  .venv/bin/python bench/platform_floor.py [--moves 4000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import selectors
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RECIPIENTS = 12
FRAME = bytes((0x82, 40)) + b"x" * 40   # a 42-byte frame: about what a handcards seat is sent per move (the rig's B/move, bench/README.md)
MOVE = b"m" * 30
ROW = b"r" * 150

_CLIENTS = r"""
import socket, sys
port, n, moves = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
for s in socks:
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
for _ in range(moves):
    socks[0].sendall(b"m" * 30)
    for s in socks:
        got = 0
        while got < 42:
            got += len(s.recv(4096))
"""


def pid_cpu(pid: int) -> float:
    """CPU seconds of every thread of `pid`, to the nanosecond (schedstat; /proc/PID/stat's
    jiffies are too coarse for a few seconds of work)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e9


def wire(moves: int) -> float:
    """Serving thread CPU seconds per move: epoll wait + recv of the move + 12 sends."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    child = subprocess.Popen([sys.executable, "-c", _CLIENTS, str(port), str(RECIPIENTS), str(moves)])
    conns = []
    for _ in range(RECIPIENTS):
        c, _addr = listener.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conns.append(c)
    sel = selectors.EpollSelector()
    sel.register(conns[0], selectors.EVENT_READ)
    t0 = time.thread_time()
    for _ in range(moves):
        got = 0
        while got < len(MOVE):
            sel.select()
            got += len(conns[0].recv(4096))
        for c in conns:
            c.send(FRAME)
    spent = time.thread_time() - t0
    child.wait()
    for c in conns:
        c.close()
    listener.close()
    return spent / moves


def sqlite_append(moves: int, folder: Path) -> tuple[float, float]:
    """(CPU seconds, median wall seconds) per durable commit of one row."""
    db = sqlite3.connect(folder / "floor.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE IF NOT EXISTS log (match TEXT, seq INTEGER, data BLOB, PRIMARY KEY (match, seq))")
    walls = []
    t0 = time.thread_time()
    for seq in range(1, moves + 1):
        w = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO log VALUES (?, ?, ?)", ("m", seq, ROW))
        db.execute("COMMIT")
        walls.append(time.perf_counter() - w)
    spent = time.thread_time() - t0
    db.close()
    (folder / "floor.db").unlink()
    return spent / moves, statistics.median(walls)


def _resp(*parts: bytes) -> bytes:
    return b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)


def redis_append(moves: int, folder: Path, fsync: str) -> tuple[float, float, float]:
    """(client CPU, redis-server CPU, median wall) seconds per XADD, one in flight."""
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
                               "--appendonly", "yes", "--appendfsync", fsync, "--save", ""],
                              stdout=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                s = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise SystemExit("redis-server did not start")
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(_resp(b"DEL", b"floor"))
        s.recv(100)
        walls = []
        t0, r0 = time.thread_time(), pid_cpu(server.pid)
        for _ in range(moves):
            w = time.perf_counter()
            s.sendall(_resp(b"XADD", b"floor", b"*", b"c", ROW))
            s.recv(100)  # one small reply: the entry's id
            walls.append(time.perf_counter() - w)
        spent, served = time.thread_time() - t0, pid_cpu(server.pid) - r0
        s.close()
        return spent / moves, served / moves, statistics.median(walls)
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="teahouse-floor-"))
    rows: dict[str, list[float]] = {}
    try:
        for _ in range(args.rounds):
            rows.setdefault("wire", []).append(wire(args.moves))
            cpu, wall = sqlite_append(args.moves, folder)
            rows.setdefault("sqlite", []).append(cpu)
            rows.setdefault("sqlite wall p50", []).append(wall)
            if shutil.which("redis-server"):
                for fsync in ("everysec", "always"):
                    client, served, wall = redis_append(args.moves, folder, fsync)
                    rows.setdefault(f"redis {fsync}", []).append(client + served)
                    rows.setdefault(f"redis {fsync} (server)", []).append(served)
                    rows.setdefault(f"redis {fsync} wall p50", []).append(wall)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    best = {k: min(v) for k, v in rows.items()}
    print(f"platform_floor: {args.moves} moves a round, best of {args.rounds} (load {os.getloadavg()[0]:.1f})")
    for name, value in best.items():
        print(f"  {name:<26} {value * 1e6:7.1f} us per move")
    print(f"  floor, wire + sqlite       {(best['wire'] + best['sqlite']) * 1e6:7.1f} us")
    for fsync in ("everysec", "always"):
        if f"redis {fsync}" in best:
            print(f"  floor, wire + redis {fsync:<7}{(best['wire'] + best[f'redis {fsync}']) * 1e6:7.1f} us")


if __name__ == "__main__":
    main()
