"""Where the server's bots think: a pool of worker processes, off the event loop.

A search holds a CPU for up to seconds; in the server's process (even in a thread, because of
the GIL) that would delay every other match's moves. The workers are separate processes,
started with `spawn` (the server has threads and an event loop; forking it is unsafe), and
lowered in priority (nice) so that on a busy machine the event loop wins the CPU. The number
of workers is TEAHOUSE_BOT_WORKERS (default: half the CPUs, at least 1); more bots than
workers wait in the pool's queue, which is what bounds the CPU bots can take.
"""

from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor

from service.bots import Played, play
from service.games.interface import State

NICE = 10
PR_SET_PDEATHSIG = 1

_pool: ProcessPoolExecutor | None = None


def _workers() -> int:
    raw = os.environ.get("TEAHOUSE_BOT_WORKERS", "")
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return max(1, (os.cpu_count() or 2) // 2)


def worker_setup() -> None:
    """Lower the worker's priority, and have the kernel end it when the server dies (a killed
    server must not leave bots behind)."""
    try:
        os.nice(NICE)
    except OSError:
        pass  # not allowed here: the workers still run off the event loop
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: the pool's own shutdown still ends the workers
    if os.getppid() == 1:
        os._exit(0)  # the server died before the line above took effect


def pool() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(max_workers=_workers(), mp_context=multiprocessing.get_context("spawn"),
                                    initializer=worker_setup)
    return _pool


async def think(game_id: str, state: State, seat: int, players: int, strength: int, seed: str) -> Played:
    """The bot's move for `seat`, computed in a worker process."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(pool(), play, game_id, state, seat, players, strength, seed)


def shutdown() -> None:
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None
