"""Bots at the table (SPEC 2.4 `bots`, 3.10 `absent`), over real sockets on both stores: a match
whose seats are all server bots plays to the end by itself, every bot commit marked in the log
as played for its seat; a seat that never moves in a clocked match gets bot moves and the
match finishes. Budgets are tiny (strengths 0-2) so this stays fast."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest
from teahouse_client import TeahouseClient

from service.games import GAMES, get_game
from tests.e2e.helpers import close_all, states_by_seq
from tests.support.server import ServerProcess

# Short variants where a game allows one, so that the suite stays fast.
SHORT = {"hieroglyphs": {"mode": "rounds", "round_limit": 3}}


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def server(request, tmp_path_factory):
    """One server per store for the whole module (starting one costs seconds on a busy machine)."""
    tmp = tmp_path_factory.mktemp("bots")
    url = f"sqlite:{tmp / 'data'}" if request.param == "sqlite" else request.getfixturevalue("redis_server").url
    proc = ServerProcess(url, tmp / "server.log").start()
    yield proc
    proc.stop()


@pytest.mark.parametrize("game_id", GAMES)
async def test_a_match_of_bots_plays_itself_to_the_end(server, game_id):
    players = get_game(game_id).min_players
    options = SHORT.get(game_id, {})
    client = TeahouseClient(server.url)
    strengths = {seat: (2, 1, 0)[seat % 3] for seat in range(players)}
    match = await client.create_match(game_id, players, options, bots=strengths)
    assert match["state"] == "live"
    assert match["bots"] == [{"seat": s, "strength": v} for s, v in strengths.items()]
    assert [s["name"] for s in match["seats"]] == [f"bot (strength {strengths[s]})" for s in range(players)]
    spec = await client.connect().open()
    view = await spec.spectate(match["match"])
    await view.wait_for(lambda g: g.over, timeout=240)
    log = await client.log(match["match"])
    assert log["state"] == "finished" and log["result"] and log["bot_seed"]
    commits = log["commits"]
    assert commits[0]["move_id"] == "sys:start"
    for c in commits[1:]:
        assert c["move_id"] == f"sys:bot:{c['seq'] - 1}:{c['seat']}", c
    states = states_by_seq(game_id, players, options, commits)
    assert get_game(game_id).status(states[-1])["finished"]
    await close_all(spec)
    await client.aclose()


async def test_a_seat_that_never_moves_gets_bot_moves_and_the_match_finishes(server):
    client = TeahouseClient(server.url)
    options = {"mode": "rounds", "round_limit": 1}
    match = await client.create_match("hieroglyphs", 2, options, turn_seconds=1, bots={1: 1})
    assert match["absent"] == "bot"
    mid = match["match"]
    await client.take_seat(mid, 0)  # taken, and then never played
    spec = await client.connect().open()
    view = await spec.spectate(mid)
    await view.wait_for(lambda g: g.over, timeout=120)
    log = await client.log(mid)
    mine = [c for c in log["commits"] if c["seat"] == 0]
    assert mine, "seat 0 had to act"
    for c in mine:
        assert c["move_id"] == f"sys:clock:{c['seq'] - 1}:0"
    assert get_game("hieroglyphs").status(states_by_seq("hieroglyphs", 2, options, log["commits"])[-1])["finished"]
    await close_all(spec)
    await client.aclose()


def test_bots_and_absent_are_validated(server):
    bad = [
        {"bots": {"0": 1}}, {"bots": [{"seat": 2}]}, {"bots": [{"seat": 0, "strength": 9}]},
        {"bots": [{"seat": 0}, {"seat": 0}]}, {"bots": [{"seat": 0, "colour": "red"}]},
        {"bots": [{"seat": True}]}, {"absent": "nobody"}, {"absent": None},
    ]
    for extra in bad:
        r = httpx.post(server.url + "/api/matches", json={"game": "pixies", "players": 2, **extra})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_field", extra


def test_the_command_line_bot_plays_with_server_bots_of_a_strength(server):
    """`teahouse bot --strength N --seats 1`: the server's bot plays seat 1, the SDK seat 0."""
    out = subprocess.run([sys.executable, "-m", "service.cli", "bot", "--game", "pixies", "--players", "2",
                          "--strength", "1", "--seats", "1", "--url", server.url],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    assert "finished after" in out
    assert "seat 1 (server bot, strength 1)" in out and "seat 0:" in out
