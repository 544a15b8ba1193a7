"""service/match/lobby.py against SPEC.md 2.4 (create: fields, defaults, errors), 2.7 (seats:
the lowest free seat, a 43-character token shown once and stored only as its sha256, the last
seat starts the match, idle seats), 9 (name at most 40), 10 (seed and its commitment), 11 (no
fork of a live match) and the HTTP error table of SPEC 2 (codes and statuses).

The lobby runs on a real SQLite store in a temporary directory."""

from __future__ import annotations

import asyncio
import hashlib
import re

import pytest

from service.match.lobby import Lobby, LobbyError, new_match_id, open_hand
from service.store import MatchRecord
from service.store.sqlite import SqliteStore

URLSAFE = re.compile(r"^[A-Za-z0-9_-]+$")




async def refused(call) -> LobbyError:
    with pytest.raises(LobbyError) as err:
        await call
    return err.value


# -- creating --------------------------------------------------------------------------------------

def test_match_ids_are_twelve_url_safe_characters_never_starting_with_a_dash():
    ids = [new_match_id() for _ in range(5000)]
    assert all(len(i) == 12 and URLSAFE.match(i) and not i.startswith("-") for i in ids)
    assert len(set(ids)) == len(ids)


async def test_a_new_match_has_the_defaults_and_a_committed_seed(lobby, store):
    rec = await lobby.create("pixies", 3)
    assert (rec.game, rec.players, rec.options, rec.listed) == ("pixies", 3, {}, True)
    assert (rec.turn_seconds, rec.absent, rec.finished) == (None, "bot", False)
    assert [(s.seat, s.taken) for s in rec.seats] == [(0, False), (1, False), (2, False)]
    assert re.fullmatch(r"[0-9a-f]{64}", rec.seed)
    assert rec.seed_sha256 == hashlib.sha256(rec.seed.encode()).hexdigest()
    assert rec.bot_seed != rec.seed, "the bots' randomness is never the match seed"
    assert await store.get_match(rec.id) == rec
    assert await store.last_seq(rec.id) == 0


async def test_every_match_gets_its_own_seed(lobby):
    a, b = await lobby.create("pixies", 2), await lobby.create("pixies", 2)
    assert a.id != b.id and a.seed != b.seed


async def test_the_turn_clock_bounds_are_accepted(lobby):
    assert (await lobby.create("pixies", 2, turn_seconds=1)).turn_seconds == 1
    assert (await lobby.create("pixies", 2, turn_seconds=604800)).turn_seconds == 604800


@pytest.mark.parametrize(("kwargs", "code"), [
    ({"game_id": 5}, "bad_field"),
    ({"game_id": None}, "bad_field"),
    ({"game_id": "chess"}, "unknown_game"),
    ({"players": "2"}, "bad_field"),
    ({"players": True}, "bad_field"),
    ({"players": 2.0}, "bad_field"),
    ({"players": 1}, "bad_player_count"),
    ({"players": 6}, "bad_player_count"),
    ({"options": [1]}, "bad_field"),
    ({"options": {"no_such_option": 1}}, "bad_options"),
    ({"listed": "yes"}, "bad_field"),
    ({"listed": 1}, "bad_field"),
    ({"turn_seconds": 0}, "bad_field"),
    ({"turn_seconds": 604801}, "bad_field"),
    ({"turn_seconds": True}, "bad_field"),
    ({"turn_seconds": 1.5}, "bad_field"),
    ({"absent": "sleep"}, "bad_field"),
    ({"bots": {"seat": 1}}, "bad_field"),
    ({"bots": [{"seat": 2}]}, "bad_field"),
    ({"bots": [{"seat": -1}]}, "bad_field"),
    ({"bots": [{"seat": True}]}, "bad_field"),
    ({"bots": [{"seat": 0}, {"seat": 0}]}, "bad_field"),
    ({"bots": [{"seat": 0, "strength": 9}]}, "bad_field"),
    ({"bots": [{"seat": 0, "strength": "3"}]}, "bad_field"),
    ({"bots": [{"seat": 0, "strength": True}]}, "bad_field"),
    ({"bots": [{"seat": 0, "colour": "red"}]}, "bad_field"),
    ({"bots": ["seat 0"]}, "bad_field"),
])
async def test_a_bad_create_is_refused_with_its_code_and_writes_nothing(lobby, store, kwargs, code):
    args = {"game_id": "pixies", "players": 2, **kwargs}
    err = await refused(lobby.create(**args))
    assert (err.code, err.status) == (code, 400)
    assert err.message
    assert await store.all_matches() == []


