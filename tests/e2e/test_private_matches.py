"""Private matches (SPEC 2.4): `spectators: "link"` lets in only who holds the spectator key,
`"off"` nobody but the seats, on every route the public audience reads (the summary, the
replay, the log, a fork, spectating), during the match and after it; neither is listed. And a
moment seen by an audience (SPEC 2.9): a seat's view of a live match only with its token."""

from __future__ import annotations

import asyncio
import random

import httpx
import orjson
import websockets
from teahouse_client import TeahouseClient
from teahouse_client.bot import play_seat

from tests.e2e.helpers import close_all, doc_of, seat_players
from tests.e2e.test_spectator_delay import problem, step


async def spectate_answer(url: str, match: str, key: str | None = None) -> dict:
    """The first answer to a `spectate` (a view, or an error) on a raw v1 JSON socket."""
    async with websockets.connect(url.replace("http://", "ws://") + "/ws",
                                  subprotocols=[websockets.Subprotocol("teahouse.v1.json")]) as ws:
        await ws.send(orjson.dumps({"type": "hello"}).decode())
        assert orjson.loads(await ws.recv())["type"] == "welcome"
        await ws.send(orjson.dumps({"type": "spectate", "match": match,
                                    **({"key": key} if key is not None else {})}).decode())
        return orjson.loads(await ws.recv())


async def play_out(client: TeahouseClient, match: str, seats: list[dict]) -> None:
    conns = [await client.connect().open() for _ in seats]
    views = [await c.join(match, s["token"]) for c, s in zip(conns, seats, strict=True)]
    await asyncio.gather(*[play_seat(c, v, random.Random(i)) for i, (c, v) in enumerate(zip(conns, views, strict=True))])
    await close_all(*conns)


async def test_a_link_match_needs_its_key_on_every_public_route(server):
    client = TeahouseClient(server.url)
    async with httpx.AsyncClient(base_url=server.url) as http:
        made = (await http.post("/api/matches", json={"game": "pixies", "players": 2, "spectators": "link"})).json()
        mid, key = made["match"], made["spectator_key"]
        assert made["spectators"] == "link" and not made["listed"] and len(key) >= 43  # 256 bits, URL-safe
        assert "spectator_key_hash" not in made
        assert mid not in [m["match"] for m in (await http.get("/api/matches")).json()]
        # open: whoever has the id reads it, to take a seat
        assert (await http.get(f"/api/matches/{mid}")).status_code == 200
        seats, conns, views = await seat_players(client, mid, 2, record=False)
        await step(conns, views, mid)
        auth = {"Authorization": f"Bearer {seats[1]['token']}"}
        for path in (f"/api/matches/{mid}", f"/api/matches/{mid}/replay"):
            problem(await http.get(path), 403, "spectator_key")
            problem(await http.get(path, params={"key": key[:-1] + ("A" if key[-1] != "A" else "B")}), 403,
                    "spectator_key")
            assert (await http.get(path, params={"key": key})).status_code == 200
            assert (await http.get(path, headers=auth)).status_code == 200
        assert (await spectate_answer(server.url, mid))["code"] == "spectator_key"
        assert (await spectate_answer(server.url, mid, "x" * 43))["code"] == "spectator_key"
        seen = await spectate_answer(server.url, mid, key)
        assert seen["type"] == "view" and seen["seq"] == views[0].seq
        problem(await http.get(f"/api/matches/{mid}/log", params={"key": key}), 409, "match_live")
        await close_all(*conns)

        # After the end the key is still what lets the public in (SPEC 2.4)
        await play_out(client, mid, seats)
        problem(await http.get(f"/api/matches/{mid}/log"), 403, "spectator_key")
        problem(await http.get(f"/api/matches/{mid}/replay", params={"seat": 1}), 403, "spectator_key")
        problem(await http.post(f"/api/matches/{mid}/fork", json={"seq": 2}), 403, "spectator_key")
        log = await http.get(f"/api/matches/{mid}/log", params={"key": key})
        assert log.status_code == 200 and log.json()["state"] == "finished"
        assert (await http.get(f"/api/matches/{mid}/replay", params={"seat": 1, "key": key})).status_code == 200
        assert (await http.get(f"/api/matches/{mid}/log", headers=auth)).status_code == 200
        # a fork keeps it private, under a key of its own
        fork = await http.post(f"/api/matches/{mid}/fork?key={key}", json={"seq": 2})
        assert fork.status_code == 201, fork.text
        fork_key = fork.json()["spectator_key"]
        assert fork.json()["spectators"] == "link" and fork_key != key and not fork.json()["listed"]
        assert (await spectate_answer(server.url, fork.json()["match"], key))["code"] == "spectator_key"
        assert (await spectate_answer(server.url, fork.json()["match"], fork_key))["type"] == "view"
    await client.aclose()


