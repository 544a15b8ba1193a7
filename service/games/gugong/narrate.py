"""Words for people: Gùgōng moves and commits in English (the rules are in rules.py).

Gift cards by value and action ("6 (Travel)"), cities, ports, travel tokens and decrees by
the names and effects in the data files. Hands and gift discard piles are their owner's
alone, so a commit's sentences never name a card that goes into one (a card drawn, taken
from a location, discarded as payment, moved between hand and pile); a card that lands on a
location is public and is named.
"""

from __future__ import annotations

from typing import Any

from service.games.gugong import data
from service.games.interface import Command, Event, View
from service.games.words import game_over, listing, plural, term, told, who

LOCATION = {"TRAVEL": "Travel", "WALL": "Great Wall", "JADE": "Jade", "INTRIGUE": "Intrigue",
            "PALACE": "Palace", "DECREE": "Decree", "CANAL": "Grand Canal"}
ACTION = {**LOCATION, "SERVANT1": "gain 1 servant", "SERVANT2": "gain 2 servants",
          "EXCHANGE": "exchange", "NONE": "no action"}
TOKEN = {"T_SERVANT1": "1 servant", "T_SERVANT2": "2 servants", "T_PALACE": "Envoy step",
         "T_INTRIGUE": "Intrigue step", "T_CARD_JADE": "card for jade", "T_RETRIEVE": "retrieve a card",
         "T_EXCHANGE": "swap a card", "T_VP2": "2 VP", "T_SHIP": "servant to a boat",
         "T_BUY_JADE": "buy jade", "T_WALL": "servant to the Wall", "T_DOUBLE": "double"}
REWARD = {"VP4": "4 VP", "CARD": "a card from the draw pile", "FOREMAN": "the Foreman",
          "servant": "servants", "vp": "VP", "jade": "jade"}
PROMPT = {"travel_move": "the travel move", "token_effect": "the token's effect", "benefit": "the Intrigue benefit",
          "claim": "the reward", "final_window": "the last travel tokens", "morning_decree": "the decree"}
PAYMENT = {"none": "", "servants": "paying 2 servants", "card": "paying with a card", "forgo": "forgoing its actions"}
CITY = {c["id"]: c["name"] for c in data._map["cities"]}


def card_name(cid: Any) -> str:
    card = data.CARDS.get(str(cid))
    return f"{card['value']} ({ACTION.get(card['action'], card['action'])})" if card else str(cid)


def token_name(tid: Any) -> str:
    kind = data.TOKENS.get(str(tid), str(tid))
    return f"'{TOKEN.get(kind, kind)}' token"


def decree_name(did: Any) -> str:
    d = data.DECREES.get(str(did))
    if d is None:
        return f"decree {did}"
    effect = d.get("morning") or d.get("ability") or d.get("end") or {}
    words = str(effect.get("kind", "")).replace("_", " ")
    amount = effect.get("n", effect.get("vp"))
    return f"decree {did} (level {d['level']}, {words}{f' {amount}' if amount is not None else ''})"


def port_name(route: Any, port: Any) -> str:
    ports = data.ROUTES.get(str(route)) or []
    if isinstance(port, int) and 1 <= port <= len(ports):
        return f"{ports[port - 1]['name']} ({route}{port})"
    return f"{route}{port}"


def _position(pos: Any) -> str:
    """'A2' -> 'Cangzhou (A2)'."""
    text = str(pos)
    return port_name(text[:1], int(text[1:])) if len(text) > 1 and text[1:].isdigit() else text


def _unit(unit: Any) -> str:
    return "the Foreman" if unit == "foreman" else "a servant"


# --- moves ---------------------------------------------------------------------------------


