"""False divergences under a full-speed flood: healthy matches must never be marked `diverged`.

    .venv/bin/python bench/ops_divergence_soak.py [--minutes 10] [--matches 8] [--store redis]

One node on a private redis-server (or SQLite). `--matches` Pixies matches at a time, every seat a
server bot of strength 0 (they move as fast as the node commits), each watched by one spectator
connection so that the node follows the match's stream and runs its rewind check against it,
which is where a false divergence came from: the check compared a stream's top read before the
node's own append with the follower's position after it. A match that finishes is replaced by a
new one until the time is up. Nothing here shortens a log, so every `diverged` match is a false
one. Prints per minute the matches finished, commits and diverged so far; at the end the totals,
`/health`'s `diverged_matches` and every diverged match's id and seq. Exits 1 on any divergence.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from _support import Conn, Server, loadavg  # noqa: E402


class Soak:
    def __init__(self, server: Server, players: int = 2) -> None:
        self.server = server
        self.players = players
        self.http = httpx.AsyncClient(base_url=server.url, timeout=60)
        self.finished = 0
        self.commits = 0
        self.diverged: dict[str, int] = {}

    async def one_match(self) -> None:
        bots = [{"seat": s, "strength": 0} for s in range(self.players)]
        r = await self.http.post("/api/matches", json={"game": "pixies", "players": self.players, "bots": bots})
        r.raise_for_status()
        match = r.json()["match"]
        done = asyncio.get_running_loop().create_future()

        def on_message(_conn: Conn, msg: dict, _t: float) -> None:
            if msg.get("type") == "finished" and not done.done():
                done.set_result(None)

        spectator = await Conn.open(self.server.ws_url, on_message)
        await spectator.send({"type": "spectate", "match": match})
        try:
            while not done.done():
                try:
                    await asyncio.wait_for(asyncio.shield(done), 2)
                except TimeoutError:
                    got = (await self.http.get(f"/api/matches/{match}")).json()
                    if got["state"] == "diverged":
                        self.diverged[match] = got["seq"]
                        return
            got = (await self.http.get(f"/api/matches/{match}")).json()
            if got["state"] == "diverged":
                self.diverged[match] = got["seq"]
            else:
                self.finished += 1
                self.commits += got["seq"]
        finally:
            await spectator.ws.close()

    async def table(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            await self.one_match()

    async def run(self, minutes: float, matches: int) -> None:
        start = time.monotonic()
        deadline = start + minutes * 60
        tables = [asyncio.create_task(self.table(deadline)) for _ in range(matches)]
        while not all(t.done() for t in tables):
            await asyncio.wait(tables, timeout=60)
            print(f"  {(time.monotonic() - start) / 60:5.1f} min: {self.finished} matches finished, "
                  f"{self.commits} commits, {len(self.diverged)} diverged  (load {loadavg()})", flush=True)
        for t in tables:
            t.result()
        health = (await self.http.get("/health")).json()
        print(f"total: {self.finished} matches, {self.commits} commits in {minutes} min; diverged: "
              f"{len(self.diverged)} seen, /health diverged_matches {health.get('diverged_matches')}")
        for match, seq in self.diverged.items():
            print(f"  diverged: {match} at seq {seq}")
        await self.http.aclose()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--matches", type=int, default=8, help="matches played at the same time")
    ap.add_argument("--store", default="redis")
    args = ap.parse_args()
    with Server(args.store) as server:
        soak = Soak(server)
        print(f"divergence soak: {args.matches} matches at a time, {args.minutes} min, store {args.store}")
        asyncio.run(soak.run(args.minutes, args.matches))
        return 1 if soak.diverged else 0


if __name__ == "__main__":
    sys.exit(main())
