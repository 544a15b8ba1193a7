"""End of the game (§4.4): the final token window, then the final scoring in the rulebook's
order, the Palace gate and the ranking."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.actions import wall
from service.games.gugong.engine import advance_envoy, only, pop, score
from service.games.interface import Command, Event, State
from service.games.kit import Evolver, Turn

WALL = data.BOARD["wall"]


# --- step 0: the final token-exchange window (D6) -------------------------------------------------


def check_done(s: State, seat: int, cmd: Command, frame: dict[str, Any]) -> None:
    only(cmd)


def run_done(ctx: Turn, seat: int, plan: None, frame: dict[str, Any]) -> None:
    pop(ctx)
    ctx.emit({"type": "final_window_closed", "seat": seat})


def _on_final_window_closed(s: State, e: Event) -> None:
    pass


def done_candidates(s: State, seat: int, frame: dict[str, Any]) -> list[Command]:
    return [{"type": "done"}]


def nothing_to_exchange(s: State, frame: dict[str, Any]) -> bool:
    return board.token_value(s["players"][frame["seat"]]["tokens"]) < min(r["value"] for r in data.TOKEN_EXCHANGE)


# --- steps 1-6 ------------------------------------------------------------------------------------------


def decree_end_vp(s: State, seat: int, decree: str) -> int:
    end = data.DECREES[decree].get("end")
    if not end:
        return 0
    p = s["players"][seat]
    kind = end["kind"]
    if kind == "per_jade":
        return end["vp"] * p["jade"]
    if kind == "per_intrigue_steps":
        return end["vp"] * (p["intrigue"] // end["steps"])
    if kind == "per_decree":
        return end["vp"] * len(p["decrees"])
    if kind == "per_reward_slot":
        return end["vp"] * sum(p["slots"].values())
    if kind == "per_token_value":
        return end["vp"] * board.token_value(p["tokens"])
    raise ValueError(f"unknown end-of-game decree effect {kind!r}")


def run_final_scoring(ctx: Turn, frame: dict[str, Any]) -> None:
    n = ctx.state["n"]
    parts: list[dict[str, int]] = [{"wall": 0, "palace": 0, "decrees": 0, "jade": 0} for _ in range(n)]
    # 1. Wall leftovers: majority only, no Intrigue benefits, servants stay (D10).
    if ctx.state["wall"]:
        scorer = wall.majority(ctx.state)
        ctx.emit({"type": "final_wall_scored", "seat": scorer})
        score(ctx, scorer, WALL["majority_vp"], "final_wall")
        advance_envoy(ctx, scorer, WALL["majority_envoy"], "final_wall")
        parts[scorer]["wall"] = WALL["majority_vp"]
    # 2. Palace arrival slots
    for seat in ctx.state["arrivals"]:
        vp = ctx.state["players"][seat]["arrival_vp"]
        score(ctx, seat, vp, "palace")
        parts[seat]["palace"] = vp
    # 3. Level-3 decrees
    for seat in range(n):
        vp = sum(decree_end_vp(ctx.state, seat, d) for d in ctx.state["players"][seat]["decrees"])
        score(ctx, seat, vp, "decrees")
        parts[seat]["decrees"] = vp
    # 4. Jade
    for seat in range(n):
        vp = data.jade_vp(ctx.state["players"][seat]["jade"])
        score(ctx, seat, vp, "jade")
        parts[seat]["jade"] = vp
    # 5.-6. The Palace gate, then the most VP; ties by the Intrigue order.
    result = rank(ctx.state)
    breakdown = [{**parts[seat], "vp": ctx.state["players"][seat]["vp"],
                  "eligible": ctx.state["players"][seat]["envoy"] >= data.BOARD["palace"]["arrival"]} for seat in range(n)]
    ctx.emit({"type": "game_finished", **result, "breakdown": breakdown,
              "nobody_arrived": not any(b["eligible"] for b in breakdown)})


def _on_final_wall_scored(s: State, e: Event) -> None:
    pass  # the scorer's VP and Envoy step are their own events; servants stay (§4.4 step 1)


def _on_game_finished(s: State, e: Event) -> None:
    s["phase"] = "finished"
    s["result"] = {"scores": list(e["scores"]), "ranking": list(e["ranking"]), "winners": list(e["winners"])}
    s["breakdown"] = {"seats": [dict(b) for b in e["breakdown"]], "nobody_arrived": e["nobody_arrived"]}
    s["stack"] = []
    s["turn"] = None


def rank(s: State) -> dict[str, list[int]]:
    arrival = data.BOARD["palace"]["arrival"]
    n = s["n"]
    eligible = [seat for seat in range(n) if s["players"][seat]["envoy"] >= arrival]
    out = [seat for seat in range(n) if seat not in eligible]

    def key(seat: int) -> tuple[int, int, int]:
        return (s["players"][seat]["vp"], *board.intrigue_key(s, seat))

    # Players whose Envoy never arrived score 0 and rank below every eligible player (step 5).
    ranking = sorted(eligible, key=key, reverse=True) + sorted(out, key=key, reverse=True)
    scores = [s["players"][seat]["vp"] if seat in eligible else 0 for seat in range(n)]
    # D13: if no Envoy arrived, nobody wins (winners is empty); game_finished also says
    # `nobody_arrived` so clients can show why.
    winners = ranking[:1] if eligible else []
    return {"scores": scores, "ranking": ranking, "winners": winners}


APPLY: dict[str, Evolver] = {
    "final_wall_scored": _on_final_wall_scored,
    "final_window_closed": _on_final_window_closed,
    "game_finished": _on_game_finished,
}