def describe_move(command: Command, view: View, seat: int, names: list[str]) -> str:
    kind = command.get("type")
    turn = view.get("turn") or {}
    if kind == "exchange":
        head = f"Give {card_name(command.get('card'))} to {term(LOCATION, command.get('location'))}"
        parts = [term(PAYMENT, command.get("payment"))]
        if command.get("discard") is not None:
            parts.append(f"discarding {card_name(command['discard'])}")
    elif kind == "card_action":
        head = f"Card action: {term(ACTION, turn.get('card_action'), 'action')}"
        parts = _params(command)
    elif kind == "location_action":
        head = f"{term(LOCATION, turn.get('location'), 'Location')} action"
        parts = _params(command)
    elif kind == "end_turn":
        return "End your turn"
    elif kind == "travel":
        city = command.get("city")
        token = (view.get("map") or {}).get(city)
        head = f"Travel to {CITY.get(city, city)}"
        parts = [f"picking up a {token_name(token['id'])}" if token else ""]
    elif kind == "use_token":
        transit = view.get("token_in_transit")
        head = f"Use the {token_name(transit['id'])}" if transit else "Use the token"
        parts = _params(command)
    elif kind == "intrigue_benefit":
        head = f"Intrigue benefit: step down {command.get('down')}"
        parts = _params(command)
    elif kind == "claim":
        return f"Claim {term(REWARD, command.get('reward'))} with {_unit(command.get('unit'))}"
    elif kind == "morning_decree":
        return f"Use {decree_name(command.get('decree'))}"
    elif kind == "exchange_tokens":
        tokens = [token_name(t) for t in command.get("tokens") or []]
        return f"Trade {listing(tokens)} for {term(REWARD, command.get('reward'))}"
    elif kind == "decline":
        prompt = (view.get("prompt") or {}).get("kind")
        return f"Decline {term(PROMPT, prompt, 'this')}"
    elif kind == "done":
        return "Done"
    else:
        return str(kind)
    parts = [p for p in parts if p]
    return f"{head}: {', '.join(parts)}" if parts else head


def _params(command: Command) -> list[str]:
    """Every parameter of an action in words, so that two moves never read alike."""
    out: list[str] = []
    for key, value in command.items():
        if key == "type":
            continue
        if key == "option":
            out.append(f"option {value}")
        elif key == "units":
            out.append(f"with {listing([_unit(u) for u in value])}")
        elif key == "spot":
            out.append("the supply jade" if value is None else f"jade house {value + 1}")
        elif key == "decree":
            out.append(decree_name(value))
        elif key == "place" and isinstance(value, str):
            out.append(f"placing {_unit(value)}")
        elif key == "place":
            out.append("no placement" if value is None else f"{_unit(value.get('unit'))} onto the boat at {_position(value.get('boat'))}")
        elif key == "move":
            out.append("no boat move" if value is None else f"sail to {_position(value)}")
        elif key == "placements":
            out.extend(f"{_unit(p.get('unit'))} onto the boat at {_position(p.get('boat'))}" for p in value)
        elif key == "boat":
            out.append(f"the boat at {_position(value)}")
        elif key == "card":
            out.append(card_name(value))
        elif key == "location":
            out.append(f"at {LOCATION.get(value, value)}")
        elif key == "die":
            out.append(f"die {value + 1}")
        elif key == "face":
            out.append(f"to {value}")
        elif key == "pay_foreman":
            out.append("the Foreman helps pay" if value else "")
        elif key == "down":
            continue  # in the head
        else:
            out.append(f"{key} {value}")
    return out


# --- commits -------------------------------------------------------------------------------


def describe_commit(seat: int | None, command: Command, events: list[Event], names: list[str]) -> list[str]:
    return told(events, _event, names)


