"""Words for people: Khan moves and commits in English (the rules are in rules.py).

A cell is named by column letter and row number as on a chess board, top left A1 (`[row,
col]` = `[8, 2]` is C9), with its landscape from the board data; rulers by name ("Russian",
"Ruler 5"), cards by ruler, direction and background, tiles by shape id and value. Cards
drawn into a hand are never named (only how many); cards played or discarded lie face up on
the discard pile and are. The commit sentences read the standard board (the only one
registered; commits carry no board name).
"""

from __future__ import annotations

import functools
from typing import Any

from service.games.interface import Command, Event, View
from service.games.khan.data import BOARDS, CARDS, TILES, Board
from service.games.words import game_over, listing, plural, term, told, who

BACKGROUND = {"RIVER": "river", "OUTER": "outer area", "KHAN": "Khan"}
SPECIAL = {"high_morale": "High Morale", "protection": "Protection of the Great Khan",
           "divine_support": "Divine Support"}


def _board(view: View | None = None) -> Board:
    name = (view or {}).get("board")
    return BOARDS[name] if isinstance(name, str) and name in BOARDS else BOARDS["standard"]


def cell_name(cell: Any, board: Board | None = None) -> str:
    """[8, 2] -> 'C9 (tundra)'."""
    if not (isinstance(cell, (list, tuple)) and len(cell) == 2 and all(isinstance(x, int) for x in cell)):
        return str(cell)
    return _cell_name(cell[0], cell[1], board or _board())


# Labels run for every legal move (thousands in Khan) on each `legal` request: names are cached.
@functools.lru_cache(maxsize=4096)
def _cell_name(r: int, c: int, board: Board) -> str:
    label = f"{chr(ord('A') + c)}{r + 1}" if 0 <= c < 26 else f"{r + 1}/{c + 1}"
    region = board.region_names.get(board.letter[board.index(r, c)]) if board.on_grid(r, c) else None
    return f"{label} ({region})" if region else label


def _cells(cells: list[Any]) -> str:
    return ", ".join(cell_name(c).split(" ")[0] for c in sorted(cells, key=lambda rc: (rc[1], rc[0])))


@functools.lru_cache(maxsize=64)
def ruler_name(rid: Any) -> str:
    return str(rid).replace("_", " ").capitalize()


def region_name(letter: Any) -> str:
    return _board().region_names.get(str(letter), str(letter))


@functools.lru_cache(maxsize=256)
def card_name(cid: Any) -> str:
    """'ruler_8-F' -> 'Ruler 8 E (tropical forest)': ruler, direction, background."""
    card = CARDS.get(str(cid))
    if card is None:
        return str(cid)
    background = BACKGROUND.get(card["background"]) or region_name(card["background"])
    return f"{ruler_name(card['ruler'])} {card['direction']} ({background})"


def tile_name(tid: Any) -> str:
    tile = TILES.get(str(tid))
    return f"tile {tid} ({plural(tile['value'], 'point')})" if tile else f"tile {tid}"


# --- moves ---------------------------------------------------------------------------------


def describe_move(command: Command, view: View, seat: int, names: list[str]) -> str:
    kind = command.get("type")
    board = _board(view)
    if kind == "invade":
        return f"Invade with {card_name(command.get('card'))} at {cell_name(command.get('cell'), board)}"
    if kind == "invade_of_choice":
        discard = [card_name(c) for c in command.get("discard") or []]
        rest = f", discarding {listing(discard)}" if discard else ", keeping every card"
        return f"Invasion of choice at {cell_name(command.get('cell'), board)}{rest}"
    if kind == "drive_out":
        return f"Drive out {ruler_name(command.get('ruler'))}"
    if kind == "conquer":
        return f"Conquer with {tile_name(command.get('tile'))} over {_cells(command.get('cells') or [])}"
    if kind == "play_special":
        region = command.get("region")
        where = f" for the {region_name(region)}" if region else ""
        return f"Play {term(SPECIAL, command.get('card'))}{where}"
    if kind == "consent":
        return "Agree to the conquest of your protected yurts" if command.get("agree") else "Refuse the conquest"
    if kind == "pass":
        phase = (view.get("status") or {}).get("phase")
        return "Play no special card" if phase == "special" else "Pass"
    return str(kind)


