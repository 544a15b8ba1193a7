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
    # The board only: the content set's meanings are the answers to meaning claims.
    reference=lambda options, players: {"board": data.BOARD},
    narrator=Narrator(narrate.describe_move, narrate.describe_commit, narrate.describe_end),
    redeal=redeal,
    determinize=determinize,
    evaluate=evaluate,
)
