"""A bot that plays random legal moves, and the whole-match driver behind `teahouse bot`."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from clients.python.client import Connection, MatchView, Rejected, TeahouseClient


async def play_seat(conn: Connection, game: MatchView, rng: random.Random,
                    on_move: Callable[[MatchView, dict], None] | None = None) -> None:
    """Play `game`'s seat with random legal moves until the match is over."""
    while True:
        await game.wait_for(lambda g: g.over or g.my_turn, timeout=120)
        if game.over:
            return
        seq = game.seq
        moves = await conn.legal_moves(game.match)
        if not moves:
            await game.wait_for(_moved_on(seq), timeout=120)
            continue
        move = rng.choice(moves)
        try:
            await conn.move(game.match, move)
        except Rejected:
            pass  # the state moved on under us (another seat acted); look again
        else:
            if on_move is not None:
                on_move(game, move)
        await game.wait_for(_moved_on(seq), timeout=120)


def _moved_on(seq: int) -> Callable[[MatchView], bool]:
    return lambda g: g.seq > seq or g.over


async def run_match(url: str, game_id: str, players: int, seed: int = 0, quiet: bool = False,
                    options: dict | None = None) -> dict:
    """Create a match, seat `players` bots on it, play it to the end; return the match summary."""
    client = TeahouseClient(url)
    match = await client.create_match(game_id, players, options)
    mid = match["match"]
    if not quiet:
        print(f"[{mid}] watch it at {url.rstrip('/')}/web/#/match/{mid}", flush=True)
    seats = [await client.take_seat(mid, name=f"bot{i}") for i in range(players)]
    conns = [await client.connect().open() for _ in range(players)]
    views = [await c.join(mid, s["token"]) for c, s in zip(conns, seats, strict=True)]
    moves = 0

    def shown(game: MatchView, move: dict) -> None:
        nonlocal moves
        moves += 1
        if not quiet:
            print(f"[{mid}] seq {game.seq:>4}  seat {game.seat}: {move}", flush=True)

    rngs = [random.Random(seed * 100 + i) for i in range(players)]
    await asyncio.gather(*[play_seat(c, v, r, shown) for c, v, r in zip(conns, views, rngs, strict=True)])
    summary = await client.match(mid)
    for c in conns:
        await c.close()
    await client.aclose()
    if not quiet:
        res = summary.get("result") or {}
        print(f"[{mid}] finished after {summary['seq']} commits ({moves} bot moves); "
              f"scores {res.get('scores')}, winners {res.get('winners')}; seed {summary.get('seed')}")
    return summary
