"""service/store/follower.py: one tail of a Redis stream, as its docstring and EventStore.tail
state it: every commit above the tail's seq once, in order, whichever readers bring it; the
reader's own append passed over without being decoded or queued (known by its reply or by its
bytes), and handed over after all if that append's reply was lost; a log shorter than the tail
raises LogRewound. Entries come as Redis sends them: RESP2 flat field lists or RESP3 maps."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from service.store import Commit, LogRewound
from service.store.follower import Follower, entry_commits, offer_entries

KEY = "th:{m1}:log"


def commit(seq: int, seat: int | None = 0) -> Commit:
    return Commit(seq=seq, seat=seat, command={"type": "take", "n": seq}, events=[{"type": "taken", "n": seq}],
                  move_id=f"mv{seq}", ts=1_780_000_000_000 + seq)


def resp2(c: Commit) -> list:
    return [f"{c.seq}-0".encode(), [b"c", c.pack()]]


def resp3(c: Commit) -> list:
    return [f"{c.seq}-0".encode(), {b"c": c.pack()}]


def queued(f: Follower) -> list[int]:
    """The seqs waiting in the follower's queue, in order (taken out)."""
    out: list[int] = []
    while not f.queue.empty():
        item = f.queue.get_nowait()
        assert isinstance(item, list)
        out += [c.seq for c in item]
    return out


def test_offer_queues_only_what_the_tail_does_not_have():
    f = Follower(KEY, after=2)
    f.offer([commit(1), commit(2), commit(3), commit(4)])
    f.offer([commit(3), commit(4), commit(5)])  # a second reader overlapping the first
    assert queued(f) == [3, 4, 5]
    assert f.after == 5


def test_entries_in_either_resp_form_are_the_same_commits():
    entries2 = [resp2(commit(s)) for s in (1, 2)]
    entries3 = [resp3(commit(s)) for s in (1, 2)]
    assert entry_commits(entries2) == entry_commits(entries3) == [commit(1), commit(2)]


async def test_entries_as_a_real_redis_returns_them(redis_url):
    for protocol in (2, 3):
        client = aioredis.Redis.from_url(redis_url, protocol=protocol)
        try:
            await client.delete(KEY)
            for s in (1, 2, 3):
                await client.xadd(KEY, {"c": commit(s).pack()}, id=f"{s}-0")
            entries = await client.xrange(KEY)
        finally:
            await client.aclose()
        assert entry_commits(entries) == [commit(1), commit(2), commit(3)]
        f = Follower(KEY, after=1)
        offer_entries([f], entries)
        assert queued(f) == [2, 3]


def test_offer_entries_skips_what_each_follower_has_and_decodes_each_entry_once():
    a, b = Follower(KEY, after=0), Follower(KEY, after=2)
    offer_entries([a, b], [resp2(commit(s)) for s in (1, 2, 3)])
    ta, tb = a.queue.get_nowait(), b.queue.get_nowait()
    assert isinstance(ta, list) and isinstance(tb, list)
    assert [c.seq for c in ta] == [1, 2, 3] and [c.seq for c in tb] == [3]
    assert ta[2] is tb[0], "one decode for both followers"
    offer_entries([a, b], [resp2(commit(s)) for s in (2, 3)])  # brought again: nothing new
    assert a.queue.empty() and b.queue.empty()


def test_an_entry_no_follower_needs_is_never_decoded():
    f = Follower(KEY, after=5)
    offer_entries([f], [[b"4-0", [b"c", b"\xc1 not msgpack"]], [b"5-0", {b"c": b"\xc1"}]])
    assert f.queue.empty()


# -- the reader's own append -------------------------------------------------------------------

def test_own_append_whose_reply_came_first_is_passed_undecoded():
    f = Follower(KEY, after=3)
    own = commit(4)
    f.expect(4, own.pack())
    f.appended(own, ok=True)
    assert f.after == 4
    # The stream brings it later; its bytes are not even looked at.
    offer_entries([f], [[b"4-0", [b"c", b"\xc1 not msgpack"]], resp2(commit(5, seat=1))])
    assert queued(f) == [5]


