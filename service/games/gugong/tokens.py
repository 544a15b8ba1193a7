"""Travel tokens (§2.3, §5.4): the benefit of a token just taken, storing it under the 6-token
limit, and turning tokens in (2 -> 1 servant, 4 -> 2 VP, 6 -> 1 jade) whenever the game waits
for that player (D6)."""

from __future__ import annotations

from itertools import product
from typing import Any

from service.games.gugong import board, data
from service.games.gugong.actions import canal, wall
from service.games.gugong.engine import (
    advance_envoy,
    field_bool,
    field_str,
    gain,
    gain_jade,
    move_intrigue,
    only,
    pay,
    pop,
    push,
    score,
)
from service.games.interface import Command, Event, IllegalMove, State
from service.games.kit import Evolver, Turn, own, own_item, without

EXCHANGE = {row["reward"]: row for row in data.TOKEN_EXCHANGE}
USE_FIELDS = {"card_for_jade": ("card",), "retrieve_card": ("card",), "swap_card": ("card", "location"),
              "ship_servant": ("boat",), "buy_jade": ("pay_foreman",)}


def _type(token: str) -> dict[str, Any]:
    return data.TOKEN_TYPES[data.TOKENS[token]]


# --- the token_effect prompt: use the benefit of the token just taken, or let it go --------------


def check_use(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> dict[str, Any]:
    t = _type(frame["token"])
    effect = t["effect"]
    p = s["players"][seat]
    only(cmd, *USE_FIELDS.get(effect, ()))
    if effect == "none":
        raise IllegalMove("no_token_effect", "This token has no immediate effect.")
    if effect == "card_for_jade":
        card = field_str(cmd, "card")
        if card not in p["hand"] or data.CARDS[card]["value"] < t["min_value"]:
            raise IllegalMove("card_not_in_hand", f"Name a hand card of value {t['min_value']} or more.")
        return {"card": card}
    if effect == "retrieve_card":
        card = field_str(cmd, "card")
        if card not in p["discard"]:
            raise IllegalMove("card_not_in_discard", "Name a card of your gift discard pile.")
        return {"card": card}
    if effect == "swap_card":
        return check_swap(s, seat, cmd)
    if effect == "ship_servant":
        if p["supply"] == 0:
            raise IllegalMove("supply_empty", "No servant cube is left in your supply (D32).")
        boat = field_str(cmd, "boat")
        canal.simulate_placement(s, seat, boat, "cube")
        return {"boat": boat}
    if effect == "wall_servant":
        if p["supply"] == 0:
            raise IllegalMove("supply_empty", "No servant cube is left in your supply (D32).")
        return {}
    if effect == "buy_jade":
        pay_foreman = field_bool(cmd, "pay_foreman")
        board.check_payment(p, t["cost"], pay_foreman, [])
        return {"pay_foreman": pay_foreman}
    return {}


def run_use(ctx: Turn, seat: int, plan: dict[str, Any], frame: dict[str, Any]) -> None:
    pop(ctx)
    t = _type(frame["token"])
    effect = t["effect"]
    ctx.emit({"type": "token_effect_applied", "seat": seat, "token": frame["token"], "token_type": data.TOKENS[frame["token"]]})
    if effect == "servants":
        gain(ctx, seat, t["n"], "token")
    elif effect == "envoy":
        advance_envoy(ctx, seat, t["n"], "token")
    elif effect == "intrigue":
        move_intrigue(ctx, seat, t["n"], "token")
    elif effect == "vp":
        score(ctx, seat, t["n"], "token")
    elif effect == "card_for_jade":
        ctx.emit({"type": "card_moved", "seat": seat, "card": plan["card"], "from": "hand", "to": "discard"})
        gain_jade(ctx, seat, t["n"], "token")
    elif effect == "retrieve_card":
        ctx.emit({"type": "card_moved", "seat": seat, "card": plan["card"], "from": "discard", "to": "hand"})
    elif effect == "swap_card":
        run_swap(ctx, seat, plan)
    elif effect == "ship_servant":
        push(ctx, *canal.load(ctx, seat, plan["boat"], "cube", "supply"))
    elif effect == "wall_servant":
        wall.build(ctx, seat, 1, False, "supply")
    elif effect == "buy_jade":
        pay(ctx, seat, t["cost"], plan["pay_foreman"], "token")
        gain_jade(ctx, seat, t["n"], "token")


def _on_token_effect_applied(s: State, e: Event) -> None:
    pass  # the effect's results are their own events


def _on_card_moved(s: State, e: Event) -> None:
    p = own_item(s, "players", e["seat"])
    p[e["from"]] = without(p[e["from"]], e["card"])
    p[e["to"]] = p[e["to"]] + [e["card"]]


def use_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    effect = _type(frame["token"])["effect"]
    p = s["players"][seat]
    base: Command = {"type": "use_token"}
    if effect == "none":
        return []
    if effect == "card_for_jade":
        return [{**base, "card": c} for c in p["hand"]]
    if effect == "retrieve_card":
        return [{**base, "card": c} for c in p["discard"]]
    if effect == "swap_card":
        return [{**base, **params} for params in swap_candidates(s, seat)]
    if effect == "ship_servant":
        return [{**base, "boat": b} for b in canal.placement_targets(s, seat)]
    if effect == "buy_jade":
        return [base, {**base, "pay_foreman": True}]
    return [base]


def effect_unusable(s: State, frame: dict[str, Any]) -> bool:
    return not any(_ok(check_use, s, frame["seat"], c, frame) for c in use_candidates(s, frame["seat"], frame))


def run_store(ctx: Turn, frame: dict[str, Any]) -> None:
    ctx.emit({"type": "token_stored", "seat": frame["seat"], "token": frame["token"]})
    if len(ctx.state["players"][frame["seat"]]["tokens"]) > data.TOKEN_LIMIT:
        push(ctx, {"kind": "token_limit", "seat": frame["seat"]})


def _on_token_stored(s: State, e: Event) -> None:
    p = own_item(s, "players", e["seat"])
    p["tokens"] = p["tokens"] + [e["token"]]
    s["in_transit"] = None


def within_limit(s: State, frame: dict[str, Any]) -> bool:
    return len(s["players"][frame["seat"]]["tokens"]) <= data.TOKEN_LIMIT


# --- swapping a card with a location card (the EXCHANGE card action and T_EXCHANGE) ---------------


def check_swap(s: State, seat: int, cmd: Command) -> dict[str, Any]:
    card = field_str(cmd, "card")
    location = field_str(cmd, "location", data.LOCATIONS)
    p = s["players"][seat]
    if card in p["hand"]:
        where = "hand"
    elif card in p["discard"]:
        where = "discard"
    else:
        raise IllegalMove("card_not_in_hand", f"{card!r} is neither in your hand nor in your gift discard pile.")
    return {"card": card, "location": location, "where": where}


def run_swap(ctx: Turn, seat: int, plan: dict[str, Any]) -> None:
    # No value comparison, no payment and no location action (§5.3, D23).
    ctx.emit({"type": "card_swapped", "seat": seat, "card": plan["card"], "where": plan["where"],
              "location": plan["location"], "taken": ctx.state["locations"][plan["location"]]})


def _on_card_swapped(s: State, e: Event) -> None:
    p = own_item(s, "players", e["seat"])
    pile = list(p[e["where"]])
    pile[pile.index(e["card"])] = e["taken"]
    p[e["where"]] = pile
    own(s, "locations")[e["location"]] = e["card"]


def swap_candidates(s: State, seat: int) -> list[dict[str, Any]]:
    p = s["players"][seat]
    return [{"card": c, "location": loc} for c in p["hand"] + p["discard"] for loc in data.LOCATIONS]


# --- turning tokens in ------------------------------------------------------------------------------------


def check_exchange(s: State, seat: int, cmd: Command) -> dict[str, Any]:
    only(cmd, "tokens", "reward")
    reward = field_str(cmd, "reward", EXCHANGE)
    tokens = cmd.get("tokens")
    held = s["players"][seat]["tokens"]
    if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens) \
            or len(set(tokens)) != len(tokens):
        raise IllegalMove("bad_command", "tokens must list the ids of distinct travel tokens you hold.")
    if any(t not in held for t in tokens):
        raise IllegalMove("token_not_held", "You do not hold every token you named.")
    need = EXCHANGE[reward]["value"]
    if board.token_value(tokens) < need:
        raise IllegalMove("insufficient_tokens", f"{reward} needs tokens worth {need}.")
    if any(board.token_value([x for x in tokens if x != t]) >= need for t in tokens):
        raise IllegalMove("overpayment", "A smaller set of these tokens would pay as much; turn in no more than needed.")
    return {"tokens": list(tokens), "reward": reward}


