"""`teahouse replay`: print a finished match commit by commit, as one audience saw it.

The log of a finished match is public and holds every event, so it is fetched once and folded
here with the game's own reducer; nothing is asked of the server per commit.
"""

from __future__ import annotations

import asyncio

import orjson
from teahouse_client import TeahouseClient

from service.games import fold, get_game


async def run_replay(url: str, match: str, seat: int | None = None, step: bool = False) -> int:
    """Print `match` commit by commit; returns the exit code."""
    client = TeahouseClient(url)
    try:
        log = await client.log(match)
    finally:
        await client.aclose()
    game = get_game(log["game"])
    state = game.initial(log["options"], log["players"])
    print(f"match {match}: {log['game']}, {log['players']} players, {len(log['commits'])} commits; "
          f"seed {log['seed']} (sha256 {log['seed_sha256']})")
    for c in log["commits"]:
        state = fold(game, c["events"], state, log.get("rules_version"))
        who = "system" if c["seat"] is None else f"seat {c['seat']}"
        print(f"--- seq {c['seq']}: {who} {orjson.dumps(c['command']).decode()}")
        for line in c.get("said") or []:  # the server's words for the commit (SPEC 3.14)
            print(f"    > {line}")
        for e in c["events"]:
            print(f"    {orjson.dumps(e).decode()[:200]}")
        st = game.status(state)
        print(f"    phase {st['phase']}, to act {st['to_act']}")
        if seat is not None:
            print(f"    seat {seat} sees {orjson.dumps(game.view(state, seat)).decode()[:200]}")
        if step:
            await asyncio.to_thread(input, "    [Enter] ")
    print(f"result: {orjson.dumps(log.get('result')).decode()}")
    return 0