async def test_bot_seats_are_taken_at_once_in_the_bots_names(lobby, store):
    rec = await lobby.create("pixies", 3, bots=[{"seat": 1, "strength": 0}, {"seat": 2}])
    assert [(s.taken, s.name) for s in rec.seats] == [(False, None), (True, "bot (strength 0)"),
                                                      (True, "bot (strength 3)")]
    assert rec.bots == [None, 0, 3]
    assert await store.last_seq(rec.id) == 0, "a person's seat is still free: not started"


# -- seats -----------------------------------------------------------------------------------------

async def test_taking_a_seat_gives_the_lowest_free_one_and_a_token(lobby):
    rec = await lobby.create("pixies", 3)
    assert (await lobby.take_seat(rec.id, 1))[0] == 1
    seat, token = await lobby.take_seat(rec.id)
    assert seat == 0
    assert len(token) == 43 and URLSAFE.match(token)  # 256 random bits, URL-safe (SPEC 9)
    assert (await lobby.take_seat(rec.id))[0] == 2


async def test_only_the_tokens_sha256_is_stored(tmp_path):
    store = SqliteStore(tmp_path / "data")
    lobby = Lobby(store)
    try:
        rec = await lobby.create("pixies", 3)
        tokens = [(await lobby.take_seat(rec.id, seat, f"Ada {seat}"))[1] for seat in (0, 1)]
        stored = await store.get_match(rec.id)
    finally:
        await lobby.close()
        await store.close()
    assert stored is not None
    for seat, token in enumerate(tokens):
        assert stored.seats[seat].token_hash == hashlib.sha256(token.encode()).hexdigest()
        assert stored.seats[seat].name == f"Ada {seat}"
    assert tokens[0] != tokens[1]
    kept = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert kept, "the store wrote its files there"
    for token in tokens:
        assert token.encode() not in kept, "the token itself is nowhere in the store's files"


