"""Players' webhooks over real sockets on both stores (SPEC 2.19): a real receiver on loopback
gets `your_turn`, `finished` and `clock_low`, each signed as the SPEC says (the HMAC is computed
here, independently); a receiver that refuses and then fails gets the delivery on a later try,
with the tries in the delivery log; a server killed (kill -9) after a commit and before its
deliveries were written sends them after its restart, under the ids the SPEC defines; and bad
registrations are refused with their codes."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import random
import time

import httpx
import jwt
import pytest
from teahouse_client import TeahouseClient
from teahouse_client.bot import play_seat

from tests.support.server import ServerProcess, sqlite_server
from tests.support.webhook_receiver import Received, Receiver


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _signed(secret: str, r: Received) -> dict:
    """The delivery's payload, after checking its signature by the SPEC's recipe: hex
    HMAC-SHA256 keyed with the secret's UTF-8 bytes over `<Teahouse-Timestamp>.<body>`."""
    stamp = r.headers["teahouse-timestamp"]
    assert abs(int(stamp) - time.time()) < 120
    mac = hmac.new(secret.encode(), f"{stamp}.".encode() + r.body, hashlib.sha256).hexdigest()
    assert r.headers["teahouse-signature"] == f"v1={mac}"
    assert r.method == "POST" and r.path == "/hook" and r.headers["content-type"] == "application/json"
    payload = json.loads(r.body)
    assert r.headers["teahouse-delivery"] == payload["id"] and r.headers["teahouse-event"] == payload["event"]
    return payload


def _spec_id(match: str, seq: int, player: str, event: str, hook: str) -> str:
    return "dlv_" + hashlib.sha256(f"{match}\n{seq}\n{player}\n{event}\n{hook}".encode()).hexdigest()[:32]


async def _player_with_hook(http: httpx.AsyncClient, url: str, events: list[str]) -> tuple[dict, dict]:
    player = (await http.post("/api/players", json={"name": "Alice"})).json()
    r = await http.post("/api/players/me/webhooks", json={"url": url, "events": events},
                        headers=_bearer(player["key"]))
    assert r.status_code == 201, r.text
    return player, r.json()


async def _deliveries(http: httpx.AsyncClient, key: str) -> list[dict]:
    r = await http.get("/api/players/me/webhooks/deliveries", headers=_bearer(key))
    assert r.status_code == 200, r.text
    return r.json()["deliveries"]


async def _log_until(http: httpx.AsyncClient, key: str, predicate, timeout: float = 30) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        rows = await _deliveries(http, key)
        if predicate(rows):
            return rows
        assert time.monotonic() < deadline, rows
        await asyncio.sleep(0.1)


def _server(store_url: str, tmp_path, **env: str) -> ServerProcess:
    node = ServerProcess(store_url, tmp_path / "node.log")
    node.env = {"TEAHOUSE_WEBHOOK_RETRY_S": "0.3", **env}
    return node


