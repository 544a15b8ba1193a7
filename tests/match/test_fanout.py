"""service.match.fanout: every watcher of an audience gets its audience's frame, the same bytes
for every connection of an encoding; a crowd is served over several turns of the loop, in order."""

from __future__ import annotations

import asyncio

from protocol import messages
from service.match.fanout import FANOUT_CHUNK, Fanout, fan_out
from service.match.projection import Frame
from tests.match.conftest import Inbox


class Msgpack(Inbox):
    encoding = "msgpack"

    def deliver(self, data: bytes) -> None:
        self.raw.append(data)


def frame(n: int) -> Frame:
    return Frame(messages.pong(n))


def test_one_encoding_one_set_of_bytes_for_every_connection():
    js, mp = [Inbox() for _ in range(3)], [Msgpack() for _ in range(2)]
    f = frame(1)
    fan_out(f, [*js, *mp])
    assert all(w.messages == [{"type": "pong", "nonce": 1}] for w in js)
    assert {id(w.raw[0]) for w in mp} == {id(f.encoded("msgpack"))}, "encoded once, shared"
    assert {id(w.raw[0]) for w in js} == {id(f.encoded("json"))}


async def test_each_audience_gets_its_own_frame_and_unwatched_ones_go_nowhere():
    out = Fanout()
    seat0, seat1, spectator = Inbox(), Inbox(), Inbox()
    out.add(seat0, 0)
    out.add(seat1, 1)
    out.add(spectator, None)
    out.send({0: frame(0), 1: frame(1), None: frame(9), 2: frame(2)})
    assert [m["nonce"] for m in seat0.messages] == [0]
    assert [m["nonce"] for m in seat1.messages] == [1]
    assert [m["nonce"] for m in spectator.messages] == [9]
    out.send_all(frame(5))
    assert all(w.messages[-1]["nonce"] == 5 for w in (seat0, seat1, spectator))
    assert out.counts(3) == ([1, 1, 0], 1)


async def test_a_crowd_is_served_in_later_turns_in_order_after_the_seats():
    out = Fanout()
    seat = Inbox()
    crowd = [Inbox() for _ in range(FANOUT_CHUNK + 50)]
    out.add(seat, 0)
    for w in crowd:
        out.add(w, None)
    out.send({None: frame(1), 0: frame(10)})
    out.send({None: frame(2)})
    assert [m["nonce"] for m in seat.messages] == [10], "the seat is not held up by the crowd"
    assert sum(1 for w in crowd if w.messages) == 0, "no crowd member is written in the commit's own turn"
    await asyncio.sleep(0)
    served = sum(1 for w in crowd if w.messages)
    assert 0 < served <= FANOUT_CHUNK, "one turn of the loop writes at most FANOUT_CHUNK connections"
    for _ in range(10):
        await asyncio.sleep(0)
    assert all([m["nonce"] for m in w.messages] == [1, 2] for w in crowd)


async def test_flush_and_remove_send_what_was_deferred_first():
    out = Fanout()
    crowd = [Inbox() for _ in range(FANOUT_CHUNK + 1)]
    for w in crowd:
        out.add(w, None)
    out.send({None: frame(1)})
    assert out.remove(crowd[-1]) == [], "the spectators are still watched"
    assert crowd[-1].messages == [{"type": "pong", "nonce": 1}], "it got its frame before it left"
    out.send({None: frame(2)})
    out.flush()
    assert all([m["nonce"] for m in w.messages] == [1, 2] for w in crowd[:-1])
    await asyncio.sleep(0)
    assert all(len(w.messages) == 2 for w in crowd[:-1]), "nothing is sent twice after a flush"
    for w in crowd[:-1]:
        out.remove(w)
    assert out.watchers == {}


async def test_remove_reports_the_audiences_nobody_watches_any_more():
    out = Fanout()
    a, b = Inbox(), Inbox()
    out.add(a, 0)
    out.add(b, 0)
    out.add(a, None)
    assert out.remove(a) == [None]
    assert out.remove(b) == [0]


async def test_encode_ahead_encodes_the_bytes_in_the_watchers_encodings():
    out = Fanout()
    js, mp = Inbox(), Msgpack()
    out.add(js, 0)
    out.add(mp, 1)
    f0, f1, unwatched = frame(0), frame(1), frame(2)
    out.encode_ahead({0: f0, 1: f1, 2: unwatched})
    assert set(f0._bytes) == {"json"} and set(f1._bytes) == {"msgpack"}
    assert not unwatched._bytes, "no watcher, no work"
    made = f0._bytes["json"], f1._bytes["msgpack"]
    out.send({0: f0, 1: f1})
    assert js.raw[0] is made[0] and mp.raw[0] is made[1], "the bytes made ahead are the ones sent"
