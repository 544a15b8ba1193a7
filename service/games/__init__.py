"""The game registry.

A game enrols by being a package `service/games/<id>/` whose `__init__` exposes
`GAME: Game`. The registry finds them at import, so adding an engine touches no other file.
"""

from __future__ import annotations

import importlib
import pkgutil

from service.games.interface import Game, IllegalMove, fold

__all__ = ["GAMES", "Game", "IllegalMove", "fold", "get_game"]


def _discover() -> dict[str, Game]:
    found: dict[str, Game] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            if game.id != info.name:
                raise RuntimeError(f"game package {info.name!r} registers id {game.id!r}")
            found[game.id] = game
    return found


_REGISTRY: dict[str, Game] = _discover()
GAMES: tuple[str, ...] = tuple(_REGISTRY)


def get_game(game_id: str) -> Game:
    try:
        return _REGISTRY[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known: {', '.join(GAMES)}") from None
