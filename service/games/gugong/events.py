"""evolve: how each Gùgōng event changes the state.

`evolve` never mutates its input: it makes a shallow copy of the state, and every evolver
copies a part before changing it (the kit's `own`, and `_player`, `_ports` here; lists are
replaced, never appended to in place), sharing everything it leaves alone. Events are facts with stable
names; random outcomes (shuffles, dice) travel inside them.
"""

from __future__ import annotations

from typing import Any

from service.games.gugong import data
from service.games.interface import Event, State
from service.games.kit import Evolver, evolving, own, own_item

# --- copy-on-write helpers ------------------------------------------------------------------------


def _player(s: State, seat: int) -> dict[str, Any]:
    return own_item(s, "players", seat)


def _ports(s: State, route: str) -> list[Any]:
    return own_item(s, "canal", route)


def _without(items: list[str], item: str) -> list[str]:
    out = list(items)
    out.remove(item)
    return out


# --- setup --------------------------------------------------------------------------------------


def _on_game_started(s: State, e: Event) -> None:
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


def _on_pending_pushed(s: State, e: Event) -> None:
    # Frames are listed in the order they will run; the first ends on top.
    s["stack"] = s["stack"] + [dict(f) for f in reversed(e["frames"])]


def _on_pending_popped(s: State, e: Event) -> None:
    s["stack"] = s["stack"][:-1]


# --- turns and the exchange ---------------------------------------------------------------------


def _on_turn_started(s: State, e: Event) -> None:
    s["turn"] = {
        "seat": e["seat"],
        "exchanged": False,
        "forfeited": False,
        "location": None,
        "card_action": None,
        "card_done": False,
        "location_done": False,
    }


