"""A client's padding never reaches the permanent log.

Over a real socket, on both stores: a legal move with an extra field is refused with
`unknown_field` and the log does not grow; a legal move is stored with its declared fields
only, and its move id is kept so that a retry gets the same acknowledgement.
"""

from __future__ import annotations

import pytest
from teahouse_client import TeahouseClient
from teahouse_client.client import Rejected

from service.store import open_store

PAD = "x" * 60_000


@pytest.mark.parametrize("game_id,players", [("khan", 2), ("china", 3), ("hieroglyphs", 2)])
async def test_padding_is_refused_and_never_stored(server, store_url, game_id, players):
    client = TeahouseClient(server.url)
    conns = []
    try:
        mid = (await client.create_match(game_id, players))["match"]
        tokens = [(await client.take_seat(mid))["token"] for _ in range(players)]
        to_act = (await client.replay(mid))["status"]["to_act"][0]
        conn = await client.connect().open()
        conns.append(conn)
        await conn.join(mid, tokens[to_act])
        before = (await client.match(mid))["seq"]
        move = (await conn.legal_moves(mid))[0]

        with pytest.raises(Rejected) as refused:
            await conn.move(mid, {**move, "pad": PAD}, move_id="padded-1")
        assert refused.value.code == "unknown_field"
        assert (await client.match(mid))["seq"] == before, "a refused move is not in the log"

        seq = await conn.move(mid, move, move_id="clean-1")
        assert seq == before + 1
        assert await conn.move(mid, move, move_id="clean-1") == seq, "a retry is acknowledged again"

        store = open_store(store_url)
        try:
            commits = await store.read(mid)
        finally:
            await store.close()
        assert len(commits) == seq
        stored = commits[-1]
        assert stored.command == move and stored.move_id == "clean-1"
        assert all(PAD not in repr(c.command) for c in commits)
    finally:
        for c in conns:
            await c.close()
        await client.aclose()
