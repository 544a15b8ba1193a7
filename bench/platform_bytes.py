"""Bytes per move on the reference game, counted the way bench/peers counts them, and what is in
a move's frames.

A real server (`teahouse serve --bench-games`, SQLite), one handcards match (bench/games/handcards),
4 seats and `--spectators` spectators, every connection on one subprotocol (default
`teahouse.v2.msgpack`). The seats play the 60 moves one at a time (each mover asks `legal`
for its hand first; that answer is not counted). Every WebSocket
payload a connection receives after its first `view` is counted; bytes per move = the bytes
all seats (or all spectators) received / their number / moves. Then one typical move's frames
(the first move after the 10th) are printed in hex with their decoded form. Byte counts do not
depend on the machine's load.

Run:
  .venv/bin/python bench/platform_bytes.py [--subprotocol teahouse.v2.msgpack] [--spectators 2]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

import _support as S
import httpx
import msgpack
import orjson
from websockets.asyncio.client import connect

os.environ["TEAHOUSE_BENCH_GAMES"] = "1"  # the server (a child process) plays handcards
SHOWN = 12  # the seq whose frames are printed


def decode(data: bytes | str) -> Any:
    if isinstance(data, str):
        return orjson.loads(data)
    return msgpack.unpackb(data, strict_map_key=False)


def encode(msg: dict[str, Any], sub: str) -> bytes | str:
    return orjson.dumps(msg).decode() if sub.endswith("json") else msgpack.packb(msg)


async def play(srv: S.Server, sub: str, spectators: int) -> None:
    async with httpx.AsyncClient(base_url=srv.url, timeout=60) as http:
        m = (await http.post("/api/matches", json={"game": "handcards", "players": 4, "options": {"seed": 5},
                                                   "listed": False})).json()
        tokens = [(await http.post(f"/api/matches/{m['match']}/seats", json={"seat": s})).json()["token"]
                  for s in range(4)]
    match = m["match"]
    conns: list[tuple[str, Any]] = []
    for who in [*range(4), *([None] * spectators)]:
        ws = await connect(srv.ws_url, subprotocols=[sub], compression=None, ping_interval=None, max_size=1 << 22)
        await ws.send(encode({"type": "hello"}, sub))
        hello = {"type": "spectate", "match": match} if who is None else {"type": "join", "match": match,
                                                                          "token": tokens[who]}
        await ws.send(encode(hello, sub))
        while True:
            msg = decode(await ws.recv())
            if isinstance(msg, dict) and msg.get("type") == "view":
                break
        conns.append(("seat" if who is not None else "spectator", ws))
    await asyncio.sleep(0.5)  # presence settles before counting
    for _, ws in conns:  # drain what arrived meanwhile (presence)
        while True:
            try:
                await asyncio.wait_for(ws.recv(), 0.05)
            except TimeoutError:
                break
    got: dict[str, int] = {"seat": 0, "spectator": 0}
    shown: list[tuple[str, bytes | str]] = []
    for move in range(60):
        seat = move % 4
        seq = move + 2
        card = (await current_hand(conns[seat][1], match, sub))[0]  # a `legal` request, not counted
        await conns[seat][1].send(encode({"type": "move", "match": match, "id": f"m{move}",
                                          "command": {"type": "play", "card": card}}, sub))
        for i, (kind, ws) in enumerate(conns):
            frames = 1 + (i == seat)  # the patch, and the mover's ack
            for _ in range(frames):
                data = await asyncio.wait_for(ws.recv(), 30)
                got[kind] += len(data)
                if seq == SHOWN and i in (seat, (seat + 1) % 4, 4 if spectators else -1):
                    shown.append((f"{kind} {i}", data))
    for _, ws in conns:
        await ws.close()
    print(f"platform_bytes: {sub}, handcards, 4 seats + {spectators} spectators, 60 moves")
    print(f"  bytes per move: seat {got['seat'] / 4 / 60:.1f}, spectator "
          f"{got['spectator'] / max(1, spectators) / 60:.1f}  (all frames received while moving, "
          f"the acks included, as bench/peers counts them)")
    print(f"  the frames of seq {SHOWN} (the mover gets its ack too):")
    for who, data in shown:
        raw = data.encode() if isinstance(data, str) else data
        print(f"  {who:12} {len(raw):3} B  {raw.hex(' ')}")
        print(f"  {'':12}        {decode(data)!r}")


async def current_hand(ws: Any, match: str, sub: str) -> list[str]:
    await ws.send(encode({"type": "legal", "match": match}, sub))
    while True:
        msg = decode(await ws.recv())
        if isinstance(msg, dict) and msg.get("type") == "legal_moves":
            return [m["card"] for m in msg["moves"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--subprotocol", default="teahouse.v2.msgpack")
    ap.add_argument("--spectators", type=int, default=2)
    args = ap.parse_args()
    with S.Server("sqlite") as srv:
        asyncio.run(play(srv, args.subprotocol, args.spectators))


if __name__ == "__main__":
    main()
