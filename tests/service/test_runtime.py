"""The match runtime over real stores: snapshots, eviction, and two nodes racing."""

from __future__ import annotations

import asyncio
import dataclasses

import msgpack
import pytest

from service.games import IllegalMove, fold, get_game
from service.match.lobby import Lobby
from service.match.runtime import SNAPSHOT_EVERY
from service.store import open_store


class Collector:
    encoding = "msgpack"

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def deliver(self, data: bytes) -> None:
        self.frames.append(data)


@pytest.fixture(params=["sqlite", "redis"])
async def store(request, tmp_path):
    url = f"sqlite:{tmp_path / 'db'}" if request.param == "sqlite" else request.getfixturevalue("redis_url")
    s = open_store(url)
    yield s
    await s.close()


async def started(lobby: Lobby, players: int = 2) -> str:
    rec = await lobby.create("pixies", players)
    for _ in range(players):
        await lobby.take_seat(rec.id)
    return rec.id


async def play(lobby: Lobby, mid: str, commits: int) -> None:
    rt = await lobby.runtime(mid)
    g = rt.game
    while rt.seq < commits and not g.status(rt.state)["finished"]:
        seat = g.status(rt.state)["to_act"][0]
        await rt.submit(seat, g.legal_moves(rt.state, seat)[0], f"m{rt.seq}")


async def test_reload_from_snapshot_equals_the_fold(store):
    lobby = Lobby(store)
    mid = await started(lobby, 3)
    await play(lobby, mid, SNAPSHOT_EVERY + 7)
    live = await lobby.runtime(mid)
    assert (await store.load_snapshot(mid))[0] == SNAPSHOT_EVERY
    other = Lobby(store)  # a second node, or this one after a restart
    again = await other.runtime(mid)
    g = get_game("pixies")
    events = [e for c in await store.read(mid) for e in c.events]
    assert again.seq == live.seq and again.state == live.state == fold(g, events, g.initial({}, 3))
    # move ids from before the snapshot still answer retries
    first = next(c for c in await store.read(mid) if c.move_id)
    assert await again.submit(first.seat, first.command, first.move_id) == first.seq
    await lobby.close()
    await other.close()


async def test_idle_runtimes_are_dropped_and_come_back_from_the_log(store):
    lobby = Lobby(store, idle_seconds=0)
    mid = await started(lobby)
    await play(lobby, mid, 5)
    rt = await lobby.runtime(mid)
    watcher = Collector()
    rt.attach(watcher, None, None)
    assert await lobby.sweep() == 0, "a watched match stays"
    rt.detach(watcher)
    assert await lobby.sweep() == 1 and lobby.live_count == 0
    back = await lobby.runtime(mid)
    assert back is not rt and back.seq == rt.seq and back.state == rt.state
    await lobby.close()


async def test_two_nodes_racing_on_one_seq(store):
    a, b = Lobby(store), Lobby(store)
    mid = await started(a)
    ra, rb = await a.runtime(mid), await b.runtime(mid)
    await rb._catch_up()
    g = ra.game
    for round_ in range(6):
        seq = ra.seq
        assert rb.seq == seq
        seat = g.status(ra.state)["to_act"][0]
        move = g.legal_moves(ra.state, seat)[0]
        results = await asyncio.gather(ra.submit(seat, move, f"a{round_}"), rb.submit(seat, move, f"b{round_}"),
                                       return_exceptions=True)
        wins = [r for r in results if isinstance(r, int)]
        # the loser decided again on the winner's result: its move is either refused
        # (not its turn any more, the card is gone) or legal there and committed next
        assert seq + 1 in wins
        for r in results:
            assert isinstance(r, (int, IllegalMove)), r
        await ra._catch_up()
        await rb._catch_up()
        assert ra.state == rb.state and ra.seq == rb.seq == seq + len(wins)
    log = await store.read(mid)
    assert [c.seq for c in log] == list(range(1, len(log) + 1))
    # the same move id sent to both nodes at once is committed once and acked twice
    seat = g.status(ra.state)["to_act"][0]
    move = g.legal_moves(ra.state, seat)[0]
    s1, s2 = await asyncio.gather(ra.submit(seat, move, "same"), rb.submit(seat, move, "same"))
    assert s1 == s2
    assert sum(1 for c in await store.read(mid) if c.move_id == "same") == 1
    await a.close()
    await b.close()


