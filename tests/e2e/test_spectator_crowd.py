"""A crowd of spectators on one match (more than a broadcast writes in one turn of the event
loop, service.match.runtime.FANOUT_CHUNK): every spectator, on every protocol and encoding, gets every
patch once, in seq order (SPEC §6, §12.3), and ends on the document a replay gives; the seats
play on as usual. Real server, real sockets."""

from __future__ import annotations

import asyncio
import random

import msgpack
from teahouse_client import TeahouseClient

from protocol.v2 import decode_frame
from service.match.runtime import FANOUT_CHUNK
from tests.e2e.helpers import doc_of, play_resilient

CROWD = FANOUT_CHUNK + 40


def _patch_seqs(frames: list, json: bool, v1: bool) -> list[int]:
    seqs = []
    for f in frames:
        if v1:
            m = msgpack.unpackb(f, raw=False, strict_map_key=False)
        else:
            m = decode_frame(f, "json" if json else "msgpack")
        if isinstance(m, list) and m[0] % 4 == 0:  # v2 patch: [4 ref + 0, seq, ...] (SPEC 12.3)
            seqs.append(m[1])
        elif isinstance(m, dict) and m.get("type") == "patch":
            seqs.append(m["seq"])
    return seqs


async def test_a_crowd_of_spectators_gets_every_patch_in_order(server):
    v1 = TeahouseClient(server.url, version=1)
    v2 = TeahouseClient(server.url, version=2)
    v2_json = TeahouseClient(server.url, encoding="json", version=2)
    match = await v2.create_match("pixies", 2)
    mid = match["match"]
    seats = [await v2.take_seat(mid, name=f"p{i}") for i in range(2)]
    seat_conns = [await v2.connect().open() for _ in range(2)]
    views = [await c.join(mid, s["token"]) for c, s in zip(seat_conns, seats, strict=True)]
    # mostly v2 msgpack (the rig's clients), some of each other kind among them
    kinds = [(v1, False) if i % 20 == 1 else (v2_json, True) if i % 20 == 2 else (v2, False) for i in range(CROWD)]
    crowd = [await c.connect(record=True).open() for c, _ in kinds]
    specs = list(await asyncio.gather(*(c.spectate(mid) for c in crowd)))
    # one more spectator, gone half-way through: the others must not notice
    leaver = await v2.connect().open()
    await leaver.spectate(mid)

    async def leave_soon() -> None:
        await views[0].wait_for(lambda v: v.seq >= 10, 60)
        await leaver.close()

    await asyncio.gather(leave_soon(), *[play_resilient(c, mid, random.Random(i)) for i, c in enumerate(seat_conns)])
    for v in specs:
        await v.wait_for(lambda g: g.finished is not None, 60)

    final = (await v2.log(mid))["seq"]
    rep = await v2.replay(mid, final)
    for v, conn, (client, json) in zip(specs, crowd, kinds, strict=True):
        assert v.seq == final and doc_of(v) == {"view": rep["view"], "status": rep["status"]}
        assert v.resyncs == 0
        seqs = _patch_seqs(conn.frames, json, client is v1)
        assert seqs == list(range(2, final + 1))  # the view came at seq 1
    for i, v in enumerate(views):
        seat_rep = await v2.replay(mid, final, seat=i)
        assert v.seq == final and doc_of(v) == {"view": seat_rep["view"], "status": seat_rep["status"]}
