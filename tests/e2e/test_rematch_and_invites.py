"""Invite links and rematches (SPEC 2.4, 2.7, 2.18): a match's creator gets one invite per free
seat, a one-time secret that takes exactly that seat; a finished match's seats ask for a rematch
with their tokens, and it is the same game, seat count and options with a fresh seed and every
player one seat down; each seat accepts or declines, bots come along, and both matches name
each other."""

from __future__ import annotations

import asyncio

import httpx
from teahouse_client import TeahouseClient

from tests.e2e.test_private_matches import play_out
from tests.e2e.test_spectator_delay import problem


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_each_invite_takes_its_own_seat_once(server):
    async with httpx.AsyncClient(base_url=server.url) as http:
        made = (await http.post("/api/matches", json={"game": "pixies", "players": 3,
                                                       "bots": [{"seat": 1, "strength": 0}]})).json()
        mid = made["match"]
        # one invite per seat a person will take; the bot's seat has none
        assert [i["seat"] for i in made["invites"]] == [0, 2]
        invite = {i["seat"]: i["invite"] for i in made["invites"]}
        assert len(invite[2]) >= 43 and invite[0] != invite[2]  # 256 bits each, URL-safe
        summary = (await http.get(f"/api/matches/{mid}")).json()
        assert "invites" not in summary and invite[2] not in str(summary)
        problem(await http.post(f"/api/matches/{mid}/seats", json={"invite": invite[2][:-2] + "xx"}), 403, "bad_invite")
        problem(await http.post(f"/api/matches/{mid}/seats", json={"invite": invite[2], "seat": 0}), 400, "bad_field")
        got = await http.post(f"/api/matches/{mid}/seats", json={"invite": invite[2], "name": "Bea"})
        assert got.status_code == 201 and got.json()["seat"] == 2
        # one time: the seat it opens is taken now
        problem(await http.post(f"/api/matches/{mid}/seats", json={"invite": invite[2]}), 409, "seat_taken")
        # an invite from another match opens nothing here
        other = (await http.post("/api/matches", json={"game": "pixies", "players": 2})).json()
        problem(await http.post(f"/api/matches/{mid}/seats", json={"invite": other["invites"][0]["invite"]}), 403,
                "bad_invite")
        assert (await http.post(f"/api/matches/{mid}/seats", json={"invite": invite[0]})).json()["seat"] == 0
        assert (await http.get(f"/api/matches/{mid}")).json()["state"] == "live"


async def finished_match(server, players: int, bots: dict[int, int] | None = None, **extra) -> tuple[str, list[dict]]:
    client = TeahouseClient(server.url)
    made = await client.create_match("pixies", players, options={"first_player": 1}, bots=bots, **extra)
    seats = [await client.take_seat(made["match"], seat=s, name=f"p{s}") for s in range(players) if s not in (bots or {})]
    await play_out(client, made["match"], seats)
    return made["match"], seats


