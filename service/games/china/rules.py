"""China, the rules: setup, the turn (place, refill, exchange, pass), the deck and its one
reshuffle, province scoring, the end and the final scoring.

Read top to bottom like the rulebook (../shared/rules/china.md). `decide` validates a
command and returns events; `evolve` applies one event and never mutates its input. Inside
`decide` every event is applied to a working state as soon as it is emitted, so the next
rule (a province filling, the deck running out mid-refill) sees its effect.

State shapes (plain data only):

- ``hands[seat]``: card ids; ``display``: 4 slots, a card id or None; ``deck``: card ids,
  top first; ``discard``: card ids, top last; ``generation``: 1, then 2 after the reshuffle.
- ``houses``: house space -> seat or None; ``emissaries``: province -> count per seat;
  ``scored``: province -> bool; ``supply[seat]``: {"houses": n, "emissaries": n}.
- ``phase``: "waiting" | "play" (place, exchange or pass) | "refill" (take cards one at a
  time) | "finished".
"""

from __future__ import annotations

from typing import Any

from service.games.china.data import (
    CARD_COLOUR,
    DISPLAY_SIZE,
    EMISSARIES_PER_PLAYER,
    HAND_SIZE,
    HOUSES_PER_PLAYER,
    PROVINCE_COLOUR,
    PROVINCE_SPACES,
    PROVINCES,
    SPACES,
    cards_in_play,
    removed_cards,
    sides_for,
)
from service.games.china.moves import cards_to_take, has_exchange, place_moves
from service.games.china.scoring import alliance_results, province_points, ranking, road_chains
from service.games.interface import Command, Event, IllegalMove, Rng, State, Status
from service.games.kit import Evolver, Turn, own, own_item
from service.games.preamble import refuse_unknown_fields

MIN_PLAYERS = 3
MAX_PLAYERS = 5
OPTION_KEYS = ("board_side", "start_player", "deck_order", "reshuffle_order")
PIECES = ("house", "emissary")
SOURCES = ("deck", "display")
PLACEMENT_FIELDS = ("cards", "piece", "space")
MAX_PLACEMENTS = 2


# --- Setup (spec 4) ---------------------------------------------------------------------------


def initial(options: dict[str, Any], seats: int) -> State:
    """The table before `start`: options checked, board side chosen, nothing dealt."""
    if isinstance(seats, bool) or not isinstance(seats, int) or not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise IllegalMove("bad_player_count", f"China is played by 3 to 5 players, not {seats!r}.")
    checked = _checked_options(options, seats)
    return {
        "players": seats,
        "options": checked,
        "side": checked.get("board_side", sides_for(seats)[0]),
        "phase": "waiting",
        "emperor": None,
        "active": None,
        "turn": 0,
        "hands": [[] for _ in range(seats)],
        "display": [None] * DISPLAY_SIZE,
        "deck": [],
        "discard": [],
        "removed": [],
        "generation": 1,
        "end_triggered": False,
        "houses": {space: None for space in SPACES},
        "emissaries": {pid: [0] * seats for pid in PROVINCES},
        "scored": {pid: False for pid in PROVINCES},
        "supply": [{"houses": HOUSES_PER_PLAYER, "emissaries": EMISSARIES_PER_PLAYER} for _ in range(seats)],
        "scores": [0] * seats,
        "final_scoring": None,
        "result": None,
    }


def _checked_options(options: dict[str, Any], seats: int) -> dict[str, Any]:
    """Options choose the board side for 4 players and can fix every chance outcome: the
    setup order of the deck, the start player and the order of the one reshuffle."""
    if not isinstance(options, dict):
        raise IllegalMove("bad_options", "Options must be a map.")
    unknown = sorted(str(k) for k in options if k not in OPTION_KEYS)
    if unknown:
        raise IllegalMove(
            "bad_options", f"Unknown option(s): {', '.join(unknown)}; known: {', '.join(OPTION_KEYS)}."
        )
    checked: dict[str, Any] = {}
    if "board_side" in options:
        side = options["board_side"]
        allowed = sides_for(seats)
        if side not in allowed:
            raise IllegalMove(
                "bad_options",
                f"board_side for {seats} players must be one of {', '.join(allowed)}, not {side!r}.",
            )
        checked["board_side"] = side
    if "start_player" in options:
        first = options["start_player"]
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < seats:
            raise IllegalMove("bad_options", f"start_player must be a seat from 0 to {seats - 1}.")
        checked["start_player"] = first
    for key in ("deck_order", "reshuffle_order"):
        if key in options:
            checked[key] = _checked_card_order(key, options[key], seats)
    return checked


