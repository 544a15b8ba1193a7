"""The decide-side toolkit: the control stack's push and pop, effects every part of the rules
shares (gains, payments, tracks), and the field readers that turn junk commands into
IllegalMove. Commands are decided on the kit's `Turn` (named `ctx` throughout)."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.interface import Command, Event, IllegalMove, State
from service.games.kit import Evolver, Turn, own, own_item
from service.games.preamble import refuse_unknown_fields

# --- the control stack ------------------------------------------------------------------------------
# A frame is a plain dict {"kind": ..., ...}. Prompt frames carry the "seat" that must answer;
# the other frames are steps that run by themselves once they reach the top.


def push(ctx: Turn, *frames: dict[str, Any]) -> None:
    """Schedule frames to run in the order given, before anything already waiting."""
    if frames:
        ctx.emit({"type": "pending_pushed", "frames": [dict(f) for f in frames]})


def _on_pending_pushed(s: State, e: Event) -> None:
    # Frames are listed in the order they will run; the first ends on top.
    s["stack"] = s["stack"] + [dict(f) for f in reversed(e["frames"])]


def pop(ctx: Turn) -> None:
    ctx.emit({"type": "pending_popped"})


def _on_pending_popped(s: State, e: Event) -> None:
    s["stack"] = s["stack"][:-1]


def top(s: State) -> dict[str, Any] | None:
    return s["stack"][-1] if s["stack"] else None


# --- shared effects ------------------------------------------------------------------------------------


def gain(ctx: Turn, seat: int, n: int, reason: str) -> None:
    """Supply -> pool, capped by the supply; the Foreman comes back first (§5.11, §5.12)."""
    p = ctx.state["players"][seat]
    foreman = n > 0 and p["foreman"] == "supply"
    cubes = min(n - (1 if foreman else 0), p["supply"])
    if foreman or cubes:
        ctx.emit({"type": "servants_gained", "seat": seat, "cubes": cubes, "foreman": foreman, "reason": reason})


def _on_servants_gained(s: State, e: Event) -> None:
    _servants_moved(s, e, "supply", "pool")


def pay(ctx: Turn, seat: int, cost: int, pay_foreman: bool, reason: str) -> None:
    cubes, foreman = board.payment_split(cost, pay_foreman)
    if cubes or foreman:
        ctx.emit({"type": "servants_paid", "seat": seat, "cubes": cubes, "foreman": foreman, "reason": reason})


def _on_servants_paid(s: State, e: Event) -> None:
    _servants_moved(s, e, "pool", "supply")


def _servants_moved(s: State, e: Event, source: str, target: str) -> None:
    """Cubes go from one of a player's places to the other; the Foreman, when it moves, ends
    where the cubes went (the pool or the supply)."""
    p = own_item(s, "players", e["seat"])
    p[source] -= e["cubes"]
    p[target] += e["cubes"]
    if e["foreman"]:
        p["foreman"] = target


def score(ctx: Turn, seat: int, vp: int, reason: str) -> None:
    if vp:
        ctx.emit({"type": "vp_scored", "seat": seat, "vp": vp, "reason": reason})


def _on_vp_scored(s: State, e: Event) -> None:
    own_item(s, "players", e["seat"])["vp"] += e["vp"]


def gain_jade(ctx: Turn, seat: int, n: int, reason: str, spot: int | None = None) -> None:
    ctx.emit({"type": "jade_gained", "seat": seat, "n": n, "reason": reason, "spot": spot})


def _on_jade_gained(s: State, e: Event) -> None:
    own_item(s, "players", e["seat"])["jade"] += e["n"]
    if e.get("spot") is not None:
        own(s, "jade_spots")[e["spot"]] = False


def advance_envoy(ctx: Turn, seat: int, steps: int, reason: str) -> None:
    """Envoy steps; arriving takes the best free arrival slot, steps past the Palace are 1 VP each."""
    if steps <= 0:
        return
    p = ctx.state["players"][seat]
    goal = data.BOARD["palace"]["arrival"]
    to = min(goal, p["envoy"] + steps)
    vp = p["envoy"] + steps - to
    arrived = p["envoy"] < goal <= to
    slot_vp = 0
    if arrived:
        slots = data.arrival_slots(ctx.state["side"])
        taken = len(ctx.state["arrivals"])
        slot_vp = slots[taken] if taken < len(slots) else 0
    ctx.emit({"type": "envoy_advanced", "seat": seat, "to": to, "vp": vp, "arrived": arrived,
              "slot_vp": slot_vp, "reason": reason})


def _on_envoy_advanced(s: State, e: Event) -> None:
    p = own_item(s, "players", e["seat"])
    p["envoy"] = e["to"]
    p["vp"] += e["vp"]
    if e["arrived"]:
        p["arrival_vp"] = e["slot_vp"]
        s["arrivals"] = s["arrivals"] + [e["seat"]]


def move_intrigue(ctx: Turn, seat: int, steps: int, reason: str) -> None:
    """Steps past the top of the track are lost (§5.7, D21)."""
    p = ctx.state["players"][seat]
    to = max(0, min(data.BOARD["intrigue"]["max"], p["intrigue"] + steps))
    if to != p["intrigue"]:
        ctx.emit({"type": "intrigue_moved", "seat": seat, "to": to, "reason": reason})


def _on_intrigue_moved(s: State, e: Event) -> None:
    if s["players"][e["seat"]]["intrigue"] != e["to"]:
        # A marker that lands on a space goes on top of whatever is there (§5.7).
        p = own_item(s, "players", e["seat"])
        p["intrigue"] = e["to"]
        p["stamp"] = s["stamp"]
        s["stamp"] += 1


# --- reading command fields ------------------------------------------------------------------------------


def only(cmd: Command, *keys: str) -> None:
    """Refuse fields this use of the command does not take (the preamble knows only the union
    over every use), with the preamble's code."""
    refuse_unknown_fields(cmd, ("type", *keys), f"Command {cmd.get('type')!r} here")


