"""A complete Teahouse client: create a match, take every seat, play random legal moves to the
end, print the result. Needs the Python SDK: `pip install ./clients/python`.

    python examples/python/random_client.py [SERVER_URL] [GAME] [PLAYERS]
"""

from __future__ import annotations

import asyncio
import json
import random
import sys

from teahouse_client import Connection, MatchView, Rejected, Stale, TeahouseClient


async def play(conn: Connection, game: MatchView, rng: random.Random) -> int:
    """Play one seat until the match is over; return how many moves it made."""
    made = 0
    while True:
        await game.wait_for(lambda g: g.over or g.my_turn, timeout=60)
        if game.over:
            return made
        seq = game.seq
        moves = await conn.legal_moves(game.match)
        if moves:
            try:
                await conn.move(game.match, rng.choice(moves))  # sends at=seq: never a stale move
                made += 1
            except (Rejected, Stale):
                pass  # another seat moved first: look again
        await game.wait_for(lambda g, seq=seq: g.seq > seq or g.over, timeout=60)


async def main(url: str, game_id: str, players: int) -> None:
    rng = random.Random(7)
    async with TeahouseClient(url) as client:
        match = (await client.create_match(game_id, players))["match"]
        print(f"match {match}: {game_id}, {players} players; watch at {url}/web/#/match/{match}")
        seats = [await client.take_seat(match, name=f"random{i}") for i in range(players)]
        conns = [await client.connect().open() for _ in seats]
        try:
            games = [await c.join(match, s["token"]) for c, s in zip(conns, seats, strict=True)]
            made = await asyncio.gather(*(play(c, g, rng) for c, g in zip(conns, games, strict=True)))
        finally:
            for c in conns:
                await c.close()
        summary = await client.match(match)
        result = summary.get("result") or {}
        print(f"finished after {summary['seq']} commits, {sum(made)} moves by this client: "
              f"winners {result.get('winners')}, scores {result.get('scores')}")
        print("result " + json.dumps({"match": match, "state": summary["state"], "result": result}))


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(args[0] if args else "http://127.0.0.1:8000", args[1] if len(args) > 1 else "pixies",
                     int(args[2]) if len(args) > 2 else 2))
