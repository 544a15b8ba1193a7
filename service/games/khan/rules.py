"""Khan (Christwart Conrad, 2010): decide and evolve, in the order of the rulebook.

Setup, then a turn in five steps: 1 forced flight, 2 two actions (2A invade, 2B drive out,
2C conquer, 2D invasion of choice), 3 return the special card played last turn, 4 one
optional special card, 5 refill the hand. After the fifth ruler leaves, the end phase:
conquests only, until nobody can conquer; then scoring.

Cells in state are flat indices (`row * width + col`) for speed; commands, events and views
speak `[row, col]`. `yurts[cell]` is None (empty), -1 (neutral) or the owning seat.
Player yurts are unlimited (spec 2.1), so only neutral yurts are counted (general supply and
camps), and the general supply may go below zero (9.12).
"""

from __future__ import annotations

from typing import Any

from service.games.interface import Command, Event, IllegalMove, Rng, State, Status
from service.games.khan import conquest, scoring
from service.games.khan.data import (
    ACTIONS_PER_TURN,
    BACKGROUND_KIND,
    BOARDS,
    CARD_IDS,
    CARDS,
    CLOCKWISE,
    DIRECTION_VECTORS,
    DIVINE_REGIONS,
    END_PHASE_CONQUESTS,
    GENERAL_SUPPLY,
    HAND_SIZE,
    REMOVALS_TO_END,
    RULER_INFO,
    RULERS,
    SPECIAL_KINDS,
    TILES,
    Board,
    special_cards_for,
)
from service.games.kit import Evolver, Turn, evolving, own, own_item

NEUTRAL = conquest.NEUTRAL
MIN_PLAYERS = 2
MAX_PLAYERS = 4
OPTION_KEYS = ("deck_order", "start_player", "reshuffle", "board")
ACTION_TYPES = ("invade", "drive_out", "conquer", "invade_of_choice")


# --- Setup (spec 4) ---------------------------------------------------------------------------


def initial(options: dict[str, Any], seats: int) -> State:
    if not isinstance(seats, int) or isinstance(seats, bool) or not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise IllegalMove("bad_player_count", f"Khan is played by {MIN_PLAYERS} to {MAX_PLAYERS} players.")
    opts = _validate_options(options, seats)
    board = BOARDS[opts["board"]]
    specials = special_cards_for(seats)
    return {
        "players": seats,
        "options": opts,
        "board": opts["board"],
        "phase": "waiting",
        "end_phase": False,
        "start_player": None,
        "current": None,
        "turn_no": 0,
        "turn": None,
        "draw_pile": [],
        "discard": [],
        "hands": [[] for _ in range(seats)],
        "yurts": [None] * (board.height * board.width),
        "tile_at": [None] * (board.height * board.width),
        "placed": [],
        "rulers": {rid: board.start_cells[rid] for rid in RULERS},
        "camps": {rid: RULER_INFO[rid]["camp_yurts"] for rid in RULERS},
        "removed": [],
        "supply": GENERAL_SUPPLY,
        "tiles": {tid: TILES[tid]["count"] for tid in TILES},
        "specials": [dict(specials) for _ in range(seats)],
        "active": [],
        "last_special": [None] * seats,
        "pending": None,
        "quiet_turns": 0,
        "result": None,
    }


def _validate_options(options: Any, seats: int) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise IllegalMove("bad_options", "Options must be a mapping.")
    unknown = sorted(k for k in options if k not in OPTION_KEYS)
    if unknown:
        raise IllegalMove("bad_options", f"Unknown option(s): {', '.join(map(str, unknown))}.")
    opts: dict[str, Any] = {"deck_order": None, "start_player": None, "reshuffle": "random", "board": "standard"}
    if options.get("deck_order") is not None:
        order = options["deck_order"]
        if (
            not isinstance(order, list)
            or not all(isinstance(c, str) for c in order)
            or sorted(order) != sorted(CARD_IDS)
        ):
            raise IllegalMove("bad_options", f"deck_order must list each of the {len(CARD_IDS)} ruler card ids once.")
        opts["deck_order"] = list(order)
    if options.get("start_player") is not None:
        sp = options["start_player"]
        if not isinstance(sp, int) or isinstance(sp, bool) or not 0 <= sp < seats:
            raise IllegalMove("bad_options", f"start_player must be a seat from 0 to {seats - 1}.")
        opts["start_player"] = sp
    if "reshuffle" in options:
        if options["reshuffle"] not in ("random", "in_order"):
            raise IllegalMove("bad_options", "reshuffle must be 'random' or 'in_order'.")
        opts["reshuffle"] = options["reshuffle"]
    if "board" in options:
        if not isinstance(options["board"], str) or options["board"] not in BOARDS:
            raise IllegalMove("bad_options", f"board must be one of: {', '.join(sorted(BOARDS))}.")
        opts["board"] = options["board"]
    return opts


