"""The game registry.

A game enrols by being a package `service/games/<id>/` whose `__init__` exposes
`GAME: Game`. The registry finds them at import, so adding an engine touches no other file.

Benchmark games (bench/games/<id>/, e.g. the side-by-side rig's handcards) are playable only
on a server started with TEAHOUSE_BENCH_GAMES=1 (`teahouse serve --bench-games`), and never
listed: GAMES, which the lobby and the welcome message show, holds the real games only.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
from pathlib import Path

from service.games.interface import Game, IllegalMove, fold

__all__ = ["GAMES", "Game", "IllegalMove", "enable_bench_games", "fold", "get_game", "playable"]
BENCH_GAMES = Path(__file__).resolve().parents[2] / "bench" / "games"


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


def enable_bench_games() -> list[str]:
    """Make the games in bench/games/ playable here (unlisted); return their ids."""
    found = []
    for folder in sorted(BENCH_GAMES.glob("*/__init__.py")):
        name = f"teahouse_bench_games.{folder.parent.name}"
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, folder, submodule_search_locations=[str(folder.parent)])
            if spec is None or spec.loader is None:
                continue
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        game = getattr(module, "GAME", None)
        if isinstance(game, Game) and game.id not in GAMES:
            _REGISTRY[game.id] = game
            found.append(game.id)
    return found


def playable(game_id: str) -> bool:
    """Whether a match of this game may be created here (listed or a benchmark game)."""
    return game_id in _REGISTRY


if os.environ.get("TEAHOUSE_BENCH_GAMES") == "1":
    enable_bench_games()


def get_game(game_id: str) -> Game:
    try:
        return _REGISTRY[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known: {', '.join(GAMES)}") from None