def _checked_card_order(key: str, order: Any, seats: int) -> list[str]:
    in_play = cards_in_play(seats)
    if not isinstance(order, list) or not all(isinstance(c, str) for c in order):
        raise IllegalMove("bad_options", f"{key} must be a list of card ids.")
    if sorted(order) != sorted(in_play):
        raise IllegalMove(
            "bad_options",
            f"{key} must list each of the {len(in_play)} cards in play for {seats} players exactly once "
            f"(the highest-numbered cards of each colour are out of the game).",
        )
    return list(order)


def _start(state: State, rng: Rng) -> list[Event]:
    """Shuffle, choose the Emperor; the event carries both so the deal replays exactly."""
    n = state["players"]
    opts = state["options"]
    if "deck_order" in opts:
        order = list(opts["deck_order"])
    else:
        order = cards_in_play(n)
        rng.shuffle(order)
    emperor = opts["start_player"] if "start_player" in opts else rng.randrange(n)
    return [
        {
            "type": "game_started",
            "players": n,
            "side": state["side"],
            "emperor": emperor,
            "removed": removed_cards(n),
            "order": order,
        }
    ]


def _on_game_started(s: State, e: Event) -> None:
    order = e["order"]
    n = s["players"]
    s["hands"] = [order[HAND_SIZE * p : HAND_SIZE * (p + 1)] for p in range(n)]
    dealt = HAND_SIZE * n
    s["display"] = order[dealt : dealt + DISPLAY_SIZE]
    s["deck"] = order[dealt + DISPLAY_SIZE :]
    s["removed"] = list(e["removed"])
    s["emperor"] = e["emperor"]
    s["active"] = e["emperor"]
    s["turn"] = 1
    s["phase"] = "play"


# --- The turn (spec 5) ------------------------------------------------------------------------


def decide(state: State, seat: int | None, command: Command, rng: Rng) -> list[Event]:
    # The shared preamble (service.games.preamble) has checked the command's shape, type and
    # fields, and that the game is running.
    kind = command["type"]
    if seat is None:
        return _start(state, rng)
    if seat != state["active"]:
        raise IllegalMove("not_your_turn", f"It is seat {state['active']}'s turn.")
    if kind == "take":
        if state["phase"] != "refill":
            raise IllegalMove("wrong_phase", "Cards are taken only while refilling the hand after placing.")
    elif state["phase"] != "play":
        raise IllegalMove("wrong_phase", "Finish refilling your hand first: take a card.")
    turn = Turn(state, rng, evolve)
    if kind == "place":
        _place(turn, seat, command)
    elif kind == "take":
        _take(turn, seat, command)
    elif kind == "exchange":
        _exchange(turn, seat, command)
    else:
        _pass(turn, seat)
    return turn.events


# --- Place (5.1, 5.2) -------------------------------------------------------------------------


