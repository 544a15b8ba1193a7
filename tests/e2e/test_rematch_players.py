"""A rematch keeps its players (SPEC 2.18, with 2.7 and 2.15-2.16), over real sockets on both
stores: a seat a player held is kept for that player in the rematch, only that player's
credential answers for it, the seat is taken as the player's (the start commit names it), so the
rematch of a rated match is rated and moves the ratings again; a bot comes along as itself; a
guest cannot take a player's kept seat; the first player moves one seat on; the seed is new."""

from __future__ import annotations

import asyncio
import hashlib
import random

import httpx
from teahouse_client import TeahouseClient
from teahouse_client.bot import play_seat

from tests.e2e.test_spectator_delay import problem

# Pixies' first player fixed to seat 0 (docs/games/pixies.md: `first_player` is no secret
# option, so the match stays rated): whoever sits at seat 0 moves first.
FIRST_SEAT_0 = {"first_player": 0}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def play(client: TeahouseClient, match: str, grants: list[dict]) -> None:
    """Every seat in `grants` plays random legal moves until the match is over."""
    conns = [await client.connect().open() for _ in grants]
    views = [await c.join(match, g["token"]) for c, g in zip(conns, grants, strict=True)]
    await asyncio.gather(*[play_seat(c, v, random.Random(i)) for i, (c, v) in enumerate(zip(conns, views, strict=True))])
    for v in views:
        await v.wait_for(lambda g: g.finished is not None, timeout=60)
    for c in conns:
        await c.close()


def first_mover(log: dict) -> int:
    """The seat of the first move after the start (seq 1 is the system's start)."""
    return next(c["seat"] for c in log["commits"] if c["seat"] is not None)


def rank_of(result: dict, seat: int) -> int:
    ranks = result.get("ranks") or [1 + result["ranking"].index(s) for s in range(len(result["scores"]))]
    return ranks[seat]


async def test_a_rematch_of_a_rated_match_against_a_bot_is_rated_and_moves_the_ratings_again(server):
    async with TeahouseClient(server.url) as client:
        ada = await client.create_player("Ada")
        made = await client.create_match("pixies", 2, FIRST_SEAT_0, bots={1: 0})
        mine = await client.take_seat(made["match"], 0, player_key=ada["key"])
        await play(client, made["match"], [mine])
        old = await client.match(made["match"])
        assert old["state"] == "finished" and old["ratings"] is not None
        first = {r["player"]: r for r in old["ratings"]}

        # Ada answers with her key (and her seat's token): seat 0's player plays seat 1 now, and
        # the bot of seat 1 came along to seat 0 at once, so the rematch starts.
        got = await client.rematch(old["match"], mine["token"], player_key=ada["key"])
        assert got["seat"] == 1
        new = await client.match(got["match"])
        assert new["rematch_of"]["seats"] == [
            {"seat": 0, "from_seat": 1, "answer": "bot", "player": "bot:strength-0"},
            {"seat": 1, "from_seat": 0, "answer": "accepted", "player": ada["player"]}]
        assert new["bots"] == [{"seat": 0, "strength": 0}] and new["options"] == FIRST_SEAT_0
        assert new["seed_sha256"] != old["seed_sha256"]
        await play(client, new["match"], [got])

        new = await client.match(new["match"])
        log = await client.log(new["match"])
        # the log records who played each seat, as for any claimed seat
        assert log["commits"][0]["players"] == ["bot:strength-0", ada["player"]]
        # the first player rotated: seat 0 moves first in both, and seat 0 is the bot now
        old_log = await client.log(old["match"])
        assert first_mover(old_log) == 0 and first_mover(log) == 0
        assert old_log["commits"][0]["players"][0] == ada["player"] and log["commits"][0]["players"][0] != ada["player"]
        # a fresh seed: revealed now, its sha256 is the one published at creation, unlike the old one's
        assert hashlib.sha256(new["seed"].encode()).hexdigest() == new["seed_sha256"]
        assert new["seed"] != old["seed"] and new["seed_sha256"] != old["seed_sha256"]

        # rated: every seat a player or a bot, no fork, no fixed chance (SPEC 2.16); the ratings
        # fold in order, so each player's "before" is its "after" of the first match
        assert new["ratings"] is not None
        again = {r["player"]: r for r in new["ratings"]}
        assert set(again) == {ada["player"], "bot:strength-0"}
        for player in again:
            assert again[player]["before"] == first[player]["after"]
        ada_rank, bot_rank = rank_of(new["result"], 1), rank_of(new["result"], 0)
        change = again[ada["player"]]["change"]
        if ada_rank < bot_rank:
            assert change > 0
        elif ada_rank > bot_rank:
            assert change < 0
        else:  # a draw pulls the two ratings together
            assert (change > 0) == (first["bot:strength-0"]["after"] > first[ada["player"]]["after"]) or change == 0
        # a second game says more than the first: the deviation falls, still above 110 (provisional)
        assert again[ada["player"]]["rd"] < first[ada["player"]]["rd"]
        assert again[ada["player"]]["provisional"] is True

        history = await client.player_matches(ada["player"])
        assert [(r["match"], r["seat"]) for r in history["matches"]] == [(new["match"], 1), (old["match"], 0)]
        assert history["matches"][0]["rating"] == again[ada["player"]]
        board = {p["player"]: p for p in (await client.leaderboard("pixies"))["players"]}
        assert board[ada["player"]]["games"] == 2 and board[ada["player"]]["rating"] == again[ada["player"]]["after"]


