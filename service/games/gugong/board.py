"""Read-only questions about a Gùgōng state, shared by every part of the rules."""

from __future__ import annotations

from typing import Any

from service.games.gugong import data
from service.games.interface import IllegalMove, State

Player = dict[str, Any]
UNITS = ("cube", "foreman")


# --- seats and order ------------------------------------------------------------------------------


def turn_order(s: State, first: int | None = None) -> list[int]:
    """Seats clockwise from `first` (default: the start player)."""
    n = s["n"]
    start = s["start_player"] if first is None else first
    return [(start + k) % n for k in range(n)]


def intrigue_key(s: State, seat: int) -> tuple[int, int]:
    """Higher wins ties everywhere: the higher space, then higher in the stack (§5.7)."""
    p = s["players"][seat]
    return (p["intrigue"], p["stamp"])


def best_by_intrigue(s: State, seats: list[int]) -> int:
    return max(seats, key=lambda seat: intrigue_key(s, seat))


# --- servants ---------------------------------------------------------------------------------------


def pool_value(p: Player) -> int:
    return p["pool"] + (2 if p["foreman"] == "pool" else 0)


def check_payment(p: Player, cost: int, pay_foreman: bool, placed: list[str]) -> None:
    """Raise unless `cost` can be paid and `placed` units placed from different pool units (§5.11)."""
    foremen = (1 if pay_foreman else 0) + placed.count("foreman")
    if pay_foreman and cost == 0:
        raise IllegalMove("nothing_to_pay", "This option costs nothing, so the Foreman cannot pay for it.")
    if foremen and p["foreman"] != "pool":
        raise IllegalMove("foreman_unavailable", "Your Foreman is not in your pool.")
    if foremen > 1:
        raise IllegalMove("foreman_used_twice", "The Foreman cannot both pay and be placed.")
    cubes = (cost - min(cost, 2) if pay_foreman else cost) + placed.count("cube")
    if cubes > p["pool"]:
        raise IllegalMove("insufficient_servants", f"This needs {cubes} servant cubes in your pool.")


def payment_split(cost: int, pay_foreman: bool) -> tuple[int, bool]:
    """How many cubes pay `cost` when the Foreman does or does not help (it covers up to 2)."""
    if pay_foreman and cost > 0:
        return cost - min(cost, 2), True
    return cost, False


# --- decrees -----------------------------------------------------------------------------------------


def ability(s: State, seat: int, kind: str) -> int | None:
    """The strength of a level-2 decree ability the seat owns, or None."""
    for d in s["players"][seat]["decrees"]:
        a = data.DECREES[d].get("ability")
        if a and a["kind"] == kind:
            return a["n"]
    return None


def decree_price(s: State, seat: int, decree: str) -> int:
    others = sum(1 for owner in s["decree_servants"][decree] if owner != seat)
    return data.DECREES[decree]["cost"] + others


# --- travel ---------------------------------------------------------------------------------------------


def destinations(s: State, seat: int) -> list[str]:
    """Cities holding a token that the seat's Traveller can reach, passing only token-less cities."""
    here = s["players"][seat]["traveller"]
    if here is None:
        return [c for c in data.CITIES if s["map"][c] is not None]
    found: set[str] = set()
    seen = {here}
    frontier = [here]
    while frontier:
        city = frontier.pop()
        for nxt in data.NEIGHBOURS[city]:
            if nxt in seen:
                continue
            seen.add(nxt)
            if s["map"][nxt] is not None:
                found.add(nxt)
            else:
                frontier.append(nxt)
    return sorted(found)


def token_value(tokens: list[str]) -> int:
    return sum(data.TOKEN_TYPES[data.TOKENS[t]]["worth"] for t in tokens)


# --- canal ------------------------------------------------------------------------------------------------


def boat_units(boat: dict[str, Any]) -> int:
    return boat["cubes"] + (2 if boat["foreman"] else 0)


def boats_of(s: State, seat: int) -> list[tuple[str, int]]:
    return [
        (route, i + 1)
        for route in s["routes"]
        for i, boat in enumerate(s["canal"][route])
        if boat is not None and boat["owner"] == seat
    ]


def boats_left(s: State, seat: int) -> int:
    return data.BOARD["boats_per_player"] - len(boats_of(s, seat))


def launch_port(s: State, route: str) -> int | None:
    """A new boat goes to the free port closest to the route's start (§5.10)."""
    for i, boat in enumerate(s["canal"][route]):
        if boat is None:
            return i + 1
    return None


def next_free_port(s: State, route: str, port: int) -> int | None:
    ports = s["canal"][route]
    for p in range(port + 1, len(ports) + 1):
        if ports[p - 1] is None:
            return p
    return None


def claimable_rewards(s: State, seat: int, route: str, port: int) -> list[str]:
    """Rewards of this port for which the seat has a free slot (and, for CARD, a card to draw)."""
    p = s["players"][seat]
    out = []
    for r in data.port_rewards(route, port):
        if p["slots"][r] >= data.BOARD["reward_slots"][r]:
            continue
        if r == "CARD" and not s["draw_pile"]:
            continue
        if r == "FOREMAN" and p["foreman"] != "locked":
            continue
        out.append(r)
    return out


def parse_boat(s: State, ref: Any) -> tuple[str, int]:
    """A boat position such as "A3": route A, port 3 (an empty port there means a new boat)."""
    for route in s["routes"]:
        for port in range(1, len(s["canal"][route]) + 1):
            if ref == boat_ref(route, port):
                return route, port
    raise IllegalMove("illegal_port", f"{ref!r} names no port: use a route and a port number such as 'A2'.")


def boat_ref(route: str, port: int) -> str:
    return f"{route}{port}"