def _event(e: Event, names: list[str]) -> str:  # noqa: PLR0911, PLR0912 - one case per event type
    kind = e["type"]
    a = who(names, e.get("seat"))
    if kind in ("pending_pushed", "pending_popped", "turn_started", "final_window_closed"):
        return ""  # bookkeeping of whose prompt is open: the board shows it
    if kind == "turn_ended":
        return f"{a} ends their turn."
    if kind == "game_started":
        dice = ", ".join(str(d) for d in e["dice"])
        decrees = listing([decree_name(d) for d in e["decrees"]])
        return (f"The game starts; {who(names, e['start_player'])} is the start player. "
                f"The dice show {dice}. Decrees in play: {decrees}.")
    if kind == "gift_exchanged":
        pay = {"forgo": ", forgoing its actions", "card": ", paying with a card from their hand"}.get(e["payment"], "")
        return (f"{a} gives {card_name(e['card'])} to {LOCATION[e['location']]} "
                f"and takes the card that lay there{pay}.")
    if kind == "servants_paid":
        return f"{a} pays {plural(e['cubes'], 'servant')}{' and the Foreman' if e['foreman'] else ''}."
    if kind == "servants_gained":
        return f"{a} gains {plural(e['cubes'], 'servant')}{' and the Foreman back' if e['foreman'] else ''}."
    if kind == "card_action_taken":
        return f"{a} takes the card action: {ACTION.get(e['action'], e['action'])}."
    if kind == "location_action_taken":
        return f"{a} takes the {LOCATION.get(e['action'], e['action'])} action."
    if kind == "envoy_advanced":
        line = f"{a}'s Envoy climbs to step {e['to']}"
        if e["arrived"]:
            line += f" and reaches the Palace (+{e['slot_vp']} VP at the end)"
        if e["vp"]:
            line += f", +{e['vp']} VP"
        return line + "."
    if kind == "intrigue_moved":
        return f"{a} moves to {e['to']} on the Intrigue track."
    if kind == "medal_taken":
        return f"{a} takes the medal: they start tomorrow."
    if kind == "vp_scored":
        return f"{a} scores {e['vp']} VP."
    if kind == "jade_gained":
        return f"{a} gains {e['n']} jade."
    if kind == "die_set":
        return f"{a} turns die {e['die'] + 1} to {e['face']}."
    if kind == "intrigue_benefit_taken":
        gain = {"servants": "servants", "die": "setting a die", "jade": "jade"}.get(e["gain"], e["gain"])
        return f"{a} steps {e['down']} down the Intrigue track for {gain}."
    if kind == "wall_built":
        return f"{a} builds the Great Wall with {plural(e['cubes'], 'servant')}{' and the Foreman' if e['foreman'] else ''}."
    if kind == "wall_completed":
        return f"A section of the Great Wall is complete: {who(names, e['scorer'])} holds the majority."
    if kind == "final_wall_scored":
        return f"{a} holds the majority on the unfinished Wall section."
    if kind == "traveller_moved":
        return f"{a} travels to {CITY.get(e['city'], e['city'])} and picks up a {token_name(e['token'])}."
    if kind == "token_effect_applied":
        return f"{a} uses the {token_name(e['token'])}."
    if kind == "token_stored":
        return f"{a} keeps the {token_name(e['token'])}."
    if kind == "tokens_exchanged":
        return f"{a} trades in {plural(len(e['tokens']), 'travel token')} for {REWARD.get(e['reward'], e['reward'])}."
    if kind == "card_moved":
        where = {"hand": "their hand", "discard": "their gift pile"}
        return f"{a} moves a card from {where.get(e['from'], e['from'])} to {where.get(e['to'], e['to'])}."
    if kind == "card_swapped":
        return f"{a} puts {card_name(e['card'])} at {LOCATION[e['location']]}, taking the card that lay there."
    if kind == "card_drawn":
        return f"{a} draws a card."
    if kind == "decree_bought":
        return f"{a} buys {decree_name(e['decree'])} for {plural(e['price'], 'servant')}."
    if kind == "morning_decree_resolved":
        return f"{a}'s {decree_name(e['decree'])} takes effect."
    if kind == "boat_launched":
        return f"{a} launches a boat at {port_name(e['route'], e['port'])}."
    if kind == "boat_loaded":
        return f"{a} puts {_unit(e['unit'])} onto their boat at {port_name(e['route'], e['port'])}."
    if kind == "boat_moved":
        return f"{a}'s boat sails from {port_name(e['route'], e['from'])} to {port_name(e['route'], e['to'])}."
    if kind == "boat_returned":
        why = "its reward claimed" if e["reason"] == "claimed" else "lost at the end of the canal"
        return f"{a}'s boat at {port_name(e['route'], e['port'])} comes home, {why}."
    if kind == "reward_claimed":
        return f"{a} claims {REWARD.get(e['reward'], e['reward'])} at {port_name(e['route'], e['port'])}."
    if kind == "foreman_unlocked":
        return f"{a} unlocks the Foreman."
    if kind == "evening_started":
        return f"Evening of day {e['day']}."
    if kind == "dice_matched":
        counts = [f"{who(names, s)} {n}" for s, n in enumerate(e["matches"])]
        return f"The dice ({', '.join(str(d) for d in e['dice'])}) match the gifts given: {', '.join(counts)}."
    if kind == "dice_bonus_awarded":
        return f"{a} has the most dice matches ({e['matches']}): 3 VP and an Envoy step."
    if kind == "morning_started":
        return f"Morning of day {e['day']}."
    if kind == "start_player_changed":
        return f"{a} is the start player."
    if kind == "map_refilled":
        return f"The travel map is refilled with {plural(len(e['placements']), 'token')}."
    if kind == "travel_discard_reshuffled":
        return "The spent travel tokens are shuffled into new piles."
    if kind == "dice_rolled":
        return f"The dice are rolled for day {e['day']}: {', '.join(str(d) for d in e['dice'])}."
    if kind == "day_started":
        return f"Day {e['day']} begins."
    if kind == "final_window_opened":
        return "The fourth day is over: a last chance to use travel tokens before the scoring."
    if kind == "prompt_declined":
        return f"{a} declines {PROMPT.get(e['prompt'], 'the offer')}."
    if kind == "game_finished":
        if e["nobody_arrived"]:
            return game_over(names, e, "nobody reached the Palace")
        return game_over(names, e, "after the fourth day; only families whose Envoy reached the Palace score")
    return ""
