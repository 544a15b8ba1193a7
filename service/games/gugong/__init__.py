"""Gùgōng (Andreas Steding, Game Brewer 2018) for 2-5 players.

Rules: ../shared/rules/gugong.md. Modules follow the rulebook: setup, exchange (the Day's turn
and gift exchange), actions/ (the seven location actions), tokens (travel tokens), evening,
morning, scoring; events holds evolve, rules holds decide, moves legal_moves, view the views.
Every reconstructed content list is a data file under data/.
"""

from service.games.gugong import data
from service.games.gugong.events import evolve
from service.games.gugong.hidden import evaluate, redeal
from service.games.gugong.moves import legal_moves
from service.games.gugong.rules import decide, status
from service.games.gugong.setup import MAX_PLAYERS, MIN_PLAYERS, initial
from service.games.gugong.view import secrets, view
from service.games.interface import Game

GAME = Game(
    id="gugong",
    name="Gùgōng",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    rules_version=1,
    initial=initial,
    decide=decide,
    evolve=evolve,
    view=view,
    legal_moves=legal_moves,
    status=status,
    secrets=secrets,
    # Card faces, token kinds, decrees, the map and the board are public; only the order of
    # face-down stacks is secret, and that is not here.
    reference=lambda options, players: {"board": data.BOARD, "cards": data._cards, "tokens": data._tokens,
                                        "decrees": data._decrees, "map": data._map},
    redeal=redeal,
    evaluate=evaluate,
)
