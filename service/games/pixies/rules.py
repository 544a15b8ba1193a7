"""Pixies, the rules: setup, the turn (reveal, draft, placement), round end, scoring, game end.

Read top to bottom like the rulebook (../shared/rules/pixies.md). `decide` validates a
command and returns events; `evolve` applies one event and never mutates its input.

State shapes (plain data only):

- ``deck``: the *set* of undrawn card ids, kept sorted. The order of a face-down deck is
  never stored: each reveal draws its cards in `decide` (spec section 7), so the log holds
  no secret order.
- ``areas[seat][cell - 1]``: ``{"up": id | None, "down": id | None}``; EMPTY, UP(c),
  DOWN(d) and PAIR(c over d) are the four combinations.
- ``pick_order``: the seats picking in this turn, in order; ``picks_made`` of them are done.
"""

from __future__ import annotations

from typing import Any

from service.games.interface import Command, Event, IllegalMove, Rng, State, Status
from service.games.kit import Evolver, Turn, evolving, own_item
from service.games.pixies.data import (
    CARD_IDS,
    CARDS,
    CELLS,
    COLOURS,
    MARKET_SIZE,
    NEIGHBOURS,
    ROUNDS,
    ZONE_MULTIPLIER,
)

MIN_PLAYERS = 2
MAX_PLAYERS = 5
OPTION_KEYS = ("deck_orders", "first_player")
KEEP_CHOICES = ("existing", "new")


# --- Setup (spec 3) ---------------------------------------------------------------------------


def initial(options: dict[str, Any], seats: int) -> State:
    """The table before `start`: options checked, no cards dealt."""
    if isinstance(seats, bool) or not isinstance(seats, int) or not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise IllegalMove("bad_player_count", f"Pixies is played by 2 to 5 players, not {seats!r}.")
    return {
        "players": seats,
        "options": _checked_options(options, seats),
        "phase": "waiting",
        "first_player": None,
        "round": 0,
        "turn": 0,
        "deck": [],
        "market": [],
        "areas": [_empty_area() for _ in range(seats)],
        "turn_first": None,
        "pick_order": [],
        "picks_made": 0,
        "last_turn": False,
        "last_picker": None,
        "totals": [0] * seats,
        "round_scores": [],
        "result": None,
    }


def _checked_options(options: dict[str, Any], seats: int) -> dict[str, Any]:
    """Options only fix chance: the first player and each round's deck order (from the top)."""
    if not isinstance(options, dict):
        raise IllegalMove("bad_options", "Options must be a map.")
    unknown = sorted(str(k) for k in options if k not in OPTION_KEYS)
    if unknown:
        raise IllegalMove("bad_options", f"Unknown option(s): {', '.join(unknown)}; known: {', '.join(OPTION_KEYS)}.")
    checked: dict[str, Any] = {}
    if "first_player" in options:
        first = options["first_player"]
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < seats:
            raise IllegalMove("bad_options", f"first_player must be a seat from 0 to {seats - 1}.")
        checked["first_player"] = first
    if "deck_orders" in options:
        orders = options["deck_orders"]
        if not isinstance(orders, list) or len(orders) > ROUNDS:
            raise IllegalMove("bad_options", "deck_orders must be a list of at most 3 card lists, one per round.")
        for r, order in enumerate(orders, start=1):
            if not isinstance(order, list) or not all(isinstance(c, str) and c in CARDS for c in order):
                raise IllegalMove("bad_options", f"deck_orders[{r - 1}] must be a list of card ids (B01..J06).")
            if len(set(order)) != len(order):
                raise IllegalMove("bad_options", f"deck_orders[{r - 1}] names a card twice.")
        checked["deck_orders"] = [list(order) for order in orders]
    return checked


def _empty_area() -> list[dict[str, str | None]]:
    return [{"up": None, "down": None} for _ in CELLS]


def _start(t: Turn) -> None:
    players = t.state["players"]
    first = t.state["options"].get("first_player")
    if first is None:
        first = t.rng.randrange(players)
    t.emit({"type": "game_started", "players": players, "first_player": first})
    _new_round(t, 1, first)