# --- commits -------------------------------------------------------------------------------


def describe_commit(seat: int | None, command: Command, events: list[Event], names: list[str]) -> list[str]:
    return told(events, _event, names)


def _event(e: Event, names: list[str]) -> str:  # noqa: PLR0911 - one case per event type
    kind = e["type"]
    a = who(names, e.get("seat"))
    if kind == "game_started":
        return f"The game starts; {who(names, e['start_player'])} plays first."
    if kind in ("turn_started", "turn_ended", "actions_ended"):
        return ""  # whose turn it is shows on the board; the turn's facts follow
    if kind == "deck_reshuffled":
        return "The discard pile is shuffled into a new deck."
    if kind == "card_turned":
        why = "flees" if e["purpose"] == "flight" else "sets the direction"
        line = f"The top card is turned: {card_name(e['card'])}"
        if e["purpose"] == "flight" and not e["ruler_on_board"]:
            return f"{line}; that ruler has left the board."
        return f"{line} ({'its ruler ' + why if e['purpose'] == 'flight' else why})."
    if kind == "ruler_moved":
        source = "his camp" if e["neutral_from"] == "camp" else "the general supply"
        return (f"{ruler_name(e['ruler'])} moves {e['direction']} from {cell_name(e['from'])} to "
                f"{cell_name(e['to'])}, leaving a neutral yurt from {source}.")
    if kind == "ruler_removed":
        why = "his camp's last yurt" if e["reason"] == "last_yurt" else "no way out"
        extra = f"; {plural(e['camp_to_supply'], 'camp yurt')} go to the supply" if e.get("camp_to_supply") else ""
        return f"{ruler_name(e['ruler'])} leaves the board at {cell_name(e['cell'])} ({why}){extra}."
    if kind == "end_phase_started":
        replaced = listing([ruler_name(r["ruler"]) for r in e["rulers_replaced"]])
        rest = f": {replaced} are replaced by neutral yurts" if replaced else ""
        return f"The fifth ruler has left: the end phase begins{rest}. From now on only conquests."
    if kind == "invaded":
        return f"{a} invades {cell_name(e['cell'])} with {card_name(e['card'])}."
    if kind == "invaded_by_choice":
        gone = listing([card_name(c) for c in e["discarded"]])
        return f"{a} invades {cell_name(e['cell'])} by choice" + (f", discarding {gone}." if gone else ".")
    if kind == "ruler_driven_out":
        return f"{a} drives out {ruler_name(e['ruler'])}."
    if kind == "consent_requested":
        asked = listing([who(names, s) for s in e["ask"]])
        return f"{a} proposes {tile_name(e['tile'])} over {_cells(e['cells'])}; {asked} must agree (protected yurts)."
    if kind == "consent_given":
        return f"{a} agrees."
    if kind == "consent_refused":
        return f"{a} refuses {tile_name(e['tile'])} over {_cells(e['cells'])}."
    if kind == "conquered":
        owners = [who(names, s) for s in e["owners"]]
        shared = f", shared with {listing(owners[1:])}" if len(owners) > 1 else ""
        back = len(e["yurts_returned"])
        return (f"{a} conquers {_cells(e['cells'])} with {tile_name(e['tile'])}{shared}; "
                f"{plural(back, 'yurt')} go back.")
    if kind == "actions_passed":
        return f"{a} passes ({plural(e['actions'], 'action')} unused)."
    if kind == "special_card_returned":
        return f"{a}'s {SPECIAL.get(e['card'], e['card'])} goes back to the box."
    if kind == "special_card_played":
        where = f" on the {region_name(e['region'])}" if e.get("region") else ""
        return f"{a} plays {SPECIAL.get(e['card'], e['card'])}{where}."
    if kind == "special_card_declined":
        return f"{a} plays no special card."
    if kind == "cards_drawn":
        return f"{a} draws {plural(len(e['cards']), 'card')}."
    if kind == "game_ended":
        parts = [f"{who(names, s)} {t} for tiles + {b} for areas" for s, (t, b)
                 in enumerate(zip(e["tile_points"], e["area_bonus"], strict=False))]
        return game_over(names, e, "the end phase ran out of conquests") + f" Points: {'; '.join(parts)}."
    return ""
