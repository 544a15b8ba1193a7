"""Taking the last seat, which starts the match, under faults at every step (SPEC 2.7): the
server process killed (kill -9) between its steps, on both stores, and the Redis connection cut
at each command the request sends, before Redis sees it and after Redis did it. Whatever
happens, the store holds either no claim or the claim with the match started (seq 1, `start`);
and the same request sent again, with the same client-chosen token, is answered 201 with that
seat and token, and the match is played from there.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections import Counter

import httpx
import pytest
from teahouse_client import TeahouseClient

from service.store import open_store
from tests.support.redis_proxy import RedisProxy
from tests.support.server import ServerProcess


def _token() -> str:
    return secrets.token_urlsafe(32)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _either_nothing_or_started(store_url: str, mid: str, token: str) -> bool:
    """Read the store directly: the last seat is free and the log empty, or the seat is the
    token's and the log is the start. Returns whether it was claimed."""
    store = open_store(store_url)
    try:
        rec = await store.get_match(mid)
        log = await store.read(mid)
    finally:
        await store.close()
    seat = rec.seats[1]
    if not seat.taken:
        assert log == [], f"the seat is free, yet the log has {len(log)} commits"
        return False
    assert seat.token_hash == hashlib.sha256(token.encode()).hexdigest(), "a seat held by a token nobody has"
    assert [(c.seq, c.command, c.move_id) for c in log] == [(1, {"type": "start"}, "sys:start")], \
        "the last seat is claimed, yet the match has not started"
    return True


