"""Idle seat expiry, retention of finished matches, and the admin API, each over a
real server. Old matches are written through the store itself (the server's SQLite file) with
their times in the past, as a node that has been running for days would have them."""

from __future__ import annotations

import asyncio
import time

import httpx
import msgpack
import orjson
import pytest
from teahouse_client import ServerError, TeahouseClient
from teahouse_client.bot import run_match

from service.store import Commit, MatchRecord, SeatRecord
from service.store.sqlite import SqliteStore
from tests.support.server import sqlite_server

IDLE_S, TOKEN, DAY_MS = 3, "s3cret-admin", 86_400_000


@pytest.fixture(scope="module")
def idle_server(tmp_path_factory):
    with sqlite_server(tmp_path_factory.mktemp("idle"), {"TEAHOUSE_IDLE_SEAT_SECONDS": str(IDLE_S)}) as proc:
        yield proc


@pytest.fixture(scope="module")
def admin_server(tmp_path_factory):
    with sqlite_server(tmp_path_factory.mktemp("admin"), {"TEAHOUSE_ADMIN_TOKEN": TOKEN}) as proc:
        yield proc


async def test_a_seat_taken_and_never_joined_is_freed_and_its_token_stops_working(idle_server):
    client = TeahouseClient(idle_server.url)
    mid = (await client.create_match("pixies", 3))["match"]
    idle = await client.take_seat(mid, 0)
    kept = await client.take_seat(mid, 1)
    conn = await client.connect().open()
    await conn.join(mid, kept["token"])  # joined: this seat stays
    with_bot = (await client.create_match("pixies", 2, bots={0: 1}))["match"]
    await asyncio.sleep(IDLE_S + 0.5)
    seats = (await client.match(mid))["seats"]
    assert [s["taken"] for s in seats] == [False, True, False]
    late = await client.connect().open()
    with pytest.raises(ServerError) as refused:
        await late.join(mid, idle["token"])
    assert refused.value.code == "bad_token"
    assert (await client.take_seat(mid, 0))["seat"] == 0, "the freed seat can be taken again"
    assert (await client.match(with_bot))["seats"][0]["taken"], "a bot's seat is never idle"
    listed = {m["match"]: m for m in await client.matches()}
    assert listed[mid]["seats"][0]["taken"] and listed[mid]["seats"][1]["taken"]
    await conn.close()
    await late.close()
    await client.aclose()


def _old_finished(store_dir, match_id: str, days_ago: float, finished: bool = True) -> None:
    """A 2-seat match created and played `days_ago` days ago, written through the store."""
    async def go() -> None:
        store = SqliteStore(store_dir)
        at = int(time.time() * 1000 - days_ago * DAY_MS)
        rec = MatchRecord(id=match_id, game="pixies", players=2, options={}, listed=True, seed="s" * 64,
                          seed_sha256="h", created=at, seats=[SeatRecord(seat=i) for i in range(2)])
        await store.create_match(rec, [Commit(seq=1, seat=None, command={"type": "start"}, events=[], ts=at)])
        if finished:
            await store.mark_finished(match_id, {"winners": [0]})
        await store.close()
    asyncio.run(go())


@pytest.mark.parametrize("action", ["archive", "delete"])
def test_finished_matches_past_retention_are_archived_or_deleted(tmp_path, action):
    env = {"TEAHOUSE_RETENTION_DAYS": "1", "TEAHOUSE_RETENTION_ACTION": action, "TEAHOUSE_RETENTION_CHECK_S": "0.5"}
    with sqlite_server(tmp_path, env) as server:
        _old_finished(tmp_path / "data", "oldfinished1", days_ago=3)
        _old_finished(tmp_path / "data", "oldlive00001", days_ago=3, finished=False)
        _old_finished(tmp_path / "data", "newfinished1", days_ago=0.5)
        url = server.url
        deadline = time.monotonic() + 10
        while "oldfinished1" in {m["match"] for m in httpx.get(url + "/api/matches").json()}:
            assert time.monotonic() < deadline, "retention never ran"
            time.sleep(0.2)
        listed = {m["match"] for m in httpx.get(url + "/api/matches").json()}
        assert {"oldlive00001", "newfinished1"} <= listed, "a live or a recent match is kept"
        old = httpx.get(url + "/api/matches/oldfinished1")
        if action == "archive":
            assert old.status_code == 200 and old.json()["listed"] is False
            assert httpx.get(url + "/api/matches/oldfinished1/log").json()["commits"][0]["seq"] == 1
        else:
            assert old.status_code == 404 and old.json()["error"]["code"] == "unknown_match"


def _admin(server, method: str, path: str, token: str | None = TOKEN, **kw) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx.request(method, server.url + path, headers=headers, **kw)


async def test_the_admin_api_lists_exports_and_deletes(admin_server):
    for token in (None, "wrong", TOKEN + "x"):
        r = _admin(admin_server, "GET", "/admin/matches", token)
        assert r.status_code == 401 and r.json()["error"]["code"] == "admin_unauthorized"
    done = await run_match(admin_server.url, "pixies", 2, quiet=True)
    client = TeahouseClient(admin_server.url)
    hidden = (await client.create_match("pixies", 2, listed=False))["match"]
    live = (await client.create_match("pixies", 2))["match"]
    for _ in range(2):
        await client.take_seat(live)
    ids = {done["match"], hidden, live}
    # every match, unlisted too, in pages
    seen, offset = [], 0
    while offset is not None:
        page = _admin(admin_server, "GET", f"/admin/matches?limit=2&offset={offset}").json()
        assert len(page["matches"]) <= 2
        seen += [m["match"] for m in page["matches"]]
        offset = page["next_offset"]
    assert ids <= set(seen) and len(seen) == len(set(seen))
    # the log as a downloadable file, JSON lines or msgpack
    r = _admin(admin_server, "GET", f"/admin/matches/{done['match']}/log")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    assert r.headers["content-disposition"] == f'attachment; filename="{done["match"]}.jsonl"'
    lines = [orjson.loads(line) for line in r.content.splitlines()]
    public = httpx.get(f"{admin_server.url}/api/matches/{done['match']}/log").json()
    assert lines[0]["record"]["id"] == done["match"] and lines[0]["record"]["seed"] == public["seed"]
    assert "token_hash" not in orjson.dumps(lines[0]).decode()
    assert [x["commit"]["seq"] for x in lines[1:]] == [c["seq"] for c in public["commits"]]
    packed = _admin(admin_server, "GET", f"/admin/matches/{done['match']}/log?format=msgpack")
    assert packed.headers["content-disposition"].endswith('.msgpack"')
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(packed.content)
    assert orjson.loads(orjson.dumps(list(unpacker))) == lines
    # delete: a finished or an open match; a match being played is refused
    r = _admin(admin_server, "DELETE", f"/admin/matches/{live}")
    assert r.status_code == 409 and r.json()["error"]["code"] == "match_live"
    for mid in (done["match"], hidden):
        assert _admin(admin_server, "DELETE", f"/admin/matches/{mid}").status_code == 204
        assert httpx.get(f"{admin_server.url}/api/matches/{mid}").status_code == 404
    assert _admin(admin_server, "DELETE", f"/admin/matches/{hidden}").status_code == 404
    await client.aclose()


def test_the_admin_api_is_off_without_a_token(tmp_path):
    with sqlite_server(tmp_path) as server:
        assert httpx.get(server.url + "/admin/matches", headers={"Authorization": "Bearer x"}).status_code == 404