async def test_a_players_seat_is_kept_for_that_player_only(server):
    async with TeahouseClient(server.url) as client, httpx.AsyncClient(base_url=server.url) as http:
        ada, bea, cy = [await client.create_player(n) for n in ("Ada", "Bea", "Cy")]
        made = await client.create_match("pixies", 2, FIRST_SEAT_0)
        grants = [await client.take_seat(made["match"], s, player_key=p["key"]) for s, p in ((0, ada), (1, bea))]
        await play(client, made["match"], grants)
        old = made["match"]

        # a player's seat answers only with that player's credential, its token alone is not enough
        problem(await http.post(f"/api/matches/{old}/rematch", headers=bearer(grants[0]["token"])), 403,
                "player_required")
        problem(await http.post(f"/api/matches/{old}/rematch", headers=bearer(grants[0]["token"]),
                                json={"player_key": cy["key"]}), 403, "player_required")
        problem(await http.post(f"/api/matches/{old}/rematch", json={"player_key": cy["key"]}), 403, "bad_token")
        problem(await http.post(f"/api/matches/{old}/rematch", json={"player_key": "x" * 43}), 401, "bad_player_key")
        problem(await http.post(f"/api/matches/{old}/rematch", json={"player_key": 7}), 400, "bad_field")
        assert (await client.match(old))["rematch"] is None  # none of those made a rematch

        asked = await client.rematch(old, grants[0]["token"], player_key=ada["key"])
        new = asked["match"]
        assert asked["seat"] == 1
        m = await client.match(new)
        assert [(a["answer"], a["player"]) for a in m["rematch_of"]["seats"]] == [
            ("waiting", bea["player"]), ("accepted", ada["player"])]
        # Bea's seat (seat 0 now) is hers: a guest, another player, and Bea's old token alone are refused
        for body in ({"seat": 0, "name": "guest"}, {"name": "guest"}, {"seat": 0, "player_key": cy["key"]}):
            problem(await http.post(f"/api/matches/{new}/seats", json=body), 409, "seat_reserved")
        problem(await http.post(f"/api/matches/{old}/rematch", headers=bearer(grants[1]["token"])), 403,
                "player_required")
        problem(await http.post(f"/api/matches/{old}/rematch/decline", headers=bearer(grants[1]["token"])), 403,
                "player_required")
        assert (await client.match(new))["state"] == "open"

        # Bea on another device, with her key and no token of the old match: her seat, as hers
        took = await client.rematch(old, player_key=bea["key"])
        assert (took["match"], took["seat"]) == (new, 0)
        m = await client.match(new)
        assert m["state"] == "live" and [a["answer"] for a in m["rematch_of"]["seats"]] == ["accepted", "accepted"]
        await play(client, new, [took, asked])
        log = await client.log(new)
        assert log["commits"][0]["players"] == [bea["player"], ada["player"]]
        assert (await client.match(new))["ratings"] is not None
        assert new in {r["match"] for r in (await client.player_matches(bea["player"]))["matches"]}


