"""China (Michael Schacht, 2005): houses and emissaries in nine provinces, 3 to 5 players.

Rules: ../shared/rules/china.md; player docs: docs/games/china.md. The board (both sides) is
data in data/map.json, partly reconstructed.
"""

from service.games.china import data, narrate
from service.games.china.hidden import evaluate, redeal
from service.games.china.moves import legal_moves
from service.games.china.rules import decide, evolve, initial, status
from service.games.china.view import secrets, view
from service.games.interface import Commands, Game, Narrator

COMMANDS = Commands(player={
    "place": frozenset({"province", "placements"}),
    "take": frozenset({"source", "slot"}),
    "exchange": frozenset({"card", "source", "slot"}),
    "pass": frozenset(),
})

GAME = Game(
    id="china",
    name="China",
    min_players=3,
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
    secret_options=frozenset({"deck_order", "reshuffle_order"}),
    options=(
        {"name": "board_side", "type": "choice", "label": "Board side", "choices": ["A", "B"], "default": None,
         "players": [4], "help": "only 4 players choose: 3 players play side A, 5 players side B"},
        {"name": "start_player", "type": "seat", "label": "Emperor (first player)", "default": None,
         "help": "the seat that starts (default: chosen at random)"},
        {"name": "deck_order", "type": "json", "label": "Deck order",
         "help": "every card in play once, top first: fixes the deal, display and deck"},
        {"name": "reshuffle_order", "type": "json", "label": "Reshuffle order",
         "help": "every card in play once: the order of the deck made at the reshuffle"},
    ),
    reference=lambda options, players: {"map": data.MAP},
    narrator=Narrator(narrate.describe_move, narrate.describe_commit),
    redeal=redeal,
    evaluate=evaluate,
)
