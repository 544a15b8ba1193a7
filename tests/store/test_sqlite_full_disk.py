"""A full disk under the SQLite store: moves are answered `store_unavailable` (retryable,
nothing changed: SPEC section 2 and 3.5), nothing acknowledged is lost, and play resumes with
the same move ids once there is room again.

The disk fills for the server process only: its RLIMIT_FSIZE (the largest file it may write,
set from outside with prlimit(2), as `prlimit --fsize` does) is lowered to just above the size
of its files, so the next pages SQLite writes fail as they would on a full filesystem; then it
is raised again. A real server process, a real SQLite file, the Python SDK as a client."""

from __future__ import annotations

import asyncio
import re
import resource
from pathlib import Path

import httpx
import pytest
from teahouse_client import TeahouseClient
from teahouse_client.client import ServerError

from service.store.sqlite import SqliteStore
from tests.e2e.helpers import close_all, seat_players
from tests.support.server import ServerProcess

pytestmark = pytest.mark.skipif(not hasattr(resource, "prlimit"), reason="prlimit(2) is Linux only")


def fill_disk(pid: int, data: Path) -> None:
    """Let the process write its files only a few pages further than they are now."""
    largest = max(p.stat().st_size for p in data.iterdir() if p.is_file())
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (largest + 2 * 4096, resource.RLIM_INFINITY))


def free_disk(pid: int) -> None:
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def store_errors(server: ServerProcess) -> float:
    found = re.search(r"^teahouse_store_errors_total (\S+)$", httpx.get(server.url + "/metrics").text, re.M)
    assert found
    return float(found.group(1))


async def next_move(conn, view, mid):
    seat = view.status["to_act"][0]
    legal = await conn[seat].legal_moves(mid)
    return seat, legal[0]


async def test_a_full_disk_refuses_moves_retryably_and_loses_nothing_acknowledged(tmp_path):
    data = tmp_path / "data"
    # the log goes to another filesystem place than the store, and stays small (warnings only)
    server = ServerProcess(f"sqlite:{data}", tmp_path / "server.log").start()
    client = TeahouseClient(server.url)
    acked: dict[str, int] = {}  # move id -> seq acknowledged
    try:
        mid = (await client.create_match("pixies", 2))["match"]
        seats, conns, views = await seat_players(client, mid, 2, record=False)
        for n in range(3):
            seat, command = await next_move(conns, views[0], mid)
            acked[f"before-{n}"] = await conns[seat].move(mid, command, f"before-{n}")
            await views[0].wait_for(lambda g, s=acked[f"before-{n}"]: g.seq >= s, timeout=10)

        fill_disk(server.proc.pid, data)
        refused: list[tuple[str, int, dict]] = []
        for n in range(20):  # the free pages run out within a few commits
            seat, command = await next_move(conns, views[0], mid)
            move_id = f"full-{n}"
            try:
                acked[move_id] = await asyncio.wait_for(conns[seat].move(mid, command, move_id), 15)
                await views[0].wait_for(lambda g, s=acked[move_id]: g.seq >= s, timeout=10)
            except ServerError as exc:
                assert exc.code == "store_unavailable", (exc.code, exc.message)
                refused.append((move_id, seat, command))
                break
        assert refused, "every move was acknowledged although the disk was full"
        # the node lives, and says it cannot write rather than lying: the same move again is refused
        assert httpx.get(server.url + "/health/live").status_code == 200
        assert store_errors(server) >= 1  # counted (teahouse_store_errors_total): what an operator alerts on
        move_id, seat, command = refused[0]
        with pytest.raises(ServerError) as again:
            await asyncio.wait_for(conns[seat].move(mid, command, move_id), 15)
        assert again.value.code == "store_unavailable"
        seq_while_full = (await client.match(mid))["seq"]
        assert seq_while_full == max(acked.values())  # nothing refused was committed

        free_disk(server.proc.pid)
        # the same move id, sent again, is committed once; play goes on
        acked[move_id] = await asyncio.wait_for(conns[seat].move(mid, command, move_id), 15)
        assert acked[move_id] == seq_while_full + 1
        await views[0].wait_for(lambda g: g.seq >= acked[move_id], timeout=10)
        for n in range(3):
            seat, command = await next_move(conns, views[0], mid)
            acked[f"after-{n}"] = await conns[seat].move(mid, command, f"after-{n}")
            await views[0].wait_for(lambda g, s=acked[f"after-{n}"]: g.seq >= s, timeout=10)
        await close_all(*conns)
    finally:
        await client.aclose()
        server.kill()  # no clean shutdown: what is in the file is what survived

    store = SqliteStore(data)
    try:
        log = await store.read(mid)
    finally:
        await store.close()
    assert [c.seq for c in log] == list(range(1, len(log) + 1))
    by_id = {c.move_id: c.seq for c in log}
    for move_id, seq in acked.items():
        assert by_id.get(move_id) == seq, f"acknowledged move {move_id} (seq {seq}) is not in the log"
