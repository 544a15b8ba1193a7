"""Words for people, server side: a commit's sentences and the labels of legal moves.

Each game may register a `Narrator` (service/games/interface.py); this module asks it and
falls back to generic words for a game without one, or when the narrator fails (words are
a courtesy: a bug in them must never stop a commit from being broadcast). A commit's
sentences are public: the runtime computes them once per commit and every audience gets the
same list, so a narrator may only say what a spectator's view shows.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from service.games import Game
from service.games.redealt import REDEAL
from service.games.words import Phrase, game_over, said_keys

log = logging.getLogger("teahouse.narration")

# The move id the turn clock gives the moves it plays (service/match/clock.py, system_move_id):
# sys:clock:<seq>:<seat>; no client may send a move id starting with sys:.
CLOCK_PREFIX = "sys:clock:"


def names_of(seats: Sequence[Any], players: int) -> list[str]:
    """Display names by seat: the name a seat was taken with, else "Seat N" (as the web
    client says it)."""
    names = [f"Seat {i}" for i in range(players)]
    for s in seats:
        name = getattr(s, "name", None)
        if isinstance(name, str) and name.strip() and 0 <= s.seat < players:
            names[s.seat] = name.strip()
    return names


def _words(kind: Any) -> str:
    return str(kind).replace("_", " ")


def generic_move(command: dict[str, Any]) -> str:
    """A readable label for any command: its type, then its fields."""
    parts = [f"{k} {v}" for k, v in command.items() if k != "type"]
    label = _words(command.get("type", "move")).capitalize()
    return f"{label}: {', '.join(parts)}" if parts else label


def generic_commit(seat: int | None, command: dict[str, Any], names: list[str]) -> list[str]:
    """What any game's commit says without a narrator: who did which kind of move."""
    if seat is None:
        return [Phrase("match.starts", "The game starts.")] if command.get("type") == "start" else []
    return [_plays(_name(names, seat), command)]


def _plays(who: str, command: dict[str, Any]) -> Phrase:
    # the move's type is a data id: a client may name it from its own catalogue
    kind = command.get("type", "a move")
    return Phrase("match.plays", f"{who} plays {_words(kind)}.", who=who, move=str(kind))


def _name(names: list[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"Seat {seat}"


def commit_sentences(game: Game, seat: int | None, command: dict[str, Any], events: list[dict[str, Any]],
                     move_id: str | None, names: list[str], after: dict[str, Any] | None = None,
                     status: Mapping[str, Any] | None = None) -> list[str]:
    """The sentences of one commit, for every audience. A move the turn clock played says so
    first: whose time ran out, then what was played for them. `after`, the state the commit
    led to, lets the end of the match be told when the game's events do not tell it
    (`status`: the game's status of `after`, if the caller has it)."""
    said: list[str] = []
    if seat is None and command.get("type") == REDEAL:
        said = [Phrase("fork.redealt", REDEAL_WORDS)]
    elif game.narrator is not None:
        try:
            said = [s for s in game.narrator.describe_commit(seat, command, events, names) if s]
        except Exception:
            log.exception("%s: narrating a %r commit failed", game.id, command.get("type"))
            said = generic_commit(seat, command, names)
    else:
        said = generic_commit(seat, command, names)
    if seat is not None and isinstance(move_id, str) and move_id.startswith(CLOCK_PREFIX):
        who = _name(names, seat)
        first = said[0] if said else _plays(who, command)
        said = [Phrase("clock.played_for", f"Time ran out for {who}; played for them: {first}", who=who,
                       move=first if isinstance(first, Phrase) else Phrase("", first)), *said[1:]]
    if after is not None and not any(s.startswith(GAME_OVER) for s in said):
        known: Mapping[str, Any] = status if status is not None else game.status(after)
        if known["finished"]:
            said.append(_end(game, after, dict(known["result"] or {}), names))
    return said


GAME_OVER = "Game over"
# A fork's first own commit (SPEC 11), the same words in every game.
REDEAL_WORDS = ("What no seat could see is dealt again for this fork: every hand stays, and the "
                "original match's hidden cards no longer tell what comes next.")


def _end(game: Game, state: dict[str, Any], result: dict[str, Any], names: list[str]) -> str:
    if game.narrator is not None and game.narrator.describe_end is not None:
        try:
            return game.narrator.describe_end(game.view(state, None), names)
        except Exception:
            log.exception("%s: narrating the end failed", game.id)
    return game_over(names, result)


def move_labels(game: Game, view: dict[str, Any], seat: int, moves: list[dict[str, Any]],
                names: list[str]) -> list[str]:
    """One label per legal move, parallel to `moves`, as `seat` sees them in `view`."""
    labels: list[str] = []
    for m in moves:
        label = ""
        if game.narrator is not None:
            try:
                label = game.narrator.describe_move(m, view, seat, names)
            except Exception:
                log.exception("%s: labelling a %r move failed", game.id, m.get("type"))
        labels.append(label or generic_move(m))
    return labels


def story(game: Game, commits: Sequence[Any], names: list[str], final: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The sentences of each commit of a log (service.store.Commit), in order: what the log
    and replay routes serve, so that anyone can read a match's story from its start. `final`
    is the state after the last of them (only the last commit can end a match)."""
    last = commits[-1].seq if commits else None
    return [sentences_entry({"seq": c.seq, "seat": c.seat},
                            commit_sentences(game, c.seat, c.command, c.events, c.move_id, names,
                                             final if c.seq == last else None))
            for c in commits]


def sentences_entry(entry: dict[str, Any], said: list[str]) -> dict[str, Any]:
    """`entry` with `said` and, when a sentence has a message key, `said_keys` (SPEC 3.14)."""
    keys = said_keys(said)
    return {**entry, "said": said, **({} if keys is None else {"said_keys": keys})}
