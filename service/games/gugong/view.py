"""What each audience may see (§6), and the secrets the canary checks.

Hand cards and the gift discard pile are seen by their owner only (others get counts); the
gift draw pile, the two face-down travel-token piles and the boxed decrees are seen by nobody
(counts only). Everything else is public, held travel tokens included (§6, note *)."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.rules import PROMPTS
from service.games.interface import State, View


def _card(cid: str) -> dict[str, Any]:
    c = data.CARDS[cid]
    return {"id": cid, "value": c["value"], "action": c["action"]}


def _token(tid: str | None) -> dict[str, str] | None:
    return None if tid is None else {"id": tid, "type": data.TOKENS[tid]}


def view(state: State, seat: int | None) -> View:
    s = state
    players = []
    for i, p in enumerate(s["players"]):
        mine = seat == i
        players.append({
            "seat": i,
            "pool": p["pool"],
            "supply": p["supply"],
            "foreman": p["foreman"],
            "hand": [_card(c) for c in p["hand"]] if mine else None,
            "hand_count": len(p["hand"]),
            "discard": [_card(c) for c in p["discard"]] if mine else None,
            "discard_count": len(p["discard"]),
            "tokens": [_token(t) for t in p["tokens"]],
            "vp": p["vp"],
            "jade": p["jade"],
            "envoy": p["envoy"],
            "arrival_vp": p["arrival_vp"],
            "intrigue": p["intrigue"],
            "slots": dict(p["slots"]),
            "decrees": list(p["decrees"]),
            "traveller": p["traveller"],
            "boats_left": board.boats_left(s, i) if s["phase"] != "waiting" else data.BOARD["boats_per_player"],
        })
    stack = s["stack"]
    prompts = [f for f in reversed(stack) if f["kind"] in PROMPTS]
    return {
        "phase": s["phase"],
        "players": players,
        "side": s["side"],
        "day": s["day"],
        "start_player": s["start_player"],
        "medal": s["medal"],
        "dice": s["dice"],
        "locations": {loc: _card(cid) for loc, cid in s["locations"].items()},
        "draw_pile_count": len(s["draw_pile"]),
        "map": {c: _token(t) for c, t in s["map"].items()},
        "pile_a_count": len(s["pile_a"]),
        "pile_b_count": len(s["pile_b"]),
        "travel_discard": [_token(t) for t in s["travel_discard"]],
        "token_in_transit": _token(s["in_transit"]),
        "decrees": [
            {"id": d, "level": data.DECREES[d]["level"], "cost": data.DECREES[d]["cost"],
             "servants": list(s["decree_servants"][d])}
            for d in s["decrees"]
        ],
        "boxed_decree_count": len(s["boxed_decrees"]),
        "jade_spots": [{"cost": c, "jade": full} for c, full in zip(data.jade_costs(s["side"]), s["jade_spots"], strict=True)],
        "wall": [dict(w) for w in s["wall"]],
        "wall_threshold": s["wall_threshold"],
        "canal": {r: [None if b is None else dict(b) for b in ports] for r, ports in s["canal"].items()},
        "arrivals": list(s["arrivals"]),
        "intrigue_order": sorted(range(s["n"]), key=lambda i: board.intrigue_key(s, i), reverse=True),
        "turn": None if s["turn"] is None else dict(s["turn"]),
        "prompt": dict(prompts[0]) if prompts else None,
        "queue": [f["seat"] for f in prompts[1:]],
        "result": s["result"],
        "breakdown": s["breakdown"],
    }


def secrets(state: State, seat: int | None) -> list[str]:
    if seat is None:
        return [*state["draw_pile"], *state["pile_a"], *state["pile_b"], *state["boxed_decrees"]]
    p = state["players"][seat]
    return [*p["hand"], *p["discard"]]
