"""Small English helpers the games' narrators share (each game's narrate.py).

Pure string functions: a game's narrator may import this, as it imports interface.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def who(names: Sequence[str], seat: Any) -> str:
    """A seat's display name; a seat the names do not cover is still named."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names):
        return names[seat]
    return f"Seat {seat}"


def plural(n: int, one: str, many: str | None = None) -> str:
    """'1 house', '3 houses'."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def listing(items: Sequence[str], last: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def term(table: dict[str, str], key: Any, default: str | None = None) -> str:
    """A data id in words ('WALL' -> 'Great Wall'); an id the table lacks reads as itself."""
    return table.get(str(key), str(key) if default is None else default)


def scores_line(names: Sequence[str], scores: Sequence[Any]) -> str:
    """'Alice 12, Bob 9' (seat order)."""
    return ", ".join(f"{who(names, s)} {v}" for s, v in enumerate(scores))


def game_over(names: Sequence[str], result: dict[str, Any], reason: str = "", unit: str = "") -> str:
    """'Game over: Alice wins with 42 (Bob 30).' from a result map (scores, winners, ranking),
    with the rules' reason for the end when there is one; `unit` names what scores count
    ('task': 'wins with 3 tasks')."""
    scores = [plural(v, unit) if unit else v for v in result.get("scores") or []]
    winners = [w for w in result.get("winners") or [] if isinstance(w, int)]
    head = f"Game over ({reason})" if reason else "Game over"
    if not winners:
        return f"{head}: nobody wins." + (f" Scores: {scores_line(names, scores)}." if scores else "")
    top = scores[winners[0]] if winners[0] < len(scores) else None
    with_score = f" with {top}" if top is not None else ""
    if len(winners) == 1:
        lead = f"{who(names, winners[0])} wins{with_score}"
    else:
        lead = f"{listing([who(names, w) for w in winners])} share the win{with_score}"
    ranking = [s for s in result.get("ranking") or [] if s not in winners and s < len(scores)]
    rest = f" ({', '.join(f'{who(names, s)} {scores[s]}' for s in ranking)})" if ranking else ""
    return f"{head}: {lead}{rest}."


def told(events: Sequence[dict[str, Any]], sentence: Callable[[dict[str, Any], list[str]], str],
         names: list[str]) -> list[str]:
    """A commit's sentences: one per event that says something (`sentence` returns "" for
    bookkeeping events nobody needs to read)."""
    return [line for line in (sentence(e, names) for e in events) if line]
