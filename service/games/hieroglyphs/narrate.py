"""Words for people: Chinese Squared moves and commits in English (the rules are in rules.py).

A card is named by the character on its front (a card id is `<character>#<copy>`), never by
its back: the meaning is what the players are learning, so a sentence that gave it would
answer the claim for everyone. Cards drawn, studied, swapped, exchanged with the Minister or
returned to the deck are only counted. Task questions come from the view (labels); a commit
carries no content set (a match may bring its own), so its sentences say "a task".
The end of the match is told from the view (`describe_end`): no event carries it.
"""

from __future__ import annotations

from typing import Any

from service.games.hieroglyphs.data import BASE_ROLE, CELLS, EMPEROR, card_char
from service.games.interface import Command, Event, View
from service.games.words import game_over, plural, term, told, who

ROLE = {"TEACHER": "Teacher", "GENERAL": "General", "MINISTER": "Minister", "SPY": "Spy"}
ENDING = {
    "TARGET_REACHED": "the target number of tasks was reached",
    "ROUND_LIMIT": "the last round is over",
    "MAX_ROUNDS": "the round cap was reached",
    "NO_TASKS": "no tasks are left",
    "STALLED": "nobody could play a card for a whole round",
}


def cell_name(cell: Any, slots: dict[str, Any] | None = None) -> str:
    """'P00' -> 'the Teacher (P00)', 'P04' -> 'teleport P04', 'P07' -> 'P07 (心)'."""
    cid = str(cell)
    if cid == EMPEROR:
        return "the Emperor"
    info = CELLS.get(cid, {})
    if cid in BASE_ROLE:
        return f"the {ROLE.get(BASE_ROLE[cid], BASE_ROLE[cid])} ({cid})"
    if info.get("kind") == "teleport":
        return f"teleport {cid}"
    card = (slots or {}).get(cid)
    return f"{cid} ({card_char(card)})" if card else cid


def _task_question(view: View, task: Any) -> str:
    for t in [*(view.get("task_offer") or []), *(t for t in view.get("tasks") or [] if t)]:
        if t.get("id") == task:
            return f"“{t['question']}”"
    return "a task"


# --- moves ---------------------------------------------------------------------------------


def describe_move(command: Command, view: View, seat: int, names: list[str]) -> str:  # noqa: PLR0911
    kind = command.get("type")
    slots = view.get("slots") or {}
    if kind == "choose_base":
        base = command.get("base")
        return f"Start on the {term(ROLE, base)}"
    if kind == "pick_task":
        return f"Pick the task {_task_question(view, command.get('task'))}"
    if kind == "play_card":
        claim = " and claim its meaning" if command.get("claim") else ""
        return f"Play {_card(command.get('card'), view, seat)}{claim}"
    if kind == "answer":
        choice = command.get("choice")
        options = ((view.get("turn") or {}).get("claim") or {}).get("options") or []
        if choice is None:
            return "Give no answer"
        meaning = options[choice] if isinstance(choice, int) and 0 <= choice < len(options) else f"option {choice}"
        return f"Answer “{meaning}”"
    if kind == "move":
        path = list(command.get("path") or [])
        if not path:
            return "Stay where you are (0 steps)"
        route = " → ".join(str(c) for c in path)
        return f"Move {plural(len(path), 'step')} to {cell_name(path[-1], slots)}: {route}"
    if kind == "teleport":
        to = command.get("to")
        return "Stay on this teleport" if to is None else f"Teleport to {to}"
    if kind == "study":
        return f"Study the back of {_card(command.get('card'), view, seat)}"
    if kind == "view_task":
        return "Look at your task's answer"
    if kind == "blast":
        block = command.get("block")
        return f"Blast block {block}"
    if kind == "minister_draw":
        return f"Draw the Minister's cards from the {command.get('from')} of the deck"
    if kind == "minister_resolve":
        swaps = command.get("swaps") or []
        if not swaps:
            return "Keep your hand (no exchange)"
        pairs = ", ".join(f"{card_char(str(a))} for {card_char(str(b))}" for a, b in swaps)
        return f"Exchange {pairs}"
    if kind == "spy_swap":
        return (f"Swap your {card_char(str(command.get('own_card')))} for {who(names, command.get('target'))}'s "
                f"{card_char(str(command.get('target_card')))}")
    if kind == "attach":
        return f"Attach {_card(command.get('card'), view, seat)} to your task"
    if kind == "detach":
        return f"Take {_card(command.get('card'), view, seat)} back from your task"
    if kind == "declare":
        order = "".join(card_char(c) for c in command.get("order") or [])
        return f"Declare your task as {order}" if order else "Declare your task"
    if kind == "end_turn":
        back = command.get("return") or []
        if not back:
            return "End your turn"
        return f"End your turn, returning {'、'.join(card_char(c) for c in back)} to the deck"
    return str(kind)


