"""Replays of a finished match: stepping, seat perspectives, forks; and the CLI commands."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys

from teahouse_client import ServerError, TeahouseClient
from teahouse_client.bot import run_match

from service.games import get_game
from service.match import replay
from service.store import Commit, MatchRecord
from tests.e2e.helpers import close_all, play_resilient, seat_players
from tests.support.server import ROOT


async def test_step_through_and_fork_a_finished_match(sqlite_server):
    client = TeahouseClient(sqlite_server.url)
    summary = await run_match(sqlite_server.url, "pixies", 2, seed=3, quiet=True)
    mid = summary["match"]
    log = await client.log(mid)
    n = log["seq"]
    g = get_game("pixies")
    rec = MatchRecord(id=mid, game="pixies", players=2, options={}, listed=True, seed=log["seed"],
                      seed_sha256=log["seed_sha256"], created=0)
    # `said` and `said_keys` (SPEC 3.14) are the server's words about a commit, not part of the
    # stored commit.
    assert all(isinstance(c["said"], list) for c in log["commits"])
    commits = [Commit(**{k: v for k, v in c.items() if k not in ("said", "said_keys")}) for c in log["commits"]]
    # every step, from every perspective, is the fold of the log up to it
    for seq in (0, 1, n // 2, n):
        for seat in (None, 0, 1):
            frame = await client.replay(mid, seq, seat)
            state = replay.state_at(rec, commits, seq)
            assert frame["view"] == g.view(state, seat) and frame["status"] == g.status(state)
            if seq:
                assert frame["commit"]["command"] == log["commits"][seq - 1]["command"]

    # fork from the middle: a new match with the same history up to there, fresh seats and seed
    fork = await client.fork(mid, n // 2)
    fid = fork["match"]
    assert fork["forked_from"]["match"] == mid and fork["forked_from"]["seq"] == n // 2
    # its first own commit deals again what no seat saw (SPEC 11): the views stay the origin's
    assert fork["seed_sha256"] != log["seed_sha256"] and fork["seq"] == n // 2 + 1
    assert not fork["open_hand"]
    origin_view = (await client.replay(mid, n // 2))["view"]
    assert (await client.replay(fid, n // 2))["view"] == origin_view
    assert (await client.replay(fid, n // 2 + 1))["view"] == origin_view
    # Watched before its seats are taken: the node holds the fork's runtime from here on, and
    # must still learn the names its commits' sentences use.
    watcher = await client.connect().open()
    watching = await watcher.spectate(fid)
    seats, conns, views = await seat_players(client, fid, 2, record=False)
    assert (await client.match(fid))["seq"] == n // 2 + 1, "a fork does not start again"
    await asyncio.gather(*[play_resilient(c, fid, random.Random(i)) for i, c in enumerate(conns)])
    flog = await client.log(fid)
    # The copied commits keep their facts; their sentences name the fork's own seats.
    assert ([{**c, "said": None, "said_keys": None} for c in flog["commits"][: n // 2]]
            == [{**c, "move_id": None, "said": None, "said_keys": None} for c in log["commits"][: n // 2]])
    assert flog["result"]["winners"]
    played = [c for c in flog["commits"][n // 2:] if c["seat"] is not None]
    assert played and all(c["said"][0].startswith(f"p{c['seat']} ") for c in played)
    await watching.wait_for(lambda g: g.seq == flog["seq"])
    live = dict(watching.story)  # what the spectator read live: the same names
    assert all(live[c["seq"]] == c["said"] for c in played)
    for bad in (-1, n + 1, "3"):
        try:
            await client.fork(mid, bad)
        except ServerError as exc:
            assert exc.code == "bad_field"
        else:
            raise AssertionError(f"fork at {bad!r} was accepted")
    await close_all(*conns, watcher)
    await client.aclose()


def test_bot_and_replay_commands(sqlite_server):
    out = subprocess.run([sys.executable, "-m", "service.cli", "bot", "--game", "pixies", "--players", "3",
                          "--url", sqlite_server.url], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1]
    assert "finished after" in last and "winners" in last
    mid = last.split("]")[0].lstrip("[")
    rep = subprocess.run([sys.executable, "-m", "service.cli", "replay", mid, "--url", sqlite_server.url],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    assert "--- seq 1: system" in rep.stdout and "result:" in rep.stdout
    assert "    > Game over: " in rep.stdout  # the commits' sentences are printed
    missing = subprocess.run([sys.executable, "-m", "service.cli", "replay", "nope", "--url", sqlite_server.url],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and missing.stderr.strip() == \
        "teahouse replay: no match has the id 'nope' (unknown_match)"


def test_reference_data_for_clients(sqlite_server):
    import httpx

    r = httpx.get(sqlite_server.url + "/api/games/pixies/reference", params={"players": 3})
    assert r.status_code == 200
    cards = r.json()["reference"]["cards"]
    assert len(cards) == 70 and {"id", "number", "colour"} <= set(cards[0])
    r = httpx.get(sqlite_server.url + "/api/games/china/reference", params={"players": 9})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_field"
    r = httpx.get(sqlite_server.url + "/api/games/chess/reference")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_game"
    mid = httpx.post(sqlite_server.url + "/api/matches", json={"game": "khan", "players": 2}).json()["match"]
    r = httpx.get(sqlite_server.url + f"/api/matches/{mid}/reference")
    assert r.status_code == 200 and r.json()["reference"]["board"]["rows"]
