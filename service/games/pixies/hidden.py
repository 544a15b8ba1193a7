"""Re-dealing what seats cannot see (spec 6), for bots' determinization and for forks.

Pixies hides only the undrawn deck, and the state keeps it as an unordered set (each reveal
draws at random in `decide`), so there is nothing to deal: the deck stays the set the
public record implies. Face-down cards are not secret by spec 6 (every one was public a
moment before, and the public history names it), so they stay. What does get hidden again
is a stacked deck fixed by the `deck_orders` option: after a redeal, reveals are random.
"""

from __future__ import annotations

from service.games.dealing import hide_options
from service.games.interface import Rng, State
from service.games.pixies.rules import score_area


def redeal(state: State, rng: Rng, keep: frozenset[int]) -> State:
    return {**hide_options(state, drop=("deck_orders",)), "deck": sorted(state["deck"])}


def evaluate(state: State) -> list[float]:
    """Bots' hint: the totals so far plus what each area would score if the round ended now."""
    if state["round"] < 1 or state["phase"] == "game_over":
        return [float(t) for t in state["totals"]]
    return [float(t + score_area(area, state["round"])["total"]) for t, area in zip(state["totals"], state["areas"], strict=True)]
