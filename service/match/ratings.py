"""Ratings: a Glicko-2 rating per player and game, folded from the logs of finished matches.

Nothing here is a source of truth. The store indexes each finished match under the time of its
last commit (`finished_matches`); the ratings are the fold of the rated ones in that order, each
match one rating period for its players (service/match/glicko2.py), every seat updated from the
ratings all of them had before it. Folding the same index again gives the same numbers on every
node; a node keeps its fold and folds only what the index gained since, or starts over if the
index changed under it (a match finished elsewhere with an earlier time, one deleted).

A match is rated when its start commit names a player (a key's, an app's user or a bot) for every
seat, it is no fork, and no option fixes chance. Multi-player matches give each seat a result
against every other from the final ranking: 1 ahead, 0.5 tied, 0 behind.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from service.games import get_game
from service.match.glicko2 import Game, Rating, update
from service.store import EventStore

PROVISIONAL_RD = 110.0  # above this deviation a rating is provisional: too few games to trust


@dataclass(frozen=True)
class Rated:
    """What one finished match gives the fold: its players per seat and each seat's rank."""

    players: tuple[str, ...]
    ranks: tuple[int, ...]


@dataclass
class Standing:
    rating: Rating = Rating()
    games: int = 0

    @property
    def provisional(self) -> bool:
        return self.rating.rd > PROVISIONAL_RD


@dataclass
class GameFold:
    folded: list[tuple[int, str]] = field(default_factory=list)
    standings: dict[str, Standing] = field(default_factory=dict)
    # per rated match: for each seat, the player's (rating before, rating after)
    changes: dict[str, list[tuple[str, Standing, Standing]]] = field(default_factory=dict)

    def apply(self, match_id: str, rated: Rated) -> None:
        before = [self.standings.get(p, Standing()) for p in rated.players]
        after: list[Standing] = []
        for i, mine in enumerate(before):
            games = [Game(before[j].rating, _score(rated.ranks[i], rated.ranks[j]))
                     for j in range(len(before)) if j != i]
            after.append(Standing(update(mine.rating, games), mine.games + 1))
        for p, s in zip(rated.players, after, strict=True):
            self.standings[p] = s
        self.changes[match_id] = list(zip(rated.players, before, after, strict=True))


def _score(mine: int, theirs: int) -> float:
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def ranks_of(result: dict[str, Any], players: int) -> list[int]:
    """Each seat's place (1 = first; tied seats share one) from a game's result."""
    if isinstance(result.get("ranks"), list) and len(result["ranks"]) == players:
        return [int(r) for r in result["ranks"]]
    order = list(result.get("ranking") or range(players))
    winners = set(result.get("winners") or [])
    return [1 if seat in winners else order.index(seat) + 1 for seat in range(players)]


async def rated_input(store: EventStore, match_id: str) -> Rated | None:
    """The rating input of a finished match, read from its record and its start commit; None
    if it is not rated (a guest seat, a fork, chance fixed by an option) or gone."""
    record = await store.get_match(match_id)
    if record is None or not record.finished or record.result is None or record.forked_from:
        return None
    if any(k in get_game(record.game).secret_options for k in record.options):
        return None
    first = await store.read(match_id, 0, 1)
    players = first[0].players if first else None
    if not players or any(p is None for p in players) or len(set(players)) != len(players):
        return None
    return Rated(tuple(p for p in players if p is not None), tuple(ranks_of(record.result, record.players)))


class Ratings:
    """This node's fold of each game's ratings, brought up to date on each read."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._folds: dict[str, GameFold] = {}
        self._inputs: dict[str, Rated | None] = {}  # a finished match never changes
        # One fold at a time: two requests folding the same new match at once would apply it twice.
        self._lock = asyncio.Lock()

    async def fold(self, game: str) -> GameFold:
        async with self._lock:
            return await self._fold(game)

    async def _fold(self, game: str) -> GameFold:
        index = await self.store.finished_matches(game)
        fold = self._folds.get(game)
        if fold is None or index[:len(fold.folded)] != fold.folded:
            fold = GameFold()
        for entry in index[len(fold.folded):]:
            match_id = entry[1]
            if match_id not in self._inputs:
                self._inputs[match_id] = await rated_input(self.store, match_id)
            rated = self._inputs[match_id]
            if rated is not None:
                fold.apply(match_id, rated)
            fold.folded.append(entry)
        self._folds[game] = fold
        return fold

    async def match_changes(self, game: str, match_id: str) -> list[dict[str, Any]] | None:
        """Per seat, the player's rating before and after this match; None if it is unrated
        (or not folded yet)."""
        return changes_of(await self.fold(game), match_id)


def changes_of(fold: GameFold, match_id: str) -> list[dict[str, Any]] | None:
    changes = fold.changes.get(match_id)
    if changes is None:
        return None
    return [change_row(p, b, a) for p, b, a in changes]


def rating_row(standing: Standing) -> dict[str, Any]:
    r = standing.rating
    return {"rating": round(r.rating, 1), "rd": round(r.rd, 1), "volatility": round(r.volatility, 6),
            "games": standing.games, "provisional": standing.provisional}


def change_row(player: str, before: Standing, after: Standing) -> dict[str, Any]:
    return {"player": player, "before": round(before.rating.rating, 1), "after": round(after.rating.rating, 1),
            "change": round(after.rating.rating - before.rating.rating, 1), "rd": round(after.rating.rd, 1),
            "provisional": after.provisional}
