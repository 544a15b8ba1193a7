"""Khan (Christwart Conrad, 2010), 2 to 4 players: drive the foreign rulers out, place
yurts, and conquer land with polyomino tiles. Rules: ../shared/rules/khan.md; players'
guide: docs/games/khan.md. Board, tiles, deck, special cards and bonuses are data (data/)."""

from typing import Any

from service.games.interface import Commands, Game, Narrator
from service.games.khan import data, narrate
from service.games.khan.hidden import evaluate, redeal
from service.games.khan.moves import legal_moves
from service.games.khan.rules import decide, evolve, initial, status
from service.games.khan.view import secrets, view


def reference(options: dict[str, Any], players: int) -> dict[str, Any]:
    """The board the options choose, and the public component lists."""
    name = options.get("board", "standard")
    board = data.BOARDS.get(name) if isinstance(name, str) else None
    return {
        "board": board.spec if board is not None else None,
        "rulers": data._RULERS, "deck": data._DECK, "tiles": data._TILES, "setup": data._SETUP,
    }


COMMANDS = Commands(player={
    "invade": frozenset({"card", "cell"}),
    "drive_out": frozenset({"ruler"}),
    "conquer": frozenset({"tile", "cells"}),
    "invade_of_choice": frozenset({"cell", "discard"}),
    "pass": frozenset(),
    "play_special": frozenset({"card", "region"}),
    "consent": frozenset({"agree"}),
})

GAME = Game(
    id="khan",
    name="Khan",
    min_players=2,
    max_players=4,
    rules_version=1,
    initial=initial,
    decide=decide,
    evolve=evolve,
    view=view,
    legal_moves=legal_moves,
    status=status,
    secrets=secrets,
    commands=COMMANDS,
    secret_options=frozenset({"deck_order"}),
    options=(
        {"name": "start_player", "type": "seat", "label": "First player", "default": None,
         "help": "the seat that starts (default: chosen at random)"},
        {"name": "reshuffle", "type": "choice", "label": "Reshuffle", "choices": ["random", "in_order"],
         "default": "random", "help": "in_order: the discard pile becomes the deck as it lies, oldest card on top"},
        {"name": "board", "type": "choice", "label": "Board", "choices": sorted(data.BOARDS), "default": "standard",
         "help": "the map played on"},
        {"name": "deck_order", "type": "json", "label": "Deck order", "help": "all 72 ruler card ids, top first"},
    ),
    reference=reference,
    narrator=Narrator(narrate.describe_move, narrate.describe_commit),
    redeal=redeal,
    evaluate=evaluate,
)
