"""A refused request never counts against a limit meant for accepted ones (SPEC 2, 1.3, 8):
the per-address creation limit counts the matches made, a match's seats are taken only by
claims that succeed, the per-address connection budget is used only by connections that are
open, and a connection's matches and a match's spectators only by the joins and spectates that
got a view. Over a real server; the seats on both stores."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import orjson
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from service.ops.limits import Limits
from tests.support.server import ServerProcess

PER_MINUTE = Limits.matches_per_address_per_minute  # SPEC 2: 30
CONNECTIONS = 3  # a small per-address budget for this server


@pytest.fixture(scope="module")
def limited(tmp_path_factory) -> Iterator[ServerProcess]:
    """A server with the creation limit at its default and a small connection budget."""
    tmp = tmp_path_factory.mktemp("limited")
    proc = ServerProcess(f"sqlite:{tmp / 'data'}", tmp / "server.log")
    proc.env = {"TEAHOUSE_MATCHES_PER_ADDRESS_PER_MINUTE": str(PER_MINUTE),
                "TEAHOUSE_CONNECTIONS_PER_ADDRESS": str(CONNECTIONS)}
    proc.start()
    yield proc
    proc.stop()


def test_refused_creations_do_not_count_against_the_creation_limit(limited):
    with httpx.Client(base_url=limited.url, timeout=10) as http:
        refused = [
            {"game": "chess", "players": 2},  # 400 unknown_game
            {"game": "pixies", "players": 9},  # 400 bad_player_count
            {"game": "pixies", "players": 2, "turn_secnds": 60},  # 400 unknown_field
            {"game": "pixies", "players": 2, "options": {"no_such_option": 1}},  # 400 bad_options
        ]
        for i in range(PER_MINUTE):
            r = http.post("/api/matches", json=refused[i % len(refused)])
            assert r.status_code == 400, r.text
        r = http.post("/api/matches", json=refused[2])
        assert r.json()["error"]["code"] == "unknown_field" and "'turn_secnds'" in r.json()["error"]["message"]
        # a fork creates a match too and shares the limit (SPEC 2): refused forks cost nothing either
        for _ in range(PER_MINUTE):
            r = http.post("/api/matches/NoSuchMatch0/fork", json={"seq": 0})
            assert (r.status_code, r.json()["error"]["code"]) == (404, "unknown_match")
        r = http.post("/api/matches", content=b"{not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 400
        r = http.post("/api/matches", content=b'{"game": "pixies", "players": 18446744073709551616}',
                      headers={"Content-Type": "application/json"})
        assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_field")
        assert "beyond 64 bits" in r.json()["error"]["message"], "not a message about floats"
        made = [http.post("/api/matches", json={"game": "pixies", "players": 2}) for _ in range(PER_MINUTE)]
        assert [r.status_code for r in made] == [201] * PER_MINUTE, "refused requests used up the limit"
        over = http.post("/api/matches", json={"game": "pixies", "players": 2})
        assert over.status_code == 429 and over.json()["error"]["code"] == "rate_limited"
        assert f"created {PER_MINUTE} matches" in over.json()["error"]["message"]


async def _closed_with(url: str, subprotocols: list[str], headers: dict[str, str] | None = None) -> int:
    async with websockets.connect(url, subprotocols=subprotocols, additional_headers=headers) as ws:  # type: ignore[arg-type]
        try:
            await asyncio.wait_for(ws.recv(), 10)
        except ConnectionClosed as exc:
            assert exc.rcvd is not None
            return exc.rcvd.code
    raise AssertionError("the server did not close")


async def test_refused_and_closed_connections_do_not_use_up_the_connection_budget(limited):
    url = limited.url.replace("http", "ws") + "/ws"
    for _ in range(3 * CONNECTIONS):
        assert await _closed_with(url, ["teahouse.v9.cbor"]) == 4406
        assert await _closed_with(url, ["teahouse.v1.json"], {"Origin": "https://elsewhere.example"}) == 4403
        async with websockets.connect(url, subprotocols=["teahouse.v1.json"]) as ws:
            await ws.send('{"type":"ping","nonce":1}')
            assert "pong" in await asyncio.wait_for(ws.recv(), 10)
    held = [await websockets.connect(url, subprotocols=["teahouse.v1.json"]) for _ in range(CONNECTIONS)]
    try:
        for ws in held:
            await ws.send('{"type":"ping","nonce":2}')
            assert "pong" in await asyncio.wait_for(ws.recv(), 10), "a budget slot was used up by a refusal"
        for _ in range(3):  # refused at the limit: these do not count either
            assert await _closed_with(url, ["teahouse.v1.json"]) == 4429
        await held.pop().close()
        await asyncio.sleep(0.2)  # the server sees the close
        held.append(await websockets.connect(url, subprotocols=["teahouse.v1.json"]))
        await held[-1].send('{"type":"ping","nonce":3}')
        assert "pong" in await asyncio.wait_for(held[-1].recv(), 10)
    finally:
        for ws in held:
            await ws.close()


def test_refused_seat_claims_take_no_seat(server):
    """On both stores: claims refused for a bad seat, a bad name or a taken seat leave every
    free seat free, and the valid claims afterwards get them."""
    with httpx.Client(base_url=server.url, timeout=10) as http:
        match = http.post("/api/matches", json={"game": "pixies", "players": 3}).json()["match"]
        assert http.post(f"/api/matches/{match}/seats", json={"seat": 0}).status_code == 201
        refusals = [({"seat": 0}, 409, "seat_taken"), ({"seat": 7}, 400, "bad_field"),
                    ({"seat": "1"}, 400, "bad_field"), ({"name": "x" * 41}, 400, "bad_field"),
                    ({"seat": 1, "name": 5}, 400, "bad_field")]
        for _ in range(4):
            for body, status, code in refusals:
                r = http.post(f"/api/matches/{match}/seats", json=body)
                assert (r.status_code, r.json()["error"]["code"]) == (status, code), body
        seats = http.get(f"/api/matches/{match}").json()["seats"]
        assert [s["taken"] for s in seats] == [True, False, False]
        got = [http.post(f"/api/matches/{match}/seats", json={}).json()["seat"] for _ in range(2)]
        assert sorted(got) == [1, 2]
        full = http.post(f"/api/matches/{match}/seats", json={})
        assert (full.status_code, full.json()["error"]["code"]) == (409, "match_full")


@pytest.fixture(scope="module")
def watching(tmp_path_factory) -> Iterator[ServerProcess]:
    """A server where a connection watches at most 2 matches and a match has at most 1 spectator."""
    tmp = tmp_path_factory.mktemp("watching")
    proc = ServerProcess(f"sqlite:{tmp / 'data'}", tmp / "server.log")
    proc.env = {"TEAHOUSE_MATCHES_PER_CONNECTION": "2", "TEAHOUSE_SPECTATORS_PER_MATCH": "1"}
    proc.start()
    yield proc
    proc.stop()


async def test_refused_joins_and_spectates_watch_nothing(watching):
    """SPEC 9 and 7.1: a connection watches at most N matches (too_many_matches) and a match has
    at most M spectators (too_many_spectators); only the join or spectate answered by a view
    counts, so any number of refused ones leave the budget whole."""
    with httpx.Client(base_url=watching.url, timeout=10) as http:
        matches = [http.post("/api/matches", json={"game": "pixies", "players": 2}).json()["match"] for _ in range(3)]
    url = watching.url.replace("http", "ws") + "/ws"

    async def ask(ws, msg: dict) -> str:
        await ws.send(orjson.dumps(msg).decode())
        while True:
            got = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
            if got["type"] in ("view", "error", "left"):
                return got["type"] if got["type"] != "error" else got["code"]

    async with websockets.connect(url, subprotocols=["teahouse.v1.json"]) as a, \
            websockets.connect(url, subprotocols=["teahouse.v1.json"]) as b:
        for ws in (a, b):
            await ws.send('{"type":"hello"}')
            assert orjson.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "welcome"
        for _ in range(5):
            assert await ask(a, {"type": "spectate", "match": "NoSuchMatch0"}) == "unknown_match"
            assert await ask(a, {"type": "join", "match": matches[0], "token": "not-a-seat"}) == "bad_token"
        assert await ask(a, {"type": "spectate", "match": matches[0]}) == "view"
        assert await ask(a, {"type": "spectate", "match": matches[1]}) == "view"
        for _ in range(5):
            assert await ask(a, {"type": "spectate", "match": matches[2]}) == "too_many_matches"
            assert await ask(b, {"type": "spectate", "match": matches[1]}) == "too_many_spectators"
        assert await ask(a, {"type": "leave", "match": matches[1]}) == "left"
        assert await ask(a, {"type": "spectate", "match": matches[2]}) == "view", "refusals used up the connection's budget"
        assert await ask(b, {"type": "spectate", "match": matches[1]}) == "view", "refusals used up the match's spectators"
