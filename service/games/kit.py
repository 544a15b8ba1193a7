"""The kit a game's rules are written with, and the house style every game follows.

The house style (tests/games/test_layout.py checks the parts a machine can check):

- A game is a package `service/games/<id>/` with `rules.py` (the rules), `data.py` (cards,
  board, tiles as data) and `view.py` (what each audience sees), and beside them `moves.py`
  (legal moves), `hidden.py` (redeal and the bots' hint) and `narrate.py` (words for people).
  Pixies is the game to copy.
- `rules.py` reads like the rulebook, top to bottom, one `# --- Title (spec section) ---`
  header per part: setup (`initial`, the `start` command), the turn (`decide` opens it), the
  actions, scoring, the end; `_APPLY`, `evolve` and `status` close the file. Each section holds
  a rule's check and its effect together: the function that decides a command, named after
  the command (`_take_card` decides `take_card`; many commands dispatch through a `_DECIDE`
  dict), then the evolvers of the events it emits. Helpers go at the end of their section.
- An evolver applies one event and is named `_on_<event type>` (`_on_card_taken`); nothing
  else carries that prefix. It edits `s`, the shallow copy of the state `evolve` made, and
  replaces every nested part it changes instead of editing it (`own`, `own_item` below), so
  `evolve` never mutates its input and every part an event leaves alone stays shared.
- The evolver table is a plain dict named `_APPLY` in rules.py, from the event's stored name
  to its evolver, written out after the last evolver; `evolve = evolving(_APPLY)` (or an
  `evolve` of the game's own that checks the log first, then dispatches through `_APPLY`).
  The stored names are the keys, never derived from function names: renaming code never
  changes a stored name. A game whose rules span several modules (Gùgōng: one module per
  part of the rulebook) keeps each evolver in the module of the rule that emits it, lists them
  in that module's `APPLY` dict, and rules.py `joined`s those into its `_APPLY`.
- A command whose effects chain (a placement that fills a province, which scores it) is
  decided with a `Turn`: each event is applied to a working state as soon as it is emitted, so
  the next rule sees its effect, and the events come out in the order they were emitted.
- A game imports nothing of the server (only `service.games`), never `random`, `time` or any
  I/O: the rng comes in as an argument (`Rng`); `data.py` alone may read the game's own data
  files, once, at import. No import circle, and no import inside a function to hide one: a
  piece two modules share moves down into a module both import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.games.shapes import Event, Rng, State

# An evolver: edits the shallow copy of the state it is handed (see the house style above).
Evolver = Callable[[State, Event], None]
Evolve = Callable[[State, Event], State]


def evolving(table: Mapping[str, Evolver]) -> Evolve:
    """A game's `evolve` over its `_APPLY` table: a shallow copy of the state, edited by the
    event's evolver. An event the table does not name raises KeyError (a log this engine
    cannot read)."""

    def evolve(state: State, event: Event) -> State:
        s = dict(state)
        table[event["type"]](s, event)
        return s

    return evolve


class Turn:
    """The events of one command, each applied to a working state as it is emitted, so that
    the rules decided after it see its effect. `state` is the state they lead to."""

    __slots__ = ("state", "rng", "events", "_evolve")

    def __init__(self, state: State, rng: Rng, evolve: Evolve) -> None:
        self.state = state
        self.rng = rng
        self.events: list[Event] = []
        self._evolve = evolve

    def emit(self, event: Event) -> None:
        self.state = self._evolve(self.state, event)
        self.events.append(event)


def own(s: State, key: str) -> Any:
    """A private shallow copy of the list or dict `s[key]`, put in its place, ready to edit."""
    value = s[key].copy()
    s[key] = value
    return value


def own_item(s: State, key: str, item: Any) -> Any:
    """`own(s, key)`, then a private shallow copy of its entry `item` (one seat's hand, one
    player's board), put in its place, ready to edit."""
    outer = s[key].copy()  # own(s, key), written out: this is on every fold's path
    s[key] = outer
    value = outer[item].copy()
    outer[item] = value
    return value


def without(items: list[Any], item: Any) -> list[Any]:
    """A new list: `items` less the first `item` (a card played from a hand)."""
    out = list(items)
    out.remove(item)
    return out


def joined(*tables: Mapping[str, Evolver]) -> dict[str, Evolver]:
    """One `_APPLY` table from the tables of the modules a game's rules span; an event named
    in two of them is a mistake, refused at import."""
    out: dict[str, Evolver] = {}
    for table in tables:
        for event, evolver in table.items():
            if event in out:
                raise ValueError(f"event {event!r} has two evolvers: {out[event].__name__}, {evolver.__name__}")
            out[event] = evolver
    return out
