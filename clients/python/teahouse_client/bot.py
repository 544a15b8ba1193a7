"""A bot that plays random legal moves, and the whole-match driver behind `teahouse bot`.

With a strength, the seats are played by the server's own bots (SPEC 2.4 `bots`): a search
bot needs the game's hidden parts dealt again from its seat's point of view, which only the
server can do; the SDK asks for them when it creates the match and follows the match."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import websockets

from teahouse_client.client import Connection, MatchView, Rejected, ServerError, Stale, TeahouseClient

RETRY_S = 1.0  # the wait before resending a move the server could not take now (busy, store_unavailable)
# How long a bot keeps trying to reach a server again after its socket was lost: a node being
# replaced (close 1012) comes back, or the balancer sends the bot to another node, within seconds.
RECONNECT_FOR_S = 120.0
LOST = (ConnectionError, websockets.ConnectionClosed)


async def play_seat(conn: Connection, game: MatchView, rng: random.Random,
                    on_move: Callable[[MatchView, dict], None] | None = None) -> None:
    """Play `game`'s seat with random legal moves until the match is over. A lost socket is
    opened again and the seat joined again from the seq it holds (a node restarting closes
    with 1012), then play goes on."""
    while True:
        try:
            return await _play(conn, game, rng, on_move)
        except LOST:
            await reconnect_retrying(conn)


async def reconnect_retrying(conn: Connection, within_s: float = RECONNECT_FOR_S) -> None:
    """Open `conn` again and rejoin its matches, retrying while no server answers."""
    deadline = asyncio.get_running_loop().time() + within_s
    wait = 0.1
    while True:
        try:
            return await conn.reconnect()
        except (OSError, TimeoutError, websockets.WebSocketException, ServerError):
            if asyncio.get_running_loop().time() + wait > deadline:
                raise
            await asyncio.sleep(wait)
            wait = min(wait * 2, 2.0)


async def watch_until_over(conn: Connection, game: MatchView, timeout: float) -> None:
    """Wait for the end of `game`, opening `conn` again whenever its socket is lost."""
    while True:
        try:
            return await game.wait_for(lambda g: g.over, timeout=timeout)
        except LOST:
            await reconnect_retrying(conn)


async def _play(conn: Connection, game: MatchView, rng: random.Random,
                on_move: Callable[[MatchView, dict], None] | None) -> None:
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
            await _move_retrying(conn, game.match, move, f"bot-{seq}-{rng.getrandbits(32):08x}")
        except (Rejected, Stale):
            pass  # the state moved on under us (another seat acted); look again
        else:
            if on_move is not None:
                on_move(game, move)
        await game.wait_for(_moved_on(seq), timeout=120)


async def _move_retrying(conn: Connection, match: str, move: dict, move_id: str) -> int:
    """Send a move; while the server answers a retryable code, send it again with the same id
    (committed once whatever happens: SPEC 3.5)."""
    while True:
        try:
            return await conn.move(match, move, move_id)
        except (Rejected, Stale):
            raise
        except ServerError as exc:
            if not exc.retryable:
                raise
            await asyncio.sleep(RETRY_S)


def _moved_on(seq: int) -> Callable[[MatchView], bool]:
    return lambda g: g.seq > seq or g.over


async def run_match(url: str, game_id: str, players: int, seed: int = 0, quiet: bool = False,
                    options: dict | None = None, strength: int | None = None,
                    bot_seats: list[int] | None = None) -> dict:
    """Create a match, seat `players` bots on it, play it to the end; return the match summary.
    With `strength`, the seats in `bot_seats` (default: all) are the server's bots of that
    strength; the SDK plays the others at random."""
    client = TeahouseClient(url)
    server_bots = {} if strength is None else {s: strength for s in (range(players) if bot_seats is None else bot_seats)}
    match = await client.create_match(game_id, players, options, bots=server_bots)
    mid = match["match"]
    if not quiet:
        print(f"[{mid}] watch it at {url.rstrip('/')}/web/#/match/{mid}", flush=True)
    watcher = await client.connect().open()
    spectator = await watcher.spectate(mid)
    mine = [s for s in range(players) if s not in server_bots]
    seats = [await client.take_seat(mid, seat=s, name=f"bot{s}") for s in mine]
    conns = [await client.connect().open() for _ in mine]
    views = [await c.join(mid, s["token"]) for c, s in zip(conns, seats, strict=True)]
    moves = 0

    def shown(game: MatchView, move: dict) -> None:
        nonlocal moves
        moves += 1
        if not quiet:
            print(f"[{mid}] seq {game.seq:>4}  seat {game.seat}: {move}", flush=True)

    rngs = [random.Random(seed * 100 + s) for s in mine]
    await asyncio.gather(*[play_seat(c, v, r, shown) for c, v, r in zip(conns, views, rngs, strict=True)])
    await watch_until_over(watcher, spectator, timeout=3600)
    summary = await client.match(mid)
    if not quiet and server_bots:
        for c in (await client.log(mid))["commits"]:
            if str(c["move_id"]).startswith("sys:bot:"):
                print(f"[{mid}] seq {c['seq']:>4}  seat {c['seat']} (server bot, strength {strength}): {c['command']}")
    for c in [*conns, watcher]:
        await c.close()
    await client.aclose()
    if not quiet:
        res = summary.get("result") or {}
        print(f"[{mid}] finished after {summary['seq']} commits ({moves} SDK bot moves); "
              f"scores {res.get('scores')}, winners {res.get('winners')}; seed {summary.get('seed')}")
    return summary
