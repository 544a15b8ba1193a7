"""What each audience may see (spec 7), built at one choke point, and the secrets the canary
looks for.

Everyone sees the field, coins, positions, the question side of every task, attached cards,
completed tasks and the public record of the current turn. A seat also sees its own hand, its
Minister pool, the answer of its task once viewed at the Teacher, the backs of the cards it
studied, and, while standing on the Spy in phase `base`, the fronts of its opponents' hands.
Nobody sees the deck, the task deck's order, other hands, or a claim's answer before it is
judged. Spectators get the public part only. After game over the tasks still held show their
answers to everyone.
"""

from __future__ import annotations

from typing import Any

from service.games.hieroglyphs.data import BASE_ROLE, card_char
from service.games.interface import State, View
from service.games.sharing import SharedN, copied_dict, copied_list, sizes


def view(state: State, seat: int | None) -> View:
    n = state["players"]
    me = seat if isinstance(seat, int) and 0 <= seat < n else None
    opts = state["options"]
    out: View = {
        "game": "hieroglyphs",
        "content_set": state["content"]["id"],
        "phase": state["phase"],
        "players": n,
        "mode": opts["mode"],
        "target": opts.get("target"),
        "round_limit": opts.get("round_limit"),
        "max_rounds": opts.get("max_rounds"),
        "meaning_check": opts["meaning_check"],
        "round": state["round"],
        "first_player": state["first"],
        "active": state["active"],
        "chooser": state["chooser"],
        "bank": state["bank"],
        "coins": copied_list(state["coins"]),
        "positions": copied_list(state["positions"]),
        "start_bases": copied_list(state["start_bases"]),
        "hand_counts": sizes(state["hands"]),
        "scores": sizes(state["completed"]),
        "slots": copied_dict(state["slots"]),
        "deck_count": len(state["deck"]),
        "task_deck_count": len(state["task_deck"]),
        "task_offer": [_task(state, t, me) for t in sorted(state["task_offer"])],
        "tasks": [None if t is None else {**_task(state, t, me), "attached": copied_list(state["attached"][i])}
                  for i, t in enumerate(state["tasks"])],
        "completed": _completed(state["content"]["tasks"], state["completed"], state["revealed_tasks"]),
        "removed": copied_list(state["removed"]),
        "turn": _turn(state, me),
        "result": state["result"],
    }
    if me is not None:
        out["you"] = _private(state, me)
    return out


# Built once per state part: an unchanged part is the same object in the next view
# (service/games/sharing.py).


def _back(state: State, char: str) -> dict[str, Any]:
    info = state["content"]["chars"][char]
    return {"trad": info["trad"], "pinyin": info["pinyin"], "tone": info["tone"],
            "steps": info["steps"], "gloss": info["gloss"]}


def _task(state: State, task: str, me: int | None) -> dict[str, Any]:
    info = state["content"]["tasks"][task]
    owner_saw = (me is not None and state["tasks"][me] == task and state["task_viewed"][me])
    open_ = task in state["revealed_tasks"] or owner_saw or _over_and_held(state, task)
    return {"id": task, "question": info["question"],
            "answer": info["answer_text"] if open_ else None,
            "pinyin": info["pinyin"] if open_ else None}


def _over_and_held(state: State, task: str) -> bool:
    """After game over everything may be shown (spec 7.4): the tasks still held show their answers
    to everyone, the moment a learner most wants them."""
    return state["phase"] == "over" and task in state["tasks"]


def _done(tasks: dict[str, Any], done: list[str], revealed: list[str]) -> list[dict[str, Any]]:
    """Completed tasks: declared, so revealed to everyone (the same for every audience)."""
    return [{"id": t, "question": tasks[t]["question"],
             "answer": tasks[t]["answer_text"] if t in revealed else None,
             "pinyin": tasks[t]["pinyin"] if t in revealed else None} for t in done]


_done_shared = SharedN(_done)
_completed = SharedN(lambda tasks, completed, revealed: [_done_shared(tasks, done, revealed) for done in completed])


