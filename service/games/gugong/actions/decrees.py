"""§5.9 Decrees: price = printed cost + 1 per opponent servant on the tile; then one unit of
the pool goes onto it (a standing Foreman is lost)."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.engine import field_bool, field_str, only, pay, score
from service.games.interface import Command, Event, IllegalMove, State
from service.games.kit import Evolver, Turn, own, own_item


def check(s: State, seat: int, cmd: Command) -> dict[str, Any]:
    only(cmd, "decree", "pay_foreman", "place")
    decree = field_str(cmd, "decree")
    if decree not in s["decrees"]:
        raise IllegalMove("decree_not_in_play", f"Decree {decree!r} is not one of the decrees in play.")
    if decree in s["players"][seat]["decrees"]:
        raise IllegalMove("decree_already_owned", f"You already own decree {decree}.")
    pay_foreman = field_bool(cmd, "pay_foreman")
    place = cmd.get("place", "cube")
    if place not in board.UNITS:
        raise IllegalMove("bad_command", "place must be 'cube' or 'foreman'.")
    cost = board.decree_price(s, seat, decree)
    board.check_payment(s["players"][seat], cost, pay_foreman, [place])
    return {"decree": decree, "cost": cost, "pay_foreman": pay_foreman, "place": place}


def run(ctx: Turn, seat: int, plan: dict[str, Any]) -> None:
    pay(ctx, seat, plan["cost"], plan["pay_foreman"], "decree")
    ctx.emit({"type": "decree_bought", "seat": seat, "decree": plan["decree"], "price": plan["cost"],
              "place": plan["place"]})
    score(ctx, seat, data.DECREES[plan["decree"]]["vp_now"], "decree")


def _on_decree_bought(s: State, e: Event) -> None:
    p = own_item(s, "players", e["seat"])
    p["decrees"] = p["decrees"] + [e["decree"]]
    servants = own(s, "decree_servants")
    servants[e["decree"]] = servants[e["decree"]] + [e["seat"]]
    if e["place"] == "foreman":
        p["foreman"] = "lost"
    else:
        p["pool"] -= 1


def candidates(s: State, seat: int) -> list[dict[str, Any]]:
    return [
        {"decree": d, "pay_foreman": f, "place": u}
        for d in s["decrees"]
        for f in (False, True)
        for u in board.UNITS
    ]


APPLY: dict[str, Evolver] = {
    "decree_bought": _on_decree_bought,
}
