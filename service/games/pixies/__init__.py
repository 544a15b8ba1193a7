"""Pixies (Johannes Goupy): draft cards onto your 3x3 area over 3 rounds.

Rules: ../shared/rules/pixies.md; player docs: docs/games/pixies.md.
"""

from typing import Any

from service.games.interface import Commands, Game, Narrator
from service.games.pixies import data, narrate
from service.games.pixies.hidden import evaluate, redeal
from service.games.pixies.moves import legal_moves
from service.games.pixies.rules import decide, evolve, initial, status
from service.games.pixies.view import secrets, view

_REFERENCE: dict[str, Any] = {
    "cards": [dict(card) for card in data.DECK],
    "cells": list(data.CELLS),
    "rounds": data.ROUNDS,
    "zone_multiplier_by_round": [data.ZONE_MULTIPLIER[r] for r in range(1, data.ROUNDS + 1)],
}

COMMANDS = Commands(player={"take_card": frozenset({"card", "keep", "target_cell"})})

GAME = Game(
    id="pixies",
    name="Pixies",
    min_players=2,
    max_players=5,
    rules_version=1,
    initial=initial,
    decide=decide,
    evolve=evolve,
    view=view,
    legal_moves=legal_moves,
    status=status,
    secrets=secrets,
    commands=COMMANDS,
    secret_options=frozenset({"deck_orders"}),
    options=(
        {"name": "first_player", "type": "seat", "label": "First player", "default": None,
         "help": "the seat that takes the first card (default: chosen at random)"},
        {"name": "deck_orders", "type": "json", "label": "Deck orders",
         "help": "up to 3 lists of card ids, one per round: the top of that round's deck (for tutorials and tests)"},
    ),
    reference=lambda options, players: _REFERENCE,
    narrator=Narrator(narrate.describe_move, narrate.describe_commit),
    redeal=redeal,
    evaluate=evaluate,
)
