"""Every registered game, played to the end over real sockets by bots, with a spectator:
no frame to anyone carries a secret of another seat (or of nobody), checked in the exact
bytes against the game's own `secrets`; the live views equal the replays of the log."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import httpx
import jsonschema
import pytest
from teahouse_client import TeahouseClient

from service.games import GAMES, get_game
from tests.e2e.helpers import (
    assert_log_verifies,
    assert_no_leaks,
    close_all,
    doc_of,
    play_resilient,
    seat_players,
    states_by_seq,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game_id", GAMES)
async def test_full_match_over_the_wire(sqlite_server, game_id):
    players = get_game(game_id).min_players
    client = TeahouseClient(sqlite_server.url)
    mid = (await client.create_match(game_id, players))["match"]
    spec = await client.connect(record=True).open()
    spec_view = await spec.spectate(mid)
    seats, conns, views = await seat_players(client, mid, players)
    await asyncio.wait_for(
        asyncio.gather(*[play_resilient(c, mid, random.Random(i), deadline=240) for i, c in enumerate(conns)]),
        240)
    log = await client.log(mid)
    await spec_view.wait_for(lambda g: g.seq == log["seq"])
    states = states_by_seq(game_id, players, {}, log["commits"])
    checked = sum(assert_no_leaks(game_id, players, states, i, c.frames) for i, c in enumerate(conns))
    checked += assert_no_leaks(game_id, players, states, None, spec.frames)
    assert checked > 0, "the canary never flew"
    for i, v in enumerate(views):
        rep = await client.replay(mid, log["seq"], seat=i)
        assert doc_of(v) == {"view": rep["view"], "status": rep["status"]}
    rep = await client.replay(mid, log["seq"])
    assert doc_of(spec_view) == {"view": rep["view"], "status": rep["status"]}
    assert_log_verifies(game_id, players, {}, log)
    await close_all(*conns, spec)
    await client.aclose()


async def test_live_views_match_the_served_schema(sqlite_server):
    """The view a seat and a spectator receive over the wire matches the schema the server
    publishes at /api/games/<id>/view-schema, which is the file in protocol/schemas."""
    client = TeahouseClient(sqlite_server.url)
    async with httpx.AsyncClient(base_url=sqlite_server.url, timeout=30) as http:
        for game_id in GAMES:
            served = await http.get(f"/api/games/{game_id}/view-schema")
            assert served.status_code == 200
            assert served.content == (ROOT / "protocol" / "schemas" / f"{game_id}.view.json").read_bytes()
            check = jsonschema.Draft202012Validator(served.json())
            g = get_game(game_id)
            mid = (await client.create_match(game_id, g.min_players))["match"]
            tokens = [(await client.take_seat(mid))["token"] for _ in range(g.min_players)]
            conn = await client.connect().open()
            for view in (await conn.spectate(mid), await conn.join(mid, tokens[0])):
                await view.wait_for(lambda v: v.seq >= 1)
                check.validate(view.view)
            await conn.close()
        assert (await http.get("/api/games/chess/view-schema")).status_code == 404
    await client.aclose()
