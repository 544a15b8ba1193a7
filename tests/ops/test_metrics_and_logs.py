"""/metrics in Prometheus text format, counted where things happen; one JSON object
per log line, with the node and the match; an access line per request; no traceback when a
client simply goes away.

A real server (its own process, real sockets) is scraped before and after a known sequence of
moves, rejects and errors, and the counters must have moved by exactly those amounts.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import websockets
from prometheus_client.parser import text_string_to_metric_families
from teahouse_client import TeahouseClient
from teahouse_client.client import Rejected, ServerError

from tests.e2e.helpers import close_all, seat_players
from tests.support.server import ServerProcess

MOVES = 5


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    work = tmp_path_factory.mktemp("metrics")
    proc = ServerProcess(f"sqlite:{work / 'data'}", work / "server.log")
    proc.env = {"TEAHOUSE_LOG_FORMAT": "json"}
    proc.start()
    yield proc
    proc.stop()


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    r = httpx.get(url + "/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain"), r.headers
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(r.text) for s in family.samples}


def moved(before: dict, after: dict, name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


async def _actor(views):
    for i, v in enumerate(views):
        if v.my_turn:
            return i
    raise AssertionError("nobody to act")


async def test_counters_move_by_exactly_what_happened(node):
    before = scrape(node.url)
    client = TeahouseClient(node.url)
    match = (await client.create_match("pixies", 2, {"first_player": 0}))["match"]
    _, conns, views = await seat_players(client, match, 2, record=False)
    await views[0].wait_for(lambda mv: mv.seq >= 1)
    during = scrape(node.url)
    assert during[("teahouse_connections", ())] - before.get(("teahouse_connections", ()), 0) == 2
    assert during[("teahouse_loaded_matches", ())] >= 1
    assert during[("teahouse_audiences", ())] >= 2 and during[("teahouse_watchers", ())] >= 2
    assert during[("teahouse_store_up", ())] == 1

    for _ in range(MOVES):
        i = await _actor(views)
        commands = await conns[i].legal_moves(match)
        seq = await conns[i].move(match, commands[0])
        await views[1 - i].wait_for(lambda mv, s=seq: mv.seq >= s)
    codes = []
    for _ in range(2):  # the seat not to act moves: the rules refuse it
        waiting = 1 - await _actor(views)
        with pytest.raises(Rejected) as refused:
            await conns[waiting].move(match, {"type": "pass"})
        codes.append(refused.value.code)
    with pytest.raises(ServerError) as error:  # a match this connection does not watch
        await conns[0].move("nosuchmatch0", {"type": "pass"})
    assert error.value.code == "not_joined"
    await close_all(*conns)
    await client.aclose()

    after = scrape(node.url)
    assert moved(before, after, "teahouse_commits_total", game="pixies") == MOVES + 1  # and the start
    assert moved(before, after, "teahouse_append_seconds_count") == MOVES + 1
    # the start is appended with the claim of the last seat and followed from the log: no move
    # arrived for it, so only the moves have a fan-out time
    assert moved(before, after, "teahouse_fanout_seconds_count") == MOVES
    assert moved(before, after, "teahouse_append_seconds_sum") > 0
    for code in set(codes):
        assert moved(before, after, "teahouse_rejects_total", code=code) == codes.count(code)
    assert moved(before, after, "teahouse_errors_total", code="not_joined") == 1
    assert moved(before, after, "teahouse_store_errors_total") == 0
    for _ in range(50):  # the sockets' ends reach the server a moment later
        if scrape(node.url)[("teahouse_connections", ())] == before.get(("teahouse_connections", ()), 0):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("teahouse_connections did not come back down")


async def test_clock_expiries_and_bot_moves_are_counted(node):
    client = TeahouseClient(node.url)
    before = scrape(node.url)
    clocked = (await client.create_match("pixies", 2, {"first_player": 0}, turn_seconds=1, absent="first"))["match"]
    _, conns, views = await seat_players(client, clocked, 2, record=False)
    await views[0].wait_for(lambda mv: mv.seq >= 2, timeout=10)  # the start, then the clock's move
    assert moved(before, scrape(node.url), "teahouse_clock_expiries_total") == 1
    await close_all(*conns)

    before = scrape(node.url)
    botted = (await client.create_match("pixies", 2, {"first_player": 0}, bots={1: 0}))["match"]
    token = (await client.take_seat(botted, seat=0))["token"]
    conn = await client.connect().open()
    view = await conn.join(botted, token)
    await view.wait_for(lambda mv: mv.my_turn, timeout=10)
    seq = await conn.move(botted, (await conn.legal_moves(botted))[0])
    await view.wait_for(lambda mv: mv.seq > seq and mv.my_turn, timeout=20)  # the bot answered
    after = scrape(node.url)
    # the clocked match above goes on playing for its absent seats, so the commits counter is
    # shared; the botted match's own commits are its seq (the start, ours, then the bot's)
    final = view.seq
    assert moved(before, after, "teahouse_commits_total", game="pixies") >= final
    assert moved(before, after, "teahouse_bot_moves_total") == final - 2 > 0
    await conn.close()
    await client.aclose()


async def test_a_client_that_vanishes_leaves_no_traceback(node):
    client = TeahouseClient(node.url)
    match = (await client.create_match("pixies", 2, {"first_player": 0}))["match"]
    _, conns, views = await seat_players(client, match, 2, record=False)
    logged_before = len(node.log_text())
    for _ in range(3):  # sockets dropped without a close, mid-session, while patches flow
        ws = await websockets.connect(node.url.replace("http", "ws") + "/ws", subprotocols=["teahouse.v1.json"])
        await ws.send(json.dumps({"type": "hello", "client": "vanishing"}))
        await ws.recv()
        await ws.send(json.dumps({"type": "spectate", "match": match}))
        ws.transport.abort()
    i = await _actor(views)
    await conns[i].move(match, (await conns[i].legal_moves(match))[0])
    await asyncio.sleep(0.3)
    await close_all(*conns)
    await client.aclose()
    since = [json.loads(line) for line in node.log_text()[logged_before:].splitlines() if line.strip()]
    assert not [r for r in since if "exc" in r or "Traceback" in r["msg"]], "a vanished client logged a traceback"


def test_every_log_line_is_one_json_object_with_the_node(node):
    """Runs after the tests above (same server): everything they made it log."""
    lines = [line for line in node.log_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # each line alone is JSON
    assert all({"ts", "level", "logger", "msg"} <= r.keys() for r in records)
    access = [r for r in records if r["logger"] == "teahouse.access"]
    assert any(r["method"] == "POST" and r["path"] == "/api/matches" and r["status"] == 201 for r in access)
    seats = [r for r in access if r["path"].endswith("/seats")]
    assert seats and all(r.get("match") and r["path"] == f"/api/matches/{r['match']}/seats" for r in seats)
    assert all(r.get("node") for r in access)
    assert any(r["method"] == "WS" and r["status"] == 101 for r in access)
    assert not [r for r in records if "exc" in r or "Traceback" in r["msg"]], "a traceback was logged"


async def test_the_event_loop_s_lateness_is_measured_while_the_node_runs(node):
    before = scrape(node.url)
    await asyncio.sleep(0.5)  # the lag timer fires every 50 ms
    after = scrape(node.url)
    assert moved(before, after, "teahouse_loop_lag_seconds_count") >= 5
    # each generation of the collector has its series, also before it ever ran
    assert all(("teahouse_gc_pause_seconds_count", (("generation", str(g)),)) in after for g in range(3))