async def test_a_player_who_declines_opens_the_seat_and_a_guests_seat_stays_a_guests(server):
    async with TeahouseClient(server.url) as client, httpx.AsyncClient(base_url=server.url) as http:
        ada = await client.create_player("Ada")
        made = await client.create_match("pixies", 2, FIRST_SEAT_0)
        grants = [await client.take_seat(made["match"], 0, player_key=ada["key"]),
                  await client.take_seat(made["match"], 1, name="guest")]
        await play(client, made["match"], grants)
        old = made["match"]
        assert (await client.match(old))["ratings"] is None  # a guest played: unrated

        # the guest's seat answers with its token, and stays a guest's
        asked = await client.rematch(old, grants[1]["token"])
        assert asked["seat"] == 0
        m = await client.match(asked["match"])
        assert [(a["answer"], a["player"]) for a in m["rematch_of"]["seats"]] == [
            ("accepted", None), ("waiting", ada["player"])]
        # Ada declines from another device with her key: her seat opens to anyone, a guest takes it
        declined = await client.decline_rematch(old, player_key=ada["key"])
        assert [a["answer"] for a in declined["rematch_of"]["seats"]] == ["accepted", "declined"]
        stranger = await http.post(f"/api/matches/{asked['match']}/seats", json={"name": "stranger"})
        assert stranger.status_code == 201 and stranger.json()["seat"] == 1
        problem(await http.post(f"/api/matches/{old}/rematch", json={"player_key": ada["key"]}), 409,
                "rematch_declined")


async def test_the_kept_seat_holds_across_two_nodes_of_one_redis(redis_url, tmp_path):
    """Asked on one node, refused to a guest and accepted by its player on the other: what a seat
    is kept for lives in the store, not in a node's memory."""
    from tests.support.server import ServerProcess

    nodes = [ServerProcess(redis_url, tmp_path / f"{name}.log").start() for name in "ab"]
    try:
        async with TeahouseClient(nodes[0].url) as ca, TeahouseClient(nodes[1].url) as cb, \
                httpx.AsyncClient(base_url=nodes[1].url) as http_b:
            ada, bea = await ca.create_player("Ada"), await ca.create_player("Bea")
            made = await ca.create_match("pixies", 2, FIRST_SEAT_0)
            grants = [await ca.take_seat(made["match"], s, player_key=p["key"]) for s, p in ((0, ada), (1, bea))]
            await play(ca, made["match"], grants)
            asked = await ca.rematch(made["match"], player_key=ada["key"])
            new = asked["match"]
            problem(await http_b.post(f"/api/matches/{new}/seats", json={"seat": 0, "name": "guest"}), 409,
                    "seat_reserved")
            # Bea takes her kept seat on node b from the lobby route, with her key: her answer
            took = await cb.take_seat(new, player_key=bea["key"])
            assert took["seat"] == 0
            await play(cb, new, [took, asked])
            assert (await cb.log(new))["commits"][0]["players"] == [bea["player"], ada["player"]]
            assert (await ca.match(new))["ratings"] == (await cb.match(new))["ratings"] is not None
    finally:
        for node in nodes:
            node.stop()


async def test_a_kept_seat_freed_for_idleness_is_kept_for_its_player_again(tmp_path):
    """The operator's idle-seat time (SPEC 2.7) frees a rematch seat its player took and never
    joined; the seat is then kept for the same player again, not opened to anyone."""
    from tests.support.server import sqlite_server

    with sqlite_server(tmp_path, {"TEAHOUSE_IDLE_SEAT_SECONDS": "2"}) as proc:
        async with TeahouseClient(proc.url) as client, httpx.AsyncClient(base_url=proc.url) as http:
            ada, bea = await client.create_player("Ada"), await client.create_player("Bea")
            made = await client.create_match("pixies", 2, FIRST_SEAT_0)
            grants = [await client.take_seat(made["match"], s, player_key=p["key"]) for s, p in ((0, ada), (1, bea))]
            await play(client, made["match"], grants)
            asked = await client.rematch(made["match"], player_key=ada["key"])  # Ada's seat 1, never joined
            await asyncio.sleep(2.5)
            m = await client.match(asked["match"])
            assert [s["taken"] for s in m["seats"]] == [False, False]
            assert [(a["answer"], a["player"]) for a in m["rematch_of"]["seats"]] == [
                ("waiting", bea["player"]), ("waiting", ada["player"])]
            for body in ({"seat": 1, "name": "guest"}, {"name": "guest"}):
                problem(await http.post(f"/api/matches/{asked['match']}/seats", json=body), 409, "seat_reserved")
            again = await client.rematch(made["match"], player_key=ada["key"])
            assert (again["match"], again["seat"]) == (asked["match"], 1)
