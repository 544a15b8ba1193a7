"""legal_moves: every command the seat to act may send now.

Complete, with one documented reduction: `exchange_tokens` lists, for each number of tokens
per type, only the lowest ids of that type (tokens of one type are interchangeable; any other
ids of that type are accepted just the same)."""

from __future__ import annotations

from service.games.gugong import tokens
from service.games.gugong.engine import top
from service.games.gugong.rules import PROMPTS
from service.games.interface import Command, IllegalMove, State


def legal_moves(state: State, seat: int) -> list[Command]:
    if state["phase"] in ("waiting", "finished"):
        return []
    frame = top(state)
    if frame is None or frame["kind"] not in PROMPTS or frame["seat"] != seat:
        return []
    out: list[Command] = []
    for check, _run, candidates in PROMPTS[frame["kind"]].values():
        for cmd in candidates(state, seat, frame):
            try:
                check(state, seat, cmd, frame)
            except IllegalMove:
                continue
            out.append(cmd)
    return out + tokens.exchange_candidates(state, seat)
