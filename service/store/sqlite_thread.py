"""The one thread that runs a SQLite connection's statements, in the order they were sent.

sqlite3 blocks (an append waits for its fsync), so the event loop hands each statement to this
thread and awaits it. Compared with a one-worker ThreadPoolExecutor (bench/platform_store_tail.py, CPU per move):
no concurrent.futures Future chained to an asyncio one, no idle-worker bookkeeping per call;
and work sent as a group (appends) is run together when several are waiting, so the appends
of many matches that arrive together share one transaction and one fsync. Each one still gets
its answer only after the COMMIT that holds it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any

# A group runs the arguments of several waiting items in one go and returns one outcome per
# item, in order: its result, or the exception that item alone raises. An exception raised by
# the group itself is every item's.
Group = Callable[[list[Any]], list[Any]]

_STOP = object()


class _Item:
    __slots__ = ("group", "fn", "args", "loop", "future")

    def __init__(self, group: Group | None, fn: Callable[..., Any] | None, args: Any,
                 loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any]) -> None:
        self.group, self.fn, self.args, self.loop, self.future = group, fn, args, loop, future


class DbThread:
    def __init__(self, name: str) -> None:
        self._queue: SimpleQueue[Any] = SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def call_blocking(self, fn: Callable[[], Any]) -> Any:
        """Run `fn` on the thread and wait for it here (outside any event loop: set-up)."""
        done = threading.Event()
        box: list[Any] = []

        def run() -> None:
            try:
                box.append((None, fn()))
            except BaseException as exc:
                box.append((exc, None))
            finally:
                done.set()

        self._queue.put(run)
        done.wait()
        exc, value = box[0]
        if exc is not None:
            raise exc
        return value

    def run(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        """`fn(*args)` on the thread; the future is the result."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._queue.put(_Item(None, fn, args, loop, future))
        return future

    def run_grouped(self, group: Group, arg: Any) -> asyncio.Future[Any]:
        """`arg`'s outcome from `group`, run with the other items of the same group waiting."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._queue.put(_Item(group, None, arg, loop, future))
        return future

    def stop(self) -> None:
        self._queue.put(_STOP)
        self._thread.join()

    def _serve(self) -> None:
        queue = self._queue
        held: Any = None
        while True:
            item, held = (held if held is not None else queue.get()), None
            if item is _STOP:
                return
            if not isinstance(item, _Item):
                item()  # call_blocking
                continue
            if item.group is None:
                try:
                    _settle(item, None, item.fn(*item.args))  # type: ignore[misc]
                except BaseException as exc:
                    _settle(item, exc, None)
                continue
            batch = [item]
            # Only this thread takes from the queue, so one that is not empty has an item: no
            # Empty raised and caught on every append (2k instructions of ~128k, callgrind).
            while not queue.empty():
                more = queue.get_nowait()
                if isinstance(more, _Item) and more.group is item.group:
                    batch.append(more)
                else:
                    held = more
                    break
            try:
                outcomes = item.group([b.args for b in batch])
            except BaseException as exc:
                for b in batch:
                    _settle(b, exc, None)
                continue
            for b, outcome in zip(batch, outcomes, strict=True):
                if isinstance(outcome, BaseException):
                    _settle(b, outcome, None)
                else:
                    _settle(b, None, outcome)


def _settle(item: _Item, exc: BaseException | None, value: Any) -> None:
    try:
        item.loop.call_soon_threadsafe(_set, item.future, exc, value)
    except RuntimeError:
        pass  # the loop is closed: nobody waits any more


def _set(future: asyncio.Future[Any], exc: BaseException | None, value: Any) -> None:
    if future.done():
        return  # cancelled while it ran
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(value)
