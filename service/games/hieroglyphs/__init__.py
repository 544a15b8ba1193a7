"""Chinese Squared (Ch2): play hieroglyph cards, move by their tones around a square of
cards, and declare Chinese expressions at the Emperor.

Rules: ../shared/rules/hieroglyphs.md; player docs: docs/games/hieroglyphs.md.
"""

from service.games.hieroglyphs import data, narrate
from service.games.hieroglyphs.hidden import determinize, evaluate, redeal
from service.games.hieroglyphs.moves import legal_moves
from service.games.hieroglyphs.rules import decide, evolve, initial, status
from service.games.hieroglyphs.view import secrets, view
from service.games.interface import Commands, Game, Narrator

COMMANDS = Commands(
    player={
        "choose_base": frozenset({"base"}),
        "pick_task": frozenset({"task"}),
        "play_card": frozenset({"card", "claim"}),
        "answer": frozenset({"choice"}),
        "move": frozenset({"path"}),
        "teleport": frozenset({"to"}),
        "study": frozenset({"card"}),
        "view_task": frozenset(),
        "blast": frozenset({"block"}),
        "minister_draw": frozenset({"from"}),
        "minister_resolve": frozenset({"swaps"}),
        "spy_swap": frozenset({"own_card", "target", "target_card"}),
        "attach": frozenset({"card"}),
        "detach": frozenset({"card"}),
        "declare": frozenset({"order"}),
        "end_turn": frozenset({"return"}),
    },
    # `timeout` answers a pending meaning claim for the claimer when his clock runs out.
    system={"start": frozenset(), "timeout": frozenset()},
)

GAME = Game(
    id="hieroglyphs",
    name="Chinese Squared",
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
    secret_options=frozenset({"deck_order", "task_order", "claim_options", "content"}),
    options=(
        {"name": "mode", "type": "choice", "label": "Mode", "choices": ["target", "rounds"], "default": "target",
         "help": "target: the first to complete enough tasks wins; rounds: play a fixed number of rounds"},
        {"name": "target", "type": "integer", "label": "Tasks to win", "min": 1, "default": None, "when": {"mode": "target"},
         "help": "default: 3 with 2 players, 2 with 3 or 4"},
        {"name": "max_rounds", "type": "integer", "label": "Round cap", "min": 1, "default": 60,
         "when": {"mode": "target"}, "help": "the match ends after this many rounds whoever leads"},
        {"name": "round_limit", "type": "integer", "label": "Rounds", "min": 1, "default": None, "required": True,
         "when": {"mode": "rounds"}, "help": "rounds to play"},
        {"name": "task_selection", "type": "choice", "label": "Tasks", "choices": ["choose", "random"],
         "default": "choose", "help": "choose: a draft; random: the top tasks are dealt in seat order"},
        {"name": "meaning_check", "type": "choice", "label": "Meaning check", "choices": ["multiple_choice", "off"],
         "default": "multiple_choice", "help": "off: no claims and no coins (for tests)"},
        {"name": "first_player", "type": "seat", "label": "First player", "default": None,
         "help": "the seat that starts (default: chosen at random)"},
        {"name": "content", "type": "json", "label": "Content set", "help": "characters and tasks (docs/games/hieroglyphs.md)"},
        {"name": "deck_order", "type": "json", "label": "Deck order", "help": "every card id once, top first"},
        {"name": "task_order", "type": "json", "label": "Task order", "help": "every task id once"},
        {"name": "claim_options", "type": "json", "label": "Claim options",
         "help": "{character: [4 glosses in display order]}"},
    ),
    # The board only: the content set's meanings are the answers to meaning claims.
    reference=lambda options, players: {"board": data.BOARD},
    narrator=Narrator(narrate.describe_move, narrate.describe_commit, narrate.describe_end),
    redeal=redeal,
    determinize=determinize,
    evaluate=evaluate,
)