def test_own_append_brought_before_its_reply_is_known_by_its_bytes():
    f = Follower(KEY, after=3)
    own = commit(4)
    f.expect(4, own.pack())
    offer_entries([f], [resp2(own), resp2(commit(5, seat=1))])
    assert queued(f) == [5]
    f.appended(own, ok=True)  # the reply arrives afterwards: nothing more happens
    assert f.queue.empty() and f.after == 5


def test_own_append_whose_reply_was_lost_is_handed_over():
    f = Follower(KEY, after=3)
    own = commit(4)
    f.expect(4, own.pack())
    offer_entries([f], [resp2(own)])  # taken for ours
    assert f.queue.empty()
    f.appended(own, ok=False)  # ...but the append failed: the entry is in the log all the same
    assert queued(f) == [4]


def test_a_failed_append_not_brought_by_the_stream_hands_over_nothing():
    f = Follower(KEY, after=3)
    own = commit(4)
    f.expect(4, own.pack())
    f.appended(own, ok=False)
    assert f.queue.empty() and f.after == 3
    other = commit(4, seat=1)  # another writer's commit 4, brought later, is the log's
    offer_entries([f], [resp2(other)])
    assert queued(f) == [4]


def test_another_writers_commit_at_the_expected_seq_is_queued():
    f = Follower(KEY, after=3)
    f.expect(4, commit(4).pack())
    theirs = commit(4, seat=1)  # another node won seq 4: other bytes
    offer_entries([f], [resp2(theirs)])
    item = f.queue.get_nowait()
    assert item == [theirs]


def test_an_append_that_returns_while_the_tail_is_behind_does_not_move_it():
    f = Follower(KEY, after=2)
    own = commit(4)
    f.expect(4, own.pack())
    f.appended(own, ok=True)  # commit 3 (someone else's) is not here yet
    assert f.after == 2
    offer_entries([f], [resp2(commit(3, seat=1)), resp2(own)])
    # The tail was not right behind it: the others' commit 3 comes, and the own one may come
    # too (EventStore.tail), once, after it.
    assert queued(f) in ([3], [3, 4])
    assert f.after == 4


# -- the log going backwards ---------------------------------------------------------------------

async def test_a_log_below_the_tail_raises_log_rewound():
    f = Follower(KEY, after=7)
    f.offer([commit(8)])
    f.check_top(9, f.after)  # above: fine
    f.check_top(5, f.after)  # below what the tail has
    got: list[int] = []
    with pytest.raises(LogRewound) as rewound:
        async for c in f.commits():
            got.append(c.seq)
    assert got == [8], "what came before the rewind is yielded first"
    assert (rewound.value.match, rewound.value.known, rewound.value.last) == (KEY, 8, 5)


async def test_commits_waits_for_new_ones():
    f = Follower(KEY, after=0)
    gen = f.commits()
    nxt = asyncio.ensure_future(gen.__anext__())
    await asyncio.sleep(0.01)
    assert not nxt.done()
    f.offer([commit(1)])
    assert (await asyncio.wait_for(nxt, 1)).seq == 1
    await gen.aclose()


async def test_an_own_append_answered_while_the_top_is_read_is_not_a_rewind():
    """The check reads the top, and the node's own append (on another connection) is answered
    before that read's reply: the top is one below the follower's new position, and nothing was
    lost. Compared with the position from before the read, it is not a rewind; a top below that
    position still is."""
    f = Follower(KEY, after=39)
    had = f.after              # the check sends its read of the top here: Redis answers 39
    f.expect(40, b"forty")     # meanwhile the node appends 40 and is answered first
    f.appended(commit(40), ok=True)
    assert f.after == 40
    f.check_top(39, had)       # the read's reply comes now
    assert f.queue.empty(), "a false `diverged` would stop a healthy match for good"
    f.check_top(38, had)       # a real loss: below what the follower had when the read went out
    item = f.queue.get_nowait()
    assert isinstance(item, LogRewound) and (item.known, item.last) == (39, 38)