def _turn(state: State, me: int | None) -> dict[str, Any]:
    turn = state["turn"]
    claim = turn["claim"]
    pending = claim is not None and "choice" not in claim
    shown_claim: dict[str, Any] | None
    if claim is None:
        shown_claim = None
    elif pending:
        # The options go to the claimer only; the right index stays on the server.
        shown_claim = {"pending": True}
        if me is not None and me == state["active"]:
            shown_claim["options"] = list(claim["options"])
    else:
        shown_claim = {"pending": False, **claim}
    played = turn["played"]
    return {
        "played": played,
        "played_back": None if played is None or pending else _back(state, card_char(played)),
        "claim": shown_claim,
        "steps": turn["steps"],
        "stop": turn["stop"],
        "actions": turn["actions"],
        "next_price": turn["actions"],
        "blasted": copied_list(turn["blasted"]),
        "pool_count": None if turn["pool"] is None else len(turn["pool"]),
        "studied": turn["studied"],
        "spy_swaps": copied_list(turn["spy_swaps"]),
        "declarations": [
            {"task": _task(state, d["task"], me), "order": list(d["order"]), "correct": d["correct"]}
            for d in turn["declarations"]
        ],
    }


def _private(state: State, me: int) -> dict[str, Any]:
    mine: dict[str, Any] = {
        "seat": me,
        "hand": copied_list(state["hands"][me]),
        "pool": None,
        "learned": {ch: _back(state, ch) for ch in sorted({card_char(c) for c in state["studied"][me]})},
        "opponents_hands": None,
    }
    if me == state["active"] and state["turn"]["pool"] is not None:
        mine["pool"] = list(state["turn"]["pool"])
    if _spy_peeks(state, me):
        mine["opponents_hands"] = [None if seat == me else list(hand)
                                   for seat, hand in enumerate(state["hands"])]
    return mine


def _spy_peeks(state: State, seat: int) -> bool:
    """The acting player on the Spy in phase `base` sees the fronts of every opponent's hand."""
    return (state["phase"] == "base" and state["active"] == seat
            and BASE_ROLE.get(state["positions"][seat]) == "SPY")


# --- secrets ---------------------------------------------------------------------------

def public_cards(state: State) -> set[str]:
    """Card ids the rules put in front of everyone: the field, attachments, removed cards,
    the card played this turn and the cards declared this turn."""
    turn = state["turn"]
    seen = {c for c in state["slots"].values() if c is not None}
    seen.update(c for cards in state["attached"] for c in cards)
    seen.update(state["removed"])
    if turn["played"] is not None:
        seen.add(turn["played"])
    for d in turn["declarations"]:
        seen.update(d["order"])
    return seen


def secrets(state: State, seat: int | None) -> list[str]:
    if state["phase"] == "waiting":
        return []
    if seat is None:
        out = []
        claim = state["turn"]["claim"]
        if claim is not None and "seal" in claim:
            out.append(claim["seal"])
        held_and_seen = {t for t, saw in zip(state["tasks"], state["task_viewed"], strict=True) if t and saw}
        tasks = state["content"]["tasks"]
        out.extend(tasks[t]["answer_text"] for t in state["content"]["task_ids"]
                   if t not in state["revealed_tasks"] and t not in held_and_seen and not _over_and_held(state, t))
        return out
    public = public_cards(state)
    active = state["active"]
    out = []
    if not (active is not None and active != seat and _spy_peeks(state, active)):
        out.extend(c for c in state["hands"][seat] if c not in public)
    if seat == active and state["turn"]["pool"] is not None:
        out.extend(c for c in state["turn"]["pool"] if c not in public)
    task = state["tasks"][seat]
    if (task is not None and state["task_viewed"][seat] and task not in state["revealed_tasks"]
            and not _over_and_held(state, task)):
        out.append(state["content"]["tasks"][task]["answer_text"])
    return out