async def test_legal_moves_are_computed_once_per_seq_and_seat_and_forgotten_at_each_commit(store):
    """A flood of `legal` on one seq costs one computation; a commit invalidates it."""
    lobby = Lobby(store)
    rec = await lobby.create("khan", 2)
    for _ in range(2):
        await lobby.take_seat(rec.id)
    rt = await lobby.runtime(rec.id)
    seat = rt.game.status(rt.state)["to_act"][0]
    pages = rt.legal_pages(seat, 500)
    assert rt.legal_pages(seat, 500) is pages  # the same frames, not computed again
    expected = rt.game.legal_moves(rt.state, seat)
    decoded = [msgpack.unpackb(p.encoded("msgpack")) for p in pages]
    assert [m for d in decoded for m in d["moves"]] == expected
    assert {d["seq"] for d in decoded} == {rt.seq} and decoded[0]["pages"] == len(pages) == -(-len(expected) // 500)
    await rt.submit(seat, expected[0], "m1")
    after = rt.legal_pages(seat, 500)
    assert after is not pages and msgpack.unpackb(after[0].encoded("msgpack"))["seq"] == rt.seq
    await lobby.close()


class HeldStore:
    """A store whose appends wait for `release` (then append, or raise `fail`): what a match
    shows while its commit is in flight."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.release = asyncio.Event()
        self.waiting = asyncio.Event()
        self.fail: Exception | None = None

    def __getattr__(self, name):
        return getattr(self.inner, name)

    async def append(self, match_id, commit, own=None):
        self.waiting.set()
        await self.release.wait()
        self.waiting.clear()
        if self.fail is not None:
            raise self.fail
        await self.inner.append(match_id, commit, own=own)


class Client(Collector):
    """A protocol v2 client's document, patched from what it receives."""

    encoding = "quiet.v2.msgpack"

    def __init__(self) -> None:
        super().__init__()
        from protocol.v2 import Expander

        self.expander = Expander()
        self.doc = None
        self.seq = 0

    def deliver(self, data: bytes) -> None:
        from protocol.patch import apply
        from protocol.v2 import decode_frame

        super().deliver(data)
        msg = self.expander.expand(decode_frame(data, "v2.msgpack"))
        if isinstance(msg, dict) and msg.get("type") == "view":
            self.doc, self.seq = msg["doc"], msg["seq"]
        elif isinstance(msg, dict) and msg.get("type") == "patch":
            assert msg["seq"] == self.seq + 1
            self.doc, self.seq = apply(self.doc, msg["ops"]), msg["seq"]


async def _held_runtime(store, tmp_path):
    held = HeldStore(store)
    lobby = Lobby(held)
    held.release.set()
    mid = await started(lobby, 3)
    await play(lobby, mid, 4)
    held.release.clear()
    return held, lobby, await lobby.runtime(mid)


async def _move(rt):
    seat = rt.game.status(rt.state)["to_act"][0]
    return asyncio.create_task(rt.submit(seat, rt.game.legal_moves(rt.state, seat)[0], f"held{rt.seq}"))


async def test_nothing_is_sent_before_the_append_returns_yet_the_work_is_done_while_it_is_in_flight(store, tmp_path):
    """The commit's state and frames are made while its append is in flight, and
    nobody sees any of it (a frame, the state, a full view) until the append returned."""
    held, lobby, rt = await _held_runtime(store, tmp_path)
    watchers = {a: Client() for a in (0, 1, None)}
    for a, w in watchers.items():
        rt.attach(w, a, None)
    before = {a: len(w.frames) for a, w in watchers.items()}
    seq, state = rt.seq, rt.state
    task = await _move(rt)
    await held.waiting.wait()
    for _ in range(5):
        await asyncio.sleep(0)
    views = []
    real = rt.projection.game
    rt.projection.game = dataclasses.replace(real, view=lambda s, seat: views.append(seat) or real.view(s, seat))
    try:
        assert {a: len(w.frames) for a, w in watchers.items()} == before, "a frame left before the append"
        assert rt.seq == seq and rt.state is state
        late = Client()  # a connection joining now is shown the match as it is in the log
        rt.attach(late, 0, None)
        assert late.seq == seq and late.doc == rt.projection.document(state, 0)
        views.clear()  # (that check's own view)
        held.release.set()
        assert await task == seq + 1
    finally:
        rt.projection.game = real
    assert views == [], "the views were computed after the append returned"
    for a, w in [*watchers.items(), (0, late)]:
        assert w.seq == seq + 1 and w.doc == rt.projection.document(rt.state, a)
    await lobby.close()


async def test_a_failed_append_leaves_no_trace_and_watchers_come_and_go_meanwhile(store, tmp_path):
    """A commit whose append fails after its frames were made is forgotten (state, tables,
    resync window); watchers that came (a new seat, a second connection) or went meanwhile
    follow the next commits correctly."""
    from service.store import StoreUnavailable

    held, lobby, rt = await _held_runtime(store, tmp_path)
    first = {0: Client(), None: Client()}
    for a, w in first.items():
        rt.attach(w, a, None)
    seq, state = rt.seq, rt.state
    def tables():
        p = rt.projection
        return ([(list(ap.keys.keys), list(ap.keys.paths), set(ap.keys._once)) for ap in p._audiences.values()],
                list(p.sentences.sentences), set(p.sentences._once))

    before = tables()
    recent = [list(ap.recent) for ap in rt.projection._audiences.values()]
    held.fail = StoreUnavailable("gone")
    task = await _move(rt)
    await held.waiting.wait()
    await asyncio.sleep(0)
    held.release.set()
    with pytest.raises(StoreUnavailable):
        await task
    assert rt.seq == seq and rt.state is state
    assert tables() == before
    assert [list(ap.recent) for ap in rt.projection._audiences.values()] == recent
    held.fail = None
    for round_ in range(3):
        held.release.clear()
        task = await _move(rt)
        await held.waiting.wait()
        await asyncio.sleep(0)
        # while it is in flight: a new audience, a second connection, an audience leaving
        joined = {1: Client(), 0: Client()}
        for a, w in joined.items():
            rt.attach(w, a, None)
        if round_ == 1:
            rt.detach(first.pop(None))
        held.release.set()
        await task
        for a, w in [*first.items(), *joined.items()]:
            assert w.seq == rt.seq and w.doc == rt.projection.document(rt.state, a), (round_, a)
        for w in joined.values():
            rt.detach(w)
    await lobby.close()


async def test_a_commit_whose_frames_fail_ahead_is_made_after_its_append(store, tmp_path):
    """Work ahead that fails (here: encoding its frames) is undone and done again after the
    append, the old way: the watchers, old and new, follow the match all the same."""
    held, lobby, rt = await _held_runtime(store, tmp_path)
    held.release.set()
    watchers = {0: Client(), None: Client()}
    for a, w in watchers.items():
        rt.attach(w, a, None)

    def fail(prepared):
        raise RuntimeError("an encoder that breaks")

    rt.fanout.encode_ahead = fail
    for _ in range(3):
        await (await _move(rt))
    del rt.fanout.encode_ahead
    watchers[1] = Client()  # shown the tables as the clients hold them
    rt.attach(watchers[1], 1, None)
    for _ in range(3):
        await (await _move(rt))
    for a, w in watchers.items():
        assert w.seq == rt.seq and w.doc == rt.projection.document(rt.state, a), a
    await lobby.close()


async def test_a_commit_folds_its_events_once_and_takes_the_status_of_its_state_once(store, monkeypatch):
    """Whatever watches the match (every audience, a turn clock, a seat bot's table), applying a
    commit evolves each of its events once and asks the game for the new state's status once."""
    import service.match.runtime as runtime

    real = get_game("pixies")
    evolved: list[object] = []
    asked: list[object] = []

    def evolve(state, event):
        evolved.append(event)
        return real.evolve(state, event)

    def status(state):
        asked.append(state)
        return real.status(state)

    counting = dataclasses.replace(real, evolve=evolve, status=status)
    monkeypatch.setattr(runtime, "get_game", lambda game_id: counting)
    lobby = Lobby(store)
    rec = await lobby.create("pixies", 3, turn_seconds=600)
    for _ in range(3):
        await lobby.take_seat(rec.id)
    mid = rec.id
    rt = await lobby.runtime(mid)
    for audience in (0, 1, 2, None):
        rt.attach(Client(), audience, None)
    for k in range(12):
        seat = real.status(rt.state)["to_act"][0]
        move = real.legal_moves(rt.state, seat)[0]
        evolved.clear()
        asked.clear()
        seq = await rt.submit(seat, move, f"k{k}")
        (commit,) = await store.read(mid, seq - 1)
        assert evolved == commit.events, "each event evolved once"
        assert sum(1 for s in asked if s is rt.state) == 1, "the new state's status asked once"
    await lobby.close()


async def test_a_log_that_went_backwards_is_counted_by_the_lobby_that_holds_the_match(store):
    """The lobby counts the matches its runtimes found diverged (for /health and the gauge);
    another lobby (another node) counts its own."""
    lobby, other = Lobby(store), Lobby(store)
    mid = await started(lobby)
    await play(lobby, mid, 4)
    rt = await lobby.runtime(mid)
    await rt._diverge(2)
    assert rt.closed and rt.diverged is not None and rt.diverged["log_seq"] == 2
    assert lobby.diverged_count == 1 and other.diverged_count == 0
    await lobby.close()
    await other.close()
