"""A fork's redeal (SPEC 11) changes only what the game's rules list as unseen by every seat.

For every game a random match is played to its end, then forked (engine level, exactly the
commit the lobby writes: the system command `redeal` decided with the rng of seq n + 1 under a
fork seed) at several seqs. After the redeal:

- every seat's view and the spectators' view are the ones they had at n (all that is seen);
- the top-level parts of the state that changed are among those the rules file's
  hidden-information section names as seen by no seat (below, with its section), plus the
  options that fixed chance, which are only dropped;
- within them the same items are dealt (a card stays the card it is: the multiset of every
  pile is kept, and in Chinese Squared every card's back and every task's answer too);
- everything else is equal, deep.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from service.games import GAMES, fold, get_game
from service.games.chance import commit_rng
from service.games.playout import playout

State = dict[str, Any]

# What each rules file's hidden-information section says no seat sees, as groups of top-level
# state keys whose items may be dealt among each other. Hands and private piles are seen by
# their owner, so a fork (which keeps every seat) keeps them.
UNSEEN: dict[str, list[tuple[str, ...]]] = {
    "pixies": [("deck",)],                                 # pixies.md 6: the undrawn deck
    "china": [("deck",)],                                  # china.md 7: the deck
    "khan": [("draw_pile",)],                              # khan.md 7: the draw pile
    "gugong": [("draw_pile",), ("pile_a", "pile_b"),       # gugong.md 6: the gift draw pile,
               ("boxed_decrees",)],                        # the travel piles, the boxed decrees
    "hieroglyphs": [("deck",), ("task_deck",)],            # hieroglyphs.md 7: deck, task deck order
}
SHORT = {"hieroglyphs": {"mode": "rounds", "round_limit": 2}}
FORK_POINTS = 6


def _items(state: State, keys: tuple[str, ...]) -> Counter:
    return Counter(repr(item) for key in keys for item in state[key])


@pytest.mark.parametrize("game_id", GAMES)
def test_a_redeal_changes_only_the_unseen(game_id: str) -> None:
    g = get_game(game_id)
    unseen = {key for group in UNSEEN[game_id] for key in group}
    dealt_something = False
    for players in sorted({g.min_players, g.max_players}):
        steps = list(playout(g, players, f"fork-keeps-{game_id}-{players}", SHORT.get(game_id)))
        live = [st for st in steps if not g.status(st.after)["finished"]]
        points = [live[k * (len(live) - 1) // (FORK_POINTS - 1)] for k in range(FORK_POINTS)]
        for step in points:
            s, n = step.after, step.seq
            events = g.decide(s, None, {"type": "redeal"}, commit_rng(f"fork-seed-{n}", n + 1))
            assert [e["type"] for e in events] == ["redealt"]
            r = fold(g, events, s)
            for seat in [*range(players), None]:
                assert g.view(r, seat) == g.view(s, seat), f"{game_id} seq {n}: seat {seat}'s view changed"
            changed = set(events[0]["state"])
            assert changed <= unseen | {"options"}, f"{game_id} seq {n}: a redeal changed {changed - unseen}"
            for group in UNSEEN[game_id]:
                assert _items(r, group) == _items(s, group), f"{game_id} seq {n}: {group} hold other items"
                assert [len(r[k]) for k in group] == [len(s[k]) for k in group], "sizes are public"
            dropped = set(s["options"]) - set(r["options"])
            assert dropped <= g.secret_options, f"{game_id}: the redeal dropped public options {dropped}"
            assert all(r["options"][k] == s["options"][k] or k in g.secret_options for k in r["options"])
            rest = sorted(set(s) - unseen - {"options"})
            assert {k: r[k] for k in rest} == {k: s[k] for k in rest}, f"{game_id} seq {n}: a seen part changed"
            dealt_something = dealt_something or bool(changed & unseen)
    if game_id != "pixies":  # pixies.md 6: its deck is a set; there is no order to deal again
        assert dealt_something, f"{game_id}: no fork point had anything unseen to deal"


def test_chinese_squared_fork_keeps_every_card_and_task() -> None:
    """hieroglyphs.md 2.2: a character's back (pinyin, tone, steps, gloss) and a task's answer are
    what the card is; a fork deals the cards, never their faces."""
    g = get_game("hieroglyphs")
    steps = list(playout(g, 3, "fork-content", SHORT["hieroglyphs"]))
    for step in steps[2:-1:5]:
        s = step.after
        r = fold(g, g.decide(s, None, {"type": "redeal"}, commit_rng("fork-content", step.seq + 1)), s)
        assert r["content"] == s["content"]
        for task, info in s["content"]["tasks"].items():
            assert r["content"]["tasks"][task]["answer"] == info["answer"]
        if s["turn"]["claim"] is not None:
            assert r["turn"]["claim"] == s["turn"]["claim"]
