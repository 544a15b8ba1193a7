"""Gùgōng (Andreas Steding, Game Brewer 2018) for 2-5 players.

Rules: ../shared/rules/gugong.md. Modules follow the rulebook: setup, exchange (the Day's turn
and gift exchange), actions/ (the seven location actions), tokens (travel tokens), evening,
morning, scoring; each holds its rules' checks, their effects and the evolvers of the events
they emit (its `APPLY`); engine the control stack and the effects every part shares. rules
holds decide, the joined evolver table and evolve; moves legal_moves, view the views. Every
reconstructed content list is a data file under data/.
"""

from service.games.gugong import data, narrate
from service.games.gugong.hidden import evaluate, redeal
from service.games.gugong.moves import legal_moves
from service.games.gugong.rules import decide, evolve, status
from service.games.gugong.setup import MAX_PLAYERS, MIN_PLAYERS, initial
from service.games.gugong.view import secrets, view
from service.games.interface import Commands, Game, Narrator

# A field list is the union over every situation the command answers; each action's own
# check then refuses a field that action does not take, with the same code.
_ACTION_FIELDS = frozenset({"option", "pay_foreman", "units", "spot", "decree", "place", "move", "placements",
                            "card", "location"})
COMMANDS = Commands(player={
    "exchange": frozenset({"card", "location", "payment", "discard", "pay_foreman"}),
    "card_action": _ACTION_FIELDS,
    "location_action": _ACTION_FIELDS,
    "end_turn": frozenset(),
    "travel": frozenset({"city"}),
    "use_token": frozenset({"card", "location", "boat", "pay_foreman"}),
    "intrigue_benefit": frozenset({"down", "die", "face"}),
    "claim": frozenset({"reward", "unit"}),
    "morning_decree": frozenset({"decree"}),
    "exchange_tokens": frozenset({"tokens", "reward"}),
    "decline": frozenset(),
    "done": frozenset(),
})

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
    commands=COMMANDS,
    secret_options=frozenset({"draw_pile", "dice", "travel_tokens", "decrees"}),
    options=(
        {"name": "start_player", "type": "seat", "label": "First player", "default": None,
         "help": "the seat that starts (default: chosen at random)"},
        {"name": "random_start_hands", "type": "boolean", "label": "Expert variant", "default": False,
         "help": "4 random starting-set cards each instead of the fixed sets"},
        {"name": "dice", "type": "json", "label": "Dice", "help": "per day, null (roll) or the 3 faces in die order"},
        {"name": "location_cards", "type": "json", "label": "Location cards",
         "help": "a map of each location to one of the 7 location cards"},
        {"name": "draw_pile", "type": "json", "label": "Draw pile", "help": "the 11 draw-pile cards, top first"},
        {"name": "travel_tokens", "type": "json", "label": "Travel tokens",
         "help": "all 32 token ids: 12 to the cities in id order, then pile A, then pile B"},
        {"name": "decrees", "type": "json", "label": "Decrees", "help": "the 6 decree ids in play, 2 per level"},
    ),
    # Card faces, token kinds, decrees, the map and the board are public; only the order of
    # face-down stacks is secret, and that is not here.
    reference=lambda options, players: {"board": data.BOARD, "cards": data._cards, "tokens": data._tokens,
                                        "decrees": data._decrees, "map": data._map},
    narrator=Narrator(narrate.describe_move, narrate.describe_commit),
    redeal=redeal,
    evaluate=evaluate,
)
