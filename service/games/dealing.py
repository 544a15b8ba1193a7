"""Re-dealing hidden information: the shared step of every game's `hidden.redeal`.

A redeal keeps what some seats can see and deals everything else again at random, for a bot's
determinization (sample a world consistent with what its seat knows) and for forks that must
not carry the original's secrets. The result must depend only on what those seats see and on
the *multiset* of hidden items, never on where the hidden items happened to lie: so the pool
is sorted before it is shuffled, and only the sizes of the places (public) steer the rng.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from service.games.shapes import Rng

T = TypeVar("T")


def deal(rng: Rng, places: Sequence[Sequence[T]], hidden: Callable[[T], bool] = lambda item: True) -> list[list[T]]:
    """Shuffle the hidden items of all `places` among the hidden positions of all places.

    Each place keeps its size; an item for which `hidden` is false stays where it is (a card
    every seat saw go to the bottom of the deck). Returns new lists, one per place.
    """
    pool = sorted((item for place in places for item in place if hidden(item)), key=_order_key)
    rng.shuffle(pool)
    it = iter(pool)
    return [[next(it) if hidden(item) else item for item in place] for place in places]


def deal_pile_and_hands(rng: Rng, pile: Sequence[T], hands: Sequence[Sequence[T]],
                        keep: frozenset[int]) -> tuple[list[T], list[list[T]]]:
    """The common case: a face-down pile and the hands of the seats not in `keep`, pooled
    and dealt back into the same sizes. Kept hands come back as they were."""
    others = [seat for seat in range(len(hands)) if seat not in keep]
    places = deal(rng, [pile, *(hands[seat] for seat in others)])
    out = [list(hand) for hand in hands]
    for seat, hand in zip(others, places[1:], strict=True):
        out[seat] = hand
    return places[0], out


def shuffled(rng: Rng, items: Sequence[T]) -> list[T]:
    """A canonical shuffle: sorted first, so that the input's order never shows through."""
    out = sorted(items, key=_order_key)
    rng.shuffle(out)
    return out


def hide_options(state: dict[str, Any], drop: Sequence[str] = (), blank: dict[str, Any] | None = None) -> dict[str, Any]:
    """The options minus those that fix chance nobody at the table may know yet (a stacked
    deck's order, future dice): after a redeal, chance is chance again. `drop` removes keys,
    `blank` resets keys the engine always reads (to their "not fixed" value)."""
    options = state.get("options")
    if not isinstance(options, dict):
        return state
    kept = {k: v for k, v in options.items() if k not in drop}
    for key, value in (blank or {}).items():
        if key in kept:
            kept[key] = value
    return {**state, "options": kept}


def _order_key(item: Any) -> Any:
    return repr(item) if not isinstance(item, str) else item