def check_place(
    state: State, seat: int, command: Command
) -> tuple[str, list[tuple[list[str], str, str | None]]]:
    """Validate a Place command in the spec's order of checks; returns (province, placements)."""
    province, placements = _parsed_place(command)
    hand = state["hands"][seat]
    seen: set[str] = set()
    for cards, _, _ in placements:
        for card in cards:
            if card not in hand:
                raise IllegalMove("card_not_in_hand", f"You do not hold {card!r}.")
            if card in seen:
                raise IllegalMove("duplicate_card", f"{card} is played twice.")
            seen.add(card)
    if province not in PROVINCE_COLOUR:
        raise IllegalMove("unknown_province", f"There is no province {province!r}.")
    if not placements:
        raise IllegalMove("no_placements", "Place at least one piece.")
    if len(placements) > MAX_PLACEMENTS:
        raise IllegalMove("too_many_pieces", "At most 2 pieces go into a province in one turn.")
    houses = state["houses"]
    spaces = PROVINCE_SPACES[province]
    if len(placements) > 1 and all(houses[s] is None for s in spaces):
        raise IllegalMove("empty_province_one_piece", "Only one piece may go into an empty province.")
    colour = PROVINCE_COLOUR[province]
    for cards, _, _ in placements:
        _check_payment(cards, colour, province)
    # Pieces go in one at a time: each is checked against the board the earlier one left.
    supply = dict(state["supply"][seat])
    counts = _house_counts(houses, spaces, state["players"])
    envoys = sum(state["emissaries"][province])
    taken: set[str] = set()
    for _, piece, space in placements:
        if piece == "house":
            if space not in spaces:
                raise IllegalMove("space_not_in_province", f"{space!r} is not a house space of {province}.")
            if houses[space] is not None or space in taken:
                raise IllegalMove("space_occupied", f"{space} already holds a house.")
            if supply["houses"] == 0:
                raise IllegalMove("no_piece_in_supply", "You have no house left in your supply.")
            supply["houses"] -= 1
            counts[seat] += 1
            taken.add(space)
        else:
            if supply["emissaries"] == 0:
                raise IllegalMove("no_piece_in_supply", "You have no emissary left in your supply.")
            if envoys + 1 > max(counts):
                raise IllegalMove(
                    "emissary_limit_exceeded",
                    f"{province} may hold at most {max(counts)} emissaries, the most houses one player has there.",
                )
            supply["emissaries"] -= 1
            envoys += 1
    return province, placements


def _parsed_place(command: Command) -> tuple[str, list[tuple[list[str], str, str | None]]]:
    province = command.get("province")
    placements = command.get("placements")
    if not isinstance(province, str):
        raise IllegalMove("bad_command", "place needs 'province', a province id.")
    if not isinstance(placements, list):
        raise IllegalMove("bad_command", "place needs 'placements', a list of {cards, piece, space}.")
    parsed = []
    for p in placements:
        if not isinstance(p, dict):
            raise IllegalMove("bad_command", "Each placement is a map {cards, piece, space}.")
        refuse_unknown_fields(p, PLACEMENT_FIELDS, "A placement")
        cards, piece, space = p.get("cards"), p.get("piece"), p.get("space")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise IllegalMove("bad_command", "A placement's 'cards' is a list of card ids.")
        if piece not in PIECES:
            raise IllegalMove("bad_command", "A placement's 'piece' is 'house' or 'emissary'.")
        if piece == "house" and not isinstance(space, str):
            raise IllegalMove("bad_command", "A house needs 'space', a house space id.")
        if piece == "emissary" and space is not None:
            raise IllegalMove("bad_command", "An emissary goes on the dragon space: give no 'space'.")
        parsed.append((list(cards), piece, space))
    return province, parsed


def _check_payment(cards: list[str], colour: str, province: str) -> None:
    """One card of the province's colour, or a joker pair of another single colour."""
    if not 1 <= len(cards) <= 2:
        raise IllegalMove("bad_payment_size", "Each piece is paid with one card or a pair of cards.")
    if len(cards) == 1:
        if CARD_COLOUR[cards[0]] != colour:
            raise IllegalMove(
                "card_colour_mismatch", f"{province} takes {colour} cards, not {CARD_COLOUR[cards[0]]}."
            )
        return
    first, second = (CARD_COLOUR[c] for c in cards)
    if first != second:
        raise IllegalMove("pair_colours_differ", "A joker pair is two cards of the same colour.")
    if first == colour:
        raise IllegalMove(
            "pair_same_as_target",
            f"A joker pair stands in for another colour; play {colour} cards singly here.",
        )


def _place(turn: Turn, seat: int, command: Command) -> None:
    province, placements = check_place(turn.state, seat, command)
    for cards, piece, space in placements:
        if piece == "house":
            turn.emit(
                {"type": "house_built", "seat": seat, "province": province, "space": space, "cards": cards}
            )
            _score_if_full(turn, province)
        else:
            turn.emit({"type": "emissary_sent", "seat": seat, "province": province, "cards": cards})
    if len(turn.state["hands"][seat]) < HAND_SIZE and cards_to_take(turn.state):
        turn.emit({"type": "refill_began", "seat": seat})
    else:
        _end_turn(turn)


def _on_house_built(s: State, e: Event) -> None:
    _play_cards(s, e["seat"], e["cards"])
    own(s, "houses")[e["space"]] = e["seat"]
    _use_piece(s, e["seat"], "houses")


