"""A match whose last commit is in the log but which was never marked finished (the
node died, or the store went away, between the two writes) is finished as soon as it is loaded.

Reproduced with the real store: the log of a played match is copied to a new match and its last
commit appended directly through the store, without the mark. Then, through the real server, the
summary says finished and reveals the seed, the log and fork routes answer, and the repaired mark
is in the store, whether the match is first loaded by an HTTP route or by a player joining.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random

import httpx
from teahouse_client import TeahouseClient
from teahouse_client.bot import play_seat

from service.match.lobby import new_match_id
from service.store import MatchRecord, open_store
from tests.e2e.helpers import seat_players


async def _played_match(client: TeahouseClient) -> tuple[str, list[dict]]:
    match = (await client.create_match("pixies", 2, {"first_player": 0}))["match"]
    seats, conns, views = await seat_players(client, match, 2, record=False)
    await asyncio.gather(*(play_seat(c, v, random.Random(i)) for i, (c, v) in enumerate(zip(conns, views, strict=True))))
    return match, seats


async def _copy_without_the_mark(store, source: MatchRecord) -> str:
    """The source's log in a new match, its last commit appended on its own and no finished mark."""
    commits = await store.read(source.id)
    copy = dataclasses.replace(source, id=new_match_id(), finished=False, result=None)
    await store.create_match(copy, commits[:-1])
    await store.append(copy.id, commits[-1])
    assert not (await store.get_match(copy.id)).finished
    return copy.id


async def test_a_match_whose_log_is_over_is_finished_on_load(server, store_url):
    client = TeahouseClient(server.url)
    match, seats = await _played_match(client)
    store = open_store(store_url)
    try:
        source = await store.get_match(match)
        assert source is not None and source.finished
        by_route, by_join = [await _copy_without_the_mark(store, source) for _ in range(2)]

        async with httpx.AsyncClient(base_url=server.url) as http:
            # First loaded by the summary route.
            summary = (await http.get(f"/api/matches/{by_route}")).json()
            assert summary["state"] == "finished", summary
            assert summary["seed"] == source.seed and summary["result"] == source.result
            assert (await store.get_match(by_route)).finished  # repaired in the store, not just shown
            log = await http.get(f"/api/matches/{by_route}/log")
            assert log.status_code == 200 and len(log.json()["commits"]) == summary["seq"]
            fork = await http.post(f"/api/matches/{by_route}/fork", json={"seq": 1})
            assert fork.status_code == 201, fork.text

            # First loaded by a player joining it over the WebSocket (the same seat tokens).
            conn = await client.connect().open()
            view = await conn.join(by_join, seats[0]["token"])
            await view.wait_for(lambda mv: mv.finished is not None, timeout=10)
            assert view.finished["seed"] == source.seed
            assert (await store.get_match(by_join)).finished
            assert (await http.get(f"/api/matches/{by_join}")).json()["state"] == "finished"
    finally:
        await store.close()
