"""handcards: the side-by-side rig's reference game (bench/peers/game/handcards.js), for
benchmark servers only (`teahouse serve --bench-games`); it is never listed to users.

4 seats; a 60-card deck dealt from `{"seed": N}` exactly as the JS `makeDeck(N)` deals it
(mulberry32 + Fisher-Yates); each seat holds 5 secret cards. The seat to act plays one card
onto the public pile (score += value) and draws one from the deck; after 60 moves the deck
and the hands are empty and the match ends. Views are the JS `view()`: pile, deckCount,
scores, turn, moves, over, hand (None for spectators).

Evolve is copy-on-write: every list an event does not change is the previous state's own
object, and views hand those objects on, so the server's diff settles them by identity.
"""

from __future__ import annotations

import random
from typing import Any

from service.games.interface import Command, Commands, Event, Game, IllegalMove, State, Status

SEATS = 4
HAND = 5
DECK = 60
COLOURS = ("red", "green", "blue", "yellow")
# The cards are the same objects in every state and view: nothing ever edits one.
CARDS: dict[str, dict[str, Any]] = {
    f"c{i}": {"id": f"c{i}", "value": i % 10 + 1, "colour": COLOURS[i % 4]} for i in range(DECK)
}


def _mulberry32(seed: int):
    a = seed & 0xFFFFFFFF

    def imul(x: int, y: int) -> int:
        return (x * y) & 0xFFFFFFFF

    def nxt() -> float:
        nonlocal a
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = a
        t = imul(t ^ (t >> 15), t | 1)
        t ^= (t + imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return nxt


def make_deck(seed: int) -> list[str]:
    """The card ids in the order JS `makeDeck(seed)` leaves them."""
    deck = [f"c{i}" for i in range(DECK)]
    rnd = _mulberry32(seed)
    for i in range(DECK - 1, 0, -1):
        j = int(rnd() * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def initial(options: dict[str, Any], seats: int) -> State:
    if seats != SEATS:
        raise IllegalMove("bad_player_count", f"handcards is for {SEATS} players, not {seats!r}")
    unknown = sorted(set(options) - {"seed"})
    if unknown:
        raise IllegalMove("bad_options", f"unknown options: {', '.join(unknown)}")
    seed = options.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**32):
        raise IllegalMove("bad_options", "seed must be an integer from 0 to 2^32-1")
    return {"seed": seed, "deck": [], "hands": [[] for _ in range(seats)], "pile": [],
            "scores": [0] * seats, "turn": 0, "moves": 0, "over": False, "started": False}


def decide(state: State, seat: int | None, command: Command, rng: random.Random) -> list[Event]:
    kind = command.get("type")
    if kind == "start":
        if seat is not None or state["started"]:
            raise IllegalMove("not_allowed", "the match has already started")
        seed = state["seed"] if state["seed"] is not None else rng.randrange(2**32)
        return [{"type": "dealt", "deck": make_deck(seed)}]
    if kind != "play":
        raise IllegalMove("unknown_command", f"unknown command {kind!r}; the only one is play")
    if state["over"] or not state["started"]:
        raise IllegalMove("not_playing", "the match is not being played")
    if seat != state["turn"]:
        raise IllegalMove("not_your_turn", "it is not your turn")
    card = command.get("card")
    if not any(c["id"] == card for c in state["hands"][seat]):
        raise IllegalMove("card_not_in_hand", "that card is not in your hand")
    return [{"type": "played", "seat": seat, "card": card}]


def evolve(state: State, event: Event) -> State:
    if event["type"] == "dealt":
        deck = [CARDS[c] for c in event["deck"]]
        hands = [deck[s * HAND:(s + 1) * HAND] for s in range(SEATS)]
        return {**state, "deck": deck[SEATS * HAND:], "hands": hands, "started": True}
    seat, card_id = event["seat"], event["card"]
    hand = state["hands"][seat]
    card = next(c for c in hand if c["id"] == card_id)
    deck = state["deck"]
    new_hand = [c for c in hand if c is not card]
    if deck:
        new_hand.append(deck[0])
        deck = deck[1:]
    hands = list(state["hands"])
    hands[seat] = new_hand
    scores = list(state["scores"])
    scores[seat] += card["value"]
    over = not deck and not any(hands)
    return {**state, "deck": deck, "hands": hands, "pile": [*state["pile"], card], "scores": scores,
            "turn": (state["turn"] + 1) % SEATS, "moves": state["moves"] + 1, "over": over}


def view(state: State, seat: int | None) -> dict[str, Any]:
    return {"pile": state["pile"], "deckCount": len(state["deck"]), "scores": state["scores"],
            "turn": state["turn"], "moves": state["moves"], "over": state["over"],
            "hand": None if seat is None else state["hands"][seat]}


def legal_moves(state: State, seat: int) -> list[Command]:
    if state["over"] or not state["started"] or seat != state["turn"]:
        return []
    return [{"type": "play", "card": c["id"]} for c in state["hands"][seat]]


def status(state: State) -> Status:
    if not state["started"]:
        return {"phase": "waiting", "to_act": [], "finished": False, "result": None}
    if not state["over"]:
        return {"phase": "play", "to_act": [state["turn"]], "finished": False, "result": None}
    scores = list(state["scores"])
    ranking = sorted(range(SEATS), key=lambda s: (-scores[s], s))
    ranks = [1 + sum(1 for o in scores if o > scores[s]) for s in range(SEATS)]
    return {"phase": "over", "to_act": [], "finished": True,
            "result": {"scores": scores, "ranking": ranking,
                       "winners": [s for s in range(SEATS) if ranks[s] == 1], "ranks": ranks}}


def secrets(state: State, seat: int | None) -> list[str]:
    # Card ids become public on the pile, so only what is hidden right now counts.
    if seat is None:
        return [c["id"] for c in state["deck"]]
    return [c["id"] for c in state["hands"][seat]]


GAME = Game(
    id="handcards", name="handcards (benchmark)", min_players=SEATS, max_players=SEATS, rules_version=1,
    initial=initial, decide=decide, evolve=evolve, view=view, legal_moves=legal_moves,
    status=status, secrets=secrets, commands=Commands(player={"play": frozenset({"card"})}),
)
