"""Small English helpers the games' narrators share (each game's narrate.py).

Pure string functions: a game's narrator may import this, as it imports interface.py. A
sentence may be a `Phrase`: still the English string every simple client shows, and also a
message key with its parameters, so a client can say it in its reader's language (SPEC 3.14).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class Phrase(str):
    """An English sentence that also carries a message key and its parameters (numbers, names,
    data ids, lists of them, or another Phrase as {"key", "params", "text"}). It is a str, so the
    narrator interface and everything that stores or interns sentences take it as it is."""

    key: str
    params: dict[str, Any]

    def __new__(cls, key: str, text: str, **params: Any) -> Phrase:
        self = super().__new__(cls, text)
        self.key = key
        self.params = {k: _param(v) for k, v in params.items()}
        return self

    def message(self) -> dict[str, Any]:
        """The key, parameters and English text, as `said_keys` carries them."""
        return {"key": self.key, "params": self.params, "text": str(self)}


def _param(v: Any) -> Any:
    """A parameter as the wire carries it: a Phrase (also inside a list) as its message."""
    if isinstance(v, Phrase):
        return v.message()
    if isinstance(v, list):
        return [_param(x) for x in v]
    return v


def said_keys(said: Sequence[str] | None) -> list[dict[str, Any] | None] | None:
    """The message keys of a commit's sentences, parallel to them (None for a sentence with
    no key), or None when no sentence has one: then nothing more is sent."""
    if not said or not any(isinstance(s, Phrase) for s in said):
        return None
    return [{"key": s.key, "params": s.params} if isinstance(s, Phrase) else None for s in said]


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
    # a key only for the words every game shares: a rules' reason or a unit stays English
    keyed = not reason and not unit
    if not winners:
        text = f"{head}: nobody wins." + (f" Scores: {scores_line(names, scores)}." if scores else "")
        if not keyed:
            return text
        if scores:
            return Phrase("game_over.nobody_scores", text, scores=_pairs(names, range(len(scores)), scores))
        return Phrase("game_over.nobody", text)
    top = scores[winners[0]] if winners[0] < len(scores) else None
    with_score = f" with {top}" if top is not None else ""
    if len(winners) == 1:
        lead = f"{who(names, winners[0])} wins{with_score}"
    else:
        lead = f"{listing([who(names, w) for w in winners])} share the win{with_score}"
    ranking = [s for s in result.get("ranking") or [] if s not in winners and s < len(scores)]
    rest = f" ({', '.join(f'{who(names, s)} {scores[s]}' for s in ranking)})" if ranking else ""
    text = f"{head}: {lead}{rest}."
    if not keyed or top is None:
        return text
    key = "game_over.win" if len(winners) == 1 else "game_over.shared"
    params: dict[str, Any] = {"winners": [who(names, w) for w in winners], "score": top}
    if ranking:
        key += "_others"
        params["others"] = _pairs(names, ranking, scores)
    return Phrase(key, text, **params)


def _pairs(names: Sequence[str], seats: Any, scores: Sequence[Any]) -> list[str]:
    """'Bo 77' per seat: a name and a number, words in no language."""
    return [f"{who(names, s)} {scores[s]}" for s in seats]


def told(events: Sequence[dict[str, Any]], sentence: Callable[[dict[str, Any], list[str]], str],
         names: list[str]) -> list[str]:
    """A commit's sentences: one per event that says something (`sentence` returns "" for
    bookkeeping events nobody needs to read)."""
    return [line for line in (sentence(e, names) for e in events) if line]
