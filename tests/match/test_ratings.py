"""The ratings fold (service/match/ratings.py) over a real SQLite store: which matches are rated,
multi-player matches as pairwise results (Glicko-2, one rating period per match), and a fold that
is the same however often and from wherever it is recomputed."""

from __future__ import annotations

import time

import pytest

from service.match.glicko2 import Game, Rating, update
from service.match.ratings import Ratings
from service.store import Commit, MatchRecord, SeatRecord


async def finished(store, match_id: str, players: list[str | None], ranks: list[int], ts: int,
                   options: dict | None = None, forked_from: dict | None = None, game: str = "pixies") -> None:
    rec = MatchRecord(id=match_id, game=game, players=len(players), options=options or {}, listed=True,
                      seed="s", seed_sha256="h", created=int(time.time() * 1000), forked_from=forked_from,
                      seats=[SeatRecord(seat=i) for i in range(len(players))])
    await store.create_match(rec, [Commit(seq=1, seat=None, command={"type": "start"}, events=[],
                                          move_id="sys:start", ts=ts, players=players)])
    await store.mark_finished(match_id, {"scores": [0] * len(players), "ranking": sorted(range(len(players)), key=lambda s: ranks[s]),
                                         "ranks": ranks, "winners": [s for s, r in enumerate(ranks) if r == 1]})
    await store.add_finished(game, match_id, ts)


async def test_a_three_player_match_is_pairwise_results_from_the_ranking(store):
    await finished(store, "m3", ["a", "b", "c"], [1, 2, 2], ts=10)
    fold = await Ratings(store).fold("pixies")
    new = Rating()
    # a beat b and c; b and c tied with each other, each lost to a
    assert fold.standings["a"].rating == update(new, [Game(new, 1), Game(new, 1)])
    assert fold.standings["b"].rating == update(new, [Game(new, 0), Game(new, 0.5)])
    assert fold.standings["c"].rating == fold.standings["b"].rating
    assert fold.standings["a"].rating.rating > 1500 > fold.standings["b"].rating.rating
    assert all(s.games == 1 and s.provisional for s in fold.standings.values())


async def test_the_second_match_uses_the_ratings_the_first_left(store):
    await finished(store, "m1", ["a", "b"], [1, 2], ts=10)
    await finished(store, "m2", ["a", "b"], [2, 1], ts=20)
    new = Rating()
    a1, b1 = update(new, [Game(new, 1)]), update(new, [Game(new, 0)])
    fold = await Ratings(store).fold("pixies")
    assert fold.standings["a"].rating == update(a1, [Game(b1, 0)])
    assert fold.standings["b"].rating == update(b1, [Game(a1, 1)])
    assert fold.standings["a"].games == 2
    changes = await Ratings(store).match_changes("pixies", "m2")
    assert [c["player"] for c in changes] == ["a", "b"]
    assert changes[0]["before"] == round(a1.rating, 1) and changes[0]["after"] == round(fold.standings["a"].rating.rating, 1)


@pytest.mark.parametrize("why", ["guest", "fork", "fixed chance"])
async def test_unrated_matches_change_nothing(store, why):
    players = ["a", None] if why == "guest" else ["a", "b"]
    await finished(store, "m", players, [1, 2], ts=10,
                   options={"deck_orders": [[0]]} if why == "fixed chance" else None,
                   forked_from={"match": "o", "seq": 3, "seed": "x", "exact": False} if why == "fork" else None)
    fold = await Ratings(store).fold("pixies")
    assert fold.standings == {} and fold.changes == {}
    assert await Ratings(store).match_changes("pixies", "m") is None


async def test_the_fold_is_the_same_incremental_or_from_scratch_and_follows_the_index_order(store):
    ratings = Ratings(store)  # one node, folding as matches finish
    await finished(store, "m1", ["a", "b"], [1, 2], ts=10)
    await ratings.fold("pixies")
    await finished(store, "m2", ["b", "c"], [1, 2], ts=20)
    await ratings.fold("pixies")
    # a match another node finished earlier is indexed late: the fold starts over in index order
    await finished(store, "m0", ["c", "a"], [1, 2], ts=5)
    incremental = await ratings.fold("pixies")
    scratch = await Ratings(store).fold("pixies")  # another node, or a restart
    assert incremental.standings == scratch.standings
    assert [m for _, m in scratch.folded] == ["m0", "m1", "m2"]
    again = await ratings.fold("pixies")  # folding again changes nothing
    assert again.standings == scratch.standings
    assert (await Ratings(store).fold("khan")).standings == {}


async def test_folds_asked_at_once_apply_each_match_once(store):
    import asyncio

    ratings = Ratings(store)
    await ratings.fold("pixies")
    await finished(store, "m1", ["a", "b"], [1, 2], ts=10)
    await asyncio.gather(*(ratings.fold("pixies") for _ in range(5)))
    assert (await ratings.fold("pixies")).standings["a"].games == 1
