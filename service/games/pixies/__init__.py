"""Pixies (Johannes Goupy): draft cards onto your 3x3 area over 3 rounds.

Rules: ../shared/rules/pixies.md; player docs: docs/games/pixies.md.
"""

from service.games.interface import Game
from service.games.pixies.moves import legal_moves
from service.games.pixies.rules import decide, evolve, initial, status
from service.games.pixies.view import secrets, view

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
)
