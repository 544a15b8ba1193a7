"""Players, their matches and ratings over real sockets on both stores (SPEC 2.7, 2.15-2.17):
a player key is a 256-bit secret shown once, the seat it takes is recorded in the match's log,
a rated match against a bot moves both ratings by Glicko-2, the history lists it, the leaderboard
ranks it, and guests play as before."""

from __future__ import annotations

import random

import httpx
import pytest
from teahouse_client import ServerError, TeahouseClient
from teahouse_client.bot import play_seat

from service.match.glicko2 import Game, Rating, update


async def _play_against_bot(client: TeahouseClient, key: str | None, strength: int = 0, name: str | None = None):
    match = await client.create_match("pixies", 2, bots={1: strength})
    seat = await client.take_seat(match["match"], 0, name=name, player_key=key)
    conn = await client.connect().open()
    view = await conn.join(match["match"], seat["token"])
    await play_seat(conn, view, random.Random(3))
    await view.wait_for(lambda g: g.finished is not None, timeout=60)
    await conn.close()
    return match["match"], view.finished  # the match id and the `finished` message its seat got


async def test_a_player_key_is_a_secret_shown_once_and_stored_as_a_hash(server, store_url, tmp_path):
    async with TeahouseClient(server.url) as client:
        made = await client.create_player("Alice")
        assert set(made) == {"player", "name", "created", "key"}
        assert made["name"] == "Alice" and ":" not in made["player"]
        assert len(made["key"]) == 43  # 256 bits, URL-safe base64
        assert await client.me(made["key"]) == {k: made[k] for k in ("player", "name", "created")}
        assert await client.player(made["player"]) == {k: made[k] for k in ("player", "name", "created")}
        with pytest.raises(ServerError) as err:
            await client.me("x" * 43)
        assert err.value.code == "bad_player_key"
        with pytest.raises(ServerError) as err:
            await client.create_player("")
        assert err.value.code == "bad_field"
        with pytest.raises(ServerError) as err:
            await client.player("nobody-here")
        assert err.value.code == "unknown_player"
    if store_url.startswith("sqlite:"):
        raw = b"".join(p.read_bytes() for p in (tmp_path / "data").iterdir() if p.is_file())
        assert made["key"].encode() not in raw


async def test_a_rated_match_is_logged_with_its_players_and_moves_both_ratings(server):
    async with TeahouseClient(server.url) as client:
        alice = await client.create_player("Alice")
        match, finished = await _play_against_bot(client, alice["key"])
        log = await client.log(match)
        start = log["commits"][0]
        assert start["move_id"] == "sys:start"
        assert start["players"] == [alice["player"], "bot:strength-0"]
        assert all("players" not in c for c in log["commits"][1:])
        ranks = log["result"].get("ranks") or [1 + log["result"]["ranking"].index(s) for s in (0, 1)]
        score = 1.0 if ranks[0] < ranks[1] else 0.5 if ranks[0] == ranks[1] else 0.0
        # Both start at Glicko-2's defaults; the match is one rating period for each.
        want_alice = update(Rating(), [Game(Rating(), score)])
        want_bot = update(Rating(), [Game(Rating(), 1 - score)])

        summary = await client.match(match)
        assert finished["ratings"] == summary["ratings"]  # told in `finished` too
        by_player = {r["player"]: r for r in summary["ratings"]}
        assert by_player[alice["player"]]["before"] == 1500
        assert by_player[alice["player"]]["after"] == pytest.approx(want_alice.rating, abs=0.05)
        assert by_player["bot:strength-0"]["after"] == pytest.approx(want_bot.rating, abs=0.05)
        assert by_player[alice["player"]]["provisional"] is True  # RD ~290: one game says little

        history = await client.player_matches(alice["player"])
        assert history["total"] == 1
        row = history["matches"][0]
        assert (row["match"], row["state"], row["seat"]) == (match, "finished", 0)
        assert row["rating"] == by_player[alice["player"]]

        board = await client.leaderboard("pixies")
        ids = [p["player"] for p in board["players"]]
        assert set(ids) == {alice["player"], "bot:strength-0"}
        assert [p["rank"] for p in board["players"]] == [1, 2]
        assert board["players"][0]["rating"] >= board["players"][1]["rating"]
        assert (await client.leaderboard("khan"))["players"] == []


