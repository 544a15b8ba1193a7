"""§5.7 Intrigue: A = +1 and, for the day's first user of option A, the medal; B = pay 1, +3."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.engine import field_bool, field_option, move_intrigue, only, pay
from service.games.interface import Command, Event, State
from service.games.kit import Evolver, Turn

RULE = data.BOARD["intrigue"]


def check(s: State, seat: int, cmd: Command) -> dict[str, Any]:
    only(cmd, "option", "pay_foreman")
    option = field_option(cmd)
    pay_foreman = field_bool(cmd, "pay_foreman")
    cost = RULE["option_b"]["cost"] if option == "B" else 0
    board.check_payment(s["players"][seat], cost, pay_foreman, [])
    return {"option": option, "cost": cost, "pay_foreman": pay_foreman}


def run(ctx: Turn, seat: int, plan: dict[str, Any]) -> None:
    if plan["option"] == "A":
        move_intrigue(ctx, seat, RULE["option_a_steps"], "intrigue")
        # The medal goes with choosing option A, even at the top of the track (D1, D34).
        if ctx.state["medal"] is None:
            ctx.emit({"type": "medal_taken", "seat": seat})
        return
    pay(ctx, seat, plan["cost"], plan["pay_foreman"], "intrigue")
    move_intrigue(ctx, seat, RULE["option_b"]["steps"], "intrigue")


def _on_medal_taken(s: State, e: Event) -> None:
    s["medal"] = e["seat"]


def candidates(s: State, seat: int) -> list[dict[str, Any]]:
    return [{"option": "A"}, {"option": "B"}, {"option": "B", "pay_foreman": True}]


APPLY: dict[str, Evolver] = {
    "medal_taken": _on_medal_taken,
}
