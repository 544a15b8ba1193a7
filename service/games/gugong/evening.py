"""The Evening (§4.3): Destiny dice pay out, the bonus goes to the most matches, boats move
one port, full boats are offered their harbour claim one at a time (D29)."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.engine import advance_envoy, gain, push, score
from service.games.interface import Event, State
from service.games.kit import Evolver, Turn

BONUS = data.BOARD["dice_bonus"]
CAPACITY = data.BOARD["boat_capacity"]


def matches(dice: list[int], cards: list[str]) -> int:
    """Σ over the cards of how many dice show its value (D9)."""
    return sum(dice.count(data.CARDS[c]["value"]) for c in cards)


def run_evening(ctx: Turn, frame: dict[str, Any]) -> None:
    s = ctx.state
    ctx.emit({"type": "evening_started", "day": s["day"]})
    # Step 1: the Destiny dice. Nothing to decide, so nobody is asked (D29).
    counts = [matches(s["dice"], p["discard"]) for p in s["players"]]
    ctx.emit({"type": "dice_matched", "dice": list(s["dice"]), "matches": counts})
    for seat in board.turn_order(ctx.state):
        gain(ctx, seat, counts[seat], "dice")
    best = max(counts)
    if best > 0:
        winner = board.best_by_intrigue(ctx.state, [seat for seat, m in enumerate(counts) if m == best])
        ctx.emit({"type": "dice_bonus_awarded", "seat": winner, "matches": best})
        score(ctx, winner, BONUS["vp"], "dice")
        advance_envoy(ctx, winner, BONUS["envoy"], "dice")
    # Step 2: boats move one port, front to back, so the port ahead is always free.
    for route in ctx.state["routes"]:
        last = len(ctx.state["canal"][route])
        for port in range(last, 0, -1):
            boat = ctx.state["canal"][route][port - 1]
            if boat is None:
                continue
            if port == last:
                ctx.emit({"type": "boat_returned", "seat": boat["owner"], "route": route, "port": port, "reason": "lost"})
            else:
                ctx.emit({"type": "boat_moved", "seat": boat["owner"], "route": route, "from": port, "to": port + 1})
    claims = []
    for seat in board.turn_order(ctx.state):
        mine = [(port, route) for route, port in board.boats_of(ctx.state, seat)]
        # Furthest along first; on equal ports route A before route B (D29).
        for port, route in sorted(mine, key=lambda pr: (-pr[0], pr[1])):
            boat = ctx.state["canal"][route][port - 1]
            if board.boat_units(boat) == CAPACITY and data.port_rewards(route, port):
                claims.append({"kind": "claim", "seat": seat, "route": route, "port": port})
    push(ctx, *claims, {"kind": "evening_end"})


def _on_evening_started(s: State, e: Event) -> None:
    s["phase"] = "evening"


def _on_dice_matched(s: State, e: Event) -> None:
    pass  # servants come as servants_gained events


def _on_dice_bonus_awarded(s: State, e: Event) -> None:
    pass  # VP and Envoy come as their own events


def run_evening_end(ctx: Turn, frame: dict[str, Any]) -> None:
    if ctx.state["day"] >= data.BOARD["days"]:
        ctx.emit({"type": "final_window_opened"})
        push(ctx, *({"kind": "final_window", "seat": seat} for seat in board.turn_order(ctx.state)),
             {"kind": "final_scoring"})
    else:
        push(ctx, {"kind": "morning"})


def _on_final_window_opened(s: State, e: Event) -> None:
    s["phase"] = "final"


APPLY: dict[str, Evolver] = {
    "evening_started": _on_evening_started,
    "dice_matched": _on_dice_matched,
    "dice_bonus_awarded": _on_dice_bonus_awarded,
    "final_window_opened": _on_final_window_opened,
}