def _on_game_started(s: State, e: Event) -> None:
    s["first_player"] = e["first_player"]
    s["phase"] = "drafting"


def _new_round(t: Turn, round_no: int, first: int) -> None:
    """All 70 cards go back into the deck; the round's first player reveals the first market."""
    t.emit({"type": "round_started", "round": round_no, "first_player": first})
    _reveal(t, first)


def _on_round_started(s: State, e: Event) -> None:
    s["round"] = e["round"]
    s["turn"] = 0
    s["deck"] = list(CARD_IDS)
    s["market"] = []
    s["areas"] = [_empty_area() for _ in range(s["players"])]
    s["last_turn"] = False
    s["phase"] = "drafting"


# --- The turn: the market and the picking order (4.2) -----------------------------------------


def decide(state: State, seat: int | None, command: Command, rng: Rng) -> list[Event]:
    # The shared preamble (service.games.preamble) has refused what no game accepts: after the
    # end (the spec's T07/T15 WRONG_PHASE is `game_over` on every game), before the start,
    # unknown commands and fields. What comes here is `start` from the system or `take_card`.
    t = Turn(state, rng, evolve)
    if seat is None:
        _start(t)
        return t.events
    if state["phase"] != "drafting":
        raise IllegalMove("wrong_phase", "Cards are taken only while a round is being drafted.")
    if seat != to_act(state):
        raise IllegalMove("not_your_turn", f"It is seat {to_act(state)}'s pick, not seat {seat!r}'s.")
    _take_card(t, seat, command)
    return t.events


def to_act(state: State) -> int | None:
    if state["phase"] != "drafting":
        return None
    return state["pick_order"][state["picks_made"]]


def _reveal(t: Turn, first: int) -> None:
    """Draw the market from the undrawn cards: a stacked deck's next cards first, then at random."""
    state = t.state
    size = MARKET_SIZE[state["players"]]
    undrawn = set(state["deck"])
    orders = state["options"].get("deck_orders", [])
    stacked = orders[state["round"] - 1] if state["round"] <= len(orders) else []
    cards = [c for c in stacked if c in undrawn][:size]
    rest = sorted(undrawn.difference(cards).difference(stacked))
    if len(cards) < size:
        cards += t.rng.sample(rest, size - len(cards))
    t.emit({
        "type": "market_revealed",
        "round": state["round"],
        "turn": state["turn"] + 1,
        "first_player": first,
        "cards": cards,
    })


def _on_market_revealed(s: State, e: Event) -> None:
    drawn = set(e["cards"])
    if len(drawn) != MARKET_SIZE[s["players"]] or not drawn <= set(s["deck"]):
        raise ValueError(f"market_revealed draws {e['cards']} from a deck that cannot give them")
    s["deck"] = [c for c in s["deck"] if c not in drawn]
    s["market"] = list(e["cards"])
    s["turn"] = e["turn"]
    s["turn_first"] = e["first_player"]
    s["pick_order"] = pick_order(s["players"], e["first_player"])
    s["picks_made"] = 0


def pick_order(players: int, first: int) -> list[int]:
    """Seats in picking order for one turn: 2 players alternate twice, 3-5 go clockwise once."""
    if players == 2:
        return [first, 1 - first, first, 1 - first]
    return [(first + i) % players for i in range(players)]


# --- The turn: taking a card and placing it (4.3) ---------------------------------------------