def _on_emissary_sent(s: State, e: Event) -> None:
    _play_cards(s, e["seat"], e["cards"])
    own_item(s, "emissaries", e["province"])[e["seat"]] += 1
    _use_piece(s, e["seat"], "emissaries")


def _play_cards(s: State, seat: int, cards: list[str]) -> None:
    hands = own(s, "hands")
    hands[seat] = [c for c in hands[seat] if c not in cards]
    s["discard"] = [*s["discard"], *cards]


def _use_piece(s: State, seat: int, piece: str) -> None:
    own_item(s, "supply", seat)[piece] -= 1


# --- Province scoring (5.3) -------------------------------------------------------------------


def _score_if_full(turn: Turn, province: str) -> None:
    """A province is scored the moment its last space fills, before the next piece (A16)."""
    s = turn.state
    if not s["scored"][province] and all(s["houses"][sp] is not None for sp in PROVINCE_SPACES[province]):
        turn.emit(_province_scored(s, province, final=False))


def _province_scored(state: State, province: str, *, final: bool) -> Event:
    counts = _house_counts(state["houses"], PROVINCE_SPACES[province], state["players"])
    return {
        "type": "province_scored",
        "province": province,
        "houses": counts,
        "points": province_points(counts),
        "final": final,
    }


def _house_counts(houses: dict[str, int | None], spaces: list[str], players: int) -> list[int]:
    counts = [0] * players
    for space in spaces:
        owner = houses[space]
        if owner is not None:
            counts[owner] += 1
    return counts


def _on_province_scored(s: State, e: Event) -> None:
    s["scores"] = [a + b for a, b in zip(s["scores"], e["points"], strict=True)]
    own(s, "scored")[e["province"]] = True


# --- Refill (5.5) -----------------------------------------------------------------------------


def _on_refill_began(s: State, e: Event) -> None:
    s["phase"] = "refill"


def _take(turn: Turn, seat: int, command: Command) -> None:
    source, slot = _parsed_source(command)
    s = turn.state
    if source == "deck":
        if not s["deck"]:
            raise IllegalMove("deck_empty", "The deck is used up; take a display card.")
        turn.emit({"type": "card_taken", "seat": seat, "source": "deck", "card": s["deck"][0]})
        _after_deck_draw(turn)
    else:
        assert slot is not None
        if s["display"][slot] is None:
            raise IllegalMove("display_slot_empty", f"Display slot {slot} is empty.")
        turn.emit(
            {
                "type": "card_taken",
                "seat": seat,
                "source": "display",
                "slot": slot,
                "card": s["display"][slot],
            }
        )
    # Refilling is compulsory while cards remain (A9); the last card ends the turn.
    if len(turn.state["hands"][seat]) >= HAND_SIZE or not cards_to_take(turn.state):
        _end_turn(turn)


def _parsed_source(command: Command) -> tuple[str, int | None]:
    source = command.get("source")
    if source not in SOURCES:
        raise IllegalMove("bad_command", "'source' is 'deck' or 'display'.")
    if source == "deck":
        if command.get("slot") is not None:
            raise IllegalMove("bad_command", "A card from the deck takes no 'slot'.")
        return "deck", None
    slot = command.get("slot")
    if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot < DISPLAY_SIZE:
        raise IllegalMove("bad_command", f"'slot' is a display slot from 0 to {DISPLAY_SIZE - 1}.")
    return "display", slot


def _take_from(s: State, e: Event) -> str:
    """Remove the card an event names from the deck top or its display slot."""
    if e["source"] == "deck":
        card = s["deck"][0]
        s["deck"] = s["deck"][1:]
    else:
        card = s["display"][e["slot"]]
        own(s, "display")[e["slot"]] = None
    if card != e["card"]:
        raise IllegalMove("event_mismatch", f"{e['type']} names {e['card']}, but the card there is {card}.")
    return card


def _on_card_taken(s: State, e: Event) -> None:
    card = _take_from(s, e)
    hands = own(s, "hands")
    hands[e["seat"]] = [*hands[e["seat"]], card]


def _refill_display(turn: Turn) -> None:
    """Empty slots are refilled from the deck only after the hand refill, slots 0 to 3 (A10)."""
    for slot in range(DISPLAY_SIZE):
        s = turn.state
        if s["display"][slot] is None and s["deck"]:
            turn.emit({"type": "display_slot_filled", "slot": slot, "card": s["deck"][0]})
            _after_deck_draw(turn)


