"""`teahouse replay`: print a finished match commit by commit, as one audience saw it."""

from __future__ import annotations

import asyncio

import orjson

from clients.python.client import ServerError, TeahouseClient


async def run_replay(url: str, match: str, seat: int | None = None, step: bool = False) -> int:
    client = TeahouseClient(url)
    try:
        log = await client.log(match)
    except ServerError as exc:
        print(f"cannot replay {match}: {exc.message}")
        await client.aclose()
        return 1
    print(f"match {match}: {log['game']}, {log['players']} players, {len(log['commits'])} commits; "
          f"seed {log['seed']} (sha256 {log['seed_sha256']})")
    for c in log["commits"]:
        frame = await client.replay(match, c["seq"], seat)
        who = "system" if c["seat"] is None else f"seat {c['seat']}"
        print(f"--- seq {c['seq']}: {who} {orjson.dumps(c['command']).decode()}")
        for line in c.get("said") or []:  # the server's words for the commit (SPEC 3.14)
            print(f"    > {line}")
        for e in c["events"]:
            print(f"    {orjson.dumps(e).decode()[:200]}")
        st = frame["status"]
        print(f"    phase {st['phase']}, to act {st['to_act']}")
        if step:
            await asyncio.to_thread(input, "    [Enter] ")
    print(f"result: {orjson.dumps(log.get('result')).decode()}")
    await client.aclose()
    return 0
