"""evolve: how each Gùgōng event changes the state.

`evolve` never mutates its input: it makes a shallow copy of the state, and every handler
copies a part before changing it (`_own`, `_player`, `_ports`; lists are replaced, never
appended to in place), sharing everything it leaves alone. Events are facts with stable
names; random outcomes (shuffles, dice) travel inside them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.games.gugong import data
from service.games.interface import Event, State


def evolve(state: State, event: Event) -> State:
    s = dict(state)
    _HANDLERS[event["type"]](s, event)
    return s


# --- copy-on-write helpers ------------------------------------------------------------------------


def _own(s: State, key: str) -> Any:
    """A private shallow copy of s[key], put in place, ready to change."""
    value = s[key]
    s[key] = dict(value) if isinstance(value, dict) else list(value)
    return s[key]


def _player(s: State, seat: int) -> dict[str, Any]:
    players = _own(s, "players")
    p = dict(players[seat])
    players[seat] = p
    return p


def _ports(s: State, route: str) -> list[Any]:
    canal = _own(s, "canal")
    canal[route] = list(canal[route])
    return canal[route]


def _without(items: list[str], item: str) -> list[str]:
    out = list(items)
    out.remove(item)
    return out


# --- setup --------------------------------------------------------------------------------------


def _game_started(s: State, e: Event) -> None:
    n = s["n"]
    s["phase"] = "day"
    s["day"] = 1
    s["start_player"] = e["start_player"]
    s["locations"] = dict(e["locations"])
    s["draw_pile"] = list(e["draw_pile"])
    s["map"] = dict(e["map"])
    s["pile_a"] = list(e["pile_a"])
    s["pile_b"] = list(e["pile_b"])
    s["decrees"] = list(e["decrees"])
    s["boxed_decrees"] = list(e["boxed_decrees"])
    s["decree_servants"] = {d: [] for d in e["decrees"]}
    s["dice"] = list(e["dice"])
    for seat, hand in enumerate(e["hands"]):
        _player(s, seat)["hand"] = list(hand)
    # Intrigue markers start stacked in turn order, the start player at the bottom (§3.9).
    for k in range(n):
        _player(s, (e["start_player"] + k) % n)["stamp"] = k
    s["stamp"] = n


# --- the control stack (prompts and the steps waiting behind them) ------------------------------


def _pending_pushed(s: State, e: Event) -> None:
    # Frames are listed in the order they will run; the first ends on top.
    s["stack"] = s["stack"] + [dict(f) for f in reversed(e["frames"])]


def _pending_popped(s: State, e: Event) -> None:
    s["stack"] = s["stack"][:-1]


# --- turns and the exchange ---------------------------------------------------------------------


def _turn_started(s: State, e: Event) -> None:
    s["turn"] = {
        "seat": e["seat"],
        "exchanged": False,
        "forfeited": False,
        "location": None,
        "card_action": None,
        "card_done": False,
        "location_done": False,
    }


def _gift_exchanged(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    hand = _without(p["hand"], e["card"])
    discard = list(p["discard"])
    if e.get("discarded") is not None:
        hand.remove(e["discarded"])
        discard.append(e["discarded"])
    discard.append(e["taken"])
    p["hand"], p["discard"] = hand, discard
    _own(s, "locations")[e["location"]] = e["card"]
    t = _own(s, "turn")
    t["exchanged"] = True
    t["forfeited"] = e["payment"] == "forgo"
    t["location"] = e["location"]
    t["card_action"] = data.CARDS[e["card"]]["action"]


def _card_action_taken(s: State, e: Event) -> None:
    _own(s, "turn")["card_done"] = True


def _location_action_taken(s: State, e: Event) -> None:
    # Taking the location action gives up a card action not yet taken (§4.2).
    t = _own(s, "turn")
    t["card_done"] = True
    t["location_done"] = True


def _turn_ended(s: State, e: Event) -> None:
    s["turn"] = None


# --- servants -----------------------------------------------------------------------------------


def _servants_paid(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["pool"] -= e["cubes"]
    p["supply"] += e["cubes"]
    if e["foreman"]:
        p["foreman"] = "supply"


def _servants_gained(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["supply"] -= e["cubes"]
    p["pool"] += e["cubes"]
    if e["foreman"]:
        p["foreman"] = "pool"


# --- tracks, VP, jade ---------------------------------------------------------------------------


def _envoy_advanced(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["envoy"] = e["to"]
    p["vp"] += e["vp"]
    if e["arrived"]:
        p["arrival_vp"] = e["slot_vp"]
        s["arrivals"] = s["arrivals"] + [e["seat"]]


def _intrigue_moved(s: State, e: Event) -> None:
    if s["players"][e["seat"]]["intrigue"] != e["to"]:
        # A marker that lands on a space goes on top of whatever is there (§5.7).
        p = _player(s, e["seat"])
        p["intrigue"] = e["to"]
        p["stamp"] = s["stamp"]
        s["stamp"] += 1


def _medal_taken(s: State, e: Event) -> None:
    s["medal"] = e["seat"]


def _vp_scored(s: State, e: Event) -> None:
    _player(s, e["seat"])["vp"] += e["vp"]


def _jade_gained(s: State, e: Event) -> None:
    _player(s, e["seat"])["jade"] += e["n"]
    if e.get("spot") is not None:
        _own(s, "jade_spots")[e["spot"]] = False


def _die_set(s: State, e: Event) -> None:
    _own(s, "dice")[e["die"]] = e["face"]


def _intrigue_benefit_taken(s: State, e: Event) -> None:
    pass  # the marker's move and the gain are their own events


# --- the Great Wall -----------------------------------------------------------------------------


def _wall_built(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    entries = [{"seat": e["seat"], "foreman": False} for _ in range(e["cubes"])]
    if e["from"] == "pool":
        p["pool"] -= e["cubes"]
    else:
        p["supply"] -= e["cubes"]
    if e["foreman"]:
        entries.append({"seat": e["seat"], "foreman": True})
        p["foreman"] = "wall"
    s["wall"] = s["wall"] + entries


def _wall_completed(s: State, e: Event) -> None:
    seat = e["scorer"]
    mine = [w for w in s["wall"] if w["seat"] == seat]
    s["wall"] = [w for w in s["wall"] if w["seat"] != seat]
    p = _player(s, seat)
    p["supply"] += sum(1 for w in mine if not w["foreman"])
    if any(w["foreman"] for w in mine):
        p["foreman"] = "supply"


def _final_wall_scored(s: State, e: Event) -> None:
    pass  # the scorer's VP and Envoy step are their own events; servants stay (§4.4 step 1)


# --- travel -------------------------------------------------------------------------------------


def _traveller_moved(s: State, e: Event) -> None:
    _player(s, e["seat"])["traveller"] = e["city"]
    _own(s, "map")[e["city"]] = None
    s["in_transit"] = e["token"]


def _token_effect_applied(s: State, e: Event) -> None:
    pass  # the effect's results are their own events


def _token_stored(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["tokens"] = p["tokens"] + [e["token"]]
    s["in_transit"] = None


def _tokens_exchanged(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["tokens"] = [t for t in p["tokens"] if t not in e["tokens"]]
    s["travel_discard"] = s["travel_discard"] + list(e["tokens"])


# --- cards moved by card actions and tokens ----------------------------------------------------


def _card_moved(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p[e["from"]] = _without(p[e["from"]], e["card"])
    p[e["to"]] = p[e["to"]] + [e["card"]]


def _card_swapped(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    pile = list(p[e["where"]])
    pile[pile.index(e["card"])] = e["taken"]
    p[e["where"]] = pile
    _own(s, "locations")[e["location"]] = e["card"]


def _card_drawn(s: State, e: Event) -> None:
    s["draw_pile"] = _without(s["draw_pile"], e["card"])
    p = _player(s, e["seat"])
    p["hand"] = p["hand"] + [e["card"]]


# --- decrees ------------------------------------------------------------------------------------


def _decree_bought(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["decrees"] = p["decrees"] + [e["decree"]]
    servants = _own(s, "decree_servants")
    servants[e["decree"]] = servants[e["decree"]] + [e["seat"]]
    if e["place"] == "foreman":
        p["foreman"] = "lost"
    else:
        p["pool"] -= 1


def _morning_decree_resolved(s: State, e: Event) -> None:
    pass


# --- the Grand Canal ----------------------------------------------------------------------------


def _boat_launched(s: State, e: Event) -> None:
    _ports(s, e["route"])[e["port"] - 1] = {"owner": e["seat"], "cubes": 0, "foreman": False}


def _boat_loaded(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    ports = _ports(s, e["route"])
    boat = dict(ports[e["port"] - 1])
    ports[e["port"] - 1] = boat
    if e["unit"] == "foreman":
        boat["foreman"] = True
        p["foreman"] = "boat"
    else:
        boat["cubes"] += 1
        if e["from"] == "pool":
            p["pool"] -= 1
        else:
            p["supply"] -= 1


def _boat_moved(s: State, e: Event) -> None:
    ports = _ports(s, e["route"])
    ports[e["to"] - 1] = ports[e["from"] - 1]
    ports[e["from"] - 1] = None


def _boat_returned(s: State, e: Event) -> None:
    ports = _ports(s, e["route"])
    boat = ports[e["port"] - 1]
    ports[e["port"] - 1] = None
    p = _player(s, boat["owner"])
    p["supply"] += boat["cubes"]
    if boat["foreman"]:
        p["foreman"] = "supply"


def _reward_claimed(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["slots"] = {**p["slots"], e["reward"]: p["slots"][e["reward"]] + 1}
    ports = _ports(s, e["route"])
    boat = dict(ports[e["port"] - 1])
    ports[e["port"] - 1] = boat
    if e["unit"] == "foreman":
        boat["foreman"] = False
        p["foreman"] = "lost"
    else:
        boat["cubes"] -= 1


def _foreman_unlocked(s: State, e: Event) -> None:
    _player(s, e["seat"])["foreman"] = "pool"


# --- evening and morning ------------------------------------------------------------------------


def _evening_started(s: State, e: Event) -> None:
    s["phase"] = "evening"


def _dice_matched(s: State, e: Event) -> None:
    pass  # servants come as servants_gained events


def _dice_bonus_awarded(s: State, e: Event) -> None:
    pass  # VP and Envoy come as their own events


def _morning_started(s: State, e: Event) -> None:
    s["phase"] = "morning"
    s["day"] = e["day"]
    for seat in range(s["n"]):
        # The gift discard pile becomes part of the hand for the new day (§4.1, D18).
        p = _player(s, seat)
        p["hand"] = p["hand"] + p["discard"]
        p["discard"] = []


def _start_player_changed(s: State, e: Event) -> None:
    s["start_player"] = e["seat"]
    s["medal"] = None


def _travel_discard_reshuffled(s: State, e: Event) -> None:
    s["pile_a"] = list(e["pile_a"])
    s["pile_b"] = list(e["pile_b"])
    s["travel_discard"] = []


def _map_refilled(s: State, e: Event) -> None:
    board_map = _own(s, "map")
    for city, token, pile in e["placements"]:
        s[pile] = _without(s[pile], token)
        board_map[city] = token


def _dice_rolled(s: State, e: Event) -> None:
    s["dice"] = list(e["dice"])


def _day_started(s: State, e: Event) -> None:
    s["phase"] = "day"
    s["medal"] = None


def _final_window_opened(s: State, e: Event) -> None:
    s["phase"] = "final"


def _final_window_closed(s: State, e: Event) -> None:
    pass


def _prompt_declined(s: State, e: Event) -> None:
    pass


def _game_finished(s: State, e: Event) -> None:
    s["phase"] = "finished"
    s["result"] = {"scores": list(e["scores"]), "ranking": list(e["ranking"]), "winners": list(e["winners"])}
    s["breakdown"] = {"seats": [dict(b) for b in e["breakdown"]], "nobody_arrived": e["nobody_arrived"]}
    s["stack"] = []
    s["turn"] = None


_HANDLERS: dict[str, Callable[[State, Event], None]] = {
    "game_started": _game_started,
    "pending_pushed": _pending_pushed,
    "pending_popped": _pending_popped,
    "turn_started": _turn_started,
    "gift_exchanged": _gift_exchanged,
    "card_action_taken": _card_action_taken,
    "location_action_taken": _location_action_taken,
    "turn_ended": _turn_ended,
    "servants_paid": _servants_paid,
    "servants_gained": _servants_gained,
    "envoy_advanced": _envoy_advanced,
    "intrigue_moved": _intrigue_moved,
    "medal_taken": _medal_taken,
    "vp_scored": _vp_scored,
    "jade_gained": _jade_gained,
    "die_set": _die_set,
    "intrigue_benefit_taken": _intrigue_benefit_taken,
    "wall_built": _wall_built,
    "wall_completed": _wall_completed,
    "final_wall_scored": _final_wall_scored,
    "traveller_moved": _traveller_moved,
    "token_effect_applied": _token_effect_applied,
    "token_stored": _token_stored,
    "tokens_exchanged": _tokens_exchanged,
    "card_moved": _card_moved,
    "card_swapped": _card_swapped,
    "card_drawn": _card_drawn,
    "decree_bought": _decree_bought,
    "morning_decree_resolved": _morning_decree_resolved,
    "boat_launched": _boat_launched,
    "boat_loaded": _boat_loaded,
    "boat_moved": _boat_moved,
    "boat_returned": _boat_returned,
    "reward_claimed": _reward_claimed,
    "foreman_unlocked": _foreman_unlocked,
    "evening_started": _evening_started,
    "dice_matched": _dice_matched,
    "dice_bonus_awarded": _dice_bonus_awarded,
    "morning_started": _morning_started,
    "start_player_changed": _start_player_changed,
    "travel_discard_reshuffled": _travel_discard_reshuffled,
    "map_refilled": _map_refilled,
    "dice_rolled": _dice_rolled,
    "day_started": _day_started,
    "final_window_opened": _final_window_opened,
    "final_window_closed": _final_window_closed,
    "prompt_declined": _prompt_declined,
    "game_finished": _game_finished,
}