async def test_the_token_finds_its_seat_and_nothing_else(lobby):
    a, b = await lobby.create("pixies", 3), await lobby.create("pixies", 3)
    _, token = await lobby.take_seat(a.id, 2)
    assert await lobby.seat_for_token(a.id, token) == 2
    assert await lobby.seat_for_token(b.id, token) is None, "a token holds a seat of its own match only"
    assert await lobby.seat_for_token(a.id, token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    assert await lobby.seat_for_token(a.id, "") is None
    assert await lobby.seat_for_token("nosuchmatch1", token) is None


async def test_a_taken_seat_and_a_full_match_are_refused(lobby, store):
    rec = await lobby.create("pixies", 3)
    await lobby.take_seat(rec.id, 0)
    err = await refused(lobby.take_seat(rec.id, 0))
    assert (err.code, err.status) == ("seat_taken", 409)
    await lobby.take_seat(rec.id)
    await lobby.take_seat(rec.id)
    err = await refused(lobby.take_seat(rec.id))
    assert (err.code, err.status) == ("match_full", 409)


@pytest.mark.parametrize("seat", [-1, 3, True, "0", 1.0])
async def test_a_seat_outside_the_match_is_a_bad_field(lobby, seat):
    rec = await lobby.create("pixies", 3)
    err = await refused(lobby.take_seat(rec.id, seat))
    assert (err.code, err.status) == ("bad_field", 400)


async def test_a_name_is_a_string_of_at_most_40_characters(lobby):
    rec = await lobby.create("pixies", 4)
    assert (await lobby.take_seat(rec.id, 0, "é" * 40))[0] == 0
    for name in ("x" * 41, 7, ["Ada"]):
        err = await refused(lobby.take_seat(rec.id, 1, name))
        assert (err.code, err.status) == ("bad_field", 400)


async def test_an_unknown_match_is_a_404(lobby):
    for call in (lobby.take_seat("nosuchmatch1"), lobby.record("nosuchmatch1"), lobby.fork("nosuchmatch1", 0)):
        err = await refused(call)
        assert (err.code, err.status) == ("unknown_match", 404)


async def test_the_last_seat_starts_the_match_before_its_taker_is_answered(lobby, store):
    rec = await lobby.create("pixies", 2)
    await lobby.take_seat(rec.id)
    assert await store.last_seq(rec.id) == 0
    await lobby.take_seat(rec.id)
    (start,) = await store.read(rec.id)
    assert (start.seq, start.seat, start.command) == (1, None, {"type": "start"})


async def test_a_seat_that_would_start_a_match_on_a_full_node_is_refused_and_stays_free(store):
    lobby = Lobby(store, max_live=1)
    try:
        playing = await lobby.create("pixies", 2)
        await lobby.take_seat(playing.id)
        await lobby.take_seat(playing.id)  # started: the node holds its one live match
        waiting = await lobby.create("pixies", 2)
        await lobby.take_seat(waiting.id, 0)
        err = await refused(lobby.take_seat(waiting.id, 1))
        assert (err.code, err.status) == ("node_full", 503)
        rec = await lobby.record(waiting.id)
        assert [s.taken for s in rec.seats] == [True, False]
        assert await store.last_seq(waiting.id) == 0
    finally:
        await lobby.close()


async def test_a_seat_never_joined_is_freed_after_the_idle_seat_time(store):
    lobby = Lobby(store, idle_seat_seconds=0.3)
    try:
        rec = await lobby.create("pixies", 4, bots=[{"seat": 3, "strength": 0}])
        _, idle = await lobby.take_seat(rec.id, 0)
        _, joined = await lobby.take_seat(rec.id, 1)
        assert await lobby.seat_for_token(rec.id, joined, joining=True) == 1
        await asyncio.sleep(0.4)
        fresh = await lobby.record(rec.id)
        assert [s.taken for s in fresh.seats] == [False, True, False, True], "joined and bot seats are kept"
        assert await lobby.seat_for_token(rec.id, idle) is None, "its token holds no seat any more"
        assert (await lobby.take_seat(rec.id, 0))[0] == 0, "anyone may take it"
    finally:
        await lobby.close()


async def test_the_seats_of_a_started_match_are_never_freed(store):
    lobby = Lobby(store, idle_seat_seconds=0.2)
    try:
        rec = await lobby.create("pixies", 2)
        tokens = [(await lobby.take_seat(rec.id))[1] for _ in range(2)]  # started, nobody joined
        await asyncio.sleep(0.3)
        assert [s.taken for s in (await lobby.record(rec.id)).seats] == [True, True]
        assert [await lobby.seat_for_token(rec.id, t) for t in tokens] == [0, 1]
    finally:
        await lobby.close()


# -- forks -----------------------------------------------------------------------------------------

async def test_a_live_match_cannot_be_forked(lobby):
    rec = await lobby.create("pixies", 2)
    await lobby.take_seat(rec.id)
    await lobby.take_seat(rec.id)
    err = await refused(lobby.fork(rec.id, 1))
    assert (err.code, err.status) == ("match_live", 409)


async def test_exact_must_be_a_boolean(lobby):
    rec = await lobby.create("pixies", 2)
    err = await refused(lobby.fork(rec.id, 0, exact="yes"))
    assert (err.code, err.status) == ("bad_field", 400)


def fork_record(options: dict, forked_from: dict | None) -> MatchRecord:
    return MatchRecord(id="Xq3vN8kPz2Lm", game="china", players=3, options=options, listed=True, seed="0" * 64,
                       seed_sha256="", created=0, forked_from=forked_from)


@pytest.mark.parametrize(("options", "origin", "expected"), [
    ({}, None, False),  # not a fork
    ({"deck_order": ["x"]}, None, False),  # a stacked deck, but no public origin to read it in
    ({}, {"match": "a", "seq": 5, "exact": False}, False),  # dealt again (SPEC 11)
    ({}, {"match": "a", "seq": 5, "exact": True}, True),  # the origin's shuffles, public in its log
    ({}, {"match": "a", "seq": 0, "exact": False}, False),  # a fresh deal from its own seed
    ({"deck_order": ["x"]}, {"match": "a", "seq": 0, "exact": False}, True),  # the origin's fixed chance
    ({"deck_order": ["x"]}, {"match": "a", "seq": 4, "exact": False}, False),  # dealt again after seq 4
])
def test_open_hand_is_true_where_the_origins_public_log_shows_what_the_fork_hides(options, origin, expected):
    assert open_hand(fork_record(options, origin)) is expected
