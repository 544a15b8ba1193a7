"""§5.6 Jade: buy the jade of a house spot at its printed cost; the 5-servant supply jade only
once every spot is empty. Decree ability `jade_discount` lowers both (D37)."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.engine import field_bool, gain_jade, only, pay
from service.games.interface import Command, IllegalMove, State
from service.games.kit import Turn


def price(s: State, seat: int, spot: int | None) -> int:
    base = data.BOARD["jade_houses"]["fallback_cost"] if spot is None else data.jade_costs(s["side"])[spot]
    discount = board.ability(s, seat, "jade_discount")
    if discount:
        base = max(1, base - discount)
    return base


def check(s: State, seat: int, cmd: Command) -> dict[str, Any]:
    only(cmd, "spot", "pay_foreman")
    spot = cmd.get("spot")
    if spot is not None:
        if not isinstance(spot, int) or isinstance(spot, bool) or not 0 <= spot < len(s["jade_spots"]):
            raise IllegalMove("bad_command", f"spot must be a jade-house spot from 0 to {len(s['jade_spots']) - 1}, or null.")
        if not s["jade_spots"][spot]:
            raise IllegalMove("jade_spot_empty", f"Jade-house spot {spot} holds no jade any more.")
    elif any(s["jade_spots"]):
        raise IllegalMove("jade_fallback_locked", "The supply jade is for sale only once every house spot is empty.")
    pay_foreman = field_bool(cmd, "pay_foreman")
    cost = price(s, seat, spot)
    board.check_payment(s["players"][seat], cost, pay_foreman, [])
    return {"spot": spot, "cost": cost, "pay_foreman": pay_foreman}


def run(ctx: Turn, seat: int, plan: dict[str, Any]) -> None:
    pay(ctx, seat, plan["cost"], plan["pay_foreman"], "jade")
    gain_jade(ctx, seat, 1, "jade", plan["spot"])


def candidates(s: State, seat: int) -> list[dict[str, Any]]:
    spots: list[int | None] = [i for i, full in enumerate(s["jade_spots"]) if full] or [None]
    return [{"spot": i, "pay_foreman": f} for i in spots for f in (False, True)]
