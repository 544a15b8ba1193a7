"""§5.5 The Great Wall: A = place 1 unit (decree ability `wall_a_units` allows more); B = pay 1,
place 2. A lying Foreman counts 2. After the placement, a Wall at its threshold completes:
the majority scores, then every servant owner on it may take one Intrigue benefit."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.engine import (
    advance_envoy,
    field_bool,
    field_option,
    field_units,
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
from service.games.kit import Evolver, Turn, own, own_item

RULE = data.BOARD["wall"]
OPTIONS = data.BOARD["wall_options"]
BENEFITS = {b["down"]: b for b in data.BOARD["intrigue"]["benefits"]}


def check(s: State, seat: int, cmd: Command) -> dict[str, Any]:
    only(cmd, "option", "units", "pay_foreman")
    option = field_option(cmd)
    pay_foreman = field_bool(cmd, "pay_foreman")
    if option == "A":
        most = board.ability(s, seat, "wall_a_units") or OPTIONS["a_units"]
        units = field_units(cmd, "units", tuple(range(1, most + 1)))
        cost = 0
    else:
        units = field_units(cmd, "units", OPTIONS["b"]["units"])
        cost = OPTIONS["b"]["cost"]
    board.check_payment(s["players"][seat], cost, pay_foreman, units)
    return {"option": option, "cost": cost, "pay_foreman": pay_foreman, "units": units}


def run(ctx: Turn, seat: int, plan: dict[str, Any]) -> None:
    pay(ctx, seat, plan["cost"], plan["pay_foreman"], "wall")
    build(ctx, seat, plan["units"].count("cube"), "foreman" in plan["units"], "pool")


def candidates(s: State, seat: int) -> list[dict[str, Any]]:
    most = board.ability(s, seat, "wall_a_units") or OPTIONS["a_units"]
    shapes = [["cube"], ["foreman"], ["cube", "cube"], ["cube", "foreman"]]
    out: list[dict[str, Any]] = [{"option": "A", "units": u} for u in shapes if len(u) <= most]
    out += [{"option": "B", "units": u, "pay_foreman": f} for u in shapes if len(u) == 2 for f in (False, True)]
    return out


def build(ctx: Turn, seat: int, cubes: int, foreman: bool, source: str) -> None:
    """Place on the Wall, then check completion once for the whole placement (D7)."""
    ctx.emit({"type": "wall_built", "seat": seat, "cubes": cubes, "foreman": foreman, "from": source})
    if sum(_size(w) for w in ctx.state["wall"]) >= ctx.state["wall_threshold"]:
        complete(ctx)


def _on_wall_built(s: State, e: Event) -> None:
    p = own_item(s, "players", e["seat"])
    entries = [{"seat": e["seat"], "foreman": False} for _ in range(e["cubes"])]
    if e["from"] == "pool":
        p["pool"] -= e["cubes"]
    else:
        p["supply"] -= e["cubes"]
    if e["foreman"]:
        entries.append({"seat": e["seat"], "foreman": True})
        p["foreman"] = "wall"
    s["wall"] = s["wall"] + entries


def majority(s: State) -> int:
    totals: dict[int, int] = {}
    for w in s["wall"]:
        totals[w["seat"]] = totals.get(w["seat"], 0) + _size(w)
    most = max(totals.values())
    return board.best_by_intrigue(s, sorted(seat for seat, t in totals.items() if t == most))


def complete(ctx: Turn) -> None:
    s = ctx.state
    eligible = sorted({w["seat"] for w in s["wall"]})
    scorer = majority(s)
    ctx.emit({"type": "wall_completed", "scorer": scorer, "eligible": eligible})
    score(ctx, scorer, RULE["majority_vp"], "wall")
    advance_envoy(ctx, scorer, RULE["majority_envoy"], "wall")
    # Benefits go from the lowest marker upward, in an order fixed now (D8).
    order = sorted(eligible, key=lambda seat: board.intrigue_key(ctx.state, seat))
    push(ctx, *({"kind": "benefit", "seat": seat} for seat in order))


def _on_wall_completed(s: State, e: Event) -> None:
    seat = e["scorer"]
    mine = [w for w in s["wall"] if w["seat"] == seat]
    s["wall"] = [w for w in s["wall"] if w["seat"] != seat]
    p = own_item(s, "players", seat)
    p["supply"] += sum(1 for w in mine if not w["foreman"])
    if any(w["foreman"] for w in mine):
        p["foreman"] = "supply"


def _size(entry: dict[str, Any]) -> int:
    return 2 if entry["foreman"] else 1


# --- the Intrigue benefit prompt (§5.5 step 3) -------------------------------------------------------


def check_benefit(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> dict[str, Any]:
    only(cmd, "down", "die", "face")
    down = cmd.get("down")
    if not isinstance(down, int) or isinstance(down, bool) or down not in BENEFITS:
        raise IllegalMove("bad_command", f"down must be one of {sorted(BENEFITS)}.")
    if s["players"][seat]["intrigue"] < down:
        raise IllegalMove("insufficient_intrigue", f"Your Intrigue marker is too low to move down {down} steps.")
    plan: dict[str, Any] = {"down": down}
    if BENEFITS[down]["gain"] == "die":
        die = cmd.get("die")
        if not isinstance(die, int) or isinstance(die, bool) or not 0 <= die < len(data.DICE):
            raise IllegalMove("bad_command", f"die must be a die index from 0 to {len(data.DICE) - 1}.")
        face = cmd.get("face")
        if not isinstance(face, int) or isinstance(face, bool) or face not in data.DICE[die]:
            raise IllegalMove("illegal_die_face", f"Die {die} has no face {face!r}; its faces are {data.DICE[die]}.")
        plan.update(die=die, face=face)
    else:
        only(cmd, "down")
    return plan


def run_benefit(ctx: Turn, seat: int, plan: dict[str, Any], frame: dict[str, Any]) -> None:
    pop(ctx)
    benefit = BENEFITS[plan["down"]]
    ctx.emit({"type": "intrigue_benefit_taken", "seat": seat, "down": plan["down"], "gain": benefit["gain"]})
    move_intrigue(ctx, seat, -plan["down"], "benefit")
    if benefit["gain"] == "servants":
        gain(ctx, seat, benefit["n"], "benefit")
    elif benefit["gain"] == "jade":
        gain_jade(ctx, seat, benefit["n"], "benefit")
    elif benefit["gain"] == "die":
        ctx.emit({"type": "die_set", "seat": seat, "die": plan["die"], "face": plan["face"]})


def _on_die_set(s: State, e: Event) -> None:
    own(s, "dice")[e["die"]] = e["face"]


def _on_intrigue_benefit_taken(s: State, e: Event) -> None:
    pass  # the marker's move and the gain are their own events


def benefit_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    out: list[Command] = []
    for down, b in sorted(BENEFITS.items()):
        if b["gain"] == "die":
            out += [{"type": "intrigue_benefit", "down": down, "die": d, "face": f}
                    for d, faces in enumerate(data.DICE) for f in faces]
        else:
            out.append({"type": "intrigue_benefit", "down": down})
    return out


def benefit_skipped(s: State, frame: dict[str, Any]) -> bool:
    """A marker at 0 can pay for nothing and is passed over without a prompt (D28)."""
    return s["players"][frame["seat"]]["intrigue"] == 0


APPLY: dict[str, Evolver] = {
    "die_set": _on_die_set,
    "intrigue_benefit_taken": _on_intrigue_benefit_taken,
    "wall_built": _on_wall_built,
    "wall_completed": _on_wall_completed,
}
