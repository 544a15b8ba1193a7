"""§5.10 The Grand Canal.

A = optionally place 1 unit on one of your boats (a boat position with no boat launches a new
boat, which must be the free port closest to the route's start), then optionally move one of
your boats to the next free port ahead; at least one of the two (D33). B = pay 1, place 2 units
on 1 or 2 boats, no move. A boat that becomes full on a reward port, or arrives full at one,
offers its owner a harbour claim (D12)."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.engine import field_bool, field_option, field_str, only, pay, pop, push, score
from service.games.interface import Command, Event, IllegalMove, State
from service.games.kit import Evolver, Turn, own_item, without
from service.games.preamble import refuse_unknown_fields

CAPACITY = data.BOARD["boat_capacity"]
OPTION_B = data.BOARD["canal_option_b"]


def check(s: State, seat: int, cmd: Command) -> dict[str, Any]:
    option = field_option(cmd)
    pay_foreman = field_bool(cmd, "pay_foreman")
    if option == "A":
        only(cmd, "option", "place", "move", "pay_foreman")
        place, move = cmd.get("place"), cmd.get("move")
        if place is None and move is None:
            raise IllegalMove("empty_action", "Canal option A must place a servant, move a boat, or both.")
        placements = [] if place is None else [_placement(place)]
        cost = 0
    else:
        only(cmd, "option", "placements", "pay_foreman")
        raw = cmd.get("placements")
        if not isinstance(raw, list) or len(raw) != OPTION_B["units"]:
            raise IllegalMove("bad_command", f"Canal option B needs placements: a list of {OPTION_B['units']} placements.")
        placements = [_placement(p) for p in raw]
        move = None
        cost = OPTION_B["cost"]
    board.check_payment(s["players"][seat], cost, pay_foreman, [u for _, u in placements])
    after = s
    for ref, unit in placements:
        after = simulate_placement(after, seat, ref, unit)
    move_from = None
    if move is not None:
        route, port = board.parse_boat(after, move)
        boat = after["canal"][route][port - 1]
        if boat is None or boat["owner"] != seat:
            raise IllegalMove("boat_not_on_canal", f"You have no boat at {move}.")
        if board.next_free_port(after, route, port) is None:
            raise IllegalMove("no_free_port", f"No free port lies ahead of your boat at {move}.")
        move_from = [route, port]
    return {"option": option, "cost": cost, "pay_foreman": pay_foreman,
            "placements": [[r, u] for r, u in placements], "move": move_from}


def run(ctx: Turn, seat: int, plan: dict[str, Any]) -> None:
    pay(ctx, seat, plan["cost"], plan["pay_foreman"], "canal")
    later: list[dict[str, Any]] = []
    for ref, unit in plan["placements"]:
        later += load(ctx, seat, ref, unit, "pool")
    if plan["move"] is not None:
        route, port = plan["move"]
        later.append({"kind": "canal_move", "seat": seat, "route": route, "port": port})
    # Claims come in the order the boats filled up, and before the move (placement first, D11).
    push(ctx, *later)


def candidates(s: State, seat: int) -> list[dict[str, Any]]:
    targets = placement_targets(s, seat)
    out: list[dict[str, Any]] = []
    places: list[dict[str, str] | None] = [None] + [{"boat": t, "unit": u} for t in targets for u in board.UNITS]
    for place in places:
        after = s
        if place is not None:
            try:
                after = simulate_placement(s, seat, place["boat"], place["unit"])
            except IllegalMove:
                continue
        moves: list[str | None] = [None] + [board.boat_ref(r, p) for r, p in board.boats_of(after, seat)]
        out += [{"option": "A", "place": place, "move": m} for m in moves if place is not None or m is not None]
    for first in targets:
        for u1 in board.UNITS:
            try:
                after = simulate_placement(s, seat, first, u1)
            except IllegalMove:
                continue
            for second in placement_targets(after, seat):
                for u2 in board.UNITS:
                    for f in (False, True):
                        out.append({"option": "B", "placements": [{"boat": first, "unit": u1},
                                                                   {"boat": second, "unit": u2}], "pay_foreman": f})
    return out


def placement_targets(s: State, seat: int) -> list[str]:
    """Your boats with room, and the launch port of each route while you have a boat left."""
    out = [board.boat_ref(r, p) for r, p in board.boats_of(s, seat)
           if board.boat_units(s["canal"][r][p - 1]) < CAPACITY]
    if board.boats_left(s, seat) > 0:
        for route in s["routes"]:
            port = board.launch_port(s, route)
            if port is not None:
                out.append(board.boat_ref(route, port))
    return out


def _placement(raw: Any) -> tuple[str, str]:
    if not isinstance(raw, dict):
        raise IllegalMove("bad_command", "A placement is an object {boat: 'A2', unit: 'cube'|'foreman'}.")
    refuse_unknown_fields(raw, ("boat", "unit"), "A placement")
    unit = raw.get("unit", "cube")
    if unit not in board.UNITS:
        raise IllegalMove("bad_command", "A placement's unit must be 'cube' or 'foreman'.")
    return field_str(raw, "boat"), unit


def simulate_placement(s: State, seat: int, ref: Any, unit: str) -> State:
    """Check one placement and return a light copy of the state with its canal changed."""
    route, port = board.parse_boat(s, ref)
    boat = s["canal"][route][port - 1]
    size = 2 if unit == "foreman" else 1
    if boat is not None and boat["owner"] != seat and board.launch_port(s, route) is None:
        # Another player's boat at the named port, and no free port anywhere on the route: the
        # new boat the player wants has nowhere to go (spec 5.10, NO_FREE_PORT).
        raise IllegalMove("no_free_port", f"Route {route} has no free port for a new boat.")
    if boat is None:
        launch = board.launch_port(s, route)
        assert launch is not None  # the named port itself is free
        if port != launch:
            raise IllegalMove("illegal_port", f"A new boat on route {route} goes to port {launch}, the free port "
                                              f"closest to the start.")
        if board.boats_left(s, seat) == 0:
            raise IllegalMove("no_boat_available", "All your boats are on the canal.")
        boat = {"owner": seat, "cubes": 0, "foreman": False}
    elif boat["owner"] != seat:
        raise IllegalMove("illegal_port", f"The boat at {ref} is not yours.")
    if board.boat_units(boat) + size > CAPACITY:
        raise IllegalMove("boat_full", f"The boat at {ref} has no room for that.")
    if unit == "foreman" and boat["foreman"]:
        raise IllegalMove("foreman_used_twice", "Your Foreman is already on that boat.")
    boat = {**boat, "cubes": boat["cubes"] + (0 if unit == "foreman" else 1), "foreman": boat["foreman"] or unit == "foreman"}
    ports = list(s["canal"][route])
    ports[port - 1] = boat
    return {**s, "canal": {**s["canal"], route: ports}}


def load(ctx: Turn, seat: int, ref: str, unit: str, source: str) -> list[dict[str, Any]]:
    """Place one unit (launching a boat if the port is empty); return the claim it opens, if any."""
    route, port = board.parse_boat(ctx.state, ref)
    if ctx.state["canal"][route][port - 1] is None:
        ctx.emit({"type": "boat_launched", "seat": seat, "route": route, "port": port})
    ctx.emit({"type": "boat_loaded", "seat": seat, "route": route, "port": port, "unit": unit, "from": source})
    boat = ctx.state["canal"][route][port - 1]
    if board.boat_units(boat) == CAPACITY and data.port_rewards(route, port):
        return [{"kind": "claim", "seat": seat, "route": route, "port": port}]
    return []


def _on_boat_launched(s: State, e: Event) -> None:
    own_item(s, "canal", e["route"])[e["port"] - 1] = {"owner": e["seat"], "cubes": 0, "foreman": False}


def _on_boat_loaded(s: State, e: Event) -> None:
    p = own_item(s, "players", e["seat"])
    boat = _own_boat(s, e["route"], e["port"])
    if e["unit"] == "foreman":
        boat["foreman"] = True
        p["foreman"] = "boat"
    else:
        boat["cubes"] += 1
        if e["from"] == "pool":
            p["pool"] -= 1
        else:
            p["supply"] -= 1


def run_move(ctx: Turn, frame: dict[str, Any]) -> None:
    """The movement part of option A, after any claim the placement opened (§5.10)."""
    route, port, seat = frame["route"], frame["port"], frame["seat"]
    boat = ctx.state["canal"][route][port - 1]
    if boat is None or boat["owner"] != seat:
        return    # the boat was claimed in between: the move is skipped (D33)
    to = board.next_free_port(ctx.state, route, port)
    if to is None:
        return
    ctx.emit({"type": "boat_moved", "seat": seat, "route": route, "from": port, "to": to})
    if board.boat_units(boat) == CAPACITY and data.port_rewards(route, to):
        push(ctx, {"kind": "claim", "seat": seat, "route": route, "port": to})


def _on_boat_moved(s: State, e: Event) -> None:
    ports = own_item(s, "canal", e["route"])
    ports[e["to"] - 1] = ports[e["from"] - 1]
    ports[e["from"] - 1] = None


# --- the harbour claim prompt -----------------------------------------------------------------------


def check_claim(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> dict[str, Any]:
    only(cmd, "reward", "unit")
    reward = field_str(cmd, "reward")
    if reward not in data.port_rewards(frame["route"], frame["port"]):
        raise IllegalMove("illegal_reward", f"This port does not offer {reward!r}.")
    if reward == "CARD" and not s["draw_pile"]:
        raise IllegalMove("draw_pile_empty", "The gift draw pile is empty.")
    if reward not in board.claimable_rewards(s, seat, frame["route"], frame["port"]):
        raise IllegalMove("reward_slot_full", f"Your {reward} reward slots are all used.")
    boat = s["canal"][frame["route"]][frame["port"] - 1]
    unit = cmd.get("unit", "cube")
    if unit not in board.UNITS:
        raise IllegalMove("bad_command", "unit must be 'cube' or 'foreman'.")
    if (unit == "foreman" and not boat["foreman"]) or (unit == "cube" and boat["cubes"] == 0):
        raise IllegalMove("unit_not_on_boat", f"There is no {unit} on that boat.")
    return {"reward": reward, "unit": unit}


def run_claim(ctx: Turn, seat: int, plan: dict[str, Any], frame: dict[str, Any]) -> None:
    pop(ctx)
    route, port = frame["route"], frame["port"]
    ctx.emit({"type": "reward_claimed", "seat": seat, "route": route, "port": port, "reward": plan["reward"],
              "unit": plan["unit"]})
    if plan["reward"] == "VP4":
        score(ctx, seat, data.BOARD["reward_vp"], "harbour")
    elif plan["reward"] == "CARD":
        ctx.emit({"type": "card_drawn", "seat": seat, "card": ctx.state["draw_pile"][0]})
    elif plan["reward"] == "FOREMAN":
        ctx.emit({"type": "foreman_unlocked", "seat": seat})
    score(ctx, seat, board.ability(ctx.state, seat, "claim_vp") or 0, "harbour")
    ctx.emit({"type": "boat_returned", "seat": seat, "route": route, "port": port, "reason": "claimed"})


def _on_card_drawn(s: State, e: Event) -> None:
    s["draw_pile"] = without(s["draw_pile"], e["card"])
    p = own_item(s, "players", e["seat"])
    p["hand"] = p["hand"] + [e["card"]]


def _on_boat_returned(s: State, e: Event) -> None:
    ports = own_item(s, "canal", e["route"])
    boat = ports[e["port"] - 1]
    ports[e["port"] - 1] = None
    p = own_item(s, "players", boat["owner"])
    p["supply"] += boat["cubes"]
    if boat["foreman"]:
        p["foreman"] = "supply"


def _on_reward_claimed(s: State, e: Event) -> None:
    p = own_item(s, "players", e["seat"])
    p["slots"] = {**p["slots"], e["reward"]: p["slots"][e["reward"]] + 1}
    boat = _own_boat(s, e["route"], e["port"])
    if e["unit"] == "foreman":
        boat["foreman"] = False
        p["foreman"] = "lost"
    else:
        boat["cubes"] -= 1


def _on_foreman_unlocked(s: State, e: Event) -> None:
    own_item(s, "players", e["seat"])["foreman"] = "pool"


def claim_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    return [{"type": "claim", "reward": r, "unit": u}
            for r in data.port_rewards(frame["route"], frame["port"]) for u in board.UNITS]


def claim_skipped(s: State, frame: dict[str, Any]) -> bool:
    """Asked only about a full boat whose owner could claim something there (§4.3, D29)."""
    boat = s["canal"][frame["route"]][frame["port"] - 1]
    if boat is None or boat["owner"] != frame["seat"] or board.boat_units(boat) < CAPACITY:
        return True
    return not board.claimable_rewards(s, frame["seat"], frame["route"], frame["port"])


def _own_boat(s: State, route: str, port: int) -> dict[str, Any]:
    """A private copy of the boat at `port` of `route`, put in place, ready to edit."""
    ports = own_item(s, "canal", route)
    boat = dict(ports[port - 1])
    ports[port - 1] = boat
    return boat


APPLY: dict[str, Evolver] = {
    "card_drawn": _on_card_drawn,
    "boat_launched": _on_boat_launched,
    "boat_loaded": _on_boat_loaded,
    "boat_moved": _on_boat_moved,
    "boat_returned": _on_boat_returned,
    "reward_claimed": _on_reward_claimed,
    "foreman_unlocked": _on_foreman_unlocked,
}