async def _retry_succeeds(url: str, mid: str, token: str) -> None:
    """The same request again: the seat, the same token, a live match at seq 1, and a join."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        r = await http.post(f"/api/matches/{mid}/seats", json={"seat": 1}, headers=_bearer(token))
        assert r.status_code == 201, r.text
        assert r.json() == {"match": mid, "seat": 1, "token": token}
        summary = (await http.get(f"/api/matches/{mid}")).json()
        assert (summary["state"], summary["seq"]) == ("live", 1), summary
    client = TeahouseClient(url)
    conn = await client.connect().open()
    view = await conn.join(mid, token)
    assert view.seat == 1 and view.seq == 1


async def _open_match(url: str) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        mid = (await http.post("/api/matches", json={"game": "pixies", "players": 2})).json()["match"]
        assert (await http.post(f"/api/matches/{mid}/seats", json={"seat": 0})).status_code == 201
    return mid


# -- kill -9 between the steps -------------------------------------------------------------------

@pytest.mark.parametrize("point", ["seat.read", "seat.claimed", "seat.started"])
async def test_a_node_killed_at_any_step_of_the_last_seat_leaves_a_request_that_can_be_sent_again(
        point, store_url, tmp_path):
    node = ServerProcess(store_url, tmp_path / "node.log")
    node.env = {"TEAHOUSE_CRASH_AT": f"{point}#2"}  # the second claim's: the one that fills the match
    node.start()
    try:
        mid = await _open_match(node.url)
        token = _token()
        async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
            with pytest.raises(httpx.TransportError):
                await http.post(f"/api/matches/{mid}/seats", json={"seat": 1}, headers=_bearer(token))
        assert node.proc is not None and node.proc.wait(10) == -9, "the node died at the point named"
        node.proc = None
        claimed = await _either_nothing_or_started(store_url, mid, token)
        assert claimed == (point != "seat.read")
        node.env = {}
        node.start()
        await _retry_succeeds(node.url, mid, token)
    finally:
        node.stop()


# -- Redis cut at each command ---------------------------------------------------------------------

@pytest.fixture
def proxied(redis_server, redis_url, tmp_path):
    """A node whose store is the test Redis behind a proxy that cuts connections on demand."""
    proxy = RedisProxy(redis_server.port).start()
    node = ServerProcess(proxy.url, tmp_path / "node.log").start()
    try:
        yield node, proxy
    finally:
        node.stop()
        proxy.stop()


Step = tuple[bytes, bytes, int]  # a command, the key it names, and which of those commands it is


def _steps(commands: list[list[bytes]], batches: list[int], mid: str) -> list[tuple[Step, Step]]:
    """What the request does, step by step: each write of commands about the match (one
    command, or a pipeline), as its first and its last command (the tails' blocking reads run
    beside the request, not in it)."""
    key = f"{{{mid}}}".encode()
    seen: Counter[tuple[bytes, bytes]] = Counter()
    writes: dict[int, list[Step]] = {}
    for args, batch in zip(commands, batches, strict=True):
        named = [a for a in args[1:6] if key in a]
        if not named or args[0].upper() == b"XREAD":
            continue
        sig = (args[0].upper(), named[0].replace(key, b"{M}"))
        seen[sig] += 1
        writes.setdefault(batch, []).append((*sig, seen[sig]))
    return [(w[0], w[-1]) for w in writes.values()]


def _at(mid: str, command: bytes, key: bytes, nth: int):
    """A predicate true on the nth command `command` whose first key of the match is `key`."""
    tag = f"{{{mid}}}".encode()
    want = key.replace(b"{M}", tag)
    count = 0

    def match(args: list[bytes]) -> bool:
        nonlocal count
        named = [a for a in args[1:6] if tag in a]
        if args[0].upper() == command and named and named[0] == want:
            count += 1
            return count == nth
        return False

    return match


async def test_redis_cut_at_every_step_of_the_last_seat_leaves_a_request_that_can_be_sent_again(proxied, redis_url):
    node, proxy = proxied
    # A clean run names the steps: every command about the match the request sends (after a
    # first run, which loads the node's scripts into Redis).
    for _ in range(2):
        mid = await _open_match(node.url)
        await asyncio.sleep(0.3)
        before = len(proxy.commands)
        async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
            r = await http.post(f"/api/matches/{mid}/seats", json={"seat": 1}, headers=_bearer(_token()))
            assert r.status_code == 201
    steps = _steps(proxy.commands[before:], proxy.batches[before:], mid)
    commands = {step[0][0] for step in steps}
    assert {b"EVAL", b"GET", b"XRANGE"} <= commands, steps  # the claim, the record, the log
    outcomes = []
    for first, last in steps:
        for mode, (command, key, nth) in (("request", first), ("reply", last)):
            mid = await _open_match(node.url)
            token = _token()
            fired = proxy.blip_at(_at(mid, command, key, nth), mode, down_s=0.5)
            async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
                r = await http.post(f"/api/matches/{mid}/seats", json={"seat": 1}, headers=_bearer(token))
            where = f"{mode} {command.decode()} {key.decode()} #{nth}"
            assert fired.is_set(), f"the step {where} did not come"
            proxy.disarm()
            assert r.status_code in (201, 503), f"{where}: {r.status_code} {r.text}"
            if r.status_code == 503:
                assert r.json()["error"]["code"] == "store_unavailable"
            claimed = await _either_nothing_or_started(redis_url, mid, token)
            outcomes.append((where, r.status_code, claimed))
            while not proxy.up():
                await asyncio.sleep(0.05)
            await _retry_succeeds(node.url, mid, token)
    # Both kinds of fault were met: a request refused before the claim, and one whose claim
    # (with the start) landed although its answer was lost.
    assert any(code == 503 and not claimed for _, code, claimed in outcomes), outcomes
    assert any(code == 503 and claimed for _, code, claimed in outcomes), outcomes


async def test_a_full_match_left_without_its_start_is_started_by_the_next_request(store_url, server):
    """A match an older server left full at seq 0 (a claim written, its start not): a join or a
    claim of any node commits the start, once."""
    mid = await _open_match(server.url)
    token = _token()
    store = open_store(store_url)
    try:
        assert await store.claim_seat(mid, 1, hashlib.sha256(token.encode()).hexdigest(), None)  # no start
        assert await store.last_seq(mid) == 0
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            r = await http.post(f"/api/matches/{mid}/seats", json={})
            assert r.status_code == 409 and r.json()["error"]["code"] == "match_full"
        assert [c.command for c in await store.read(mid)] == [{"type": "start"}]
    finally:
        await store.close()
    await _retry_succeeds(server.url, mid, token)


async def test_the_python_sdk_takes_the_seat_through_a_blip_that_lost_its_answer(proxied):
    """teahouse_client's take_seat chooses its token and sends the request again while the
    store is away: the claim that landed unanswered is the seat it gets."""
    node, proxy = proxied
    mid = await _open_match(node.url)
    fired = proxy.blip_at(_at(mid, b"EVAL", b"th:{M}:seats", 1), "reply", down_s=1.5)
    client = TeahouseClient(node.url)
    grant = await client.take_seat(mid, seat=1, name="Bo")
    assert fired.is_set()
    assert grant["seat"] == 1
    summary = await client.match(mid)
    assert (summary["state"], summary["seq"], summary["seats"][1]["name"]) == ("live", 1, "Bo")
    conn = await client.connect().open()
    assert (await conn.join(mid, grant["token"])).seat == 1


async def test_a_token_of_the_clients_choice_is_checked_and_holds_one_seat(sqlite_server):
    """SPEC 2.7: a chosen token is 43 to 128 base64url characters (else 400 `bad_field`); the
    same request again is answered the same seat; asking another seat with it is 409
    `token_in_use`."""
    url = sqlite_server.url
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        mid = (await http.post("/api/matches", json={"game": "pixies", "players": 3})).json()["match"]
        for bad in ("short", "x" * 129, "a" * 42 + "!"):
            r = await http.post(f"/api/matches/{mid}/seats", json={}, headers=_bearer(bad))
            assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_field"), bad
        token = _token()
        first = await http.post(f"/api/matches/{mid}/seats", json={"name": "Ada"}, headers=_bearer(token))
        again = await http.post(f"/api/matches/{mid}/seats", json={"name": "Ada"}, headers=_bearer(token))
        assert first.status_code == again.status_code == 201
        assert first.json() == again.json() == {"match": mid, "seat": 0, "token": token}
        r = await http.post(f"/api/matches/{mid}/seats", json={"seat": 2}, headers=_bearer(token))
        assert (r.status_code, r.json()["error"]["code"]) == (409, "token_in_use")
        seats = (await http.get(f"/api/matches/{mid}")).json()["seats"]
        assert [s["taken"] for s in seats] == [True, False, False], "no seat was taken twice"