def _start(state: State, rng: Rng) -> list[Event]:
    opts = state["options"]
    order = list(opts["deck_order"]) if opts["deck_order"] is not None else _shuffled(CARD_IDS, rng)
    first = opts["start_player"] if opts["start_player"] is not None else rng.randrange(state["players"])
    t = Turn(state, rng, evolve)
    t.emit({"type": "game_started", "start_player": first, "deck_order": order})
    _begin_turn(t, first)
    return t.events


def _on_game_started(s: State, e: Event) -> None:
    pile = list(e["deck_order"])
    hands: list[list[str]] = [[] for _ in range(s["players"])]
    for _ in range(HAND_SIZE):
        for seat in range(s["players"]):
            hands[seat].append(pile.pop(0))
    s["draw_pile"] = pile
    s["hands"] = hands
    s["start_player"] = e["start_player"]
    s["options"] = {**s["options"], "deck_order": None}


# --- The turn (spec 5): who may send what -----------------------------------------------------


def decide(state: State, seat: int | None, command: Command, rng: Rng) -> list[Event]:
    # The shared preamble (service.games.preamble) has checked the command's shape, type and
    # fields, and that the game is running.
    kind = command["type"]
    if seat is None:
        return _start(state, rng)
    pending = state["pending"]
    if pending is not None and not (kind == "consent" and seat == pending["ask"][0]):
        raise IllegalMove("consent_pending", f"Waiting for seat {pending['ask'][0]} to answer a conquest request.")
    if kind == "consent":
        if pending is None:
            if seat != state["current"]:
                raise IllegalMove("not_your_turn", "It is not your turn.")
            raise IllegalMove("wrong_step", "Nobody has asked for your consent.")
        return _answer_consent(state, seat, command, rng)
    if seat != state["current"]:
        raise IllegalMove("not_your_turn", "It is not your turn.")
    if kind == "pass":
        return _pass(state, seat, rng)
    if kind == "play_special":
        return _play_special(state, seat, command, rng)
    return _action(state, seat, command, rng)


def _on_turn_started(s: State, e: Event) -> None:
    s["current"] = e["seat"]
    s["turn_no"] = e["turn_no"]
    s["phase"] = "actions"
    s["turn"] = {
        "actions_left": END_PHASE_CONQUESTS if s["end_phase"] else ACTIONS_PER_TURN,
        "actions_taken": 0,
        "special_played": None,
        "refused": [],
        "tile_placed": False,
        "protected": bool(s["active"]),
    }


# --- Step 1: forced flight (5.1, 5.2) ---------------------------------------------------------


def _begin_turn(t: Turn, seat: int) -> None:
    t.emit({"type": "turn_started", "seat": seat, "turn_no": t.state["turn_no"] + 1})
    if t.state["end_phase"]:
        return  # no rulers: the end phase has no step 1
    while True:
        card = _turn_over(t, "flight")
        ruler = CARDS[card]["ruler"]
        if t.state["rulers"][ruler] is not None:
            break
    cell = t.state["rulers"][ruler]
    board = BOARDS[t.state["board"]]
    if t.state["camps"][ruler] == 1:
        # the last camp yurt is swapped onto his cell instead of a move
        t.emit({"type": "ruler_removed", "ruler": ruler, "cell": board.rc(cell), "reason": "last_yurt",
                "neutral_from": "camp", "camp_to_supply": 0})
    else:
        target = flight_target(t.state, board, cell, CARDS[card]["direction"])
        if target is not None:
            t.emit({"type": "ruler_moved", "ruler": ruler, "from": board.rc(cell), "to": board.rc(target[1]),
                    "direction": target[0], "neutral_from": "camp"})
        else:
            t.emit({"type": "ruler_removed", "ruler": ruler, "cell": board.rc(cell), "reason": "stuck",
                    "neutral_from": "camp", "camp_to_supply": t.state["camps"][ruler] - 1})
    _maybe_start_end_phase(t)