def _on_gift_exchanged(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    hand = _without(p["hand"], e["card"])
    discard = list(p["discard"])
    if e.get("discarded") is not None:
        hand.remove(e["discarded"])
        discard.append(e["discarded"])
    discard.append(e["taken"])
    p["hand"], p["discard"] = hand, discard
    own(s, "locations")[e["location"]] = e["card"]
    t = own(s, "turn")
    t["exchanged"] = True
    t["forfeited"] = e["payment"] == "forgo"
    t["location"] = e["location"]
    t["card_action"] = data.CARDS[e["card"]]["action"]


def _on_card_action_taken(s: State, e: Event) -> None:
    own(s, "turn")["card_done"] = True


def _on_location_action_taken(s: State, e: Event) -> None:
    # Taking the location action gives up a card action not yet taken (§4.2).
    t = own(s, "turn")
    t["card_done"] = True
    t["location_done"] = True


def _on_turn_ended(s: State, e: Event) -> None:
    s["turn"] = None


# --- servants -----------------------------------------------------------------------------------


def _on_servants_paid(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["pool"] -= e["cubes"]
    p["supply"] += e["cubes"]
    if e["foreman"]:
        p["foreman"] = "supply"


def _on_servants_gained(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["supply"] -= e["cubes"]
    p["pool"] += e["cubes"]
    if e["foreman"]:
        p["foreman"] = "pool"


# --- tracks, VP, jade ---------------------------------------------------------------------------


def _on_envoy_advanced(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["envoy"] = e["to"]
    p["vp"] += e["vp"]
    if e["arrived"]:
        p["arrival_vp"] = e["slot_vp"]
        s["arrivals"] = s["arrivals"] + [e["seat"]]


def _on_intrigue_moved(s: State, e: Event) -> None:
    if s["players"][e["seat"]]["intrigue"] != e["to"]:
        # A marker that lands on a space goes on top of whatever is there (§5.7).
        p = _player(s, e["seat"])
        p["intrigue"] = e["to"]
        p["stamp"] = s["stamp"]
        s["stamp"] += 1


def _on_medal_taken(s: State, e: Event) -> None:
    s["medal"] = e["seat"]


def _on_vp_scored(s: State, e: Event) -> None:
    _player(s, e["seat"])["vp"] += e["vp"]


def _on_jade_gained(s: State, e: Event) -> None:
    _player(s, e["seat"])["jade"] += e["n"]
    if e.get("spot") is not None:
        own(s, "jade_spots")[e["spot"]] = False


def _on_die_set(s: State, e: Event) -> None:
    own(s, "dice")[e["die"]] = e["face"]


def _on_intrigue_benefit_taken(s: State, e: Event) -> None:
    pass  # the marker's move and the gain are their own events


# --- the Great Wall -----------------------------------------------------------------------------


def _on_wall_built(s: State, e: Event) -> None:
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


def _on_wall_completed(s: State, e: Event) -> None:
    seat = e["scorer"]
    mine = [w for w in s["wall"] if w["seat"] == seat]
    s["wall"] = [w for w in s["wall"] if w["seat"] != seat]
    p = _player(s, seat)
    p["supply"] += sum(1 for w in mine if not w["foreman"])
    if any(w["foreman"] for w in mine):
        p["foreman"] = "supply"


def _on_final_wall_scored(s: State, e: Event) -> None:
    pass  # the scorer's VP and Envoy step are their own events; servants stay (§4.4 step 1)


# --- travel -------------------------------------------------------------------------------------


def _on_traveller_moved(s: State, e: Event) -> None:
    _player(s, e["seat"])["traveller"] = e["city"]
    own(s, "map")[e["city"]] = None
    s["in_transit"] = e["token"]


def _on_token_effect_applied(s: State, e: Event) -> None:
    pass  # the effect's results are their own events


def _on_token_stored(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["tokens"] = p["tokens"] + [e["token"]]
    s["in_transit"] = None


def _on_tokens_exchanged(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["tokens"] = [t for t in p["tokens"] if t not in e["tokens"]]
    s["travel_discard"] = s["travel_discard"] + list(e["tokens"])


# --- cards moved by card actions and tokens ----------------------------------------------------


def _on_card_moved(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p[e["from"]] = _without(p[e["from"]], e["card"])
    p[e["to"]] = p[e["to"]] + [e["card"]]


def _on_card_swapped(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    pile = list(p[e["where"]])
    pile[pile.index(e["card"])] = e["taken"]
    p[e["where"]] = pile
    own(s, "locations")[e["location"]] = e["card"]


def _on_card_drawn(s: State, e: Event) -> None:
    s["draw_pile"] = _without(s["draw_pile"], e["card"])
    p = _player(s, e["seat"])
    p["hand"] = p["hand"] + [e["card"]]


# --- decrees ------------------------------------------------------------------------------------


def _on_decree_bought(s: State, e: Event) -> None:
    p = _player(s, e["seat"])
    p["decrees"] = p["decrees"] + [e["decree"]]
    servants = own(s, "decree_servants")
    servants[e["decree"]] = servants[e["decree"]] + [e["seat"]]
    if e["place"] == "foreman":
        p["foreman"] = "lost"
    else:
        p["pool"] -= 1


def _on_morning_decree_resolved(s: State, e: Event) -> None:
    pass


# --- the Grand Canal ----------------------------------------------------------------------------


def _on_boat_launched(s: State, e: Event) -> None:
    _ports(s, e["route"])[e["port"] - 1] = {"owner": e["seat"], "cubes": 0, "foreman": False}


def _on_boat_loaded(s: State, e: Event) -> None:
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


def _on_boat_moved(s: State, e: Event) -> None:
    ports = _ports(s, e["route"])
    ports[e["to"] - 1] = ports[e["from"] - 1]
    ports[e["from"] - 1] = None


def _on_boat_returned(s: State, e: Event) -> None:
    ports = _ports(s, e["route"])
    boat = ports[e["port"] - 1]
    ports[e["port"] - 1] = None
    p = _player(s, boat["owner"])
    p["supply"] += boat["cubes"]
    if boat["foreman"]:
        p["foreman"] = "supply"


def _on_reward_claimed(s: State, e: Event) -> None:
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


def _on_foreman_unlocked(s: State, e: Event) -> None:
    _player(s, e["seat"])["foreman"] = "pool"


# --- evening and morning ------------------------------------------------------------------------


def _on_evening_started(s: State, e: Event) -> None:
    s["phase"] = "evening"


def _on_dice_matched(s: State, e: Event) -> None:
    pass  # servants come as servants_gained events


def _on_dice_bonus_awarded(s: State, e: Event) -> None:
    pass  # VP and Envoy come as their own events


def _on_morning_started(s: State, e: Event) -> None:
    s["phase"] = "morning"
    s["day"] = e["day"]
    for seat in range(s["n"]):
        # The gift discard pile becomes part of the hand for the new day (§4.1, D18).
        p = _player(s, seat)
        p["hand"] = p["hand"] + p["discard"]
        p["discard"] = []


def _on_start_player_changed(s: State, e: Event) -> None:
    s["start_player"] = e["seat"]
    s["medal"] = None


def _on_travel_discard_reshuffled(s: State, e: Event) -> None:
    s["pile_a"] = list(e["pile_a"])
    s["pile_b"] = list(e["pile_b"])
    s["travel_discard"] = []


def _on_map_refilled(s: State, e: Event) -> None:
    board_map = own(s, "map")
    for city, token, pile in e["placements"]:
        s[pile] = _without(s[pile], token)
        board_map[city] = token


def _on_dice_rolled(s: State, e: Event) -> None:
    s["dice"] = list(e["dice"])


def _on_day_started(s: State, e: Event) -> None:
    s["phase"] = "day"
    s["medal"] = None


def _on_final_window_opened(s: State, e: Event) -> None:
    s["phase"] = "final"


def _on_final_window_closed(s: State, e: Event) -> None:
    pass


def _on_prompt_declined(s: State, e: Event) -> None:
    pass


def _on_game_finished(s: State, e: Event) -> None:
    s["phase"] = "finished"
    s["result"] = {"scores": list(e["scores"]), "ranking": list(e["ranking"]), "winners": list(e["winners"])}
    s["breakdown"] = {"seats": [dict(b) for b in e["breakdown"]], "nobody_arrived": e["nobody_arrived"]}
    s["stack"] = []
    s["turn"] = None


_APPLY: dict[str, Evolver] = {
    "game_started": _on_game_started,
    "pending_pushed": _on_pending_pushed,
    "pending_popped": _on_pending_popped,
    "turn_started": _on_turn_started,
    "gift_exchanged": _on_gift_exchanged,
    "card_action_taken": _on_card_action_taken,
    "location_action_taken": _on_location_action_taken,
    "turn_ended": _on_turn_ended,
    "servants_paid": _on_servants_paid,
    "servants_gained": _on_servants_gained,
    "envoy_advanced": _on_envoy_advanced,
    "intrigue_moved": _on_intrigue_moved,
    "medal_taken": _on_medal_taken,
    "vp_scored": _on_vp_scored,
    "jade_gained": _on_jade_gained,
    "die_set": _on_die_set,
    "intrigue_benefit_taken": _on_intrigue_benefit_taken,
    "wall_built": _on_wall_built,
    "wall_completed": _on_wall_completed,
    "final_wall_scored": _on_final_wall_scored,
    "traveller_moved": _on_traveller_moved,
    "token_effect_applied": _on_token_effect_applied,
    "token_stored": _on_token_stored,
    "tokens_exchanged": _on_tokens_exchanged,
    "card_moved": _on_card_moved,
    "card_swapped": _on_card_swapped,
    "card_drawn": _on_card_drawn,
    "decree_bought": _on_decree_bought,
    "morning_decree_resolved": _on_morning_decree_resolved,
    "boat_launched": _on_boat_launched,
    "boat_loaded": _on_boat_loaded,
    "boat_moved": _on_boat_moved,
    "boat_returned": _on_boat_returned,
    "reward_claimed": _on_reward_claimed,
    "foreman_unlocked": _on_foreman_unlocked,
    "evening_started": _on_evening_started,
    "dice_matched": _on_dice_matched,
    "dice_bonus_awarded": _on_dice_bonus_awarded,
    "morning_started": _on_morning_started,
    "start_player_changed": _on_start_player_changed,
    "travel_discard_reshuffled": _on_travel_discard_reshuffled,
    "map_refilled": _on_map_refilled,
    "dice_rolled": _on_dice_rolled,
    "day_started": _on_day_started,
    "final_window_opened": _on_final_window_opened,
    "final_window_closed": _on_final_window_closed,
    "prompt_declined": _on_prompt_declined,
    "game_finished": _on_game_finished,
}
evolve = evolving(_APPLY)
