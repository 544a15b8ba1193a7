"""service/http/admin.py against docs/operators.md (Admin API) and SPEC.md 2 and 2.1, over a real
server process (and, for a node without a token, its app in this process): the routes exist only
with an admin token (404 otherwise); every request carries
`Authorization: Bearer <token>` (anything else: 401 `admin_unauthorized`, before anything is
looked up); the list holds every match, unlisted ones too, newest first, paged with `limit` at most
500 and `next_offset` null on the last page, each row the summary of SPEC 2.1 with `listed`; the
export is the stored record (seed included, no token hashes) then one commit per line in seq order,
as JSON lines or msgpack; deleting an open or finished match is 204 and it is gone, a match being
played is refused with 409 `match_live`."""

from __future__ import annotations

import asyncio
import hashlib
import time

import httpx
import msgpack
import orjson
import pytest

from service.app import create_app
from service.ops.limits import Limits
from service.store.sqlite import SqliteStore
from tests.support.played import Played, play
from tests.support.server import sqlite_server

TOKEN = "admin-" + "k" * 32
AUTH = {"Authorization": f"Bearer {TOKEN}"}
COMMIT_KEYS = {"seq", "seat", "command", "events", "move_id", "ts", "schema"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("admin")
    with sqlite_server(workdir, {"TEAHOUSE_ADMIN_TOKEN": TOKEN}) as proc:
        proc.data = workdir / "data"
        yield proc


@pytest.fixture(scope="module")
def api(server):
    with httpx.Client(base_url=server.url, timeout=10) as client:
        yield client


def create(api: httpx.Client, **body) -> dict:
    r = api.post("/api/matches", json={"game": "pixies", "players": 2, **body})
    assert r.status_code == 201, r.text
    return r.json()


def finished_in_store(data_dir, match_id: str) -> Played:
    """A finished match written through the server's own store, as a node that played it would."""
    played = play("pixies", 2, match_id=match_id, created=int(time.time() * 1000) - 600_000)

    async def go() -> None:
        store = SqliteStore(data_dir)
        await store.create_match(played.record, played.commits)
        await store.mark_finished(match_id, played.record.result)
        await store.close()
    asyncio.run(go())
    return played


def problem(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == code and err["message"]


# -- switched on and guarded -------------------------------------------------------------------------

async def test_without_an_admin_token_the_routes_do_not_exist(tmp_path):
    # The app a node serves without --admin-token, in this process: no route answers /admin.
    store = SqliteStore(tmp_path / "data")
    app = create_app(store=store, limits=Limits(admin_token=""))
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://node.test") as plain:
            for method, path in (("GET", "/admin/matches"), ("GET", "/admin/matches/Xq3vN8kPz2Lm/log"),
                                 ("DELETE", "/admin/matches/Xq3vN8kPz2Lm")):
                assert (await plain.request(method, path, headers=AUTH)).status_code == 404, path
    finally:
        await store.close()


@pytest.mark.parametrize("authorization", [
    None, "", f"Basic {TOKEN}", TOKEN, "Bearer", "Bearer wrong", f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}",
    f"Bearer x{TOKEN}",
])
def test_anything_but_the_bearer_token_is_unauthorized(api, authorization):
    match = create(api)["match"]
    headers = {} if authorization is None else {"Authorization": authorization}
    problem(api.get("/admin/matches", headers=headers), 401, "admin_unauthorized")
    problem(api.get(f"/admin/matches/{match}/log", headers=headers), 401, "admin_unauthorized")
    problem(api.delete(f"/admin/matches/{match}", headers=headers), 401, "admin_unauthorized")
    assert api.get(f"/api/matches/{match}").status_code == 200, "nothing was deleted"


def test_an_unknown_match_is_not_revealed_without_the_token(api):
    problem(api.get("/admin/matches/nosuchmatch1/log"), 401, "admin_unauthorized")
    problem(api.get("/admin/matches/nosuchmatch1/log", headers=AUTH), 404, "unknown_match")
    problem(api.delete("/admin/matches/nosuchmatch1", headers=AUTH), 404, "unknown_match")


def test_the_scheme_is_case_insensitive(api):
    # RFC 7235: the auth-scheme is a case-insensitive token.
    assert api.get("/admin/matches", headers={"Authorization": f"bearer {TOKEN}"}).status_code == 200


# -- the list --------------------------------------------------------------------------------------------

def test_every_match_is_listed_newest_first_with_its_summary(api):
    listed = create(api)
    time.sleep(0.01)
    hidden = create(api, listed=False)
    rows = api.get("/admin/matches", headers=AUTH, params={"limit": 500}).json()["matches"]
    ids = [r["match"] for r in rows]
    assert ids.index(hidden["match"]) < ids.index(listed["match"]), "newest first"
    created = [r["created"] for r in rows]
    assert created == sorted(created, reverse=True)
    public_ids = {r["match"] for r in api.get("/api/matches").json()}
    assert hidden["match"] not in public_ids, "the lobby does not list it; the admin list does"
    for m in (listed, hidden):
        row = next(r for r in rows if r["match"] == m["match"])
        summary = api.get(f"/api/matches/{m['match']}").json()
        assert row == {k: v for k, v in summary.items() if k != "seq"}  # SPEC 2.1: no seq in list rows
    assert next(r for r in rows if r["match"] == hidden["match"])["listed"] is False


def test_the_list_comes_in_pages(api):
    for _ in range(3):
        create(api)
    total = len(api.get("/admin/matches", headers=AUTH, params={"limit": 500}).json()["matches"])
    assert total >= 3
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = api.get("/admin/matches", headers=AUTH, params={"offset": offset, "limit": 2}).json()
        assert (page["offset"], page["limit"]) == (offset, 2)
        assert len(page["matches"]) <= 2
        seen += [r["match"] for r in page["matches"]]
        offset = page["next_offset"]
        assert offset is None or offset == page["offset"] + 2
    assert len(seen) == total == len(set(seen))
    last = api.get("/admin/matches", headers=AUTH, params={"offset": total, "limit": 2}).json()
    assert (last["matches"], last["next_offset"]) == ([], None)


def test_the_defaults_are_offset_0_and_limit_100(api):
    page = api.get("/admin/matches", headers=AUTH).json()
    assert (page["offset"], page["limit"]) == (0, 100)


@pytest.mark.parametrize("params", [{"limit": 501}, {"limit": 0}, {"limit": "ten"}, {"offset": -1},
                                    {"offset": "1.5"}])
def test_a_page_out_of_range_is_a_bad_field(api, params):
    problem(api.get("/admin/matches", headers=AUTH, params=params), 400, "bad_field")


# -- the export --------------------------------------------------------------------------------------------

def test_a_match_exports_as_json_lines_record_first_then_its_commits(api, server):
    played = finished_in_store(server.data, "exportedjson")
    r = api.get("/admin/matches/exportedjson/log", headers=AUTH, params={"format": "jsonl"})
    assert r.status_code == 200
    assert r.headers["content-type"].split(";")[0] == "application/x-ndjson"
    assert r.headers["content-disposition"] == 'attachment; filename="exportedjson.jsonl"'
    assert r.content.endswith(b"\n")
    items = [orjson.loads(line) for line in r.content.splitlines()]
    record = items[0]["record"]
    assert (record["id"], record["game"], record["players"], record["seed"]) == (
        "exportedjson", "pixies", 2, played.record.seed)
    assert record["finished"] is True and record["result"] == played.record.result
    commits = [item["commit"] for item in items[1:]]
    assert [c["seq"] for c in commits] == [c.seq for c in played.commits]
    assert all(set(c) == COMMIT_KEYS for c in commits)
    public = api.get("/api/matches/exportedjson/log").json()["commits"]
    assert commits == [{k: c[k] for k in COMMIT_KEYS} for c in public], "the same commits the public log has"
    assert commits[1]["command"] == played.commits[1].command


def test_the_default_export_is_json_lines(api, server):
    finished_in_store(server.data, "exportdefaul")
    r = api.get("/admin/matches/exportdefaul/log", headers=AUTH)
    assert r.headers["content-type"].split(";")[0] == "application/x-ndjson"


def test_the_msgpack_export_holds_the_same_objects(api, server):
    finished_in_store(server.data, "exportedmpk1")
    as_json = api.get("/admin/matches/exportedmpk1/log", headers=AUTH)
    r = api.get("/admin/matches/exportedmpk1/log", headers=AUTH, params={"format": "msgpack"})
    assert r.headers["content-type"].split(";")[0] == "application/msgpack"
    assert r.headers["content-disposition"] == 'attachment; filename="exportedmpk1.msgpack"'
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(r.content)
    assert list(unpacker) == [orjson.loads(line) for line in as_json.content.splitlines()]


def test_a_live_match_exports_too_without_its_seat_tokens(api):
    m = create(api)["match"]
    tokens = [api.post(f"/api/matches/{m}/seats", json={"name": n}).json()["token"] for n in ("Ada", "Bo")]
    r = api.get(f"/admin/matches/{m}/log", headers=AUTH)
    assert r.status_code == 200
    items = [orjson.loads(line) for line in r.content.splitlines()]
    seats = items[0]["record"]["seats"]
    assert [s["name"] for s in seats] == ["Ada", "Bo"] and all(s["taken"] for s in seats)
    assert all("token_hash" not in s for s in seats)
    for token in tokens:
        assert token.encode() not in r.content
        assert hashlib.sha256(token.encode()).hexdigest().encode() not in r.content
    assert [item["commit"]["command"] for item in items[1:]] == [{"type": "start"}]


def test_an_unknown_format_is_a_bad_field(api):
    m = create(api)["match"]
    problem(api.get(f"/admin/matches/{m}/log", headers=AUTH, params={"format": "xml"}), 400, "bad_field")


# -- deleting ---------------------------------------------------------------------------------------------

def test_an_open_match_is_deleted_and_gone(api):
    m = create(api)
    api.post(f"/api/matches/{m['match']}/seats", json={})  # one seat of two: still open
    r = api.delete(f"/admin/matches/{m['match']}", headers=AUTH)
    assert r.status_code == 204 and r.content == b""
    problem(api.get(f"/api/matches/{m['match']}"), 404, "unknown_match")
    problem(api.get(f"/admin/matches/{m['match']}/log", headers=AUTH), 404, "unknown_match")
    rows = api.get("/admin/matches", headers=AUTH, params={"limit": 500}).json()["matches"]
    assert m["match"] not in {r["match"] for r in rows}


def test_a_finished_match_is_deleted_with_its_log(api, server):
    finished_in_store(server.data, "finisheddel1")
    assert api.delete("/admin/matches/finisheddel1", headers=AUTH).status_code == 204
    problem(api.get("/api/matches/finisheddel1/log"), 404, "unknown_match")
    problem(api.get("/api/matches/finisheddel1/replay"), 404, "unknown_match")


def test_a_match_being_played_is_not_deleted(api):
    m = create(api)["match"]
    for _ in range(2):
        api.post(f"/api/matches/{m}/seats", json={})  # both seats: started
    problem(api.delete(f"/admin/matches/{m}", headers=AUTH), 409, "match_live")
    assert api.get(f"/api/matches/{m}").json()["state"] == "live"