async def test_a_rematch_rotates_the_seats_and_links_both_ways(server):
    old, seats = await finished_match(server, 3, bots={2: 0}, turn_seconds=600)
    seats = {s["seat"]: s for s in seats}
    async with httpx.AsyncClient(base_url=server.url) as http:
        before = (await http.get(f"/api/matches/{old}")).json()
        assert before["state"] == "finished" and before["rematch"] is None
        problem(await http.post(f"/api/matches/{old}/rematch"), 403, "bad_token")
        problem(await http.post(f"/api/matches/{old}/rematch/decline", headers=bearer(seats[0]["token"])), 409,
                "no_rematch")
        # seat 1 asks: the rematch is made, and seat 1's player sits at seat 0
        asked = await http.post(f"/api/matches/{old}/rematch", headers=bearer(seats[1]["token"]))
        assert asked.status_code == 201, asked.text
        new = asked.json()["match"]
        assert asked.json()["seat"] == 0 and new != old
        after = (await http.get(f"/api/matches/{old}")).json()
        assert after["rematch"] == new
        m = (await http.get(f"/api/matches/{new}")).json()
        assert (m["game"], m["players"], m["options"], m["turn_seconds"]) == ("pixies", 3, {"first_player": 1}, 600)
        assert m["seed_sha256"] != before["seed_sha256"] and m["state"] == "open"
        # the bot of seat 2 plays seat 1 now, and came along at once
        assert m["bots"] == [{"seat": 1, "strength": 0}]
        assert m["rematch_of"] == {"match": old, "seats": [
            {"seat": 0, "from_seat": 1, "answer": "accepted", "player": None},
            {"seat": 1, "from_seat": 2, "answer": "bot", "player": "bot:strength-0"},
            {"seat": 2, "from_seat": 0, "answer": "waiting", "player": None}]}
        assert [s["name"] for s in m["seats"]][0] == "p1"
        # seat 2 waits for seat 0's player: nobody else takes it
        problem(await http.post(f"/api/matches/{new}/seats", json={"seat": 2}), 409, "seat_reserved")
        problem(await http.post(f"/api/matches/{new}/seats", json={}), 409, "seat_reserved")
        # asking again makes no second rematch; a seat accepts once
        problem(await http.post(f"/api/matches/{old}/rematch", headers=bearer(seats[1]["token"])), 409, "seat_taken")
        took = await http.post(f"/api/matches/{old}/rematch", headers=bearer(seats[0]["token"]))
        assert took.json()["match"] == new and took.json()["seat"] == 2
        m = (await http.get(f"/api/matches/{new}")).json()
        assert m["state"] == "live" and [s["answer"] for s in m["rematch_of"]["seats"]] == ["accepted", "bot", "accepted"]
        # the new tokens play the new match
        client = TeahouseClient(server.url)
        await play_out(client, new, [asked.json(), took.json()])
        assert (await http.get(f"/api/matches/{new}")).json()["state"] == "finished"


async def test_a_declined_seat_opens_to_anyone_and_racing_asks_make_one_rematch(server):
    old, seats = await finished_match(server, 2)
    async with httpx.AsyncClient(base_url=server.url) as http:
        live = (await http.post("/api/matches", json={"game": "pixies", "players": 2})).json()["match"]
        tok = (await http.post(f"/api/matches/{live}/seats", json={})).json()["token"]
        problem(await http.post(f"/api/matches/{live}/rematch", headers=bearer(tok)), 409, "match_live")
        both = await asyncio.gather(*[http.post(f"/api/matches/{old}/rematch", headers=bearer(s["token"]))
                                      for s in seats])
        assert all(r.status_code == 201 for r in both), [r.text for r in both]
        assert both[0].json()["match"] == both[1].json()["match"]
        assert {r.json()["seat"] for r in both} == {0, 1}

        old2, seats2 = await finished_match(server, 2)
        asked = (await http.post(f"/api/matches/{old2}/rematch", headers=bearer(seats2[0]["token"]))).json()
        new = asked["match"]
        declined = await http.post(f"/api/matches/{old2}/rematch/decline", headers=bearer(seats2[1]["token"]))
        assert declined.status_code == 200
        assert [s["answer"] for s in declined.json()["rematch_of"]["seats"]] == ["declined", "accepted"]
        problem(await http.post(f"/api/matches/{old2}/rematch", headers=bearer(seats2[1]["token"])), 409,
                "rematch_declined")
        problem(await http.post(f"/api/matches/{old2}/rematch/decline", headers=bearer(seats2[0]["token"])), 409,
                "seat_taken")
        stranger = await http.post(f"/api/matches/{new}/seats", json={"name": "stranger"})
        assert stranger.status_code == 201 and stranger.json()["seat"] == 0


async def test_the_python_sdk_takes_an_invite_and_asks_accepts_and_declines(server):
    client = TeahouseClient(server.url)
    made = await client.create_match("pixies", 3)
    invite = {i["seat"]: i["invite"] for i in made["invites"]}
    got = await client.take_seat(made["match"], invite=invite[2], name="Cy")
    assert got["seat"] == 2
    seats = [await client.take_seat(made["match"], seat=s) for s in (0, 1)] + [got]
    await play_out(client, made["match"], seats)
    asked = await client.rematch(made["match"], seats[2]["token"])
    assert asked["seat"] == 1  # seat 2's player plays seat 1 now
    declined = await client.decline_rematch(made["match"], seats[0]["token"])
    assert declined["match"] == asked["match"]
    assert [a["answer"] for a in declined["rematch_of"]["seats"]] == ["waiting", "accepted", "declined"]
    accepted = await client.rematch(made["match"], seats[1]["token"])
    assert (accepted["match"], accepted["seat"]) == (asked["match"], 0)
    await client.aclose()
