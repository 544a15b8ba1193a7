"""Re-dealing what seats cannot see (spec 7), for forks and for bots' determinization.

`redeal` (forks, and the shared contract of every game) deals again where the cards lie, never
what a card is: the deck, the other seats' hands (unless a kept seat is the active player on
the Spy, who sees them), an open Minister pool that is not a kept seat's, and the task deck's
order. Cards the table saw (public_cards: the field, attachments, the card just played...)
stay where they are. A card's back (pinyin, tone, steps, gloss) and a task's answer are the
content set's facts: a fork that moved them would change step counts and pair questions with
other questions' answers. A pending claim keeps its options and right index (the played
card's own gloss).

`determinize` (bots only) also imagines the content the rules keep face down, since a bot
must not read what it never saw: the answer side of every task no kept seat has seen (not
revealed, not viewed at the Teacher by its kept owner) is permuted among those tasks, the back
of every character no kept seat has seen (not studied, not in a seen answer, not the card on
the table once its claim is settled) among those characters, and a pending claim's right
answer is one of the four options whose owner is unseen, the backs swapped to match.

Options that fix chance (deck and task order, claim options) are blanked by both.
"""

from __future__ import annotations

from typing import Any

from service.games.dealing import deal, shuffled
from service.games.hieroglyphs.data import card_char
from service.games.hieroglyphs.view import _spy_peeks, public_cards
from service.games.interface import Rng, State


def redeal(state: State, rng: Rng, keep: frozenset[int]) -> State:
    s = {**state, "options": {**state["options"], "deck_order": None, "task_order": None, "claim_options": {}}}
    if s["phase"] == "waiting":
        return s
    n = s["players"]
    turn = s["turn"]
    public = public_cards(s)
    peek = any(_spy_peeks(s, seat) for seat in keep if 0 <= seat < n)
    others = [] if peek else [seat for seat in range(n) if seat not in keep]
    pool_hidden = turn["pool"] is not None and s["active"] not in keep
    places = [s["deck"], *(s["hands"][seat] for seat in others), *([turn["pool"]] if pool_hidden else [])]
    dealt = deal(rng, places, hidden=lambda card: card not in public)
    hands = list(s["hands"])
    for k, seat in enumerate(others):
        hands[seat] = dealt[1 + k]
    new_turn = {**turn, "pool": dealt[-1]} if pool_hidden else turn
    s.update(deck=dealt[0], hands=hands, turn=new_turn, task_deck=shuffled(rng, s["task_deck"]))
    return s


def determinize(state: State, rng: Rng, keep: frozenset[int]) -> State:
    """A world the seats in `keep` cannot tell from the real one, unseen content included."""
    s = redeal(state, rng, keep)
    return s if s["phase"] == "waiting" else _redeal_content(s, rng, keep)


def _redeal_content(s: State, rng: Rng, keep: frozenset[int]) -> State:
    content = s["content"]
    tasks, chars = content["tasks"], content["chars"]
    seen_tasks = set(s["revealed_tasks"]) | {
        s["tasks"][seat] for seat in keep if 0 <= seat < s["players"] and s["tasks"][seat] and s["task_viewed"][seat]}
    unseen_tasks = sorted(t for t in content["task_ids"] if t not in seen_tasks)
    # Sorted before the shuffle: which task held which answer must not show through.
    answers = sorted(({k: tasks[t][k] for k in ("answer", "answer_text", "pinyin")} for t in unseen_tasks), key=repr)
    rng.shuffle(answers)
    new_tasks = {**tasks, **{t: {**tasks[t], **a} for t, a in zip(unseen_tasks, answers, strict=True)}}

    turn = s["turn"]
    claim = turn["claim"]
    pending = claim is not None and "choice" not in claim
    seen_chars = {card_char(c) for seat in keep if 0 <= seat < s["players"] for c in s["studied"][seat]}
    seen_chars.update(ch for t in seen_tasks for ch in tasks[t]["answer"])
    if turn["played"] is not None and not pending:
        seen_chars.add(card_char(turn["played"]))
    unseen_chars = sorted(ch for ch in chars if ch not in seen_chars)
    backs = sorted((chars[ch] for ch in unseen_chars), key=repr)
    rng.shuffle(backs)
    new_chars: dict[str, Any] = {**chars, **dict(zip(unseen_chars, backs, strict=True))}
    if pending and card_char(turn["played"]) in unseen_chars:
        turn = {**turn, "claim": _redeal_claim(claim, card_char(turn["played"]), new_chars, set(unseen_chars), s["claims"], rng)}
    return {**s, "turn": turn, "content": {**content, "tasks": new_tasks, "chars": new_chars}}


def _redeal_claim(claim: dict[str, Any], played: str, chars: dict[str, Any], unseen: set[str],
                  number: int, rng: Rng) -> dict[str, Any]:
    """Pick the right option among those an unseen character could carry, and give the played
    character that back (swapping with the character that had it)."""
    owner = {info["gloss"]: ch for ch, info in sorted(chars.items()) if ch in unseen}
    candidates = [i for i, gloss in enumerate(claim["options"]) if gloss in owner]
    index = rng.choice(candidates)
    other = owner[claim["options"][index]]
    chars[played], chars[other] = chars[other], chars[played]
    return {**claim, "correct_index": index, "seal": f"claim-{number}-answer-{index}"}


def evaluate(state: State) -> list[float]:
    """Bots' hint: tasks completed (the score); then progress on the task held (the share of
    its answer's characters already attached, in this state's answers); coins break ties."""
    tasks = state["content"]["tasks"]
    out = []
    for seat, (done, coins) in enumerate(zip(state["completed"], state["coins"], strict=True)):
        task = state["tasks"][seat]
        progress = 0.0
        if task is not None:
            answer = tasks[task]["answer"]
            attached = [card_char(c) for c in state["attached"][seat]]
            progress = sum(1 for ch in set(answer) if ch in attached) / max(1, len(set(answer)))
        out.append(len(done) + 0.5 * progress + coins / 100)
    return out