async def test_guests_play_unrated_and_a_player_takes_one_seat_per_match(server):
    async with TeahouseClient(server.url) as client:
        match, finished = await _play_against_bot(client, None, name="guest")
        log = await client.log(match)
        assert log["commits"][0]["players"] == [None, "bot:strength-0"]
        assert (await client.match(match))["ratings"] is None
        assert "ratings" not in finished
        bob = await client.create_player("Bob")
        open_match = await client.create_match("pixies", 3)
        await client.take_seat(open_match["match"], 0, player_key=bob["key"])
        with pytest.raises(ServerError) as err:
            await client.take_seat(open_match["match"], 1, player_key=bob["key"])
        assert err.value.code == "player_seated"
        with pytest.raises(ServerError) as err:
            await client.take_seat(open_match["match"], 1, player_key="not-a-key")
        assert err.value.code == "bad_player_key"
        history = await client.player_matches(bob["player"])
        assert [(m["match"], m["state"]) for m in history["matches"]] == [(open_match["match"], "open")]


async def test_the_history_puts_the_match_waiting_on_the_player_first(server):
    async with TeahouseClient(server.url) as client:
        carol = await client.create_player("Carol")
        # Pixies with first_player fixed: seat 0 moves first, so Carol in seat 0 is waited on.
        waiting = await client.create_match("pixies", 2, {"first_player": 0})
        await client.take_seat(waiting["match"], 0, player_key=carol["key"])
        await client.take_seat(waiting["match"], 1, name="guest")
        other = await client.create_match("pixies", 2)
        await client.take_seat(other["match"], 0, player_key=carol["key"])
        rows = (await client.player_matches(carol["player"]))["matches"]
        assert [r["match"] for r in rows] == [waiting["match"], other["match"]]
        assert rows[0]["state"] == "live" and rows[0]["your_turn"] is True
        assert isinstance(rows[0]["waiting_since"], int)
        assert rows[1]["state"] == "open" and rows[1]["your_turn"] is False
        page = await client.player_matches(carol["player"], offset=1, limit=1)
        assert [r["match"] for r in page["matches"]] == [other["match"]] and page["total"] == 2
        r = httpx.get(f"{server.url}/api/players/{carol['player']}/matches", params={"limit": 0})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_field"


async def test_players_and_ratings_are_the_same_on_two_nodes_of_one_redis(redis_url, tmp_path):
    """A player made on one node plays on the other; both nodes fold the same ratings."""
    from tests.support.server import ServerProcess

    nodes = [ServerProcess(redis_url, tmp_path / f"{name}.log").start() for name in "ab"]
    try:
        async with TeahouseClient(nodes[0].url) as ca, TeahouseClient(nodes[1].url) as cb:
            dora = await ca.create_player("Dora")
            assert await cb.me(dora["key"]) == await ca.me(dora["key"])
            played = [(await _play_against_bot(cb, dora["key"]))[0], (await _play_against_bot(ca, dora["key"], 1))[0]]
            assert (await ca.leaderboard("pixies")) == (await cb.leaderboard("pixies"))
            for match in played:
                assert (await ca.match(match))["ratings"] == (await cb.match(match))["ratings"] is not None
            history = await cb.player_matches(dora["player"])
            assert {r["match"] for r in history["matches"]} == set(played)
            # the second match's "before" is the first's "after": one fold, in finish order
            first, second = [(await ca.match(m))["ratings"][0] for m in played]
            assert second["before"] == first["after"]
    finally:
        for node in nodes:
            node.stop()


async def test_the_bots_are_players_of_each_strength_only(server):
    async with TeahouseClient(server.url) as client:
        assert await client.player("bot:strength-3") == {"player": "bot:strength-3", "name": "bot (strength 3)", "created": 0}
        with pytest.raises(ServerError) as err:
            await client.player("bot:strength-9")
        assert err.value.code == "unknown_player"
