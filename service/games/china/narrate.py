"""Words for people: China moves and commits in English (the rules are in rules.py).

Provinces by their names from the map data ("Qin"), cards by colour and number ("red 6").
A card drawn from the face-down deck is never named in a commit's sentences (it goes into a
hand, which only its owner sees); cards played, discarded or taken from the display are.
"""

from __future__ import annotations

from typing import Any

from service.games.china.data import PROVINCE_NAME
from service.games.interface import Command, Event, View
from service.games.words import Phrase, game_over, listing, plural, signed, told, who


def card_name(card: Any) -> str:
    """'red-06' -> 'red 6'."""
    colour, _, number = str(card).rpartition("-")
    return f"{colour} {int(number)}" if colour and number.isdigit() else str(card)


def card_face(card: Any) -> dict[str, Any] | str:
    """'red-06' -> {"colour": "red", "number": 6}: what a sentence names of a card, as a message
    parameter (SPEC 3.14). Never the id: a card named on the display may later sit in a hand,
    where its id is hidden from every audience but its seat."""
    colour, _, number = str(card).rpartition("-")
    return {"colour": colour, "number": int(number)} if colour and number.isdigit() else str(card)


def province_name(province: Any) -> str:
    return PROVINCE_NAME.get(str(province), str(province))


def space_name(space: Any) -> str:
    """'qin2' -> 'space 2' (a space's number inside its province)."""
    digits = space_number(space)
    return f"space {digits}" if digits else str(space)


def space_number(space: Any) -> str:
    """'qin2' -> '2': the number a message parameter carries (SPEC 3.14), no English word."""
    return "".join(ch for ch in str(space) if ch.isdigit()) or str(space)


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
    # Each sentence carries its message key and the parameters it names, nothing more: a card
    # drawn from the deck is named by no parameter, as the sentence names it not (SPEC 3.14).
    kind = e["type"]
    if kind == "game_started":
        first = who(names, e["emperor"])
        return Phrase("china.game_started", f"The game starts with {e['players']} players on the {e['side']} side of the board; "
                      f"{first} holds the Emperor and plays first.", players=e["players"], side=e["side"], emperor=first)
    if kind == "house_built":
        name = who(names, e["seat"])
        return Phrase("china.house_built", f"{name} builds a house in {province_name(e['province'])} "
                      f"on {space_name(e['space'])}, paying {_paid(e['cards'])}.",
                      who=name, province=province_name(e["province"]), space=space_number(e["space"]), cards=[card_face(c) for c in e["cards"]])
    if kind == "emissary_sent":
        name = who(names, e["seat"])
        return Phrase("china.emissary_sent", f"{name} sends an emissary to {province_name(e['province'])}, "
                      f"paying {_paid(e['cards'])}.", who=name, province=province_name(e["province"]), cards=[card_face(c) for c in e["cards"]])
    if kind == "province_scored":
        return _province_scored(e, names)
    if kind == "refill_began":
        name = who(names, e["seat"])
        return Phrase("china.refill_began", f"{name} refills their hand to 3 cards.", who=name)
    if kind == "card_taken":
        name = who(names, e["seat"])
        if e["source"] == "deck":
            return Phrase("china.drew", f"{name} draws a card from the deck.", who=name)
        return Phrase("china.took", f"{name} takes {card_name(e['card'])} from the display.", who=name, card=card_face(e["card"]))
    if kind == "card_exchanged":
        name = who(names, e["seat"])
        if e["source"] == "deck":
            return Phrase("china.exchanged_for_deck", f"{name} discards {card_name(e['discarded'])} and draws a card from the deck.",
                          who=name, discarded=card_face(e["discarded"]))
        return Phrase("china.exchanged_for_display", f"{name} discards {card_name(e['discarded'])} and takes "
                      f"{card_name(e['card'])} from the display.", who=name, discarded=card_face(e["discarded"]), card=card_face(e["card"]))
    if kind == "display_slot_filled":
        return Phrase("china.laid_out", f"{card_name(e['card']).capitalize()} is laid out in the display.", card=card_face(e["card"]))
    if kind == "deck_reshuffled":
        if not e["order"]:
            return Phrase("china.nothing_to_reshuffle", "The deck is used up and the discard pile is empty: nothing to reshuffle.")
        return Phrase("china.reshuffled", "The deck is used up: the discard pile is shuffled into a new deck of "
                      f"{plural(len(e['order']), 'card')}.", count=len(e["order"]))
    if kind == "game_end_triggered":
        return Phrase("china.end_triggered", "The last deck is used up: the game ends just before the Emperor's next turn.")
    if kind == "turn_passed":
        name = who(names, e["seat"])
        return Phrase("china.passed", f"{name} passes.", who=name)
    if kind == "turn_ended":
        return ""  # the next seat to act is on the board; a sentence per turn would be noise
    if kind == "roads_scored":
        return _scored("china.roads_scored", "Roads score: ", ".", e["points"], names)
    if kind == "alliances_scored":
        return _alliances(e, names)
    if kind == "game_ended":
        return game_over(names, e, "the deck ran out twice and every player had the same number of turns")
    return ""


def _gains(points: list[int], names: list[str]) -> list[str]:
    """'Bo +3' per seat that scores: a name and a number, words in no language."""
    return [f"{who(names, s)} {signed(p)}" for s, p in enumerate(points) if p]


def _points(points: list[int], names: list[str]) -> str:
    scored = _gains(points, names)
    return ", ".join(scored) if scored else "nobody scores"


def _scored(key: str, head: str, tail: str, points: list[int], names: list[str], **more: Any) -> Phrase:
    """A scoring sentence, head + the gains + tail; `_nobody` on the key when no seat scores."""
    gains = _gains(points, names)
    text = head + _points(points, names) + tail
    return Phrase(key, text, points=gains, **more) if gains else Phrase(f"{key}_nobody", text, **more)


def _province_scored(e: Event, names: list[str]) -> Phrase:
    when = " at the end of the game" if e.get("final") else ""
    houses = [f"{who(names, s)} {plural(n, 'house')}" for s, n in enumerate(e["houses"]) if n]
    key = "china.province_scored_final" if e.get("final") else "china.province_scored"
    counts = [f"{who(names, s)} {n}" for s, n in enumerate(e["houses"]) if n]
    return _scored(key, f"{province_name(e['province'])} is scored{when} ({listing(houses)}): ", ".", e["points"], names,
                   province=province_name(e["province"]), houses=counts)


def _alliances(e: Event, names: list[str]) -> Phrase:
    if not e["alliances"]:
        return Phrase("china.no_alliances", "Alliances: no border has a player leading on both sides; nobody scores.")
    parts = [f"{province_name(a['between'][0])}–{province_name(a['between'][1])} "
             f"to {listing([who(names, w) for w in a['winners']])} (+{a['points']})" for a in e["alliances"]]
    borders = [Phrase("china.alliance_won", part, between=f"{province_name(a['between'][0])}–{province_name(a['between'][1])}",
                      winners=[who(names, w) for w in a["winners"]], points=a["points"])
               for part, a in zip(parts, e["alliances"], strict=True)]
    return _scored("china.alliances_scored", "Alliances score: ", f" ({'; '.join(parts)}).", e["points"], names,
                   alliances=borders)
