"""A seat cannot switch off its own turn clock.

The attack: the clock used to commit with the predictable move id `clock:<seq>:<seat>` in the
seat's own id space, so a seat that first sent a refused move with that id made the clock's
commit answer from the remembered refusal, and the match stopped for ever. System moves now
live in an id space no client can write to (SPEC 4.5, code `reserved_id`)."""

from __future__ import annotations

import pytest
from teahouse_client import TeahouseClient
from teahouse_client.client import Rejected, ServerError

from tests.e2e.helpers import close_all, seat_players


async def test_a_refused_move_with_the_clock_id_does_not_stop_the_clock(sqlite_server):
    client = TeahouseClient(sqlite_server.url)
    mid = (await client.create_match("pixies", 2, turn_seconds=1))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    await views[0].wait_for(lambda g: g.seq >= 1 and g.deadline is not None, timeout=10)
    seq = views[0].seq
    to_act = views[0].status["to_act"]
    for seat in to_act:
        conn = conns[seat]
        # the ids the clock used (old scheme) and the ones it uses now: the first is an
        # ordinary client id (refused by the rules), the second is refused before the rules
        with pytest.raises(Rejected):
            await conn.move(mid, {"type": "no_such_move"}, f"clock:{seq}:{seat}")
        with pytest.raises(ServerError) as err:
            await conn.move(mid, {"type": "no_such_move"}, f"sys:clock:{seq}:{seat}")
        assert err.value.code == "reserved_id"
    # nobody moves: the clock must play for the waiting seat
    await views[0].wait_for(lambda g: g.seq > seq, timeout=10)
    log_seq = (await client.match(mid))["seq"]
    assert log_seq > seq
    await close_all(*conns)
    await client.aclose()


async def test_every_system_prefix_is_refused_to_clients(sqlite_server):
    client = TeahouseClient(sqlite_server.url)
    mid = (await client.create_match("pixies", 2))["match"]
    seats, conns, views = await seat_players(client, mid, 2, record=False)
    seat = views[0].status["to_act"][0]
    legal = await conns[seat].legal_moves(mid)
    with pytest.raises(ServerError) as err:
        await conns[seat].move(mid, legal[0], "sys:start")
    assert err.value.code == "reserved_id"
    assert (await client.match(mid))["seq"] == 1, "a refused id never touches the log"
    assert await conns[seat].move(mid, legal[0], "mine-1") == 2
    await close_all(*conns)
    await client.aclose()