def flight_target(state: State, board: Board, cell: int, direction: str) -> tuple[str, int] | None:
    """Spec 5.1: the first free cell within 3 steps, trying the card's direction and then
    each next one clockwise; occupied and river cells are jumped and still count."""
    ruler_cells = {c for c in state["rulers"].values() if c is not None}
    yurts = state["yurts"]
    tile_at = state["tile_at"]
    r0, c0 = divmod(cell, board.width)
    start = CLOCKWISE.index(direction)
    for k in range(len(CLOCKWISE)):
        d = CLOCKWISE[(start + k) % len(CLOCKWISE)]
        dr, dc = DIRECTION_VECTORS[d]
        for step in (1, 2, 3):
            r, c = r0 + step * dr, c0 + step * dc
            if not board.on_grid(r, c) or not board.is_cell[board.index(r, c)]:
                break
            i = board.index(r, c)
            if board.is_land[i] and yurts[i] is None and tile_at[i] is None and i not in ruler_cells:
                return d, i
    return None


def _turn_over(t: Turn, purpose: str) -> str:
    """Turn the top card of the draw pile face up onto the discard pile (reshuffling first
    if the pile is empty, 5.10)."""
    _ensure_draw_pile(t)
    card = t.state["draw_pile"][0]
    ruler = CARDS[card]["ruler"]
    t.emit({"type": "card_turned", "card": card, "purpose": purpose,
            "ruler_on_board": t.state["rulers"][ruler] is not None})
    return card


def _on_card_turned(s: State, e: Event) -> None:
    s["draw_pile"] = s["draw_pile"][1:]
    s["discard"] = [*s["discard"], e["card"]]


def _on_ruler_moved(s: State, e: Event) -> None:
    board = BOARDS[s["board"]]
    src = board.index(*e["from"])
    s["rulers"] = {**s["rulers"], e["ruler"]: board.index(*e["to"])}
    _put_neutral(s, src, e["ruler"], e["neutral_from"])


def _on_ruler_removed(s: State, e: Event) -> None:
    board = BOARDS[s["board"]]
    ruler = e["ruler"]
    s["rulers"] = {**s["rulers"], ruler: None}
    _put_neutral(s, board.index(*e["cell"]), ruler, e["neutral_from"])
    s["camps"] = {**s["camps"], ruler: s["camps"][ruler] - e["camp_to_supply"]}
    s["supply"] += e["camp_to_supply"]
    s["removed"] = [*s["removed"], ruler]


def _put_neutral(s: State, cell: int, ruler: str, source: str) -> None:
    own(s, "yurts")[cell] = NEUTRAL
    if source == "camp":
        s["camps"] = {**s["camps"], ruler: s["camps"][ruler] - 1}
    else:
        s["supply"] -= 1


# --- Step 2: two actions, or a pass -----------------------------------------------------------


