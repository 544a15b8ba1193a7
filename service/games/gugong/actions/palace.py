"""§5.8 Palace of Heavenly Purity: A = Envoy +1; B = pay 2, Envoy +2 and Intrigue +1."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.engine import advance_envoy, field_bool, field_option, move_intrigue, only, pay
from service.games.interface import Command, State
from service.games.kit import Turn

RULE = data.BOARD["palace"]


def check(s: State, seat: int, cmd: Command) -> dict[str, Any]:
    only(cmd, "option", "pay_foreman")
    option = field_option(cmd)
    pay_foreman = field_bool(cmd, "pay_foreman")
    cost = RULE["option_b"]["cost"] if option == "B" else 0
    board.check_payment(s["players"][seat], cost, pay_foreman, [])
    return {"option": option, "cost": cost, "pay_foreman": pay_foreman}


def run(ctx: Turn, seat: int, plan: dict[str, Any]) -> None:
    if plan["option"] == "A":
        advance_envoy(ctx, seat, RULE["option_a_steps"], "palace")
        return
    pay(ctx, seat, plan["cost"], plan["pay_foreman"], "palace")
    advance_envoy(ctx, seat, RULE["option_b"]["steps"], "palace")
    move_intrigue(ctx, seat, RULE["option_b"]["intrigue"], "palace")


def candidates(s: State, seat: int) -> list[dict[str, Any]]:
    return [{"option": "A"}, {"option": "B"}, {"option": "B", "pay_foreman": True}]
