"""Both SDKs against a real server, for the two protocol decisions they implement:

- a move carries `at`, the seq of the document it was decided on; a move whose `at` is behind
  the match is refused with `stale` (the match's seq in `seq`), nothing committed, while an id
  already committed answers its `ack` whatever `at` says;
- `join`, `spectate` and `resync` carry a `ref`, and their answer ends with the presence that
  carries `reply` (the request's type) and that `ref`.

A last test checks the SDKs still get along with a server that has neither (an older one).
"""

from __future__ import annotations

import asyncio
import json
import subprocess

import pytest
from teahouse_client import Stale, TeahouseClient
from teahouse_client.client import Connection

from tests.clients.node import NODE, node_flags
from tests.support.server import ROOT


def spy(conn: Connection) -> list[dict]:
    """What the connection sends, as it goes on the wire (the real send still runs)."""
    sent: list[dict] = []
    send = conn._send

    async def recording(msg: dict) -> None:
        sent.append(dict(msg))
        await send(msg)

    conn._send = recording  # type: ignore[method-assign]
    return sent


@pytest.fixture
async def opened():
    """Every connection and client a test opens here, closed in its teardown."""
    held: list = []
    yield held
    for thing in reversed(held):
        await (thing.aclose() if isinstance(thing, TeahouseClient) else thing.close())


async def seated_pair(url: str, encoding: str, opened: list):
    client = TeahouseClient(url, encoding=encoding)
    opened.append(client)
    mid = (await client.create_match("pixies", 2))["match"]
    seats = [await client.take_seat(mid) for _ in range(2)]
    conns = [await client.connect().open() for _ in range(2)]
    opened.extend(conns)
    sent = [spy(c) for c in conns]
    views = [await c.join(mid, s["token"]) for c, s in zip(conns, seats, strict=True)]
    for v in views:
        await v.wait_for(lambda g: g.seq >= 1 and bool(g.status.get("to_act")), timeout=10)
    return client, mid, conns, sent, views


@pytest.mark.parametrize("encoding", ["msgpack", "json"])
async def test_python_sdk_moves_carry_at_and_a_stale_one_commits_nothing(sqlite_server, encoding, opened):
    client, mid, conns, sent, views = await seated_pair(sqlite_server.url, encoding, opened)
    i = next(k for k, v in enumerate(views) if v.my_turn)
    conn, game = conns[i], views[i]
    before = game.seq
    first = (await conn.legal_moves(mid))[0]
    acked = await conn.move(mid, first, "py-first")
    assert acked == before + 1
    assert [m["at"] for m in sent[i] if m["type"] == "move"] == [before], "at defaults to the document's seq"
    nxt = (await conn.legal_moves(mid) or [first])[0]
    with pytest.raises(Stale) as refused:
        await conn.move(mid, nxt, "py-stale", at=before)
    assert refused.value.code == "stale" and refused.value.seq == acked
    assert refused.value.fields["ref"] == "py-stale"
    assert (await client.match(mid))["seq"] == acked, "a stale move commits nothing"
    # an id already committed answers its ack again, whatever `at` says (retries stay safe)
    assert await conn.move(mid, first, "py-first", at=before) == acked
    assert (await client.match(mid))["seq"] == acked


@pytest.mark.parametrize("encoding", ["msgpack", "json"])
async def test_python_sdk_answers_end_with_the_presence_carrying_reply_and_ref(sqlite_server, encoding, opened):
    client, mid, conns, sent, views = await seated_pair(sqlite_server.url, encoding, opened)
    join_ref = next(m["ref"] for m in sent[0] if m["type"] == "join")
    assert isinstance(join_ref, str) and 0 < len(join_ref) <= 64
    # (the presence seen since may be a broadcast; the answer's came first, with the ref)
    watcher = await client.connect().open()
    opened.append(watcher)
    wsent = spy(watcher)
    watching = await watcher.spectate(mid)
    ref = next(m["ref"] for m in wsent if m["type"] == "spectate")
    assert watching.presence is not None
    assert (watching.presence["reply"], watching.presence["ref"]) == ("spectate", ref)
    assert watcher.replies and watching.seq >= 1
    await watching._resync(force=True)
    resync_ref = wsent[-1]["ref"]
    assert wsent[-1]["type"] == "resync"
    await watching.wait_for(lambda g: g._resync_ref is None, timeout=10)
    assert (watching.presence["reply"], watching.presence["ref"]) == ("resync", resync_ref)


def run_js(url: str, encoding: str) -> dict:
    run = subprocess.run([NODE, *node_flags(), str(ROOT / "tests" / "clients" / "decisions.mjs"), url, encoding],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
def test_js_sdk_moves_carry_at_and_a_stale_one_commits_nothing(sqlite_server, encoding):
    got = run_js(sqlite_server.url, encoding)
    assert got["acked"] == got["before"] + 1
    assert got["sentAt"] == got["before"], "at defaults to the document's seq"
    assert got["stale"] == {"code": "stale", "seq": got["acked"], "ref": "js-stale"}
    assert got["retried"] == got["acked"] and got["seqAfter"] == got["acked"]


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
def test_js_sdk_answers_end_with_the_presence_carrying_reply_and_ref(sqlite_server, encoding):
    got = run_js(sqlite_server.url, encoding)
    assert (got["spectate"]["presence"]["reply"], got["spectate"]["presence"]["ref"]) == ("spectate", got["spectate"]["ref"])
    assert (got["resync"]["presence"]["reply"], got["resync"]["presence"]["ref"]) == ("resync", got["resync"]["ref"])
    assert got["join"]["presence"]["reply"] == "join" and got["join"]["presence"]["ref"] == got["join"]["ref"]
    assert got["replies"] is True


async def test_the_sdks_work_with_this_server_whichever_decisions_it_has(sqlite_server, opened):
    """Not skipped: a server without `reply` or `stale` still gets every answer recognised (a
    plain presence after the view ends it) and moves with `at` committed."""
    client, mid, conns, sent, views = await seated_pair(sqlite_server.url, "msgpack", opened)
    i = next(k for k, v in enumerate(views) if v.my_turn)
    before = views[i].seq
    seen: list[tuple[str, int]] = []
    views[1 - i].on_change(lambda reason, view: seen.append((reason, view.seq)))
    assert await conns[i].move(mid, (await conns[i].legal_moves(mid))[0]) == before + 1
    assert [m["at"] for m in sent[i] if m["type"] == "move"] == [before]
    await views[1 - i].wait_for(lambda g: g.seq == before + 1, timeout=10)
    assert ("patch", before + 1) in seen, "the other seat's listener saw the commit"
    got = await asyncio.to_thread(run_js, sqlite_server.url, "json")
    assert got["acked"] == got["before"] + 1
    assert got["spectate"]["presence"]["type"] == "presence" and got["resync"]["presence"]["type"] == "presence"
