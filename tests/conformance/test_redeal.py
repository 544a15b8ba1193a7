"""`Game.redeal` (games/<id>/hidden.py), checked against each rules file's hidden-information
section: for the seats kept, their views are unchanged; the hidden items are conserved as a
multiset and land only in places those seats cannot see; the state stays playable; the
result depends only on what the kept seats see (hidden parts scrambled by hand give the same
deal for the same rng); different rngs deal differently where there is something to deal.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from service.games import GAMES, IllegalMove, fold, get_game
from service.games.chance import commit_rng
from service.games.hieroglyphs.data import card_char
from service.games.playout import playout

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


# --- what each rules file says is hidden from the seats in `keep` ------------------------

def _others(n: int, keep: frozenset[int]) -> list[int]:
    return [s for s in range(n) if s not in keep]


def _hidden_china(s: State, keep: frozenset[int]) -> list[list[str]]:
    """china.md 7: other hands (size public) and the deck."""
    return [s["deck"], *(s["hands"][p] for p in _others(s["players"], keep))]


def _hidden_khan(s: State, keep: frozenset[int]) -> list[list[str]]:
    """khan.md 7: other hands (size public) and the draw pile."""
    return [s["draw_pile"], *(s["hands"][p] for p in _others(s["players"], keep))]


def _hidden_gugong(s: State, keep: frozenset[int]) -> list[list[str]]:
    """gugong.md 6: other hands and discard piles, the gift draw pile, travel piles A/B."""
    others = _others(s["n"], keep)
    return [s["draw_pile"], *(s["players"][p]["hand"] for p in others),
            *(s["players"][p]["discard"] for p in others), s["pile_a"], s["pile_b"]]


def _hidden_hieroglyphs(s: State, keep: frozenset[int]) -> list[list[str]]:
    """hieroglyphs.md 7: the deck, other hands (unless the kept seat spies), the task deck."""
    spying = s["phase"] == "base" and s["active"] in keep and s["positions"][s["active"]] in _spy_cells()
    hands = [] if spying else [s["hands"][p] for p in _others(s["players"], keep)]
    return [s["deck"], *hands, s["task_deck"]]


def _spy_cells() -> set[Any]:
    from service.games.hieroglyphs.data import BASE_ROLE
    return {cell for cell, role in BASE_ROLE.items() if role == "SPY"}


def _hidden_pixies(s: State, keep: frozenset[int]) -> list[list[str]]:
    """pixies.md 6: only the deck's order, which the state does not hold (a set)."""
    return [s["deck"]]


HIDDEN: dict[str, Callable[[State, frozenset[int]], list[list[str]]]] = {
    "china": _hidden_china, "khan": _hidden_khan, "gugong": _hidden_gugong,
    "hieroglyphs": _hidden_hieroglyphs, "pixies": _hidden_pixies,
}


def _scramble(game_id: str, s: State, keep: frozenset[int], rng: random.Random) -> State:
    """Move hidden cards around by hand, sizes kept: another world the kept seats cannot tell apart."""
    if game_id == "china":
        pool = [c for place in _hidden_china(s, keep) for c in place]
        rng.shuffle(pool)
        hands = list(s["hands"])
        deck = pool[: len(s["deck"])]
        rest = pool[len(s["deck"]):]
        for p in _others(s["players"], keep):
            hands[p], rest = rest[: len(hands[p])], rest[len(hands[p]):]
        return {**s, "deck": deck, "hands": hands}
    if game_id == "khan":
        pool = [c for place in _hidden_khan(s, keep) for c in place]
        rng.shuffle(pool)
        hands = list(s["hands"])
        pile, rest = pool[: len(s["draw_pile"])], pool[len(s["draw_pile"]):]
        for p in _others(s["players"], keep):
            hands[p], rest = rest[: len(hands[p])], rest[len(hands[p]):]
        return {**s, "draw_pile": pile, "hands": hands}
    if game_id == "gugong":
        others = _others(s["n"], keep)
        pool = [*s["draw_pile"]] + [c for p in others for c in s["players"][p]["hand"] + s["players"][p]["discard"]]
        rng.shuffle(pool)
        players = list(s["players"])
        pile, rest = pool[: len(s["draw_pile"])], pool[len(s["draw_pile"]):]
        for p in others:
            h, d = len(players[p]["hand"]), len(players[p]["discard"])
            players[p] = {**players[p], "hand": rest[:h], "discard": rest[h:h + d]}
            rest = rest[h + d:]
        tokens = s["pile_a"] + s["pile_b"]
        rng.shuffle(tokens)
        return {**s, "draw_pile": pile, "players": players, "pile_a": tokens[: len(s["pile_a"])],
                "pile_b": tokens[len(s["pile_a"]):], "boxed_decrees": list(reversed(s["boxed_decrees"]))}
    if game_id == "hieroglyphs":
        # The engine's own redeal with another rng is a world the kept seats cannot tell apart
        # (its views are checked unchanged above), and it moves the content too; on top of it,
        # reverse the task deck by hand.
        other = get_game("hieroglyphs").redeal(s, rng, keep)  # type: ignore[misc]
        return {**other, "task_deck": list(reversed(other["task_deck"]))}
    return {**s, "deck": list(reversed(s["deck"]))}


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
            scrambled = _scramble(game_id, s, keep, random.Random(1000 + i))
            assert g.view(scrambled, seat) == g.view(s, seat)
            assert g.redeal(s, random.Random(i), keep) == g.redeal(scrambled, random.Random(i), keep)  # type: ignore[misc]


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


def test_hieroglyphs_redeal_moves_unseen_card_backs_only():
    """hieroglyphs.md 7: a card's back is seen only by who studied it; task answers only once
    revealed or viewed by their owner. Unseen backs are dealt again; seen ones stay."""
    g = get_game("hieroglyphs")
    s = _sample_states("hieroglyphs", 2)[-1]
    r = g.redeal(s, random.Random(3), frozenset({0}))  # type: ignore[misc]
    chars, new = s["content"]["chars"], r["content"]["chars"]
    studied = {card_char(c) for c in s["studied"][0]}
    assert all(new[ch] == chars[ch] for ch in studied)
    moved = [ch for ch in chars if new[ch] != chars[ch]]
    assert moved and not set(moved) & studied
    assert Counter(repr(v) for v in new.values()) == Counter(repr(v) for v in chars.values())


def test_hieroglyphs_pending_claim_is_redealt_consistently():
    """hieroglyphs.md 7: a pending claim's right index is known to nobody; after a redeal the
    right option is still the played character's gloss, and the claimer's view is unchanged."""
    g = get_game("hieroglyphs")
    checked = 0
    for step in playout(g, 3, "redeal-claims"):
        s = step.after
        if s["phase"] != "meaning":
            continue
        for seat in range(3):
            r = g.redeal(s, random.Random(checked), frozenset({seat}))  # type: ignore[misc]
            assert g.view(r, seat) == g.view(s, seat)
            claim, char = r["turn"]["claim"], card_char(s["turn"]["played"])
            assert claim["options"][claim["correct_index"]] == r["content"]["chars"][char]["gloss"]
            checked += 1
        if checked >= 30:
            break
    assert checked