async def test_registrations_are_checked_listed_limited_and_deleted(server):
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        key = (await http.post("/api/players", json={"name": "Alice"})).json()["key"]
        r = await http.post("/api/players/me/webhooks", json={"url": "https://example.org/hook"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad_player_key"
        bad = [({"url": "http://example.org/hook"}, 400, "bad_webhook_url"),
               ({"url": "http://10.0.0.1/hook"}, 400, "bad_webhook_url"),
               ({"url": "ftp://127.0.0.1/hook"}, 400, "bad_webhook_url"),
               ({"url": "https://user:pw@example.org/"}, 400, "bad_webhook_url"),
               ({"url": "not a url"}, 400, "bad_webhook_url"),
               ({"url": 7}, 400, "bad_webhook_url"),
               ({"url": "https://example.org/", "events": ["your_move"]}, 400, "unknown_webhook_event"),
               ({"url": "https://example.org/", "events": []}, 400, "bad_field"),
               ({"url": "https://example.org/", "secret": "mine"}, 400, "bad_field")]
        for body, status, code in bad:
            r = await http.post("/api/players/me/webhooks", json=body, headers=_bearer(key))
            assert (r.status_code, r.json()["error"]["code"]) == (status, code), (body, r.text)
            assert r.json()["error"]["message"]
        made = []
        for url in ("http://127.0.0.1:9/a", "http://[::1]:9/b", "http://localhost/c", "https://example.org/d",
                    "https://example.org/e"):
            r = await http.post("/api/players/me/webhooks", json={"url": url}, headers=_bearer(key))
            assert r.status_code == 201, r.text
            made.append(r.json())
        assert made[0]["events"] == ["your_turn", "clock_low", "finished"]  # none given: all
        secret = made[0]["secret"]
        assert secret.startswith("whsec_") and len(secret) == len("whsec_") + 43  # 256 bits, base64url
        assert len({m["secret"] for m in made}) == 5
        r = await http.post("/api/players/me/webhooks", json={"url": "https://example.org/f"}, headers=_bearer(key))
        assert (r.status_code, r.json()["error"]["code"]) == (409, "too_many_webhooks")
        listed = (await http.get("/api/players/me/webhooks", headers=_bearer(key))).json()["webhooks"]
        assert [h["id"] for h in listed] == [m["id"] for m in made]
        assert all(set(h) == {"id", "url", "events", "created"} for h in listed)  # the secret is shown once
        assert (await http.delete(f"/api/players/me/webhooks/{made[0]['id']}", headers=_bearer(key))).status_code == 204
        r = await http.delete(f"/api/players/me/webhooks/{made[0]['id']}", headers=_bearer(key))
        assert (r.status_code, r.json()["error"]["code"]) == (404, "unknown_webhook")
        other = (await http.post("/api/players", json={"name": "Bob"})).json()["key"]
        r = await http.delete(f"/api/players/me/webhooks/{made[1]['id']}", headers=_bearer(other))
        assert r.status_code == 404  # only the owner's own
        assert len((await http.get("/api/players/me/webhooks", headers=_bearer(key))).json()["webhooks"]) == 4
        r = await http.get("/api/players/me/webhooks/deliveries", headers=_bearer(key))
        assert r.json() == {"player": r.json()["player"], "total": 0, "offset": 0, "deliveries": []}


async def test_your_turn_and_finished_arrive_signed(server):
    receiver = await Receiver().start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            alice, hook = await _player_with_hook(http, receiver.url, ["your_turn", "finished"])
        async with TeahouseClient(server.url) as client:
            match = (await client.create_match("pixies", 2, {"first_player": 0}, bots={1: 0}))["match"]
            seat = await client.take_seat(match, 0, player_key=alice["key"])
            got = await receiver.wait_for(lambda g: len(g) >= 1)
            first = _signed(hook["secret"], got[0])
            assert {k: first[k] for k in ("event", "match", "game", "seat", "seq", "player")} == {
                "event": "your_turn", "match": match, "game": "pixies", "seat": 0, "seq": 1, "player": alice["player"]}
            assert first["url"] == f"{server.url}/web/#/match/{match}"
            assert first["id"] == _spec_id(match, 1, alice["player"], "your_turn", hook["id"])
            conn = await client.connect().open()
            view = await conn.join(match, seat["token"])
            await play_seat(conn, view, random.Random(5))
            await view.wait_for(lambda g: g.finished is not None, timeout=60)
            got = await receiver.wait_for(lambda g: any(json.loads(r.body)["event"] == "finished" for r in g))
            log = await client.log(match)
            summary = await client.match(match)
            await conn.close()
        payloads = [_signed(hook["secret"], r) for r in got]
        assert len({p["id"] for p in payloads}) == len(payloads)
        finished = [p for p in payloads if p["event"] == "finished"]
        assert len(finished) == 1 and finished[0]["seq"] == len(log["commits"])
        assert finished[0]["result"] == log["result"]
        mine = next(r for r in summary["ratings"] if r["player"] == alice["player"])
        assert finished[0]["rating"] == mine
        # Whenever Alice's seat was the only one that could move, the next commit is hers: each
        # your_turn names such a seq, and each run of her moves was announced just before it.
        seats = {c["seq"]: c["seat"] for c in log["commits"]}
        turns = sorted(p["seq"] for p in payloads if p["event"] == "your_turn")
        assert all(seats.get(k + 1) == 0 for k in turns), (turns, seats)
        runs = [j - 1 for j in seats if seats[j] == 0 and seats.get(j - 1) != 0]
        assert turns == runs
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            rows = await _log_until(http, alice["key"], lambda rows: all(r["status"] == "delivered" for r in rows))
        assert len(rows) == len(payloads) and all(r["attempts"] == 1 and r["last_status"] == 200 for r in rows)
        assert {r["id"] for r in rows} == {p["id"] for p in payloads}
    finally:
        await receiver.stop()


async def test_clock_low_fires_at_a_tenth_of_the_time_left(server):
    receiver = await Receiver().start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            alice, hook = await _player_with_hook(http, receiver.url, ["clock_low"])
        async with TeahouseClient(server.url) as client:
            made = await client.create_match("pixies", 2, {"first_player": 0}, absent="first",
                                             time_control={"type": "per_move", "seconds": 3})
            match = made["match"]
            await client.take_seat(match, 1, name="guest")
            await client.take_seat(match, 0, player_key=alice["key"])
            spec = await client.connect().open()
            view = await spec.spectate(match)
            await view.wait_for(lambda g: g.seq == 1 and g.deadline is not None, timeout=10)
            deadline = view.deadline  # the start commit's time + 3 s (SPEC 3.10)
            got = await receiver.wait_for(lambda g: len(g) >= 1, timeout=15)
            await spec.close()
        low = _signed(hook["secret"], got[0])
        assert (low["event"], low["seat"], low["seq"]) == ("clock_low", 0, 1)
        assert low["deadline"] == deadline and low["ts"] == deadline - 300
        assert time.time() * 1000 >= low["ts"]
        assert low["id"] == _spec_id(match, 1, alice["player"], "clock_low", hook["id"])
    finally:
        await receiver.stop()


async def test_a_receiver_down_then_failing_gets_the_delivery_on_a_later_try(store_url, tmp_path):
    node = _server(store_url, tmp_path).start()
    receiver = Receiver()  # not listening yet: connections are refused
    try:
        async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
            alice, hook = await _player_with_hook(http, receiver.url, ["your_turn"])
            async with TeahouseClient(node.url) as client:
                match = (await client.create_match("pixies", 2, {"first_player": 0}, bots={1: 0}))["match"]
                await client.take_seat(match, 0, player_key=alice["key"])
            rows = await _log_until(http, alice["key"], lambda rows: rows and rows[0]["attempts"] >= 1)
            assert rows[0]["status"] == "pending" and rows[0]["last_status"] is None and rows[0]["last_error"]
            receiver.status = 500
            await receiver.start()
            await receiver.wait_for(lambda g: len(g) >= 1)
            rows = await _log_until(http, alice["key"], lambda rows: rows[0]["last_status"] == 500)
            assert rows[0]["status"] == "pending"
            receiver.status = 200
            await receiver.wait_for(lambda g: len(g) >= 2)
            rows = await _log_until(http, alice["key"], lambda rows: rows[0]["status"] == "delivered")
        assert len(rows) == 1
        row = rows[0]
        assert row["attempts"] == 3 and row["last_status"] == 200 and row["last_error"] is None
        assert isinstance(row["delivered"], int) and (row["event"], row["match"], row["seq"]) == ("your_turn", match, 1)
        payloads = [_signed(hook["secret"], r) for r in receiver.got]
        assert {p["id"] for p in payloads} == {row["id"]}  # the same delivery, each try signed anew
        assert receiver.got[0].body == receiver.got[1].body
    finally:
        await receiver.stop()
        node.stop()


@pytest.mark.parametrize("point", ["webhooks.derived", "webhooks.claimed"])
async def test_a_server_killed_after_the_commit_sends_after_its_restart(point, store_url, tmp_path):
    # webhooks.derived: the node dies when it is about to write the first deliveries it derived
    # (the start commit is in the log, nothing of it in the outbox); webhooks.claimed: when it
    # has claimed the first one and is about to send it (the delivery is leased to a dead node
    # until twice the timeout and 5 s have passed).
    node = _server(store_url, tmp_path, TEAHOUSE_CRASH_AT=point, TEAHOUSE_WEBHOOK_TIMEOUT_S="1").start()
    receiver = await Receiver().start()
    try:
        async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
            alice, hook = await _player_with_hook(http, receiver.url, ["your_turn"])
            match = (await http.post("/api/matches", json={"game": "pixies", "players": 2,
                                                           "options": {"first_player": 0},
                                                           "bots": [{"seat": 1, "strength": 0}]})).json()["match"]
            try:
                await http.post(f"/api/matches/{match}/seats", json={"seat": 0, "player_key": alice["key"]})
            except httpx.HTTPError:
                pass  # (the process may die before it answers: the start commit is in the log either way)
        assert node.proc is not None and node.proc.wait(20) == -9
        node.proc = None
        assert receiver.got == []
        node.env.pop("TEAHOUSE_CRASH_AT")
        node.start()
        got = await receiver.wait_for(lambda g: len(g) >= 1)
        payload = _signed(hook["secret"], got[0])
        assert (payload["event"], payload["match"], payload["seq"]) == ("your_turn", match, 1)
        assert payload["id"] == _spec_id(match, 1, alice["player"], "your_turn", hook["id"])
        async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
            rows = await _log_until(http, alice["key"], lambda rows: rows and rows[0]["status"] == "delivered")
            assert [r["id"] for r in rows] == [payload["id"]] and rows[0]["attempts"] == 1
            assert (await http.get(f"/api/matches/{match}")).json()["seq"] >= 1
    finally:
        await receiver.stop()
        node.stop()



async def test_two_nodes_deriving_the_same_commits_send_each_delivery_once(redis_url, tmp_path):
    # Both nodes hold the match (the seat plays on one, a spectator watches on the other), so both
    # derive every commit's deliveries and both couriers look at the one outbox.
    nodes = [ServerProcess(redis_url, tmp_path / f"{name}.log").start() for name in "ab"]
    receiver = await Receiver().start()
    try:
        async with httpx.AsyncClient(base_url=nodes[0].url, timeout=30) as http:
            alice, hook = await _player_with_hook(http, receiver.url, ["your_turn", "finished"])
        ca, cb = TeahouseClient(nodes[0].url), TeahouseClient(nodes[1].url)
        match = (await ca.create_match("pixies", 2, {"first_player": 0}, bots={1: 0}))["match"]
        spec = await ca.connect().open()
        await spec.spectate(match)
        seat = await cb.take_seat(match, 0, player_key=alice["key"])
        conn = await cb.connect().open()
        view = await conn.join(match, seat["token"])
        await play_seat(conn, view, random.Random(9))
        await view.wait_for(lambda g: g.finished is not None, timeout=60)
        await receiver.wait_for(lambda g: any(json.loads(r.body)["event"] == "finished" for r in g))
        await conn.close()
        await spec.close()
        await ca.aclose()
        await cb.aclose()
        async with httpx.AsyncClient(base_url=nodes[1].url, timeout=30) as http:
            rows = await _log_until(http, alice["key"], lambda rows: all(r["status"] == "delivered" for r in rows))
        await asyncio.sleep(2)  # (time for a second send, were there one)
        ids = [_signed(hook["secret"], r)["id"] for r in receiver.got]
        assert len(ids) == len(set(ids)) == len(rows) > 2
        assert all(r["attempts"] == 1 for r in rows)
    finally:
        await receiver.stop()
        for node in nodes:
            node.stop()


APP_SECRET = "a shared secret of the chess club, long enough for HS256"


def _app_token(sub: str) -> str:
    return jwt.encode({"iss": "club", "sub": sub, "exp": int(time.time()) + 300}, APP_SECRET, algorithm="HS256")


async def test_an_apps_own_hook_hears_of_every_user_of_the_app(tmp_path):
    # An app's token for itself (`sub` "*") registers a hook that hears of all its users.
    apps = tmp_path / "apps.json"
    apps.write_text(json.dumps({"apps": [{"id": "club", "hmac_secret": APP_SECRET}]}))
    receiver = await Receiver().start()
    try:
        with sqlite_server(tmp_path, {"TEAHOUSE_APPS": str(apps)}) as node:
            async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
                app = _bearer(_app_token("*"))
                r = await http.post("/api/players/me/webhooks", json={"url": receiver.url, "events": ["your_turn"]},
                                    headers=app)
                assert r.status_code == 201, r.text
                hook = r.json()
                r = await http.get("/api/players/me", headers=app)  # the app itself is no player
                assert (r.status_code, r.json()["error"]["code"]) == (401, "bad_player_token")
                match = (await http.post("/api/matches", json={"game": "pixies", "players": 2,
                                                               "options": {"first_player": 0}})).json()["match"]
                for seat, user in ((1, "u-2"), (0, "u-1")):
                    r = await http.post(f"/api/matches/{match}/seats", json={"seat": seat, "player_key": _app_token(user)})
                    assert r.status_code == 201, r.text
                got = await receiver.wait_for(lambda g: len(g) >= 1)
                payload = _signed(hook["secret"], got[0])
                assert (payload["event"], payload["player"], payload["seat"], payload["seq"]) == ("your_turn", "club:u-1", 0, 1)
                assert payload["id"] == _spec_id(match, 1, "club:u-1", "your_turn", hook["id"])
                rows = await _log_until(http, _app_token("*"), lambda rows: rows and rows[0]["status"] == "delivered")
                assert [r["id"] for r in rows] == [payload["id"]]
                assert (await _deliveries(http, _app_token("u-1"))) == []  # the user's own log: its own hooks'
    finally:
        await receiver.stop()