def _take_card(t: Turn, seat: int, command: Command) -> None:
    """Validate one TakeCard in the spec's order (4.3) and place the card."""
    state = t.state
    card = command.get("card")
    if not isinstance(card, str) or card not in state["market"]:
        raise IllegalMove("card_not_in_market", f"{card!r} is not in the market {state['market']}.")
    keep = command.get("keep")
    target = command.get("target_cell")
    if keep is not None and keep not in KEEP_CHOICES:
        raise IllegalMove("invalid_parameter", f"keep must be 'existing' or 'new', not {keep!r}.")
    if target is not None and (isinstance(target, bool) or not isinstance(target, int) or target not in CELLS):
        raise IllegalMove("invalid_parameter", f"target_cell must be a cell number from 1 to 9, not {target!r}.")

    number = CARDS[card]["number"]
    area = state["areas"][seat]
    cell = area[number - 1]
    case = _cell_state(cell)
    if case in ("empty", "down"):
        if keep is not None or target is not None:
            raise IllegalMove("unexpected_parameter", f"Cell {number} is {case}: the card goes there; give no choice.")
        placed = {"cell": number, "placement": "face_up" if case == "empty" else "on_face_down", "keep": None}
    elif case == "up":
        if target is not None:
            raise IllegalMove("unexpected_parameter", f"Cell {number} holds a face-up card: choose keep, not target_cell.")
        if keep is None:
            raise IllegalMove("keep_required", f"Cell {number} holds {cell['up']}: say which card stays face up (keep).")
        placed = {"cell": number, "placement": "on_face_up", "keep": keep}
    else:
        if keep is not None:
            raise IllegalMove("unexpected_parameter", f"Cell {number} is validated: choose target_cell, not keep.")
        if target is None:
            raise IllegalMove("target_required", f"Cell {number} is validated: choose an empty cell for the card face down.")
        if _cell_state(area[target - 1]) != "empty":
            raise IllegalMove("target_not_empty", f"Cell {target} is not empty; a face-down card needs an empty cell.")
        placed = {"cell": target, "placement": "face_down", "keep": None}

    t.emit({"type": "card_taken", "seat": seat, "card": card, **placed})
    # The picker's area had an empty cell (else they would not be picking), so this is new.
    if _is_full(t.state["areas"][seat]):
        t.emit({"type": "area_filled", "seat": seat})
    _after_pick(t)


def _on_card_taken(s: State, e: Event) -> None:
    seat, card, cell = e["seat"], e["card"], e["cell"]
    s["market"] = [c for c in s["market"] if c != card]
    area = own_item(s, "areas", seat)
    old = area[cell - 1]
    if e["placement"] == "face_up":
        area[cell - 1] = {"up": card, "down": None}
    elif e["placement"] == "on_face_down":
        area[cell - 1] = {"up": card, "down": old["down"]}
    elif e["placement"] == "on_face_up":
        kept, under = (old["up"], card) if e["keep"] == "existing" else (card, old["up"])
        area[cell - 1] = {"up": kept, "down": under}
    else:
        area[cell - 1] = {"up": None, "down": card}
    s["picks_made"] += 1
    s["last_picker"] = seat


def _cell_state(cell: dict[str, str | None]) -> str:
    if cell["up"] is None:
        return "empty" if cell["down"] is None else "down"
    return "up" if cell["down"] is None else "pair"


def _is_full(area: list[dict[str, str | None]]) -> bool:
    return all(cell["up"] is not None or cell["down"] is not None for cell in area)


# --- Turn end and round end (4.4, 4.5) --------------------------------------------------------


def _on_area_filled(s: State, e: Event) -> None:
    s["last_turn"] = True


def _turn_over(state: State) -> bool:
    if not state["market"]:
        return True
    # 2 players in the last turn: stop as soon as both have taken as many cards this turn,
    # leaving the other market cards untaken (spec 4.4; decision 6).
    return state["players"] == 2 and state["last_turn"] and state["picks_made"] % 2 == 0


def _after_pick(t: Turn) -> None:
    """The last picker of a turn starts the next turn, and the next round (decision 5)."""
    state = t.state
    if not _turn_over(state):
        return
    last = state["last_picker"]
    # Deck exhaustion (decision 3): reachable only with 5 players, after the 14th turn.
    exhausted = len(state["deck"]) < MARKET_SIZE[state["players"]]
    if not (state["last_turn"] or exhausted):
        _reveal(t, last)
        return
    t.emit({
        "type": "round_scored",
        "round": state["round"],
        "scores": [score_area(area, state["round"]) for area in state["areas"]],
    })
    if state["round"] == ROUNDS:
        t.emit({"type": "game_ended", **game_result(t.state["totals"])})
    else:
        _new_round(t, state["round"] + 1, last)