def _on_display_slot_filled(s: State, e: Event) -> None:
    card = s["deck"][0]
    if card != e["card"]:
        raise IllegalMove(
            "event_mismatch", f"display_slot_filled names {e['card']}, but the deck top is {card}."
        )
    s["deck"] = s["deck"][1:]
    own(s, "display")[e["slot"]] = card


# --- Exchange (5.6) ---------------------------------------------------------------------------


def _exchange(turn: Turn, seat: int, command: Command) -> None:
    card = command.get("card")
    if not isinstance(card, str):
        raise IllegalMove("bad_command", "exchange needs 'card', the id of the card to discard.")
    source, slot = _parsed_source(command)
    s = turn.state
    if card not in s["hands"][seat]:
        raise IllegalMove("card_not_in_hand", f"You do not hold {card!r}.")
    if not cards_to_take(s):
        raise IllegalMove("exchange_nothing_to_take", "There is no card left to take.")
    if source == "deck":
        if not s["deck"]:
            raise IllegalMove("deck_empty", "The deck is used up; take a display card.")
        taken = s["deck"][0]
    else:
        assert slot is not None
        if s["display"][slot] is None:
            raise IllegalMove("display_slot_empty", f"Display slot {slot} is empty.")
        taken = s["display"][slot]
    event: Event = {
        "type": "card_exchanged",
        "seat": seat,
        "discarded": card,
        "source": source,
        "card": taken,
    }
    if slot is not None:
        event["slot"] = slot
    turn.emit(event)
    if source == "deck":
        _after_deck_draw(turn)
    # A display card taken in an exchange is replaced at once, unlike in a refill.
    _refill_display(turn)
    _end_turn(turn)


def _on_card_exchanged(s: State, e: Event) -> None:
    _play_cards(s, e["seat"], [e["discarded"]])
    _on_card_taken(s, e)


# --- Pass (5.7) -------------------------------------------------------------------------------


def _pass(turn: Turn, seat: int) -> None:
    if has_exchange(turn.state, seat) or place_moves(turn.state, seat):
        raise IllegalMove("pass_not_allowed", "You may pass only when you can neither place nor exchange.")
    turn.emit({"type": "turn_passed", "seat": seat})
    _end_turn(turn)


def _on_turn_passed(s: State, e: Event) -> None:
    pass


# --- Deck, discard pile and the reshuffle (5.8) -----------------------------------------------


def _after_deck_draw(turn: Turn) -> None:
    """The moment the deck empties: the first time the discard pile becomes the new deck in
    an order decided here; the second time the end of the game is triggered."""
    s = turn.state
    if s["deck"]:
        return
    if s["generation"] == 1:
        order = _reshuffle_order(s, turn.rng)
        turn.emit({"type": "deck_reshuffled", "order": order})
        if order:
            return
    if not turn.state["end_triggered"]:
        turn.emit({"type": "game_end_triggered"})


def _reshuffle_order(state: State, rng: Rng) -> list[str]:
    fixed = state["options"].get("reshuffle_order")
    if fixed is not None:
        rank = {card: i for i, card in enumerate(fixed)}
        return sorted(state["discard"], key=rank.__getitem__)
    order = list(state["discard"])
    rng.shuffle(order)
    return order


def _on_deck_reshuffled(s: State, e: Event) -> None:
    order = e["order"]
    if s["generation"] != 1 or s["deck"] or sorted(order) != sorted(s["discard"]):
        raise IllegalMove(
            "reshuffle_order_invalid",
            "A reshuffle happens once, when the first deck runs out, and orders exactly the discard pile.",
        )
    s["deck"] = list(order)
    s["discard"] = []
    s["generation"] = 2


def _on_game_end_triggered(s: State, e: Event) -> None:
    s["end_triggered"] = True


# --- Turn end and the end trigger (6.4) -------------------------------------------------------


def _end_turn(turn: Turn) -> None:
    """The game ends just before the Emperor would start another turn after the trigger (6.4)."""
    _refill_display(turn)
    s = turn.state
    nxt = (s["active"] + 1) % s["players"]
    if s["end_triggered"] and nxt == s["emperor"]:
        _final_scoring(turn)
    else:
        turn.emit({"type": "turn_ended", "seat": s["active"], "next": nxt})


