"""Browser security. CORS on the HTTP API for an allow-list of origins, preflights
answered, and the WebSocket handshake's Origin checked against the same list (close 4403).
Real server, real sockets; the page origins are what a browser would send."""

from __future__ import annotations

import asyncio

import httpx
import msgpack
import pytest
import websockets

from tests.support.server import sqlite_server

LISTED = "https://play.example.org"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with sqlite_server(tmp_path_factory.mktemp("origins"), {"TEAHOUSE_CORS_ORIGINS": LISTED}) as proc:
        yield proc


def test_another_sites_page_is_refused_and_allowed_pages_get_cors_headers(server):
    url = server.url + "/api/games"
    evil = httpx.get(url, headers={"Origin": "https://evil.example"})
    assert evil.status_code == 403 and evil.json()["error"]["code"] == "origin_not_allowed"
    assert "access-control-allow-origin" not in evil.headers
    created = httpx.post(server.url + "/api/matches", json={"game": "pixies", "players": 2},
                         headers={"Origin": "https://evil.example"})
    assert created.status_code == 403
    assert httpx.get(server.url + "/api/matches").json() == [], "a refused request changes nothing"
    for origin in (LISTED, "http://localhost:5173", "http://127.0.0.1:9", "https://[::1]:8443"):
        r = httpx.get(url, headers={"Origin": origin})
        assert r.status_code == 200, origin
        assert r.headers["access-control-allow-origin"] == origin and "Origin" in r.headers["vary"]
    assert httpx.get(url).status_code == 200  # no Origin: not a browser's cross-site request
    assert "access-control-allow-origin" not in httpx.get(url).headers
    # "null" (a sandboxed frame or a file) and look-alikes are other origins
    for origin in ("null", "https://play.example.org.evil.example", "http://play.example.org"):
        assert httpx.get(url, headers={"Origin": origin}).status_code == 403, origin


def test_same_origin_is_allowed_whatever_the_host(server):
    url = server.url + "/api/games"
    same = httpx.get(url, headers={"Host": "teahouse.example:8080", "Origin": "https://teahouse.example:8080"})
    assert same.status_code == 200 and same.headers["access-control-allow-origin"] == "https://teahouse.example:8080"
    assert httpx.get(url, headers={"Host": "teahouse.example", "Origin": "https://teahouse.example"}).status_code == 200
    other = httpx.get(url, headers={"Host": "teahouse.example:8080", "Origin": "https://other.example:8080"})
    assert other.status_code == 403


def test_preflight_is_answered_for_allowed_origins_only(server):
    ask = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type, authorization"}
    ok = httpx.options(server.url + "/api/matches", headers={"Origin": LISTED, **ask})
    assert ok.status_code == 204 and ok.headers["access-control-allow-origin"] == LISTED
    assert "POST" in ok.headers["access-control-allow-methods"]
    allowed = {h.strip().lower() for h in ok.headers["access-control-allow-headers"].split(",")}
    assert {"content-type", "authorization"} <= allowed
    refused = httpx.options(server.url + "/api/matches", headers={"Origin": "https://evil.example", **ask})
    assert refused.status_code == 403 and "access-control-allow-origin" not in refused.headers
    # and the real request after the preflight works from the listed page
    r = httpx.post(server.url + "/api/matches", json={"game": "pixies", "players": 2}, headers={"Origin": LISTED})
    assert r.status_code == 201 and r.headers["access-control-allow-origin"] == LISTED


async def _hello(server, origin: str | None):
    ws = await websockets.connect(server.url.replace("http", "ws") + "/ws", subprotocols=["teahouse.v1.msgpack"],
                                  origin=origin, ping_interval=None)
    await ws.send(msgpack.packb({"type": "hello"}))
    return ws


async def test_a_websocket_from_another_sites_page_is_closed_4403(server):
    with pytest.raises(websockets.ConnectionClosed) as closed:
        ws = await _hello(server, "https://evil.example")  # the close may come before hello is sent
        await asyncio.wait_for(ws.recv(), 10)
    assert closed.value.rcvd.code == 4403 and "evil.example" in closed.value.rcvd.reason
    for origin in (LISTED, "http://localhost:8000", None):
        ok = await _hello(server, origin)
        assert msgpack.unpackb(await asyncio.wait_for(ok.recv(), 10))["type"] == "welcome", origin
        await ok.close()