def _card(card: Any, view: View, seat: int) -> str:
    """The character, and the copy when the seat holds two of them (they are interchangeable,
    but the labels must still tell the moves apart)."""
    cid = str(card)
    char = card_char(cid)
    mine = ((view.get("you") or {}).get("hand") or []) + [c for t in view.get("tasks") or [] if t for c in t.get("attached") or []]
    twins = [c for c in mine if card_char(str(c)) == char]
    copy = cid.rsplit("#", 1)[-1]
    return f"{char} (copy {copy})" if len(twins) > 1 else char


# --- commits -------------------------------------------------------------------------------


def describe_commit(seat: int | None, command: Command, events: list[Event], names: list[str]) -> list[str]:
    return told(events, _event, names)


def _event(e: Event, names: list[str]) -> str:  # noqa: PLR0911 - one case per event type
    kind = e["type"]
    a = who(names, e.get("seat"))
    if kind == "setup_shuffled":
        return f"The cards are shuffled and dealt; {who(names, e['first_player'])} chooses first."
    if kind == "start_base_chosen":
        return f"{a} starts on the {ROLE.get(e['base'], e['base'])}."
    if kind == "task_picked":
        return f"{a} picks a task."
    if kind == "card_played":
        claim = " and claims to know its meaning" if e.get("claim") else ""
        return f"{a} plays {card_char(e['card'])}{claim}."
    if kind == "meaning_answered":
        if e["choice"] is None:
            return f"{a} gives no answer."
        return f"{a}'s answer is {'right: +1 coin' if e['correct'] else 'wrong'}."
    if kind == "moved":
        path = e["path"]
        if not path:
            return f"{a} stays put."
        return f"{a} moves {plural(len(path), 'step')} to {cell_name(path[-1])}."
    if kind == "teleported":
        return f"{a} stays on the teleport." if e["to"] is None else f"{a} teleports to {cell_name(e['to'])}."
    if kind == "teacher_studied":
        return f"{a} studies the back of a card at the Teacher."
    if kind == "teacher_task_viewed":
        return f"{a} looks at their task's answer at the Teacher."
    if kind == "general_blasted":
        return f"{a} blasts block {e['block']}: new cards are laid there."
    if kind == "minister_drew":
        return f"{a} draws cards for the Minister from the {e['from']} of the deck."
    if kind == "minister_resolved":
        return f"{a} is done with the Minister."
    if kind == "spy_swapped":
        return f"{a} swaps a card with {who(names, e['target'])} (Spy)."
    if kind == "attached":
        return f"{a} attaches {card_char(e['card'])} to their task."
    if kind == "detached":
        return f"{a} takes {card_char(e['card'])} back from their task."
    if kind == "declared":
        verdict = "right: the task is complete" if e["correct"] else "wrong: the cards sink into the deck"
        return f"{a} declares their task with {plural(len(e['order']), 'character')}: {verdict}."
    if kind == "turn_ended":
        back = len(e["return"])
        return f"{a} ends the turn" + (f", returning {plural(back, 'card')} to the deck." if back else ".")
    return ""


def describe_end(view: View, names: list[str]) -> str:
    """The end, from the view's result (reason, winners, scores = tasks completed)."""
    result = dict(view.get("result") or {})
    ranking = [seat for group in result.get("ranking") or [] for seat in group]
    reason = ENDING.get(str(result.get("reason")), "")
    scores = list(result.get("scores") or [])
    return game_over(names, {"scores": scores, "winners": result.get("winners") or [], "ranking": ranking},
                     reason, "task")