def run_exchange(ctx: Turn, seat: int, plan: dict[str, Any]) -> None:
    row = EXCHANGE[plan["reward"]]
    ctx.emit({"type": "tokens_exchanged", "seat": seat, "tokens": plan["tokens"], "reward": plan["reward"]})
    if plan["reward"] == "servant":
        gain(ctx, seat, row["n"], "tokens")
    elif plan["reward"] == "vp":
        score(ctx, seat, row["n"], "tokens")
    else:
        gain_jade(ctx, seat, row["n"], "tokens")


def _on_tokens_exchanged(s: State, e: Event) -> None:
    p = own_item(s, "players", e["seat"])
    p["tokens"] = [t for t in p["tokens"] if t not in e["tokens"]]
    s["travel_discard"] = s["travel_discard"] + list(e["tokens"])


def exchange_candidates(s: State, seat: int) -> list[Command]:
    """Complete up to tokens of one type being interchangeable: for each count per type, the
    lowest ids of that type are offered (any other ids of the same type are just as legal)."""
    held = sorted(s["players"][seat]["tokens"])
    by_type: dict[str, list[str]] = {}
    for t in held:
        by_type.setdefault(data.TOKENS[t], []).append(t)
    kinds = sorted(by_type)
    out: list[Command] = []
    for counts in product(*(range(len(by_type[k]) + 1) for k in kinds)):
        chosen = [t for k, c in zip(kinds, counts, strict=True) for t in by_type[k][:c]]
        if not chosen:
            continue
        for reward in EXCHANGE:
            cmd = {"type": "exchange_tokens", "tokens": chosen, "reward": reward}
            if _ok(lambda s_, seat_, c_, f_: check_exchange(s_, seat_, c_), s, seat, cmd, None):
                out.append(cmd)
    return out


def _ok(check: Any, s: State, seat: int, cmd: Command, frame: Any) -> bool:
    try:
        check(s, seat, cmd, frame)
    except IllegalMove:
        return False
    return True


APPLY: dict[str, Evolver] = {
    "token_effect_applied": _on_token_effect_applied,
    "token_stored": _on_token_stored,
    "tokens_exchanged": _on_tokens_exchanged,
    "card_moved": _on_card_moved,
    "card_swapped": _on_card_swapped,
}
