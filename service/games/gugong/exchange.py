"""The Day phase (§4.2): turns clockwise, the gift exchange, then the card action and/or the
location action (card action first), and the explicit `end_turn` (D25)."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data, tokens
from service.games.gugong.actions import ACTIONS
from service.games.gugong.engine import field_bool, field_str, gain, only, pay, pop, push
from service.games.interface import Command, Event, IllegalMove, State
from service.games.kit import Evolver, Turn, own, own_item, without

PAYMENTS = ("none", "servants", "card", "forgo")


def is_free(given: str, taken: str) -> bool:
    """Higher value is free; so is a 1 handed over for a 9 (§4.2)."""
    g, t = data.CARDS[given]["value"], data.CARDS[taken]["value"]
    return g > t or (g == 1 and t == 9)


def servant_payment(s: State, seat: int) -> int:
    return board.ability(s, seat, "exchange_payment") or data.BOARD["exchange_payment_servants"]


# --- turns ---------------------------------------------------------------------------------------------


def run_next_turn(ctx: Turn, frame: dict[str, Any]) -> None:
    """The next player clockwise who still holds cards is on turn; nobody left ends the Day."""
    for seat in board.turn_order(ctx.state, frame["from"] % ctx.state["n"]):
        if ctx.state["players"][seat]["hand"]:
            ctx.emit({"type": "turn_started", "seat": seat})
            push(ctx, {"kind": "turn", "seat": seat})
            return
    push(ctx, {"kind": "evening"})


def _on_turn_started(s: State, e: Event) -> None:
    s["turn"] = {
        "seat": e["seat"],
        "exchanged": False,
        "forfeited": False,
        "location": None,
        "card_action": None,
        "card_done": False,
        "location_done": False,
    }


# --- Step 1: the gift exchange --------------------------------------------------------------------------


def check_exchange(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> dict[str, Any]:
    if s["turn"]["exchanged"]:
        raise IllegalMove("already_exchanged", "You have already exchanged a gift this turn.")
    only(cmd, "card", "location", "payment", "discard", "pay_foreman")
    p = s["players"][seat]
    card = field_str(cmd, "card")
    if card not in p["hand"]:
        raise IllegalMove("card_not_in_hand", f"{card!r} is not in your hand.")
    location = field_str(cmd, "location", data.LOCATIONS)
    payment = field_str(cmd, "payment", PAYMENTS)
    pay_foreman = field_bool(cmd, "pay_foreman")
    free = is_free(card, s["locations"][location])
    plan: dict[str, Any] = {"card": card, "location": location, "payment": payment, "discard": None,
                            "cost": 0, "pay_foreman": False}
    if free and payment != "none":
        raise IllegalMove("payment_not_needed", "This exchange is free; send payment 'none' (D17).")
    if not free and payment == "none":
        raise IllegalMove("payment_required", "A gift of lower or equal value needs a payment: servants, card or forgo.")
    if pay_foreman and payment != "servants":
        raise IllegalMove("bad_command", "pay_foreman only goes with payment 'servants'.")
    if "discard" in cmd and payment != "card":
        raise IllegalMove("bad_command", "discard only goes with payment 'card'.")
    if payment == "servants":
        plan["cost"] = servant_payment(s, seat)
        plan["pay_foreman"] = pay_foreman
        board.check_payment(p, plan["cost"], pay_foreman, [])
    elif payment == "card":
        other = field_str(cmd, "discard")
        if other == card:
            raise IllegalMove("same_card", "The card paid must be another hand card than the one given.")
        if other not in p["hand"]:
            raise IllegalMove("card_not_in_hand", f"{other!r} is not in your hand.")
        plan["discard"] = other
    return plan


def run_exchange(ctx: Turn, seat: int, plan: dict[str, Any], frame: dict[str, Any]) -> None:
    ctx.emit({"type": "gift_exchanged", "seat": seat, "card": plan["card"], "location": plan["location"],
              "taken": ctx.state["locations"][plan["location"]], "payment": plan["payment"], "discarded": plan["discard"]})
    pay(ctx, seat, plan["cost"], plan["pay_foreman"], "exchange")


def _on_gift_exchanged(s: State, e: Event) -> None:
    p = own_item(s, "players", e["seat"])
    hand = without(p["hand"], e["card"])
    discard = list(p["discard"])
    if e.get("discarded") is not None:
        hand.remove(e["discarded"])
        discard.append(e["discarded"])
    discard.append(e["taken"])
    p["hand"], p["discard"] = hand, discard
    own(s, "locations")[e["location"]] = e["card"]
    t = own(s, "turn")
    t["exchanged"] = True
    t["forfeited"] = e["payment"] == "forgo"
    t["location"] = e["location"]
    t["card_action"] = data.CARDS[e["card"]]["action"]


def exchange_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    hand = s["players"][seat]["hand"]
    out: list[Command] = []
    for card in hand:
        for loc in data.LOCATIONS:
            base = {"type": "exchange", "card": card, "location": loc}
            if is_free(card, s["locations"][loc]):
                out.append({**base, "payment": "none"})
                continue
            out.append({**base, "payment": "servants"})
            out.append({**base, "payment": "servants", "pay_foreman": True})
            out += [{**base, "payment": "card", "discard": c} for c in hand if c != card]
            out.append({**base, "payment": "forgo"})
    return out


# --- Step 2: the card action, then the location action ----------------------------------------------------


def _may_act(s: State) -> None:
    t = s["turn"]
    if not t["exchanged"]:
        raise IllegalMove("exchange_required", "Exchange a gift first.")
    if t["forfeited"]:
        raise IllegalMove("actions_forfeited", "You forwent this turn's actions when you exchanged.")


def check_card_action(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> dict[str, Any]:
    _may_act(s)
    t = s["turn"]
    if t["location_done"]:
        raise IllegalMove("card_action_after_location", "The card action comes before the location action.")
    if t["card_done"]:
        raise IllegalMove("action_already_taken", "You have already taken the card action.")
    action = t["card_action"]
    if action == "NONE":
        raise IllegalMove("no_card_action", "The card you gave has no card action.")
    if action in ACTIONS:
        return {"action": action, "params": ACTIONS[action].check(s, seat, cmd)}
    if action == "EXCHANGE":
        only(cmd, "card", "location")
        return {"action": action, "params": tokens.check_swap(s, seat, cmd)}
    only(cmd)
    return {"action": action, "params": {}}


def run_card_action(ctx: Turn, seat: int, plan: dict[str, Any], frame: dict[str, Any]) -> None:
    action = plan["action"]
    ctx.emit({"type": "card_action_taken", "seat": seat, "action": action})
    if action in ACTIONS:
        ACTIONS[action].run(ctx, seat, plan["params"])
    elif action == "EXCHANGE":
        tokens.run_swap(ctx, seat, plan["params"])
    elif action == "SERVANT1":
        gain(ctx, seat, 1, "card")
    elif action == "SERVANT2":
        gain(ctx, seat, 2, "card")


def _on_card_action_taken(s: State, e: Event) -> None:
    own(s, "turn")["card_done"] = True


def card_action_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    action = s["turn"]["card_action"]
    base: Command = {"type": "card_action"}
    if action in ACTIONS:
        return [{**base, **params} for params in ACTIONS[action].candidates(s, seat)]
    if action == "EXCHANGE":
        return [{**base, **params} for params in tokens.swap_candidates(s, seat)]
    return [base]


def check_location_action(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> dict[str, Any]:
    _may_act(s)
    if s["turn"]["location_done"]:
        raise IllegalMove("action_already_taken", "You have already taken the location action.")
    action = s["turn"]["location"]
    return {"action": action, "params": ACTIONS[action].check(s, seat, cmd)}


def run_location_action(ctx: Turn, seat: int, plan: dict[str, Any], frame: dict[str, Any]) -> None:
    ctx.emit({"type": "location_action_taken", "seat": seat, "action": plan["action"]})
    ACTIONS[plan["action"]].run(ctx, seat, plan["params"])


def _on_location_action_taken(s: State, e: Event) -> None:
    # Taking the location action gives up a card action not yet taken (§4.2).
    t = own(s, "turn")
    t["card_done"] = True
    t["location_done"] = True


def location_action_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    action = s["turn"]["location"]
    if action is None:
        return []
    return [{"type": "location_action", **params} for params in ACTIONS[action].candidates(s, seat)]


# --- end of turn ---------------------------------------------------------------------------------------------


def check_end_turn(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> None:
    only(cmd)
    if not s["turn"]["exchanged"]:
        raise IllegalMove("exchange_required", "A player with cards must exchange a gift before ending the turn.")


def run_end_turn(ctx: Turn, seat: int, plan: None, frame: dict[str, Any]) -> None:
    pop(ctx)
    ctx.emit({"type": "turn_ended", "seat": seat})
    push(ctx, {"kind": "next_turn", "from": seat + 1})


def _on_turn_ended(s: State, e: Event) -> None:
    s["turn"] = None


def end_turn_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    return [{"type": "end_turn"}]


APPLY: dict[str, Evolver] = {
    "turn_started": _on_turn_started,
    "gift_exchanged": _on_gift_exchanged,
    "card_action_taken": _on_card_action_taken,
    "location_action_taken": _on_location_action_taken,
    "turn_ended": _on_turn_ended,
}
