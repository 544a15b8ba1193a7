"""Words for people: China moves and commits in English (the rules are in rules.py).

Provinces by their names from the map data ("Qin"), cards by colour and number ("red 6").
A card drawn from the face-down deck is never named in a commit's sentences (it goes into a
hand, which only its owner sees); cards played, discarded or taken from the display are.
"""

from __future__ import annotations

from typing import Any

from service.games.china.data import PROVINCE_NAME
from service.games.interface import Command, Event, View
from service.games.words import game_over, listing, plural, signed, told, who


def card_name(card: Any) -> str:
    """'red-06' -> 'red 6'."""
    colour, _, number = str(card).rpartition("-")
    return f"{colour} {int(number)}" if colour and number.isdigit() else str(card)


def province_name(province: Any) -> str:
    return PROVINCE_NAME.get(str(province), str(province))


def space_name(space: Any) -> str:
    """'qin2' -> 'space 2' (a space's number inside its province)."""
    digits = "".join(ch for ch in str(space) if ch.isdigit())
    return f"space {digits}" if digits else str(space)


def _paid(cards: list[Any]) -> str:
    return " + ".join(card_name(c) for c in cards)


# --- moves ---------------------------------------------------------------------------------


def describe_move(command: Command, view: View, seat: int, names: list[str]) -> str:
    kind = command.get("type")
    if kind == "place":
        parts = []
        for p in command.get("placements") or []:
            if p.get("piece") == "house":
                parts.append(f"house on {space_name(p.get('space'))} for {_paid(p.get('cards') or [])}")
            else:
                parts.append(f"emissary for {_paid(p.get('cards') or [])}")
        return f"Place in {province_name(command.get('province'))}: {'; '.join(parts)}"
    if kind == "take":
        return f"Take {_source(command, view)}"
    if kind == "exchange":
        return f"Exchange {card_name(command.get('card'))} for {_source(command, view)}"
    if kind == "pass":
        return "Pass (nothing can be placed or exchanged)"
    return str(kind)


def _source(command: Command, view: View) -> str:
    if command.get("source") == "deck":
        return "the top card of the deck"
    slot = command.get("slot")
    display = view.get("display") or []
    card = display[slot] if isinstance(slot, int) and 0 <= slot < len(display) else None
    return f"{card_name(card)} from the display" if card else f"display slot {slot}"


# --- commits -------------------------------------------------------------------------------


def describe_commit(seat: int | None, command: Command, events: list[Event], names: list[str]) -> list[str]:
    return told(events, _event, names)


def _event(e: Event, names: list[str]) -> str:
    kind = e["type"]
    if kind == "game_started":
        return (f"The game starts with {e['players']} players on the {e['side']} side of the board; "
                f"{who(names, e['emperor'])} holds the Emperor and plays first.")
    if kind == "house_built":
        return (f"{who(names, e['seat'])} builds a house in {province_name(e['province'])} "
                f"on {space_name(e['space'])}, paying {_paid(e['cards'])}.")
    if kind == "emissary_sent":
        return (f"{who(names, e['seat'])} sends an emissary to {province_name(e['province'])}, "
                f"paying {_paid(e['cards'])}.")
    if kind == "province_scored":
        return _province_scored(e, names)
    if kind == "refill_began":
        return f"{who(names, e['seat'])} refills their hand to 3 cards."
    if kind == "card_taken":
        if e["source"] == "deck":
            return f"{who(names, e['seat'])} draws a card from the deck."
        return f"{who(names, e['seat'])} takes {card_name(e['card'])} from the display."
    if kind == "card_exchanged":
        taken = ("draws a card from the deck" if e["source"] == "deck"
                 else f"takes {card_name(e['card'])} from the display")
        return f"{who(names, e['seat'])} discards {card_name(e['discarded'])} and {taken}."
    if kind == "display_slot_filled":
        return f"{card_name(e['card']).capitalize()} is laid out in the display."
    if kind == "deck_reshuffled":
        if not e["order"]:
            return "The deck is used up and the discard pile is empty: nothing to reshuffle."
        return f"The deck is used up: the discard pile is shuffled into a new deck of {plural(len(e['order']), 'card')}."
    if kind == "game_end_triggered":
        return "The last deck is used up: the game ends just before the Emperor's next turn."
    if kind == "turn_passed":
        return f"{who(names, e['seat'])} passes."
    if kind == "turn_ended":
        return ""  # the next seat to act is on the board; a sentence per turn would be noise
    if kind == "roads_scored":
        return f"Roads score: {_points(e['points'], names)}."
    if kind == "alliances_scored":
        return _alliances(e, names)
    if kind == "game_ended":
        return game_over(names, e, "the deck ran out twice and every player had the same number of turns")
    return ""


def _points(points: list[int], names: list[str]) -> str:
    scored = [f"{who(names, s)} {signed(p)}" for s, p in enumerate(points) if p]
    return ", ".join(scored) if scored else "nobody scores"


def _province_scored(e: Event, names: list[str]) -> str:
    when = " at the end of the game" if e.get("final") else ""
    houses = [f"{who(names, s)} {plural(n, 'house')}" for s, n in enumerate(e["houses"]) if n]
    return (f"{province_name(e['province'])} is scored{when} ({listing(houses)}): "
            f"{_points(e['points'], names)}.")


def _alliances(e: Event, names: list[str]) -> str:
    if not e["alliances"]:
        return "Alliances: no border has a player leading on both sides; nobody scores."
    parts = [f"{province_name(a['between'][0])}–{province_name(a['between'][1])} "
             f"to {listing([who(names, w) for w in a['winners']])} (+{a['points']})" for a in e["alliances"]]
    return f"Alliances score: {_points(e['points'], names)} ({'; '.join(parts)})."