def field_str(cmd: Command, key: str, choices: Any = None) -> str:
    v = cmd.get(key)
    if not isinstance(v, str) or (choices is not None and v not in choices):
        want = f" one of {sorted(choices)}" if choices is not None else " a string"
        raise IllegalMove("bad_command", f"Field {key!r} must be{want}.")
    return v


def field_int(cmd: Command, key: str) -> int:
    v = cmd.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise IllegalMove("bad_command", f"Field {key!r} must be an integer.")
    return v


def field_bool(cmd: Command, key: str) -> bool:
    v = cmd.get(key, False)
    if not isinstance(v, bool):
        raise IllegalMove("bad_command", f"Field {key!r} must be true or false.")
    return v


def field_option(cmd: Command) -> str:
    return field_str(cmd, "option", ("A", "B"))


def field_units(cmd: Command, key: str, count: int | tuple[int, ...]) -> list[str]:
    v = cmd.get(key)
    counts = (count,) if isinstance(count, int) else count
    if not isinstance(v, list) or len(v) not in counts or not all(u in board.UNITS for u in v if isinstance(u, str)) \
            or not all(isinstance(u, str) for u in v):
        raise IllegalMove("bad_command", f"Field {key!r} must list {' or '.join(map(str, counts))} of 'cube'/'foreman'.")
    return list(v)


APPLY: dict[str, Evolver] = {
    "pending_pushed": _on_pending_pushed,
    "pending_popped": _on_pending_popped,
    "servants_paid": _on_servants_paid,
    "servants_gained": _on_servants_gained,
    "envoy_advanced": _on_envoy_advanced,
    "intrigue_moved": _on_intrigue_moved,
    "vp_scored": _on_vp_scored,
    "jade_gained": _on_jade_gained,
}