def _on_turn_ended(s: State, e: Event) -> None:
    s["active"] = e["next"]
    s["turn"] = s["turn"] + 1
    s["phase"] = "play"


# --- Final scoring (6.2, 6.3) and the winner (6.5) --------------------------------------------


def _final_scoring(turn: Turn) -> None:
    """Unscored provinces with houses, then roads, then the 15 alliances (6.3)."""
    for province in PROVINCES:
        s = turn.state
        if not s["scored"][province] and any(s["houses"][sp] is not None for sp in PROVINCE_SPACES[province]):
            turn.emit(_province_scored(s, province, final=True))
    s = turn.state
    n = s["players"]
    chains = [road_chains(s["houses"], s["side"], p) for p in range(n)]
    turn.emit(
        {"type": "roads_scored", "chains": chains, "points": [sum(len(c) for c in cs) for cs in chains]}
    )
    alliances = alliance_results(s["emissaries"])
    points = [0] * n
    for a in alliances:
        for p in a["winners"]:
            points[p] += a["points"]
    turn.emit({"type": "alliances_scored", "alliances": alliances, "points": points})
    s = turn.state
    pieces = [sup["houses"] + sup["emissaries"] for sup in s["supply"]]
    order, places, winners = ranking(s["scores"], pieces)
    turn.emit(
        {
            "type": "game_ended",
            "scores": list(s["scores"]),
            "pieces_left": pieces,
            "ranking": order,
            "places": places,
            "winners": winners,
        }
    )


def _on_roads_scored(s: State, e: Event) -> None:
    s["scores"] = [a + b for a, b in zip(s["scores"], e["points"], strict=True)]
    s["final_scoring"] = {**(s["final_scoring"] or {}), "roads": e["points"], "chains": e["chains"]}


def _on_alliances_scored(s: State, e: Event) -> None:
    s["scores"] = [a + b for a, b in zip(s["scores"], e["points"], strict=True)]
    s["final_scoring"] = {
        **(s["final_scoring"] or {}),
        "alliances": e["points"],
        "alliance_details": e["alliances"],
    }


def _on_game_ended(s: State, e: Event) -> None:
    s["phase"] = "finished"
    s["active"] = None
    s["result"] = {"scores": list(e["scores"]), "ranking": list(e["ranking"]), "winners": list(e["winners"])}
    s["final_scoring"] = {
        **(s["final_scoring"] or {}),
        "pieces_left": e["pieces_left"],
        "places": e["places"],
    }


# --- evolve and status ------------------------------------------------------------------------


def evolve(state: State, event: Event) -> State:
    kind = event["type"]
    _ensure_reshuffled(state, kind)
    apply = _APPLY.get(kind)
    if apply is None:
        raise IllegalMove("unknown_event", f"China has no event {kind!r}.")
    s = dict(state)
    apply(s, event)
    return s


def _ensure_reshuffled(state: State, kind: str) -> None:
    """The first exhaustion must be followed at once by the reshuffle the log carries;
    anything else is a log without the randomness it consumed (spec 8)."""
    if (
        kind != "deck_reshuffled"
        and state["phase"] != "waiting"
        and state["generation"] == 1
        and not state["deck"]
    ):
        raise IllegalMove(
            "reshuffle_order_required", f"The deck ran out; {kind} needs a deck_reshuffled first."
        )


_APPLY: dict[str, Evolver] = {
    "game_started": _on_game_started,
    "house_built": _on_house_built,
    "emissary_sent": _on_emissary_sent,
    "province_scored": _on_province_scored,
    "refill_began": _on_refill_began,
    "card_taken": _on_card_taken,
    "card_exchanged": _on_card_exchanged,
    "display_slot_filled": _on_display_slot_filled,
    "deck_reshuffled": _on_deck_reshuffled,
    "game_end_triggered": _on_game_end_triggered,
    "turn_passed": _on_turn_passed,
    "turn_ended": _on_turn_ended,
    "roads_scored": _on_roads_scored,
    "alliances_scored": _on_alliances_scored,
    "game_ended": _on_game_ended,
}


def status(state: State) -> Status:
    phase = state["phase"]
    acting = phase in ("play", "refill")
    return {
        "phase": phase,
        "to_act": [state["active"]] if acting else [],
        "finished": phase == "finished",
        "result": state["result"],
    }
