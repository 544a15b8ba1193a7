"""Words for people: Pixies moves and commits in English (the rules are in rules.py).

A card is named by its face ("Blue 4, 1 spiral"), never by its id alone. A card that ends up
face down is never named in a commit's sentences: every view shows it as a back.
"""

from __future__ import annotations

from service.games.interface import Command, Event, View
from service.games.pixies.data import CARDS
from service.games.words import Phrase, game_over, listing, plural, scores_line, who


def card_name(card_id: str) -> str:
    """'Blue 4' and what makes it score: 'Blue 4 (1 spiral)', 'Red 7 (3 crosses)',
    'Blue 4 (+1 per blue)'."""
    card = CARDS.get(card_id)
    if card is None:
        return f"card {card_id}"
    name = f"{card['colour'].capitalize()} {card['number']}"
    extras = []
    if card["spirals"]:
        extras.append(plural(card["spirals"], "spiral"))
    if card["crosses"]:
        extras.append(plural(card["crosses"], "cross", "crosses"))
    if card["condition"] is not None:
        extras.append(f"+1 per {card['condition']['colour']}")
    return f"{name} ({', '.join(extras)})" if extras else name


def card_face(card_id: str) -> dict[str, object]:
    """What a sentence's key parameters say of a card: its face, as the English sentence names
    it, never its id (a card seen in the market may later lie face down, where its id is hidden;
    its face was public when it was said)."""
    card = CARDS[card_id]
    condition = card["condition"]["colour"] if card["condition"] is not None else None
    return {"colour": card["colour"], "number": card["number"], "spirals": card["spirals"], "crosses": card["crosses"],
            "condition": condition}


def describe_move(command: Command, view: View, seat: int, names: list[str]) -> str:
    card = str(command.get("card"))
    name = card_name(card)
    number = CARDS[card]["number"] if card in CARDS else None
    if command.get("keep") == "existing":
        return f"Take {name}: keep the card on cell {number} face up, lay this one face down under it"
    if command.get("keep") == "new":
        return f"Take {name}: lay it face up on cell {number}, turning the card there face down"
    if command.get("target_cell") is not None:
        return f"Take {name} and lay it face down on empty cell {command['target_cell']}"
    under = ""
    areas = view.get("areas") or []
    if number is not None and 0 <= seat < len(areas):
        if areas[seat][number - 1].get("face_down"):
            under = " over the face-down card there"
    return f"Take {name} onto cell {number}{under}"


def describe_commit(seat: int | None, command: Command, events: list[Event], names: list[str]) -> list[str]:
    said: list[str] = []
    for e in events:
        kind = e["type"]
        if kind == "game_started":
            first = who(names, e["first_player"])
            said.append(Phrase("pixies.game_started", f"The game starts with {e['players']} players; {first} picks first.",
                               players=e["players"], first=first))
        elif kind == "round_started":
            first = who(names, e["first_player"])
            said.append(Phrase("pixies.round_started", f"Round {e['round']} begins; {first} picks first.",
                               round=e["round"], first=first))
        elif kind == "market_revealed":
            cards = listing([card_name(c) for c in e["cards"]])
            said.append(Phrase("pixies.market_revealed", f"Turn {e['turn']}: the market shows {cards}.",
                               turn=e["turn"], cards=[card_face(c) for c in e["cards"]]))
        elif kind == "card_taken":
            said.append(_taken(e, names))
        elif kind == "area_filled":
            name = who(names, e["seat"])
            said.append(Phrase("pixies.area_filled", f"{name}'s area is full: this is the round's last turn.", who=name))
        elif kind == "round_scored":
            totals = [s["total"] for s in e["scores"]]
            said.append(Phrase("pixies.round_scored", f"Round {e['round']} scores: {scores_line(names, totals)}.",
                               round=e["round"], scores=[f"{who(names, s)} {v}" for s, v in enumerate(totals)]))
        elif kind == "game_ended":
            said.append(game_over(names, e))
    return said


def _taken(e: Event, names: list[str]) -> str:
    name, cell = who(names, e["seat"]), e["cell"]
    placement = e["placement"]
    if placement == "face_up":
        return Phrase("pixies.taken_face_up", f"{name} takes {card_name(e['card'])} onto cell {cell}.",
                      who=name, card=card_face(e["card"]), cell=cell)
    if placement == "on_face_down":
        return Phrase("pixies.taken_validating", f"{name} takes {card_name(e['card'])} onto cell {cell}, validating it.",
                      who=name, card=card_face(e["card"]), cell=cell)
    if placement == "on_face_up":
        if e["keep"] == "new":
            return Phrase("pixies.taken_turning",
                          f"{name} takes {card_name(e['card'])} onto cell {cell}, turning the card there face down.",
                          who=name, card=card_face(e["card"]), cell=cell)
        # The new card went face down: it is a back from now on, so it is not named.
        return Phrase("pixies.taken_under", f"{name} takes a card and slips it face down under the card on cell {cell}.",
                      who=name, cell=cell)
    return Phrase("pixies.taken_face_down", f"{name} takes a card and lays it face down on cell {cell}.", who=name, cell=cell)
