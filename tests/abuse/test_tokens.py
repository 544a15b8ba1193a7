"""Seat tokens stay out of URLs and logs; text/plain bodies are not JSON.

A token in a query string lands in access logs, proxy logs and browser history; a body the
browser may send cross-site without a preflight (text/plain, forms) must not act as JSON."""

from __future__ import annotations

import httpx
import pytest
from teahouse_client import TeahouseClient

from tests.e2e.helpers import close_all, seat_players
from tests.support.server import ServerProcess


@pytest.fixture(scope="module")
def talkative_server(tmp_path_factory):
    """A server logging at `info` (uvicorn's access log on), the level an operator debugs at."""
    work = tmp_path_factory.mktemp("tok")
    proc = ServerProcess(f"sqlite:{work / 'data'}", work / "server.log")
    proc.log_level = "info"
    proc.start()
    yield proc
    proc.stop()


async def test_a_live_seat_replay_takes_its_token_from_a_header(talkative_server):
    url = talkative_server.url
    client = TeahouseClient(url)
    mid = (await client.create_match("pixies", 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    token = seats[1]["token"]
    async with httpx.AsyncClient(base_url=url) as http:
        r = await http.get(f"/api/matches/{mid}/replay", params={"seat": 1},
                           headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200 and r.json()["seat"] == 1
        r = await http.get(f"/api/matches/{mid}/replay", params={"seat": 1},
                           headers={"Authorization": f"Bearer {seats[0]['token']}"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"
        # the query string is refused outright, even with the right token
        r = await http.get(f"/api/matches/{mid}/replay", params={"seat": 1, "token": token})
        assert r.status_code == 400 and r.json()["error"]["code"] == "token_in_url"
    # the SDK sends the header
    assert (await client.replay(mid, seat=1, token=token))["seat"] == 1
    await close_all(*conns)
    await client.aclose()
    logged = talkative_server.log_text()
    assert f"/api/matches/{mid}/replay" in logged, "the access log is on: the test must see its lines"
    for s in seats:
        assert s["token"] not in logged


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None])
def test_only_json_bodies_are_read_as_json(talkative_server, ctype):
    body = b'{"game": "pixies", "players": 2}'
    headers = {"Content-Type": ctype} if ctype else {}
    r = httpx.post(talkative_server.url + "/api/matches", content=body, headers=headers)
    assert r.status_code == 415, r.text
    assert r.json()["error"]["code"] == "unsupported_media_type"
    ok = httpx.post(talkative_server.url + "/api/matches", content=body,
                    headers={"Content-Type": "application/json; charset=utf-8"})
    assert ok.status_code == 201


async def test_a_spectator_key_in_the_url_is_blanked_in_the_logs(talkative_server):
    url = talkative_server.url
    async with httpx.AsyncClient(base_url=url) as http:
        made = (await http.post("/api/matches", json={"game": "pixies", "players": 2, "spectators": "link"})).json()
        key, mid = made["spectator_key"], made["match"]
        client = TeahouseClient(url)
        seats, conns, views = await seat_players(client, mid, 2, record=False)
        r = await http.get(f"/api/matches/{mid}/replay", params={"key": key})
        assert r.status_code == 200
        # (also spelled with an escape, which Starlette reads as `key`)
        r = await http.get(f"/api/matches/{mid}?k%65y={key}")
        assert r.status_code == 200
        await close_all(*conns)
        await client.aclose()
    logged = talkative_server.log_text()
    assert f"/api/matches/{mid}/replay" in logged, "the access log is on: the test must see its lines"
    assert key not in logged
