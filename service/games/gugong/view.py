"""What each audience may see (§6), and the secrets the canary checks.

Hand cards and the gift discard pile are seen by their owner only (others get counts); the
gift draw pile, the two face-down travel-token piles and the boxed decrees are seen by nobody
(counts only). Everything else is public, held travel tokens included (§6, note *)."""

from __future__ import annotations

from typing import Any

from service.games.gugong import board, data
from service.games.gugong.rules import PROMPTS
from service.games.interface import State, View
from service.games.sharing import Shared, SharedN, copied_dict, copied_list


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
            "hand": _cards(p["hand"]) if mine else None,
            "hand_count": len(p["hand"]),
            "discard": _cards(p["discard"]) if mine else None,
            "discard_count": len(p["discard"]),
            "tokens": _tokens(p["tokens"]),
            "vp": p["vp"],
            "jade": p["jade"],
            "envoy": p["envoy"],
            "arrival_vp": p["arrival_vp"],
            "intrigue": p["intrigue"],
            "slots": copied_dict(p["slots"]),
            "decrees": copied_list(p["decrees"]),
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
        "locations": _locations(s["locations"]),
        "draw_pile_count": len(s["draw_pile"]),
        "map": _map(s["map"]),
        "pile_a_count": len(s["pile_a"]),
        "pile_b_count": len(s["pile_b"]),
        "travel_discard": _tokens(s["travel_discard"]),
        "token_in_transit": _token(s["in_transit"]),
        "decrees": _decrees(s["decrees"], s["decree_servants"]),
        "boxed_decree_count": len(s["boxed_decrees"]),
        "jade_spots": _jade(s["side"], s["jade_spots"]),
        "wall": _wall(s["wall"]),
        "wall_threshold": s["wall_threshold"],
        "canal": _canal(s["canal"]),
        "arrivals": copied_list(s["arrivals"]),
        "intrigue_order": sorted(range(s["n"]), key=lambda i: board.intrigue_key(s, i), reverse=True),
        "turn": None if s["turn"] is None else copied_dict(s["turn"]),
        "prompt": copied_dict(prompts[0]) if prompts else None,
        "queue": [f["seat"] for f in prompts[1:]],
        "result": s["result"],
        "breakdown": s["breakdown"],
    }


# Built once per state part: an unchanged part is the same object in the next view
# (service/games/sharing.py).
_cards = Shared(lambda ids: [_card(c) for c in ids])
_tokens = Shared(lambda ids: [_token(t) for t in ids])
_locations = Shared(lambda locations: {loc: _card(cid) for loc, cid in locations.items()})
_map = Shared(lambda cells: {c: _token(t) for c, t in cells.items()})
_wall = Shared(lambda wall: [copied_dict(w) for w in wall])
_port = Shared(lambda ports: [None if b is None else copied_dict(b) for b in ports])
_canal = Shared(lambda canal: {r: _port(ports) for r, ports in canal.items()})
_decrees = SharedN(lambda decrees, servants: [
    {"id": d, "level": data.DECREES[d]["level"], "cost": data.DECREES[d]["cost"], "servants": list(servants[d])}
    for d in decrees])
_jade = SharedN(lambda side, spots: [{"cost": c, "jade": full}
                                    for c, full in zip(data.jade_costs(side), spots, strict=True)])


def secrets(state: State, seat: int | None) -> list[str]:
    if seat is None:
        return [*state["draw_pile"], *state["pile_a"], *state["pile_b"], *state["boxed_decrees"]]
    p = state["players"][seat]
    return [*p["hand"], *p["discard"]]
