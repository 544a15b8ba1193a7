"""decide and status for Gùgōng.

The game is driven by a stack of frames in the state. A *prompt* frame names the one seat the
game waits for (the player on turn, a travel move, a token's benefit, an Intrigue benefit, a
harbour claim, the token limit, a Morning decree order, the final window); every other frame is
an automatic step (the next turn, the Evening, the Morning, final scoring...) that runs as soon
as it reaches the top, inside the command that uncovered it. So `status.to_act` is always the
seat of the top prompt (D27), and prompts are answered one at a time in the rulebook's order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.games.gugong import engine, evening, exchange, morning, scoring, setup, tokens
from service.games.gugong.actions import canal, decrees, intrigue, travel, wall
from service.games.gugong.engine import only, pop, top
from service.games.interface import Command, Event, IllegalMove, Rng, State, Status
from service.games.kit import Evolver, Turn, evolving, joined

Check = Callable[[State, int, Command, dict[str, Any]], Any]
Run = Callable[[Turn, int, Any, dict[str, Any]], None]
Candidates = Callable[[State, int, dict[str, Any]], list[Command]]
Answer = tuple[Check, Run, Candidates]


def _check_decline(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> None:
    only(cmd)
    if frame["kind"] == "travel_move" and not frame["optional"]:
        raise IllegalMove("move_required", "A travel move you paid for must be made while a city can be reached.")


def _run_decline(ctx: Turn, seat: int, plan: None, frame: dict[str, Any]) -> None:
    pop(ctx)
    ctx.emit({"type": "prompt_declined", "seat": seat, "prompt": frame["kind"]})


def _on_prompt_declined(s: State, e: Event) -> None:
    pass


def _decline_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    return [{"type": "decline"}]


DECLINE: Answer = (_check_decline, _run_decline, _decline_candidates)

# What each prompt accepts. `exchange_tokens` is accepted at every prompt besides (D6).
PROMPTS: dict[str, dict[str, Answer]] = {
    "turn": {
        "exchange": (exchange.check_exchange, exchange.run_exchange, exchange.exchange_candidates),
        "card_action": (exchange.check_card_action, exchange.run_card_action, exchange.card_action_candidates),
        "location_action": (exchange.check_location_action, exchange.run_location_action,
                            exchange.location_action_candidates),
        "end_turn": (exchange.check_end_turn, exchange.run_end_turn, exchange.end_turn_candidates),
    },
    "travel_move": {"travel": (travel.check_move, travel.run_move, travel.move_candidates), "decline": DECLINE},
    "token_effect": {"use_token": (tokens.check_use, tokens.run_use, tokens.use_candidates), "decline": DECLINE},
    "benefit": {"intrigue_benefit": (wall.check_benefit, wall.run_benefit, wall.benefit_candidates), "decline": DECLINE},
    "claim": {"claim": (canal.check_claim, canal.run_claim, canal.claim_candidates), "decline": DECLINE},
    "token_limit": {},
    "morning_decree": {"morning_decree": (morning.check_pick, morning.run_pick, morning.pick_candidates)},
    "final_window": {"done": (scoring.check_done, scoring.run_done, scoring.done_candidates)},
}

# A prompt that has nothing to ask any more is passed over without asking.
SKIP: dict[str, Callable[[State, dict[str, Any]], bool]] = {
    "turn": lambda s, f: False,
    "travel_move": travel.move_impossible,
    "token_effect": tokens.effect_unusable,
    "benefit": wall.benefit_skipped,
    "claim": canal.claim_skipped,
    "token_limit": tokens.within_limit,
    "morning_decree": lambda s, f: False,
    "final_window": scoring.nothing_to_exchange,
}

STEPS: dict[str, Callable[[Turn, dict[str, Any]], None]] = {
    "next_turn": exchange.run_next_turn,
    "token_store": tokens.run_store,
    "canal_move": canal.run_move,
    "evening": evening.run_evening,
    "evening_end": evening.run_evening_end,
    "morning": morning.run_morning,
    "morning_decree_effect": morning.run_decree_effect,
    "morning_tracker": morning.run_tracker,
    "final_scoring": scoring.run_final_scoring,
}


def decide(state: State, seat: int | None, command: Command, rng: Rng) -> list[Event]:
    # The shared preamble (service.games.preamble) has checked the command's shape, type and
    # fields, and that the game is running.
    kind = command["type"]
    if seat is None:
        ctx = Turn(state, rng, evolve)
        setup.start(ctx)
        advance(ctx)
        return ctx.events
    frame = prompt_for(state, seat)
    ctx = Turn(state, rng, evolve)
    if kind == "exchange_tokens":
        tokens.run_exchange(ctx, seat, tokens.check_exchange(state, seat, command))
    else:
        answers = PROMPTS[frame["kind"]]
        if kind not in answers:
            raise _refusal(frame, kind)
        check, run, _ = answers[kind]
        run(ctx, seat, check(state, seat, command, frame), frame)
    advance(ctx)
    return ctx.events


def prompt_for(state: State, seat: Any) -> dict[str, Any]:
    """The open prompt, if it is this seat's; otherwise the reason the seat must wait."""
    frame = top(state)
    assert frame is not None and frame["kind"] in PROMPTS
    if seat != frame["seat"]:
        if any(f["kind"] in PROMPTS and f["seat"] == seat for f in state["stack"]):
            raise IllegalMove("prompt_pending", "Another player must answer first; your decision is queued (D27).")
        raise IllegalMove("not_your_turn", f"It is seat {frame['seat']}'s decision.")
    return frame


def _refusal(frame: dict[str, Any], kind: str) -> IllegalMove:
    if frame["kind"] == "token_limit":
        return IllegalMove("token_limit_pending", "You hold more than 6 travel tokens: exchange some first.")
    if frame["kind"] == "turn":
        return IllegalMove("no_prompt", f"Nothing is waiting for a {kind!r} answer.")
    return IllegalMove("prompt_pending", f"Answer the open {frame['kind']} prompt first.")


def advance(ctx: Turn) -> None:
    """Run automatic steps and pass over empty prompts until a seat must decide, or the end."""
    while ctx.state["stack"]:
        frame = ctx.state["stack"][-1]
        if frame["kind"] in PROMPTS:
            if not SKIP[frame["kind"]](ctx.state, frame):
                return
            pop(ctx)
            continue
        pop(ctx)
        STEPS[frame["kind"]](ctx, frame)


def status(state: State) -> Status:
    if state["phase"] == "finished":
        return {"phase": "finished", "to_act": [], "finished": True, "result": state["result"]}
    frame = top(state)
    to_act = [frame["seat"]] if frame is not None and frame["kind"] in PROMPTS else []
    return {"phase": state["phase"], "to_act": to_act, "finished": False, "result": None}


# Every event's evolver, from the modules of the rules that emit them.
_APPLY: dict[str, Evolver] = joined(
    setup.APPLY, engine.APPLY, exchange.APPLY, intrigue.APPLY, wall.APPLY, travel.APPLY, tokens.APPLY,
    canal.APPLY, decrees.APPLY, evening.APPLY, morning.APPLY, scoring.APPLY,
    {"prompt_declined": _on_prompt_declined},
)
evolve = evolving(_APPLY)