async def test_an_off_match_is_read_by_its_seats_only(server):
    client = TeahouseClient(server.url)
    async with httpx.AsyncClient(base_url=server.url) as http:
        made = (await http.post("/api/matches", json={"game": "pixies", "players": 2, "spectators": "off"})).json()
        mid = made["match"]
        assert "spectator_key" not in made and made["spectators"] == "off" and not made["listed"]
        assert mid not in [m["match"] for m in (await http.get("/api/matches")).json()]
        seats, conns, views = await seat_players(client, mid, 2, record=False)
        auth = {"Authorization": f"Bearer {seats[0]['token']}"}
        for path in (f"/api/matches/{mid}", f"/api/matches/{mid}/replay"):
            problem(await http.get(path), 403, "spectators_off")
            assert (await http.get(path, headers=auth)).status_code == 200
        assert (await spectate_answer(server.url, mid))["code"] == "spectators_off"
        await close_all(*conns)
        await play_out(client, mid, seats)
        problem(await http.get(f"/api/matches/{mid}/log"), 403, "spectators_off")
        problem(await http.get(f"/api/matches/{mid}/replay", params={"seq": 1}), 403, "spectators_off")
        assert (await http.get(f"/api/matches/{mid}/log", headers=auth)).status_code == 200
        assert (await spectate_answer(server.url, mid))["code"] == "spectators_off"
    await client.aclose()


async def test_a_moment_as_a_seat_needs_its_token_while_the_match_runs(server):
    client = TeahouseClient(server.url)
    async with httpx.AsyncClient(base_url=server.url) as http:
        mid = (await http.post("/api/matches", json={"game": "pixies", "players": 2})).json()["match"]
        seats, conns, views = await seat_players(client, mid, 2, record=False)
        at = await step(conns, views, mid)
        seen = [doc_of(v) for v in views]  # what each seat was sent at `at`
        await step(conns, views, mid)
        moment = f"/api/matches/{mid}/replay"
        for headers in ({}, {"Authorization": f"Bearer {seats[0]['token']}"}, {"Authorization": "Bearer nope"}):
            problem(await http.get(moment, params={"seq": at, "seat": 1}, headers=headers), 403, "bad_token")
        mine = await http.get(moment, params={"seq": at, "seat": 1},
                              headers={"Authorization": f"Bearer {seats[1]['token']}"})
        assert mine.status_code == 200
        assert {"view": mine.json()["view"], "status": mine.json()["status"]} == seen[1] and mine.json()["seq"] == at
        problem(await http.get(moment, params={"seq": at, "seat": 2}), 400, "bad_field")
        problem(await http.get(moment, params={"seq": "x"}), 400, "bad_field")
        await close_all(*conns)
        await play_out(client, mid, seats)
        # after the end, anyone sees any seat's view of any moment
        theirs = (await http.get(moment, params={"seq": at, "seat": 0})).json()
        assert {"view": theirs["view"], "status": theirs["status"]} == seen[0]
    await client.aclose()
