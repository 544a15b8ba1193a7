"""§5.4 Travel: A = one move; B = pay 2 (decree ability `travel_b_cost` lowers it), two moves.

Each move is its own prompt (`travel_move`), so the token taken on the first move, with its
benefit and anything that benefit sets off, is fully resolved before the second move (§5.4).
"""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.engine import field_bool, field_option, field_str, only, pay, pop, push
from service.games.interface import Command, Event, IllegalMove, State
from service.games.kit import Evolver, Turn, own, own_item

RULE = data.BOARD["travel"]


def check(s: State, seat: int, cmd: Command) -> dict[str, Any]:
    only(cmd, "option", "pay_foreman")
    option = field_option(cmd)
    pay_foreman = field_bool(cmd, "pay_foreman")
    cost = 0
    if option == "B":
        cost = board.ability(s, seat, "travel_b_cost") or RULE["option_b"]["cost"]
    board.check_payment(s["players"][seat], cost, pay_foreman, [])
    if not board.destinations(s, seat):
        raise IllegalMove("no_reachable_city", "Your Traveller can reach no city that holds a token.")
    return {"option": option, "cost": cost, "pay_foreman": pay_foreman}


def run(ctx: Turn, seat: int, plan: dict[str, Any]) -> None:
    moves = 1
    if plan["option"] == "B":
        pay(ctx, seat, plan["cost"], plan["pay_foreman"], "travel")
        moves = RULE["option_b"]["moves"]
    push(ctx, {"kind": "travel_move", "seat": seat, "left": moves, "optional": False})


def candidates(s: State, seat: int) -> list[dict[str, Any]]:
    return [{"option": "A"}, {"option": "B"}, {"option": "B", "pay_foreman": True}]


# --- the travel_move prompt -----------------------------------------------------------------------


def check_move(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> str:
    only(cmd, "city")
    city = field_str(cmd, "city")
    if city not in board.destinations(s, seat):
        raise IllegalMove("illegal_destination", f"Your Traveller cannot reach a token at {city!r} from where it stands.")
    return city


def run_move(ctx: Turn, seat: int, city: str, frame: dict[str, Any]) -> None:
    pop(ctx)
    token = ctx.state["map"][city]
    ctx.emit({"type": "traveller_moved", "seat": seat, "city": city, "token": token})
    later: list[dict[str, Any]] = [
        {"kind": "token_effect", "seat": seat, "token": token},
        {"kind": "token_store", "seat": seat, "token": token},
    ]
    if frame["left"] > 1:
        later.append({"kind": "travel_move", "seat": seat, "left": frame["left"] - 1, "optional": frame["optional"]})
    push(ctx, *later)


def _on_traveller_moved(s: State, e: Event) -> None:
    own_item(s, "players", e["seat"])["traveller"] = e["city"]
    own(s, "map")[e["city"]] = None
    s["in_transit"] = e["token"]


def move_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    return [{"type": "travel", "city": c} for c in board.destinations(s, seat)]


def move_impossible(s: State, frame: dict[str, Any]) -> bool:
    """A move with nowhere to go is skipped, and nothing is refunded (D4)."""
    return not board.destinations(s, frame["seat"])


APPLY: dict[str, Evolver] = {
    "traveller_moved": _on_traveller_moved,
}
