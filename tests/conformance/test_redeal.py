"""`Game.redeal` (games/<id>/hidden.py), checked against each rules file's hidden-information
section: for the seats kept, their views are unchanged; the hidden items are conserved as a
multiset and land only in places those seats cannot see; the state stays playable; the
result depends only on what the kept seats see (hidden parts scrambled by hand give the same
deal for the same rng); different rngs deal differently where there is something to deal.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from service.games import GAMES, IllegalMove, fold, get_game
from service.games.chance import commit_rng
from service.games.hieroglyphs.data import card_char
from service.games.playout import playout
from tests.support.hidden_parts import HIDDEN, scramble

State = dict[str, Any]


def _sample_states(game_id: str, players: int, every: int = 7, limit: int = 12) -> list[State]:
    g = get_game(game_id)
    out: list[State] = []
    for step in playout(g, players, f"redeal-{game_id}-{players}"):
        if step.seq > 1 and step.seq % every == 0 and not g.status(step.after)["finished"]:
            out.append(step.after)
        if len(out) >= limit:
            break
    return out


CASES = [(gid, n) for gid in GAMES for n in sorted({get_game(gid).min_players, get_game(gid).max_players})]


@pytest.fixture(scope="module", params=CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def case(request) -> tuple[str, int, list[State]]:
    game_id, players = request.param
    return game_id, players, _sample_states(game_id, players)


def test_every_game_registers_a_redeal():
    for gid in GAMES:
        assert get_game(gid).redeal is not None, gid


def test_kept_views_are_unchanged_and_hidden_items_conserved(case):
    game_id, players, states = case
    g = get_game(game_id)
    assert states
    for i, s in enumerate(states):
        for seat in range(players):
            keep = frozenset({seat})
            r = g.redeal(s, random.Random(i), keep)  # type: ignore[misc]
            assert g.view(r, seat) == g.view(s, seat)
            assert g.view(r, None) == g.view(s, None)
            before, after = HIDDEN[game_id](s, keep), HIDDEN[game_id](r, keep)
            assert [len(p) for p in after] == [len(p) for p in before], "sizes are public"
            assert Counter(c for p in after for c in p) == Counter(c for p in before for c in p)


def test_redeal_depends_only_on_what_the_kept_seat_sees(case):
    game_id, players, states = case
    g = get_game(game_id)
    for i, s in enumerate(states):
        for seat in range(players):
            keep = frozenset({seat})
            scrambled = scramble(game_id, s, keep, random.Random(1000 + i), content=False)
            assert g.view(scrambled, seat) == g.view(s, seat)
            assert g.redeal(s, random.Random(i), keep) == g.redeal(scrambled, random.Random(i), keep)  # type: ignore[misc]
            if g.determinize is not None:
                imagined = scramble(game_id, s, keep, random.Random(2000 + i))
                assert g.view(imagined, seat) == g.view(s, seat)
                assert g.determinize(s, random.Random(i), keep) == g.determinize(imagined, random.Random(i), keep)


def test_different_rngs_deal_differently(case):
    game_id, players, states = case
    g = get_game(game_id)
    if game_id == "pixies":
        pytest.skip("pixies.md 6: the only secret is the deck's order, and the state holds the deck as a set")
    dealt_something = False
    for s in states:
        keep = frozenset({0})
        if len(set(c for p in HIDDEN[game_id](s, keep) for c in p)) < 2:
            continue
        deals = {repr(HIDDEN[game_id](g.redeal(s, random.Random(k), keep), keep)) for k in range(4)}  # type: ignore[misc]
        assert len(deals) > 1
        dealt_something = True
    assert dealt_something


def test_play_continues_from_a_redealt_state(case):
    game_id, players, states = case
    g = get_game(game_id)
    for i, s in enumerate(states):
        keep = frozenset({i % players})
        r = g.redeal(s, random.Random(i), keep)  # type: ignore[misc]
        pick = random.Random(i)
        for seq in range(60):
            st = g.status(r)
            if st["finished"]:
                break
            seat = pick.choice(st["to_act"])
            moves = g.legal_moves(r, seat)
            assert moves, f"{game_id}: seat {seat} to act has no legal move after a redeal"
            try:
                events = g.decide(r, seat, pick.choice(moves), commit_rng("redeal", seq))
            except IllegalMove as err:  # a sampled legal move must be legal
                pytest.fail(f"{game_id}: legal move refused after a redeal: {err}")
            r = fold(g, events, r)


def test_hieroglyphs_redeal_keeps_what_every_card_is():
    """A redeal moves cards, never what a card is: every character keeps its back and every
    task its own answer (hieroglyphs.md 2.2, the content set), whatever was seen."""
    g = get_game("hieroglyphs")
    for s in _sample_states("hieroglyphs", 2):
        for keep in (frozenset({0}), frozenset({0, 1}), frozenset()):
            r = g.redeal(s, random.Random(3), keep)  # type: ignore[misc]
            assert r["content"] == s["content"]
            if s["turn"]["claim"] is not None:
                assert r["turn"]["claim"] == s["turn"]["claim"]


def test_hieroglyphs_bots_imagine_unseen_card_backs_only():
    """hieroglyphs.md 7: a card's back is seen only by who studied it; task answers only once
    revealed or viewed by their owner. A bot's world deals unseen backs again; seen ones stay."""
    g = get_game("hieroglyphs")
    s = _sample_states("hieroglyphs", 2)[-1]
    r = g.determinize(s, random.Random(3), frozenset({0}))  # type: ignore[misc]
    chars, new = s["content"]["chars"], r["content"]["chars"]
    studied = {card_char(c) for c in s["studied"][0]}
    assert all(new[ch] == chars[ch] for ch in studied)
    moved = [ch for ch in chars if new[ch] != chars[ch]]
    assert moved and not set(moved) & studied
    assert Counter(repr(v) for v in new.values()) == Counter(repr(v) for v in chars.values())


def test_hieroglyphs_pending_claim_is_imagined_consistently():
    """hieroglyphs.md 7: a pending claim's right index is known to nobody; in a bot's world the
    right option is still the played character's gloss, and the claimer's view is unchanged."""
    g = get_game("hieroglyphs")
    checked = 0
    for step in playout(g, 3, "redeal-claims"):
        s = step.after
        if s["phase"] != "meaning":
            continue
        for seat in range(3):
            r = g.determinize(s, random.Random(checked), frozenset({seat}))  # type: ignore[misc]
            assert g.view(r, seat) == g.view(s, seat)
            claim, char = r["turn"]["claim"], card_char(s["turn"]["played"])
            assert claim["options"][claim["correct_index"]] == r["content"]["chars"][char]["gloss"]
            checked += 1
        if checked >= 30:
            break
    assert checked
