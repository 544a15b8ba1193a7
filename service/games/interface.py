"""The fixed game interface every rules engine implements (see ../shared/DESIGN.md).

A game is a *decider*: pure functions over plain data (dict, list, str, int, bool, None).
Nothing here does I/O or draws random numbers; the rng comes in as an argument to `decide`
and every random outcome is written into the events it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from service.games import redealt
from service.games.preamble import guarded
from service.games.shapes import Command, Commands, Event, IllegalMove, Result, Rng, State, Status, View

__all__ = ["Command", "Commands", "Event", "Game", "IllegalMove", "Narrator", "OptionSpec", "Result", "Rng", "State",
           "Status", "View", "fold", "upcast"]


class OptionSpec(TypedDict, total=False):
    """One option a game takes, declared for people and for forms (protocol/SPEC.md 2.3).

    `type`: "seat" (an integer from 0 to players - 1), "integer" (from `min`, up to `max` when
    given), "choice" (one of `choices`), "boolean", or "json" (a structure a form cannot
    offer: a deck order, a content set; the lobby's advanced field takes it). `default`: the
    value the game uses without the option (None: the game decides, at random or by the seat
    count). `when`: the option applies only while these other options have these values (and
    is refused otherwise); `required`: it must then be given. `players`: the seat counts that
    may set it."""

    name: str
    type: str
    label: str
    help: str
    default: Any
    choices: list[Any]
    min: int
    max: int
    when: dict[str, Any]
    required: bool
    players: list[int]


@dataclass(frozen=True)
class Narrator:
    """Words for people: a game's sentences for its moves and its commits (English).

    `describe_move(command, view, seat, names)` labels one legal move as `seat` sees it, from
    that seat's own view. `describe_commit(seat, command, events, names)` tells what a commit
    did, for everyone: the same sentences go to every audience, so they may say only what a
    spectator's view shows (never a card drawn into a hand, a deck order, a face-down card).
    `names` holds every seat's display name, by seat. `describe_end(view, names)`, for a game
    whose events do not tell the end, says how the match ended from the spectators' view after
    the commit that ended it (None: the server's generic words, from the result).
    """

    describe_move: Callable[[Command, View, int, list[str]], str]
    describe_commit: Callable[[int | None, Command, list[Event], list[str]], list[str]]
    describe_end: Callable[[View, list[str]], str] | None = None


@dataclass(frozen=True)
class Game:
    """One registered game: its facts and its pure functions."""

    id: str
    name: str
    min_players: int
    max_players: int
    rules_version: int
    initial: Callable[[dict[str, Any], int], State]
    decide: Callable[[State, int | None, Command, Rng], list[Event]]
    evolve: Callable[[State, Event], State]
    view: Callable[[State, int | None], View]
    legal_moves: Callable[[State, int], list[Command]]
    status: Callable[[State], Status]
    # Strings that only `seat` may see right now (seat None: strings nobody may see, such
    # as the order of a face-down deck). Each must be a whole string value somewhere in the
    # state, unique enough that finding its msgpack encoding in another audience's bytes
    # proves a leak. The conformance suite and the end-to-end canary tests use it.
    secrets: Callable[[State, int | None], list[str]]
    # The public, unchanging facts a client needs to draw this game for these options and
    # seat count: board geometry, card faces, tile shapes. Never anything hidden.
    reference: Callable[[dict[str, Any], int], dict[str, Any]] = lambda options, players: {}
    # Words for people (service/match/narration.py falls back to generic words without one).
    narrator: Narrator | None = None
    # Every command and the fields it takes. `decide` runs behind the shared preamble
    # (service.games.preamble): the same situation gets the same code in every game, and a
    # field no command takes is refused before the engine sees it.
    commands: Commands = field(default_factory=Commands)
    # Options that fix what the rules keep hidden (a deck's order, a draw pile, the answers):
    # while a match is live the lobby names them but never shows their values.
    secret_options: frozenset[str] = frozenset()
    # Every option the game takes (`initial` refuses any other), in the order a form shows them.
    options: tuple[OptionSpec, ...] = ()
    # How to read a log written under an older `rules_version`: upcasters[v] turns one event
    # written under version v into the events version v + 1 would have written (a rename, a new
    # field's old default...). A finished match thus keeps replaying after its engine changes.
    upcasters: Mapping[int, Callable[[Event], list[Event]]] = field(default_factory=dict)

    # Optional (games/<id>/hidden.py): a state in which everything the seats in `keep` cannot
    # see is dealt again at random, and everything they can see is kept; what moves is where
    # cards lie, never what a card is (its faces, a task's answer). It depends only on
    # what `keep` sees and on the multiset of hidden items, so a bot that determinizes with
    # it (keep={its seat}) cannot peek, and a fork made with it carries no secret.
    redeal: Callable[[State, Rng, frozenset[int]], State] | None = None
    # Optional, for bots only: like `redeal`, and may also imagine facts of cards the seats in
    # `keep` never saw (a card's unread back) which a fork must keep, since they are what the
    # card is. Absent: bots determinize with `redeal`.
    determinize: Callable[[State, Rng, frozenset[int]], State] | None = None
    # Optional hint for bots (service/bots): each seat's score if the game were judged now,
    # from public facts only (running score, points already certain). Higher is better.
    evaluate: Callable[[State], list[float]] | None = None

    def __post_init__(self) -> None:
        decide = self.decide
        if self.redeal is not None:
            # Every game that can redeal takes the system command a fork begins with (SPEC 11).
            commands = Commands(self.commands.player, {**self.commands.system, redealt.REDEAL: frozenset()})
            object.__setattr__(self, "commands", commands)
            decide = redealt.deciding(decide, self.redeal, self.max_players)
            object.__setattr__(self, "evolve", redealt.evolving(self.evolve))
        object.__setattr__(self, "decide", guarded(decide, self.commands, self.status))


def fold(game: Game, events: list[Event], state: State, written_under: int | None = None) -> State:
    """Apply events in order; the only way a state is ever rebuilt. `written_under`: the rules
    version of the match that logged them (None: the game's current one)."""
    for event in upcast(game, events, written_under):
        state = game.evolve(state, event)
    return state


def upcast(game: Game, events: list[Event], written_under: int | None) -> list[Event]:
    """Events of a log written under an older rules version, as the current engine reads them."""
    version = game.rules_version if written_under is None else written_under
    if version > game.rules_version:
        raise ValueError(f"{game.id}: a log of rules version {version} is newer than this engine "
                         f"({game.rules_version})")
    while version < game.rules_version:
        step = game.upcasters.get(version)
        if step is None:
            raise ValueError(f"{game.id}: no upcaster from rules version {version}")
        events = [new for e in events for new in step(e)]
        version += 1
    return events