def _action(state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
    kind = command["type"]
    turn = state["turn"]
    in_extra = state["phase"] == "extra_action"
    if not (state["phase"] == "actions" and turn["actions_left"] > 0) and not in_extra:
        raise IllegalMove("no_actions_left", "You have no action left this turn.")
    if state["end_phase"] and kind != "conquer":
        raise IllegalMove("end_phase_only_conquest", "In the end phase only conquests are allowed.")
    if kind == "invade_of_choice" and (in_extra or turn["actions_left"] < ACTIONS_PER_TURN or turn["actions_taken"]):
        raise IllegalMove("double_action_not_allowed", "The invasion of choice needs both actions of the turn.")
    board = BOARDS[state["board"]]
    t = Turn(state, rng, evolve)
    if kind == "invade":
        _invade(t, board, seat, command)
    elif kind == "drive_out":
        _drive_out(t, board, seat, command)
    elif kind == "invade_of_choice":
        _invade_of_choice(t, board, seat, command)
    else:
        found = conquest.judge(state, board, seat, command.get("tile"), command.get("cells"))
        if found["ask"]:
            t.emit({"type": "consent_requested", "seat": seat, "tile": found["tile"], "cells": found["cells"],
                    "ask": found["ask"]})
            return t.events
        _conquer(t, board, seat, found)
    _after_action(t)
    return t.events


def _use_action(s: State, count: int = 1) -> None:
    turn = own(s, "turn")
    if s["phase"] == "extra_action":
        s["phase"] = "special"
    else:
        turn["actions_left"] -= count
    turn["actions_taken"] += count


def _after_action(t: Turn) -> None:
    """After an action: go on with step 2, or close it (step 3) and move to step 4/5."""
    s = t.state
    if s["phase"] == "actions" and s["turn"]["actions_left"] > 0:
        return
    if s["phase"] == "actions":
        _close_actions(t)
    else:  # the High Morale action was the special card of this turn
        _finish_turn(t)


def _pass(state: State, seat: int, rng: Rng) -> list[Event]:
    t = Turn(state, rng, evolve)
    if state["phase"] == "actions":
        t.emit({"type": "actions_passed", "seat": seat, "actions": state["turn"]["actions_left"]})
        _close_actions(t)
    elif state["phase"] == "extra_action":
        t.emit({"type": "actions_passed", "seat": seat, "actions": 1})
        _finish_turn(t)
    else:
        t.emit({"type": "special_card_declined", "seat": seat})
        _finish_turn(t)
    return t.events


def _on_actions_passed(s: State, e: Event) -> None:
    if s["phase"] == "extra_action":
        s["phase"] = "special"
    s["turn"] = {**s["turn"], "actions_left": 0}


# --- Action 2A: invade (5.3) ------------------------------------------------------------------


def _invade(t: Turn, board: Board, seat: int, command: Command) -> None:
    """2A: play a hand card, place one own yurt on a free cell its background allows."""
    card = command.get("card")
    if not isinstance(card, str) or card not in t.state["hands"][seat]:
        raise IllegalMove("card_not_in_hand", "You do not hold that card.")
    cell = _free_cell(t.state, board, command.get("cell"))
    if not invade_allowed(board, CARDS[card]["background"], cell):
        bg = CARDS[card]["background"]
        kind = BACKGROUND_KIND[bg]
        if kind == "river":
            raise IllegalMove("not_adjacent_to_river", "A river card places a yurt on a cell beside the river.")
        if kind == "outer_area":
            raise IllegalMove("not_adjacent_to_outer_area", "An outer-area card places a yurt on a cell beside the outer area.")
        raise IllegalMove("wrong_region", f"This card places a yurt in the {board.region_names[bg]} only.")
    t.emit({"type": "invaded", "seat": seat, "card": card, "cell": board.rc(cell)})


def invade_allowed(board: Board, background: str, cell: int) -> bool:
    kind = BACKGROUND_KIND[background]
    if kind == "joker":
        return True
    if kind == "river":
        return board.borders_river[cell]
    if kind == "outer_area":
        return board.borders_outer[cell]
    return board.letter[cell] == background


def _free_cell(state: State, board: Board, value: Any) -> int:
    r, c = conquest._cell(value)
    if not board.on_grid(r, c) or not board.is_land[board.index(r, c)]:
        raise IllegalMove("cell_not_land", f"({r},{c}) is not a land cell.")
    i = board.index(r, c)
    if state["yurts"][i] is not None or state["tile_at"][i] is not None or i in state["rulers"].values():
        raise IllegalMove("cell_not_free", f"({r},{c}) is not free.")
    return i


def _on_invaded(s: State, e: Event) -> None:
    board = BOARDS[s["board"]]
    _take_from_hand(s, e["seat"], [e["card"]])
    own(s, "yurts")[board.index(*e["cell"])] = e["seat"]
    _use_action(s)


def _take_from_hand(s: State, seat: int, cards: list[str]) -> None:
    hands = own(s, "hands")
    hands[seat] = [c for c in hands[seat] if c not in cards]
    s["discard"] = [*s["discard"], *cards]


# --- Action 2B: drive out a ruler (5.4) -------------------------------------------------------


def _drive_out(t: Turn, board: Board, seat: int, command: Command) -> None:
    """2B: the named ruler flees in the direction of a freshly turned card; his neutral
    yurt comes from the general supply and his camp is never touched."""
    ruler = command.get("ruler")
    if not isinstance(ruler, str) or t.state["rulers"].get(ruler) is None:
        raise IllegalMove("ruler_not_on_board", f"{ruler!r} is not a ruler on the board.")
    t.emit({"type": "ruler_driven_out", "seat": seat, "ruler": ruler})
    card = _turn_over(t, "drive_out")
    cell = t.state["rulers"][ruler]
    target = flight_target(t.state, board, cell, CARDS[card]["direction"])
    if target is not None:
        t.emit({"type": "ruler_moved", "ruler": ruler, "from": board.rc(cell), "to": board.rc(target[1]),
                "direction": target[0], "neutral_from": "supply"})
    else:
        t.emit({"type": "ruler_removed", "ruler": ruler, "cell": board.rc(cell), "reason": "stuck",
                "neutral_from": "supply", "camp_to_supply": t.state["camps"][ruler]})
        _maybe_start_end_phase(t)


def _on_ruler_driven_out(s: State, e: Event) -> None:
    _use_action(s)


# --- Action 2C: conquer (5.5), with the consent protocol (5.8) --------------------------------


def _conquer(t: Turn, board: Board, seat: int, found: dict[str, Any]) -> None:
    yurts = t.state["yurts"]
    removed = [{"cell": board.rc(i), "owner": "neutral" if yurts[i] == NEUTRAL else yurts[i]} for i in found["land"]]
    t.emit({"type": "conquered", "seat": seat, "tile": found["tile"], "cells": found["cells"],
            "owners": found["owners"], "yurts_returned": removed})


def _on_conquered(s: State, e: Event) -> None:
    board = BOARDS[s["board"]]
    cells = [board.index(r, c) for r, c in e["cells"]]
    yurts = own(s, "yurts")
    tile_at = own(s, "tile_at")
    number = len(s["placed"])
    for i in cells:
        if yurts[i] == NEUTRAL:
            s["supply"] += 1
        yurts[i] = None
        tile_at[i] = number
    s["placed"] = [*s["placed"], {"tile": e["tile"], "cells": e["cells"], "owners": list(e["owners"])}]
    s["tiles"] = {**s["tiles"], e["tile"]: s["tiles"][e["tile"]] - 1}
    s["pending"] = None
    _use_action(s)
    s["turn"] = {**s["turn"], "tile_placed": True}


def _on_consent_requested(s: State, e: Event) -> None:
    s["pending"] = {"seat": e["seat"], "tile": e["tile"], "cells": e["cells"], "ask": list(e["ask"])}


def _answer_consent(state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
    agree = command.get("agree")
    if not isinstance(agree, bool):
        raise IllegalMove("bad_command", "agree must be true or false.")
    pending = state["pending"]
    t = Turn(state, rng, evolve)
    if not agree:
        t.emit({"type": "consent_refused", "seat": seat, "tile": pending["tile"], "cells": pending["cells"]})
        return t.events
    t.emit({"type": "consent_given", "seat": seat})
    if t.state["pending"]["ask"]:
        return t.events
    board = BOARDS[state["board"]]
    actor = pending["seat"]
    land = [i for i in (board.index(r, c) for r, c in pending["cells"]) if board.is_land[i]]
    _, holders = conquest.majority(state["yurts"], land, state["players"])
    _conquer(t, board, actor, {"tile": pending["tile"], "cells": pending["cells"], "land": land, "owners": holders})
    _after_action(t)
    return t.events


def _on_consent_given(s: State, e: Event) -> None:
    s["pending"] = {**s["pending"], "ask": s["pending"]["ask"][1:]}


def _on_consent_refused(s: State, e: Event) -> None:
    s["pending"] = None
    turn = own(s, "turn")
    turn["refused"] = [*turn["refused"], [e["tile"], e["cells"]]]


# --- Action 2D: invasion of choice (5.6) ------------------------------------------------------


def _invade_of_choice(t: Turn, board: Board, seat: int, command: Command) -> None:
    """2D: one own yurt on any free land cell, then discard any of your hand cards."""
    cell = _free_cell(t.state, board, command.get("cell"))
    discard = command.get("discard", [])
    if not isinstance(discard, list) or not all(isinstance(c, str) for c in discard):
        raise IllegalMove("bad_command", "discard must be a list of card ids.")
    hand = t.state["hands"][seat]
    if len(set(discard)) != len(discard) or any(c not in hand for c in discard):
        raise IllegalMove("card_not_in_hand", "You can only discard cards you hold, each once.")
    t.emit({"type": "invaded_by_choice", "seat": seat, "cell": board.rc(cell), "discarded": list(discard)})


def _on_invaded_by_choice(s: State, e: Event) -> None:
    board = BOARDS[s["board"]]
    _take_from_hand(s, e["seat"], e["discarded"])
    own(s, "yurts")[board.index(*e["cell"])] = e["seat"]
    _use_action(s, ACTIONS_PER_TURN)


# --- Steps 3 and 4: special cards (5.7) -------------------------------------------------------


def _close_actions(t: Turn) -> None:
    seat = t.state["current"]
    t.emit({"type": "actions_ended", "seat": seat})
    for card in t.state["active"]:
        if card["seat"] == seat:
            t.emit({"type": "special_card_returned", "seat": seat, "card": card["card"], "region": card["region"]})
    if t.state["end_phase"] or not any(t.state["specials"][seat].values()):
        _finish_turn(t)


def _on_actions_ended(s: State, e: Event) -> None:
    s["phase"] = "special"


def _on_special_card_returned(s: State, e: Event) -> None:
    s["active"] = [a for a in s["active"] if a["seat"] != e["seat"]]


def _play_special(state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
    if state["end_phase"]:
        raise IllegalMove("special_cards_disabled", "Special cards cannot be played in the end phase.")
    if state["phase"] == "actions":
        raise IllegalMove("wrong_step", "Special cards are played after your actions (step 4).")
    card = command.get("card")
    if not isinstance(card, str) or card not in SPECIAL_KINDS or state["specials"][seat][card] <= 0:
        raise IllegalMove("special_card_not_held", f"You hold no {card!r} special card.")
    if state["turn"]["special_played"] is not None:
        raise IllegalMove("one_special_per_turn", "Only one special card may be played per turn.")
    region = command.get("region")
    four = state["players"] == 4
    if card == "divine_support" and four:
        if not isinstance(region, str) or region not in DIVINE_REGIONS:
            raise IllegalMove("bad_command", f"Divine Support names a region: {', '.join(DIVINE_REGIONS)}.")
    elif region is not None:
        raise IllegalMove("bad_command", "Only a 4-player Divine Support names a region.")
    if card != "high_morale" and state["players"] == 2 and state["last_special"][seat] == card:
        raise IllegalMove("not_twice_in_a_row", "With 2 players this card cannot be played in two turns in a row.")
    others = [a for a in state["active"] if a["seat"] != seat and a["card"] == card]
    if card == "protection" and others:
        raise IllegalMove("protection_already_active", "Another player's Protection is active.")
    if card == "divine_support":
        if four and any(a["region"] == region for a in others):
            raise IllegalMove("region_already_protected", "Another player's Divine Support protects that region.")
        if not four and others:
            raise IllegalMove("divine_already_active", "Another player's Divine Support is active.")
    t = Turn(state, rng, evolve)
    t.emit({"type": "special_card_played", "seat": seat, "card": card, "region": region})
    if card != "high_morale":
        _finish_turn(t)
    return t.events


def _on_special_card_played(s: State, e: Event) -> None:
    own_item(s, "specials", e["seat"])[e["card"]] -= 1
    s["turn"] = {**s["turn"], "special_played": e["card"]}
    if e["card"] == "high_morale":
        s["phase"] = "extra_action"
    else:
        s["active"] = [*s["active"], {"seat": e["seat"], "card": e["card"], "region": e["region"]}]


def _on_special_card_declined(s: State, e: Event) -> None:
    pass


# --- Step 5 and the end of a turn -------------------------------------------------------------


def _finish_turn(t: Turn) -> None:
    seat = t.state["current"]
    if not t.state["end_phase"]:
        need = HAND_SIZE - len(t.state["hands"][seat])
        while need > 0:
            # one card at a time in effect: a refill may empty the pile, reshuffle, go on (5.10)
            _ensure_draw_pile(t)
            cards = t.state["draw_pile"][:need]
            t.emit({"type": "cards_drawn", "seat": seat, "cards": cards})
            need -= len(cards)
    t.emit({"type": "turn_ended", "seat": seat})
    s = t.state
    if s["end_phase"] and (s["quiet_turns"] >= s["players"] or not conquest.anyone_can_conquer(s, BOARDS[s["board"]])):
        t.emit({"type": "game_ended", **scoring.score(s, BOARDS[s["board"]])})
        return
    _begin_turn(t, (seat + 1) % s["players"])


def _on_cards_drawn(s: State, e: Event) -> None:
    # the cards come off the top of the pile; the event names them for the log's reader
    hands = own(s, "hands")
    hands[e["seat"]] = [*hands[e["seat"]], *e["cards"]]
    s["draw_pile"] = s["draw_pile"][len(e["cards"]):]


def _on_turn_ended(s: State, e: Event) -> None:
    own(s, "last_special")[e["seat"]] = s["turn"]["special_played"]
    s["phase"] = "between_turns"
    if s["end_phase"]:
        quiet = not s["turn"]["tile_placed"] and not s["turn"]["protected"]
        s["quiet_turns"] = s["quiet_turns"] + 1 if quiet else 0


# --- The end phase (5.9) ----------------------------------------------------------------------


def _maybe_start_end_phase(t: Turn) -> None:
    s = t.state
    if s["end_phase"] or len(s["removed"]) < REMOVALS_TO_END:
        return
    board = BOARDS[s["board"]]
    replaced = [{"ruler": rid, "cell": board.rc(cell)} for rid, cell in s["rulers"].items() if cell is not None]
    t.emit({"type": "end_phase_started", "rulers_replaced": replaced,
            "camp_yurts_to_supply": sum(s["camps"].values())})


def _on_end_phase_started(s: State, e: Event) -> None:
    board = BOARDS[s["board"]]
    yurts = own(s, "yurts")
    rulers = own(s, "rulers")
    for item in e["rulers_replaced"]:
        yurts[board.index(*item["cell"])] = NEUTRAL
        rulers[item["ruler"]] = None
    s["supply"] += e["camp_yurts_to_supply"] - len(e["rulers_replaced"])
    s["camps"] = {rid: 0 for rid in s["camps"]}
    s["end_phase"] = True
    turn = own(s, "turn")
    if s["phase"] == "actions":
        # the rest of this turn is played under end-phase rules: conquests only
        turn["actions_left"] = min(turn["actions_left"], END_PHASE_CONQUESTS)


# --- Draw pile exhaustion (5.10) --------------------------------------------------------------


def _ensure_draw_pile(t: Turn) -> None:
    if t.state["draw_pile"]:
        return
    discard = t.state["discard"]
    order = list(discard) if t.state["options"]["reshuffle"] == "in_order" else _shuffled(discard, t.rng)
    t.emit({"type": "deck_reshuffled", "order": order})


def _on_deck_reshuffled(s: State, e: Event) -> None:
    s["draw_pile"] = list(e["order"])
    s["discard"] = []


def _shuffled(items: list[str], rng: Rng) -> list[str]:
    out = list(items)
    rng.shuffle(out)
    return out


# --- Scoring and the end (6) ------------------------------------------------------------------


def _on_game_ended(s: State, e: Event) -> None:
    s["phase"] = "finished"
    s["current"] = None
    s["result"] = {k: v for k, v in e.items() if k != "type"}


# --- evolve and status ------------------------------------------------------------------------


_APPLY: dict[str, Evolver] = {
    "game_started": _on_game_started,
    "turn_started": _on_turn_started,
    "deck_reshuffled": _on_deck_reshuffled,
    "card_turned": _on_card_turned,
    "ruler_moved": _on_ruler_moved,
    "ruler_removed": _on_ruler_removed,
    "end_phase_started": _on_end_phase_started,
    "invaded": _on_invaded,
    "invaded_by_choice": _on_invaded_by_choice,
    "ruler_driven_out": _on_ruler_driven_out,
    "consent_requested": _on_consent_requested,
    "consent_given": _on_consent_given,
    "consent_refused": _on_consent_refused,
    "conquered": _on_conquered,
    "actions_passed": _on_actions_passed,
    "actions_ended": _on_actions_ended,
    "special_card_returned": _on_special_card_returned,
    "special_card_played": _on_special_card_played,
    "special_card_declined": _on_special_card_declined,
    "cards_drawn": _on_cards_drawn,
    "turn_ended": _on_turn_ended,
    "game_ended": _on_game_ended,
}


evolve = evolving(_APPLY)


def status(state: State) -> Status:
    if state["phase"] == "waiting":
        return {"phase": "waiting", "to_act": [], "finished": False, "result": None}
    if state["phase"] == "finished":
        r = state["result"]
        return {"phase": "finished", "to_act": [], "finished": True,
                "result": {"scores": r["scores"], "ranking": r["ranking"], "winners": r["winners"]}}
    if state["pending"] is not None:
        return {"phase": "consent", "to_act": [state["pending"]["ask"][0]], "finished": False, "result": None}
    phase = "end_phase" if state["end_phase"] else state["phase"]
    return {"phase": phase, "to_act": [state["current"]], "finished": False, "result": None}
