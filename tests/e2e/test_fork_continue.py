""""Continue from here" (SPEC 2.10, 11): a fork with the forker seated at once, against server
bots of a chosen strength or with free seats for friends; forks are unlisted unless asked for."""

from __future__ import annotations

import asyncio
import random

import pytest
from teahouse_client import ServerError, TeahouseClient
from teahouse_client.bot import run_match

from tests.e2e.helpers import play_resilient

_FINISHED: dict[str, tuple[str, dict]] = {}


@pytest.fixture
async def finished(sqlite_server):
    """One finished match per server (the module's): refusals create nothing, and a client
    address's creations are rate limited."""
    if sqlite_server.url not in _FINISHED:
        summary = await run_match(sqlite_server.url, "pixies", 2, seed=5, quiet=True)
        _FINISHED[sqlite_server.url] = (summary["match"], summary)
    return _FINISHED[sqlite_server.url]


async def test_continue_against_bots_seats_the_forker_and_the_bots_play_the_rest(sqlite_server, finished):
    client = TeahouseClient(sqlite_server.url)
    mid, _ = finished
    n = (await client.match(mid))["seq"] // 2
    fork = await client.fork(mid, n, seat=1, name="Bob", bot_strength=0)
    fid = fork["match"]
    assert fork["seat"] == 1 and isinstance(fork["token"], str) and len(fork["token"]) >= 32
    assert fork["listed"] is False and fork["state"] == "live"
    assert fork["bots"] == [{"seat": 0, "strength": 0}]
    assert [s["name"] for s in fork["seats"]][1] == "Bob"
    assert fid not in {m["match"] for m in (await client.matches())}, "a fork is unlisted unless asked"
    # the token plays seat 1 and the server's bot answers for seat 0, to the end
    conn = await client.connect().open()
    await conn.join(fid, fork["token"])
    await asyncio.wait_for(play_resilient(conn, fid, random.Random(1)), 60)
    log = await client.log(fid)
    assert log["state"] == "finished"
    ours = [c for c in log["commits"] if c["seq"] > n + 1]
    assert {c["seat"] for c in ours} == {0, 1}
    assert all(c["move_id"].startswith("sys:bot:") for c in ours if c["seat"] == 0)
    assert all(not (c["move_id"] or "").startswith("sys:") for c in ours if c["seat"] == 1)


async def test_continue_with_friends_leaves_the_other_seats_to_take(sqlite_server, finished):
    client = TeahouseClient(sqlite_server.url)
    mid, _ = finished
    fork = await client.fork(mid, 2, seat=0, listed=True)
    fid = fork["match"]
    assert fork["seat"] == 0 and fork["bots"] == [] and fork["state"] == "open"
    assert [s["taken"] for s in fork["seats"]] == [True, False]
    assert fid in {m["match"] for m in (await client.matches())}, "listed: true lists it"
    friend = await client.take_seat(fid, 1, name="friend")
    assert friend["seat"] == 1
    assert (await client.match(fid))["state"] == "live"


@pytest.mark.parametrize(("body", "code"), [
    ({"seq": 2, "bot_strength": 1}, "bad_field"),           # bots need the forker's seat
    ({"seq": 2, "seat": 2, "bot_strength": 1}, "bad_field"),  # a 2-seat match has seats 0 and 1
    ({"seq": 2, "seat": 0, "bot_strength": 9}, "bad_field"),
    ({"seq": 2, "seat": True}, "bad_field"),
    ({"seq": 2, "listed": "yes"}, "bad_field"),
    ({"seq": 2, "seat": 0, "name": "x" * 41}, "bad_field"),
    ({"seq": 2, "opponents": "bots"}, "unknown_field"),
])
async def test_refused_continuations_make_no_match(sqlite_server, finished, body, code):
    client = TeahouseClient(sqlite_server.url)
    mid, _ = finished
    with pytest.raises(ServerError) as err:
        await client._call("POST", f"/api/matches/{mid}/fork", json=body)
    assert err.value.code == code