# --- Scoring (5.1, 5.2) -----------------------------------------------------------------------


def score_area(area: list[dict[str, str | None]], round_no: int) -> dict[str, int]:
    """One player's round score, V + S - X + Z x m, with its parts (spec 5.2)."""
    visible = {n: area[n - 1]["up"] for n in CELLS if area[n - 1]["up"] is not None}
    validated = sum(CARDS[str(c)]["number"] for n, c in visible.items() if area[n - 1]["down"] is not None)
    spirals = sum(CARDS[str(c)]["spirals"] for c in visible.values())
    for card in visible.values():
        condition = CARDS[str(card)]["condition"]
        if condition is not None:
            # The condition card is visible too, so it counts itself (decision 8); jokers count (7).
            spirals += sum(1 for c in visible.values() if condition["colour"] in CARDS[str(c)]["colours"])
    crosses = sum(CARDS[str(c)]["crosses"] for c in visible.values())
    zone = largest_zone(area)
    multiplier = ZONE_MULTIPLIER[round_no]
    return {
        "validated": validated,
        "spirals": spirals,
        "crosses": crosses,
        "zone": zone,
        "multiplier": multiplier,
        "total": validated + spirals - crosses + zone * multiplier,
    }


def largest_zone(area: list[dict[str, str | None]]) -> int:
    """Largest orthogonal one-colour group of visible cards; jokers join every colour.
    A lone card is no zone (decision 2), so the answer is 0 or at least 2."""
    best = 0
    for colour in COLOURS:
        cells = {n for n in CELLS if area[n - 1]["up"] is not None and colour in CARDS[str(area[n - 1]["up"])]["colours"]}
        while cells:
            frontier = [min(cells)]
            cells.discard(frontier[0])
            size = 0
            while frontier:
                n = frontier.pop()
                size += 1
                for m in NEIGHBOURS[n]:
                    if m in cells:
                        cells.discard(m)
                        frontier.append(m)
            best = max(best, size)
    return best if best >= 2 else 0


def _on_round_scored(s: State, e: Event) -> None:
    s["totals"] = [t + score["total"] for t, score in zip(s["totals"], e["scores"], strict=True)]
    s["round_scores"] = [*s["round_scores"], e["scores"]]
    s["phase"] = "round_over"


# --- Game end (5.3) ---------------------------------------------------------------------------


def game_result(totals: list[int]) -> dict[str, Any]:
    """Highest total wins; no tie-breaker (decision 4): tied seats share rank, 1-1-3 style."""
    ranking = sorted(range(len(totals)), key=lambda s: (-totals[s], s))
    ranks = [1 + sum(1 for t in totals if t > mine) for mine in totals]
    top = max(totals)
    return {
        "scores": list(totals),
        "ranking": ranking,
        "ranks": ranks,
        "winners": [s for s in range(len(totals)) if totals[s] == top],
    }


def _on_game_ended(s: State, e: Event) -> None:
    s["phase"] = "game_over"
    s["result"] = {k: list(e[k]) for k in ("scores", "ranking", "ranks", "winners")}


# --- evolve and status ------------------------------------------------------------------------


_APPLY: dict[str, Evolver] = {
    "game_started": _on_game_started,
    "round_started": _on_round_started,
    "market_revealed": _on_market_revealed,
    "card_taken": _on_card_taken,
    "area_filled": _on_area_filled,
    "round_scored": _on_round_scored,
    "game_ended": _on_game_ended,
}


evolve = evolving(_APPLY)


def status(state: State) -> Status:
    result = state["result"]
    seat = to_act(state)
    return {
        "phase": state["phase"],
        "to_act": [] if seat is None else [seat],
        "finished": state["phase"] == "game_over",
        "result": None if result is None else {
            "scores": list(result["scores"]),
            "ranking": list(result["ranking"]),
            "winners": list(result["winners"]),
        },
    }
