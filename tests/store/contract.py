"""The store contract: every backend subclasses StoreContract and supplies `store`."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

import pytest

from service.games import fold, get_game
from service.games.playout import playout
from service.store import Claim, Commit, Conflict, EventStore, MatchRecord, Rejected, SeatRecord


def commit(seq: int, seat: int | None = 0, move_id: str | None = None) -> Commit:
    return Commit(seq=seq, seat=seat, command={"type": "noop", "n": seq},
                  events=[{"type": "nooped", "n": seq}], move_id=move_id, ts=int(time.time() * 1000))


def _set_everywhere(monkeypatch: pytest.MonkeyPatch, name: str, value: int) -> None:
    """A store limit set in every backend's module (each reads it from its own globals)."""
    from service.store import redis, redis_cluster, sqlite

    for module in (redis, redis_cluster, sqlite):
        if hasattr(module, name):
            monkeypatch.setattr(module, name, value)


def record(match_id: str, players: int = 3, listed: bool = True) -> MatchRecord:
    return MatchRecord(id=match_id, game="pixies", players=players, options={}, listed=listed,
                       seed="s", seed_sha256="h", created=int(time.time() * 1000),
                       seats=[SeatRecord(seat=i) for i in range(players)])


class StoreContract:
    @pytest.fixture
    async def store(self) -> EventStore:  # pragma: no cover - each backend overrides it
        raise NotImplementedError

    async def test_append_and_read_ranges(self, store):
        for seq in range(1, 11):
            await store.append("m1", commit(seq))
        assert [c.seq for c in await store.read("m1")] == list(range(1, 11))
        assert [c.seq for c in await store.read("m1", after=3, until=6)] == [4, 5, 6]
        assert await store.read("m1", after=10) == []
        assert await store.last_seq("m1") == 10
        assert await store.last_seq("nobody") == 0
        got = (await store.read("m1", after=4, until=5))[0]
        assert (got.command, got.events) == ({"type": "noop", "n": 5}, [{"type": "nooped", "n": 5}])

    async def test_commit_round_trips_every_field(self, store):
        c = Commit(seq=1, seat=None, command={"type": "start"}, events=[{"type": "x", "cards": ["A", "B"]}],
                   move_id="mv-1", ts=1234)
        await store.append("m", c)
        assert (await store.read("m")) == [c]

    async def test_duplicate_and_gap_are_conflicts(self, store):
        await store.append("m", commit(1))
        with pytest.raises(Conflict):
            await store.append("m", commit(1))
        with pytest.raises(Conflict):
            await store.append("m", commit(3))
        with pytest.raises(Conflict):
            await store.append("other", commit(2))
        assert [c.seq for c in await store.read("m")] == [1]

    async def test_matches_are_independent(self, store):
        await store.append("a", commit(1))
        await store.append("b", commit(1))
        await store.append("b", commit(2))
        assert await store.last_seq("a") == 1 and await store.last_seq("b") == 2

    async def test_two_writers_racing_never_both_win_a_seq(self, store):
        wins: dict[str, list[int]] = {"w1": [], "w2": []}
        conflicts = 0
        both_read = asyncio.Barrier(2)

        async def writer(name: str) -> None:
            nonlocal conflicts
            for _ in range(40):
                seq = await store.last_seq("race") + 1
                await both_read.wait()  # both have read the same top: they really race for seq
                try:
                    await store.append("race", Commit(seq=seq, seat=0, command={"type": name}, events=[]))
                    wins[name].append(seq)
                except Conflict:
                    conflicts += 1  # lost: reload and try the next seq
                await asyncio.sleep(0)

        await asyncio.gather(writer("w1"), writer("w2"))
        assert conflicts >= 40, "every round had a loser: the race really happened"
        log = await store.read("race")
        assert [c.seq for c in log] == list(range(1, len(log) + 1)), "no gap"
        assert sorted(wins["w1"] + wins["w2"]) == [c.seq for c in log], "each seq won exactly once"
        for c in log:
            assert c.seq in wins[c.command["type"]], "the stored commit is the winner's"

    async def test_tailing_reader_sees_every_commit_once_in_order(self, store):
        total = 60
        seen: list[int] = []

        async def reader() -> None:
            async for c in store.tail("t", after=0):
                seen.append(c.seq)
                if c.seq == total:
                    return

        task = asyncio.create_task(reader())
        for seq in range(1, total + 1):
            await store.append("t", commit(seq))
            if seq % 7 == 0:
                await asyncio.sleep(0.01)
        await asyncio.wait_for(task, 15)
        assert seen == list(range(1, total + 1))

    async def test_tail_from_the_middle(self, store):
        for seq in range(1, 6):
            await store.append("t2", commit(seq))
        got = []
        async for c in store.tail("t2", after=3):
            got.append(c.seq)
            if c.seq == 5:
                break
        assert got == [4, 5]

    async def test_snapshot_plus_tail_equals_the_full_fold(self, store):
        game = get_game("pixies")
        steps = list(playout(game, 3, "snap-contract"))
        for st in steps:
            await store.append("g", Commit(seq=st.seq, seat=st.seat, command=st.command, events=st.events))
            if st.seq == 10:
                await store.save_snapshot("g", st.seq, st.after)
        await store.save_snapshot("g", 5, steps[4].after)  # an older snapshot never replaces a newer
        seq, state = await store.load_snapshot("g")
        assert seq == 10
        tail = [e for c in await store.read("g", after=seq) for e in c.events]
        full = [e for c in await store.read("g") for e in c.events]
        initial = game.initial({}, 3)
        assert fold(game, tail, state) == fold(game, full, initial) == steps[-1].after
        assert await store.load_snapshot("nothing") is None

    async def test_the_spectator_options_are_kept_with_the_match(self, store):
        rec = record("spec", listed=False)
        rec.spectators, rec.spectator_key_hash, rec.spectator_delay = "link", "key-hash", {"seconds": 30}
        await store.create_match(rec)
        await store.mark_finished("spec", {"scores": [1, 2, 3]})
        got = await store.get_match("spec")
        assert got is not None and got.finished
        assert (got.spectators, got.spectator_key_hash, got.spectator_delay) == ("link", "key-hash", {"seconds": 30})

    async def test_links_are_set_once_whoever_races_and_kept_with_the_match(self, store):
        rec = record("linked", players=2)
        rec.invite_hashes, rec.rematch_of = ["h0", None], {"match": "before", "from_seats": [1, 0]}
        await store.create_match(rec)
        held = await asyncio.gather(*[store.set_link("linked", "rematch", f"m{i}") for i in range(8)])
        assert len(set(held)) == 1 and held[0] in {f"m{i}" for i in range(8)}, held
        assert await store.set_link("linked", "declined:0", "1") == "1"
        got = await store.get_match("linked")
        assert got.links == {"rematch": held[0], "declined:0": "1"}
        assert (got.invite_hashes, got.rematch_of) == (["h0", None], {"match": "before", "from_seats": [1, 0]})
        await store.delete_match("linked")
        await store.create_match(record("linked", players=2))
        assert (await store.get_match("linked")).links == {}, "a deleted match's links go with it"

    async def test_match_records_and_seat_claims(self, store):
        await store.create_match(record("r1", players=2))
        await store.create_match(record("r2", listed=False))
        rec = await store.get_match("r1")
        assert rec.game == "pixies" and rec.players == 2 and [s.taken for s in rec.seats] == [False, False]
        assert await store.claim_seat("r1", 1, "hash-b", "bob")
        assert not await store.claim_seat("r1", 1, "hash-c", "carol"), "a taken seat stays taken"
        rec = await store.get_match("r1")
        assert rec.seats[1].taken and rec.seats[1].token_hash == "hash-b" and rec.seats[1].name == "bob"
        assert [m.id for m in await store.list_matches()] == ["r1"], "unlisted matches are not listed"
        assert await store.get_match("nope") is None
        await store.mark_finished("r1", {"winners": [1]})
        rec = await store.get_match("r1")
        assert rec.finished and rec.result == {"winners": [1]}

    async def test_racing_seat_claims_give_each_seat_once(self, store):
        await store.create_match(record("race-seats", players=4))
        results = await asyncio.gather(*[store.claim_seat("race-seats", i % 4, f"h{i}", None) for i in range(16)])
        assert results.count(Claim.HELD) == 4 and results.count(Claim.REFUSED) == 12

    async def test_a_claim_by_the_token_that_holds_the_seat_is_answered_as_taken(self, store):
        # (the same request again, whose first answer was lost: it must not be refused)
        await store.create_match(record("again", players=2))
        assert await store.claim_seat("again", 0, "hash-a", "ann")
        assert await store.claim_seat("again", 0, "hash-a", "ann")
        assert not await store.claim_seat("again", 0, "hash-b", "bob")
        seats = (await store.get_match("again")).seats
        assert (seats[0].token_hash, seats[0].name, seats[1].taken) == ("hash-a", "ann", False)
        assert not await store.claim_seat("no-such-match", 0, "hash-a", None)

    async def test_the_claim_that_fills_a_match_appends_its_start_in_the_same_write(self, store):
        await store.create_match(record("fill", players=2))
        start = Commit(seq=1, seat=None, command={"type": "start"}, events=[{"type": "started"}],
                       move_id="sys:start", ts=1)
        async with _tailing(store, "fill", object()) as seen:
            assert await store.claim_seat("fill", 0, "hash-a", None, start) is Claim.HELD
            assert await store.last_seq("fill") == 0, "a seat is still free: no start"
            assert await store.claim_seat("fill", 1, "hash-b", None, start) is Claim.STARTED
            assert await store.read("fill") == [start]
            await _until(lambda: seen == [1])
        # the same claim again finds the start there: nothing is appended twice
        assert await store.claim_seat("fill", 1, "hash-b", None, start) is Claim.HELD
        assert await store.last_seq("fill") == 1

    async def test_racing_claims_of_the_last_seats_append_one_start(self, store):
        await store.create_match(record("race-start", players=3))
        start = Commit(seq=1, seat=None, command={"type": "start"}, events=[], move_id="sys:start", ts=1)
        won = await asyncio.gather(*[store.claim_seat("race-start", i % 3, f"h{i}", None, start) for i in range(12)])
        assert sorted(won) == [Claim.REFUSED] * 9 + [Claim.HELD] * 2 + [Claim.STARTED]
        assert [c.seq for c in await store.read("race-start")] == [1]

    async def test_a_claim_appends_no_start_to_a_log_that_has_commits(self, store):
        # a fork starts from its origin's commits: filling it appends nothing
        await store.create_match(record("forked", players=2), [commit(1), commit(2)])
        start = Commit(seq=1, seat=None, command={"type": "start"}, events=[], move_id="sys:start", ts=1)
        for seat in (0, 1):
            assert await store.claim_seat("forked", seat, f"h{seat}", None, start)
        assert [c.command["type"] for c in await store.read("forked")] == ["noop", "noop"]

    # -- refused move ids (SPEC 3.5): one answer from every node ---------------------------
    async def test_a_refused_move_id_keeps_its_first_refusal(self, store):
        assert await store.remember_rejection("ref", 0, "m1", "not_your_turn", "wait") == ("not_your_turn", "wait")
        assert await store.remember_rejection("ref", 0, "m1", "game_over", "over") == ("not_your_turn", "wait")
        assert await store.remember_rejection("ref", 1, "m1", "game_over", "over") == ("game_over", "over"), \
            "a move id is the seat's own"
        assert await store.remember_rejection("ref", None, "m1", "x", "y") == ("x", "y")
        assert await store.remember_rejection("other", 0, "m1", "bad", "b") == ("bad", "b")

    async def test_a_commit_with_a_refused_move_id_is_not_appended(self, store):
        await store.remember_rejection("refapp", 0, "m1", "not_your_turn", "wait")
        with pytest.raises(Rejected) as refused:
            await store.append("refapp", commit(1, seat=0, move_id="m1"))
        assert (refused.value.code, refused.value.message) == ("not_your_turn", "wait")
        assert await store.last_seq("refapp") == 0
        await store.append("refapp", commit(1, seat=1, move_id="m1"))  # another seat's id
        await store.append("refapp", commit(2, seat=0))  # no id
        assert await store.last_seq("refapp") == 2

    async def test_refusals_are_bounded_per_match_and_the_oldest_forgotten(self, store, monkeypatch):
        _set_everywhere(monkeypatch, "REMEMBERED_REJECTIONS", 3)
        for i in range(5):
            await store.remember_rejection("bound", 0, f"m{i}", f"c{i}", "no")
        await store.remember_rejection("bound", 0, "m4", "later", "no")  # known: changes nothing
        got = [(await store.remember_rejection("bound", 0, f"m{i}", "new", "no"))[0] for i in (2, 3, 4)]
        assert got == ["c2", "c3", "c4"]
        assert (await store.remember_rejection("bound", 0, "m0", "new", "no"))[0] == "new", "forgotten"
        await store.append("bound", commit(1, seat=0, move_id="m1"))  # forgotten: appended

    async def test_refusals_expire(self, store, monkeypatch):
        _set_everywhere(monkeypatch, "REJECTION_TTL_MS", 300)
        await store.remember_rejection("ttl", 0, "m1", "first", "no")
        with pytest.raises(Rejected):
            await store.append("ttl", commit(1, seat=0, move_id="m1"))
        await asyncio.sleep(0.4)
        await store.append("ttl", commit(1, seat=0, move_id="m1"))
        assert await store.remember_rejection("ttl", 0, "m2", "second", "no") == ("second", "no")
        await asyncio.sleep(0.4)
        assert await store.remember_rejection("ttl", 0, "m2", "third", "no") == ("third", "no")

    async def test_a_match_created_with_commits_has_them_and_appends_after_them(self, store):
        await store.create_match(record("fk"), [commit(1), commit(2), commit(3)])
        assert await store.get_match("fk") is not None
        assert [c.seq for c in await store.read("fk")] == [1, 2, 3]
        with pytest.raises(Conflict):
            await store.append("fk", commit(3))
        await store.append("fk", commit(4))
        assert await store.last_seq("fk") == 4

    async def test_a_released_seat_is_free_again_only_for_its_holder(self, store):
        await store.create_match(record("rs", players=2))
        assert await store.claim_seat("rs", 0, "hash-a", "ann")
        await store.release_seat("rs", 0, "hash-b")  # not the holder: nothing happens
        assert (await store.get_match("rs")).seats[0].token_hash == "hash-a"
        await store.release_seat("rs", 0, "hash-a")
        seat = (await store.get_match("rs")).seats[0]
        assert (seat.taken, seat.token_hash, seat.name) == (False, None, None)
        assert await store.claim_seat("rs", 0, "hash-c", None)

    # -- what operators need: every match, archiving, deleting, idle seats --------
    async def test_all_matches_lists_unlisted_ones_newest_first_in_pages(self, store):
        for i, listed in enumerate((True, False, True, False)):
            rec = record(f"all{i}", listed=listed)
            rec.created += i  # newest last
            await store.create_match(rec)
        every = [r.id for r in await store.all_matches(0, 100) if r.id.startswith("all")]
        assert every == ["all3", "all2", "all1", "all0"]
        first, second = await store.all_matches(0, 2), await store.all_matches(2, 2)
        assert [r.id for r in first + second if r.id.startswith("all")] == every

    async def test_set_listed_unlists_and_keeps_the_log(self, store):
        await store.create_match(record("arch"))
        await store.append("arch", commit(1))
        await store.set_listed("arch", False)
        assert "arch" not in [r.id for r in await store.list_matches()]
        rec = await store.get_match("arch")
        assert rec is not None and rec.listed is False and await store.last_seq("arch") == 1
        await store.set_listed("arch", True)
        assert "arch" in [r.id for r in await store.list_matches()]

    async def test_an_analysis_is_kept_per_match_and_a_later_one_replaces_it(self, store):
        await store.create_match(record("an1"))
        await store.create_match(record("an2"))
        assert await store.load_analysis("an1") is None
        first = {"method": "playouts", "playouts": 4, "chances": [[0.5, 0.5], [0.25, 0.75]],
                 "key_moments": [{"seq": 1, "seat": 0, "swing": 0.25, "for": 1}]}
        await store.save_analysis("an1", first)
        assert await store.load_analysis("an1") == first
        assert await store.load_analysis("an2") is None
        await store.save_analysis("an1", {**first, "playouts": 8})
        assert (await store.load_analysis("an1"))["playouts"] == 8

    async def test_delete_match_removes_everything(self, store):
        await store.create_match(record("gone"))
        assert await store.claim_seat("gone", 0, "h0", "ada")
        for seq in (1, 2):
            await store.append("gone", commit(seq))
        await store.save_snapshot("gone", 2, {"x": 1})
        await store.mark_finished("gone", {"winner": 0})
        await store.save_analysis("gone", {"chances": [[0.5, 0.5]]})
        await store.delete_match("gone")
        assert await store.get_match("gone") is None
        assert await store.read("gone") == [] and await store.last_seq("gone") == 0
        assert await store.load_snapshot("gone") is None
        assert await store.load_analysis("gone") is None
        assert "gone" not in [r.id for r in await store.all_matches(0, 1000)]
        assert "gone" not in [r.id for r in await store.list_matches()]

    async def test_diverged_matches_are_counted_until_cleared_or_deleted(self, store):
        for mid in ("d1", "d2", "d3"):
            await store.create_match(record(mid))
        assert await store.count_diverged() == 0
        info = {"seen_seq": 5, "log_seq": 3, "node": "n", "ts": 1}
        for mid in ("d1", "d2", "d2"):  # marking twice counts once
            await store.mark_diverged(mid, info)
        assert await store.count_diverged() == 2
        assert (await store.get_match("d2")).diverged == info
        await store.mark_diverged("d1", None)
        assert await store.count_diverged() == 1
        await store.delete_match("d2")
        assert await store.count_diverged() == 0

    async def test_a_claimed_seat_has_a_time_and_is_marked_joined_by_its_token_only(self, store):
        await store.create_match(record("idle"))
        before = int(time.time() * 1000)
        assert await store.claim_seat("idle", 1, "h1", None)
        seat = (await store.get_match("idle")).seats[1]
        assert seat.claimed_at is not None and abs(seat.claimed_at - before) < 5000 and not seat.joined
        await store.mark_joined("idle", 1, "someone else")
        assert not (await store.get_match("idle")).seats[1].joined
        await store.mark_joined("idle", 1, "h1")
        assert (await store.get_match("idle")).seats[1].joined
        await store.release_seat("idle", 1, "h1")
        assert await store.claim_seat("idle", 1, "h2", None)
        assert not (await store.get_match("idle")).seats[1].joined, "a new claim starts unjoined"

    # -- a tail and its own reader's appends (EventStore.tail's `own`) -----------------------
    @pytest.fixture
    async def twin(self) -> EventStore:  # pragma: no cover - each backend overrides it
        """Another store object on the same data: another process, or another node."""
        raise NotImplementedError

    async def test_a_tail_moves_past_its_readers_own_appends_and_yields_everyone_elses(self, store, twin):
        me, neighbour = object(), object()
        got: asyncio.Queue[int] = asyncio.Queue()

        async def reader() -> None:
            async for c in store.tail("own", after=0, own=me):
                await got.put(c.seq)

        async def arrives(seq: int) -> None:
            assert await asyncio.wait_for(got.get(), 15) == seq

        task = asyncio.create_task(reader())
        try:
            await asyncio.sleep(0.3)  # the tail follows the log (on Redis its read is blocked)
            await store.append("own", commit(1), own=me)
            await store.append("own", commit(2), own=me)
            await store.append("own", commit(3), own=neighbour)  # another reader on this node
            await arrives(3)  # 1 and 2 were never yielded: their appender has them
            await store.append("own", commit(4))
            await arrives(4)
            await twin.append("own", commit(5), own=me)  # another node: the token means nothing there
            await arrives(5)
            await store.append("own", commit(6), own=me)
            await twin.append("own", commit(7))
            await arrives(7)  # in order, so 6 was passed, not held back
            assert [c.seq for c in await twin.read("own")] == list(range(1, 8)), "own commits are in the log"
            await asyncio.sleep(0.3)
            assert got.empty()
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def test_own_appends_are_not_decoded_for_the_tail(self, store, monkeypatch):
        """Our XADD wakes our own blocking read on Redis; the tail must pass the entry without
        unpacking it. The reader is given time to bring every entry."""
        me = object()
        async with _tailing(store, "dec", me) as got:
            decoded = 0
            unpack = Commit.unpack.__func__  # type: ignore[attr-defined]

            def counting(cls: type[Commit], data: bytes) -> Commit:
                nonlocal decoded
                decoded += 1
                return unpack(cls, data)

            monkeypatch.setattr(Commit, "unpack", classmethod(counting))
            for seq in range(1, 21):
                await store.append("dec", commit(seq), own=me)
                if seq % 2:
                    await asyncio.sleep(0.01)  # the reader's reply first, or the append's: both
            await asyncio.sleep(0.5)
            assert (decoded, got) == (0, [])
            await store.append("dec", commit(21))
            await _until(lambda: bool(got))
            assert got == [21]

    async def test_own_appends_in_flight_together_still_give_each_commit_at_most_once(self, store):
        """Two appends of one token at once (a runtime makes one at a time, a store must not
        break if someone does not): nothing twice, nothing out of order, others' all there."""
        me = object()
        async with _tailing(store, "twice", me) as got:
            for first in (1, 4, 7):
                outcomes = await asyncio.gather(store.append("twice", commit(first), own=me),
                                                store.append("twice", commit(first + 1), own=me),
                                                return_exceptions=True)
                # (on a cluster the two may travel on two connections: the second can arrive
                # first and conflict; it is sent again)
                assert all(o is None or isinstance(o, Conflict) for o in outcomes), outcomes
                if outcomes[1] is not None:
                    await store.append("twice", commit(first + 1), own=me)
                await store.append("twice", commit(first + 2))
            await _until(lambda: bool(got) and got[-1] == 9)
            assert got == sorted(set(got)) and {3, 6, 9} <= set(got), got

    # -- players --------------------------------------------------------------------------
    async def test_players_are_kept_with_their_key_hash_and_ids_are_unique(self, store):
        from service.store import PlayerRecord

        alice = PlayerRecord(id="alice1", name="Alice", created=1000, key_hash="kh-a")
        assert await store.put_player(alice)
        assert not await store.put_player(PlayerRecord(id="alice1", name="Mallory", created=2000, key_hash="kh-m"))
        assert await store.get_player("alice1") == alice
        assert await store.player_for_key("kh-a") == alice
        assert await store.player_for_key("kh-m") is None
        assert await store.get_player("nobody") is None
        app_user = PlayerRecord(id="chess-app:42", name="Bob", created=3000)
        assert await store.put_player(app_user)
        assert await store.get_player("chess-app:42") == app_user

    async def test_a_seat_claim_keeps_its_player(self, store):
        await store.create_match(record("pm"))
        assert await store.claim_seat("pm", 1, "t1", "Alice", player="alice1")
        assert await store.claim_seat("pm", 0, "t0", "guest")
        seats = (await store.get_match("pm")).seats
        assert [s.player for s in seats] == [None, "alice1", None]
        await store.release_seat("pm", 1, "t1")
        assert (await store.get_match("pm")).seats[1].player is None

    async def test_player_matches_newest_first_and_once_each(self, store):
        await store.add_player_match("alice1", "m-old", 1000)
        await store.add_player_match("alice1", "m-new", 2000)
        await store.add_player_match("alice1", "m-new", 2000)
        await store.add_player_match("bob", "m-bob", 1500)
        assert await store.player_matches("alice1") == ["m-new", "m-old"]
        assert await store.player_matches("carol") == []

    async def test_finished_matches_in_finish_order_per_game(self, store):
        await store.add_finished("pixies", "zz", 2000)
        await store.add_finished("pixies", "bb", 1000)
        await store.add_finished("pixies", "aa", 2000)
        await store.add_finished("pixies", "bb", 9999)  # indexed once: the first time stands
        await store.add_finished("khan", "kk", 500)
        assert await store.finished_matches("pixies") == [(1000, "bb"), (2000, "aa"), (2000, "zz")]
        assert await store.finished_matches("khan") == [(500, "kk")]

    async def test_the_start_commit_keeps_who_played_each_seat(self, store):
        c = Commit(seq=1, seat=None, command={"type": "start"}, events=[], move_id="sys:start", ts=5,
                   players=["alice1", None, "bot:strength-3"])
        await store.append("mp", c)
        assert (await store.read("mp")) == [c]
        assert c.public()["players"] == ["alice1", None, "bot:strength-3"]
        assert "players" not in commit(2).public()


    # -- webhooks ---------------------------------------------------------------------------
    async def test_hooks_are_kept_per_owner_up_to_a_limit(self, store):
        from service.store import HookRecord

        hooks = [HookRecord(id=f"h{i}", owner="alice1", url=f"https://x.example/{i}", events=["your_turn"],
                            secret=f"s{i}", created=1000 + i) for i in range(3)]
        assert await store.add_hook(hooks[0], 2) and await store.add_hook(hooks[1], 2)
        assert not await store.add_hook(hooks[2], 2)
        assert await store.hooks("alice1") == hooks[:2]
        assert await store.hook_owners() == ["alice1"]
        assert await store.remove_hook("alice1", "h0") and not await store.remove_hook("alice1", "h0")
        assert not await store.remove_hook("bob", "h1")
        assert await store.hooks("alice1") == [hooks[1]]
        assert await store.remove_hook("alice1", "h1")
        assert await store.hook_owners() == [] and await store.hooks("alice1") == []

    async def test_a_delivery_is_written_once_claimed_once_and_settled(self, store):
        from service.store import DeliveryRecord

        def dlv(i: str, created: int) -> DeliveryRecord:
            return DeliveryRecord(id=i, owner="alice1", hook="h", event="your_turn", match="m", seq=created,
                                  payload={"id": i, "seq": created}, created=created, next_at=created)

        assert await store.add_deliveries([dlv("d1", 10), dlv("d2", 20)]) == 2
        assert await store.add_deliveries([dlv("d1", 10)]) == 0  # derived again: left as it is
        assert await store.due_deliveries(15, 10) == ["d1"]
        assert await store.due_deliveries(25, 10) == ["d1", "d2"]
        got = await store.claim_delivery("d1", 25, 1000)
        assert got is not None and got.payload == {"id": "d1", "seq": 10} and got.next_at == 1000
        assert await store.claim_delivery("d1", 25, 1000) is None  # leased to the first claimer
        assert await store.due_deliveries(25, 10) == ["d2"]
        assert (await store.claim_delivery("d1", 1000, 2000)) is not None  # the lease ran out
        got.attempts, got.status, got.last_status, got.delivered = 1, "delivered", 200, 30
        await store.save_delivery(got)
        assert await store.claim_delivery("d1", 5000, 6000) is None
        assert await store.add_deliveries([dlv("d1", 10)]) == 0
        assert await store.due_deliveries(5000, 10) == ["d2"]
        d2 = await store.claim_delivery("d2", 25, 100)
        d2.attempts, d2.next_at, d2.last_error = 1, 500, "refused"
        await store.save_delivery(d2)
        assert await store.due_deliveries(499, 10) == [] and await store.due_deliveries(500, 10) == ["d2"]
        total, page = await store.deliveries("alice1", 0, 1)
        assert total == 2 and [(d.id, d.attempts, d.last_error) for d in page] == [("d2", 1, "refused")]
        total, page = await store.deliveries("alice1", 1, 5)
        assert [(d.id, d.status, d.last_status) for d in page] == [("d1", "delivered", 200)]
        assert await store.deliveries("bob", 0, 5) == (0, [])

    async def test_racing_claims_give_a_delivery_to_one_claimer(self, store, twin):
        from service.store import DeliveryRecord

        ids = [f"r{i}" for i in range(20)]
        await store.add_deliveries([DeliveryRecord(id=i, owner="o", hook="h", event="finished", match="m", seq=1,
                                                   payload={}, created=1, next_at=1) for i in ids])
        got = await asyncio.gather(*[s.claim_delivery(i, 10, 1000) for i in ids for s in (store, twin)])
        assert sorted(d.id for d in got if d is not None) == sorted(ids)  # each once, by one of the two

    async def test_the_hook_cursor_only_moves_forward(self, store):
        assert await store.hook_cursor("m") == 0
        await store.set_hook_cursor("m", 5)
        await store.set_hook_cursor("m", 3)
        assert await store.hook_cursor("m") == 5 and await store.hook_cursor("other") == 0


@contextlib.asynccontextmanager
async def _tailing(store: EventStore, match_id: str, own: object) -> AsyncIterator[list[int]]:
    """The seqs `store.tail(match_id, 0, own)` yields, collected while the block runs (the
    tail is given 0.3 s to start following first: on Redis its read is then blocked)."""
    got: list[int] = []

    async def reader() -> None:
        async for c in store.tail(match_id, after=0, own=own):
            got.append(c.seq)

    task = asyncio.create_task(reader())
    try:
        await asyncio.sleep(0.3)
        yield got
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def _until(done: Callable[[], bool], seconds: float = 3.0) -> None:
    """Wait until `done()` holds, at most `seconds` (the caller's assertion says what failed)."""
    for _ in range(int(seconds / 0.02)):
        if done():
            return
        await asyncio.sleep(0.02)
