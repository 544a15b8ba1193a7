"""The Morning of days 2-4 (§4.1): hands take up the discard piles, the medal's holder starts,
the map is refilled, the dice are rolled, level-1 decrees pay out, the day tracker pays."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.engine import advance_envoy, gain, move_intrigue, only, pop, push, score
from service.games.gugong.setup import roll_dice
from service.games.interface import Command, Event, IllegalMove, State
from service.games.kit import Evolver, Turn, own, own_item, without


def run_morning(ctx: Turn, frame: dict[str, Any]) -> None:
    day = ctx.state["day"] + 1
    ctx.emit({"type": "morning_started", "day": day})
    # 1. Start player
    if ctx.state["medal"] is not None:
        ctx.emit({"type": "start_player_changed", "seat": ctx.state["medal"]})
    # 2. Refill the map
    refill(ctx)
    # 3. Roll the Destiny dice
    ctx.emit({"type": "dice_rolled", "day": day, "dice": roll_dice(ctx, day)})
    # 4. Level-1 decrees, in turn order; an owner of two picks the order (D19)
    later: list[dict[str, Any]] = []
    for seat in board.turn_order(ctx.state):
        mine = sorted(d for d in ctx.state["players"][seat]["decrees"] if data.DECREES[d].get("morning"))
        if len(mine) == 1:
            later.append({"kind": "morning_decree_effect", "seat": seat, "decree": mine[0]})
        elif mine:
            later.append({"kind": "morning_decree", "seat": seat, "left": mine})
    # 5. The day tracker
    later.append({"kind": "morning_tracker"})
    push(ctx, *later)


def _on_morning_started(s: State, e: Event) -> None:
    s["phase"] = "morning"
    s["day"] = e["day"]
    for seat in range(s["n"]):
        # The gift discard pile becomes part of the hand for the new day (§4.1, D18).
        p = own_item(s, "players", seat)
        p["hand"] = p["hand"] + p["discard"]
        p["discard"] = []


def _on_start_player_changed(s: State, e: Event) -> None:
    s["start_player"] = e["seat"]
    s["medal"] = None


def _on_dice_rolled(s: State, e: Event) -> None:
    s["dice"] = list(e["dice"])


def refill(ctx: Turn) -> None:
    """Cities with neither token nor Traveller, in id order, from pile A, then pile B (D20)."""
    travellers = {p["traveller"] for p in ctx.state["players"]}
    empty = [c for c in data.CITIES if ctx.state["map"][c] is None and c not in travellers]
    placements: list[list[str]] = []
    a, b = list(ctx.state["pile_a"]), list(ctx.state["pile_b"])
    for city in empty:
        if not a and not b:
            if placements:
                ctx.emit({"type": "map_refilled", "placements": placements})
                placements = []
            if not ctx.state["travel_discard"]:
                break
            pile = list(ctx.state["travel_discard"])
            ctx.rng.shuffle(pile)
            half = (len(pile) + 1) // 2
            ctx.emit({"type": "travel_discard_reshuffled", "pile_a": pile[:half], "pile_b": pile[half:]})
            a, b = list(ctx.state["pile_a"]), list(ctx.state["pile_b"])
        if a:
            placements.append([city, a.pop(0), "pile_a"])
        else:
            placements.append([city, b.pop(0), "pile_b"])
    if placements:
        ctx.emit({"type": "map_refilled", "placements": placements})


def _on_travel_discard_reshuffled(s: State, e: Event) -> None:
    s["pile_a"] = list(e["pile_a"])
    s["pile_b"] = list(e["pile_b"])
    s["travel_discard"] = []


def _on_map_refilled(s: State, e: Event) -> None:
    board_map = own(s, "map")
    for city, token, pile in e["placements"]:
        s[pile] = without(s[pile], token)
        board_map[city] = token


def run_decree_effect(ctx: Turn, frame: dict[str, Any]) -> None:
    seat, decree = frame["seat"], frame["decree"]
    effect = data.DECREES[decree]["morning"]
    ctx.emit({"type": "morning_decree_resolved", "seat": seat, "decree": decree})
    kind = effect["kind"]
    if kind == "servants":
        gain(ctx, seat, effect["n"], "decree")
    elif kind == "intrigue":
        move_intrigue(ctx, seat, effect["n"], "decree")
    elif kind == "envoy":
        advance_envoy(ctx, seat, effect["n"], "decree")
    elif kind == "vp":
        score(ctx, seat, effect["n"], "decree")
    elif kind == "travel_move":
        push(ctx, {"kind": "travel_move", "seat": seat, "left": 1, "optional": True})


def _on_morning_decree_resolved(s: State, e: Event) -> None:
    pass


def run_tracker(ctx: Turn, frame: dict[str, Any]) -> None:
    day = ctx.state["day"]
    for seat in board.turn_order(ctx.state):
        gain(ctx, seat, data.tracker_gain(day), "day_tracker")
    ctx.emit({"type": "day_started", "day": day})
    push(ctx, {"kind": "next_turn", "from": ctx.state["start_player"]})


def _on_day_started(s: State, e: Event) -> None:
    s["phase"] = "day"
    s["medal"] = None


# --- the morning_decree prompt (an owner of two level-1 decrees picks which comes first) --------


def check_pick(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> str:
    only(cmd, "decree")
    decree = cmd.get("decree")
    if not isinstance(decree, str) or decree not in frame["left"]:
        raise IllegalMove("bad_command", f"decree must be one of {frame['left']}.")
    return decree


def run_pick(ctx: Turn, seat: int, decree: str, frame: dict[str, Any]) -> None:
    pop(ctx)
    rest = [d for d in frame["left"] if d != decree]
    after: dict[str, Any] = (
        {"kind": "morning_decree", "seat": seat, "left": rest} if len(rest) > 1
        else {"kind": "morning_decree_effect", "seat": seat, "decree": rest[0]}
    )
    push(ctx, {"kind": "morning_decree_effect", "seat": seat, "decree": decree}, after)


def pick_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    return [{"type": "morning_decree", "decree": d} for d in frame["left"]]


APPLY: dict[str, Evolver] = {
    "morning_decree_resolved": _on_morning_decree_resolved,
    "morning_started": _on_morning_started,
    "start_player_changed": _on_start_player_changed,
    "travel_discard_reshuffled": _on_travel_discard_reshuffled,
    "map_refilled": _on_map_refilled,
    "dice_rolled": _on_dice_rolled,
    "day_started": _on_day_started,
}
