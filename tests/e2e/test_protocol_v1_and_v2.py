"""A v1 client and a v2 client watch the same match: both documents stay exact (SPEC §6, §12)."""

from __future__ import annotations

import asyncio
import random

import msgpack
import orjson
from teahouse_client import TeahouseClient

from protocol.v2 import Expander, decode_frame
from tests.e2e.helpers import assert_no_leaks, close_all, doc_of, play_resilient, states_by_seq


async def test_v1_and_v2_clients_watch_one_match_to_the_same_documents(sqlite_server):
    v1 = TeahouseClient(sqlite_server.url, version=1)
    v2 = TeahouseClient(sqlite_server.url, version=2)
    v2_json = TeahouseClient(sqlite_server.url, encoding="json", version=2)
    match = await v1.create_match("pixies", 3)
    mid = match["match"]
    seats = [await v1.take_seat(mid, name=f"p{i}") for i in range(3)]
    seat_conns = [await c.connect(record=True).open() for c in (v1, v2, v2_json)]
    views = [await c.join(mid, s["token"]) for c, s in zip(seat_conns, seats, strict=True)]
    spec_conns = [await c.connect(record=True).open() for c in (v1, v2, v2_json)]
    # and one of each version that asked for no sentences (`hello` said: false, SPEC 4.1)
    spec_conns += [await c.connect(record=True, said=False).open() for c in (v1, v2)]
    specs = [await c.spectate(mid) for c in spec_conns]
    assert [c.welcome["protocol"] for c in spec_conns] == [1, 2, 2, 1, 2]

    await asyncio.gather(*[play_resilient(c, mid, random.Random(i)) for i, c in enumerate(seat_conns)])
    for v in specs:
        await v.wait_for(lambda g: g.finished is not None)

    log = await v1.log(mid)
    final = log["seq"]
    for i, v in enumerate(views):
        rep = await v1.replay(mid, final, seat=i)
        assert v.seq == final and doc_of(v) == {"view": rep["view"], "status": rep["status"]}
    rep = await v1.replay(mid, final)
    for v in specs:
        assert v.seq == final and doc_of(v) == {"view": rep["view"], "status": rep["status"]}
    assert sum(v.resyncs for v in views + specs) == 0

    # On the wire: v1 patches are maps, v2 patches arrays [4 ref, seq, ...] (SPEC §12.3) whose
    # msgpack frames are their elements without an array header (12.1), and the v2 client got
    # no patch in the v1 form.
    def patches(frames, decode):
        out = [decode(f) for f in frames]
        return [m for m in out if (isinstance(m, dict) and m.get("type") == "patch") or
                (isinstance(m, list) and m[0] % 4 == 0)]

    def unpack(f):
        return msgpack.unpackb(f, raw=False, strict_map_key=False)

    p1 = patches(spec_conns[0].frames, unpack)
    p2 = patches(spec_conns[1].frames, lambda f: decode_frame(f, "msgpack"))
    p2j = patches(spec_conns[2].frames, orjson.loads)
    assert len(p1) == len(p2) == len(p2j) == final - 1  # the view came at seq 1 (start)
    assert all(isinstance(m, dict) for m in p1)
    assert all(isinstance(m, list) and m[1] == s for m, s in zip(p2, range(2, final + 1), strict=True))
    assert not any(f[0] in (0x91, 0xDC, 0xDD) for f in spec_conns[1].frames)  # no array header
    assert p2 == _int_keys(p2j)  # the same compact patches in both encodings
    bytes_v1 = sum(len(f) for f in spec_conns[0].frames)
    bytes_v2 = sum(len(f) for f in spec_conns[1].frames)
    assert bytes_v2 < bytes_v1

    # The quiet ones: the same patches, without `said`; the others heard every sentence.
    said_by_seq = dict(specs[0].story)
    assert sorted(said_by_seq) == list(range(2, final + 1)) and all(said_by_seq.values())
    assert dict(specs[1].story) == said_by_seq
    q1 = patches(spec_conns[3].frames, unpack)
    assert [{k: v for k, v in m.items() if k != "said"} for m in p1] == q1 and not any("said" in m for m in q1)
    loud, quiet = expanded(spec_conns[1].frames), expanded(spec_conns[4].frames)
    assert [{k: v for k, v in m.items() if k != "said"} for m in loud] == quiet and not any("said" in m for m in quiet)
    assert sum(len(f) for f in spec_conns[4].frames) < bytes_v2
    assert all(said == [] for _, said in specs[3].story + specs[4].story)

    # hidden information: a v2 seat's frames carry no other seat's secret either
    states = states_by_seq("pixies", 3, {}, log["commits"])
    assert assert_no_leaks("pixies", 3, states, 1, seat_conns[1].frames) > 100
    assert assert_no_leaks("pixies", 3, states, None, spec_conns[1].frames) > 100
    await close_all(*seat_conns, *spec_conns)
    for c in (v1, v2, v2_json):
        await c.aclose()


async def test_a_v2_client_reconnecting_mid_match_gets_a_full_view_with_its_key_table(sqlite_server):
    client = TeahouseClient(sqlite_server.url)
    mid = (await client.create_match("pixies", 2))["match"]
    seats = [await client.take_seat(mid) for _ in range(2)]
    conns = [await client.connect().open() for _ in range(2)]
    views = [await c.join(mid, s["token"]) for c, s in zip(conns, seats, strict=True)]
    rng = random.Random(3)
    for _ in range(6):
        for c, v in zip(conns, views, strict=True):
            if v.my_turn:
                moves = await c.legal_moves(mid)
                await c.move(mid, rng.choice(moves))
                break
        await asyncio.sleep(0.05)
    await conns[0].reconnect()  # joins again with `since`: v2 answers with a full view
    await conns[0].matches[mid].wait_for(lambda g: g.seq == views[1].seq)
    await asyncio.gather(*[play_resilient(c, mid, random.Random(i)) for i, c in enumerate(conns)])
    final = (await client.match(mid))["seq"]
    for i, c in enumerate(conns):
        v = c.matches[mid]
        await v.wait_for(lambda g: g.seq == final)
        r = await client.replay(mid, final, seat=i)
        assert doc_of(v) == {"view": r["view"], "status": r["status"]}
    await close_all(*conns)
    await client.aclose()


def expanded(frames):
    """The v2 msgpack frames' patches, expanded to their v1 form (SPEC 12.3)."""
    ex = Expander()
    out = [ex.expand(decode_frame(f, "msgpack")) for f in frames]
    return [m for m in out if m.get("type") == "patch"]


def _int_keys(value):
    """JSON writes the key indices inside v2 values as decimal strings (SPEC §12.4); a patch's
    trailing map of other fields (such as `said`) keeps its names."""
    if isinstance(value, dict):
        return {int(k) if k.lstrip("-").isdigit() else k: _int_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_int_keys(v) for v in value]
    return value
