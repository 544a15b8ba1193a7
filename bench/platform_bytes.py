"""Bytes per move on the reference game, counted the way bench/peers counts them, and what is in
a move's frames.

A real server (`teahouse serve --bench-games`, SQLite), one handcards match (bench/games/handcards),
4 seats and `--spectators` spectators, every connection on one subprotocol (default
`teahouse.v2.msgpack`); every `hello` says `"said": false` as the rig's adapter does (no
sentences in patches, SPEC 4.1) unless `--said`. The seats play the 60 moves one at a time (each mover asks `legal`
for its hand first; that answer is not counted). Every WebSocket
payload a connection receives after its first `view` is counted, up to and including the
`finished` that follows the last move (the rig counts it too); bytes per move = the bytes all
seats (or all spectators) received / their number / moves, in all and per kind of frame. Then
one typical move's frames (the first move after the 10th) are printed in hex with their decoded
form. Byte counts do not depend on the machine's load.

Run:
  .venv/bin/python bench/platform_bytes.py [--subprotocol teahouse.v2.msgpack] [--spectators 2] [--said] [--dump]
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

from protocol.v2 import decode_frame

os.environ["TEAHOUSE_BENCH_GAMES"] = "1"  # the server (a child process) plays handcards
SHOWN = 12  # the seq whose frames are printed


def decode(data: bytes | str) -> Any:
    """A map (a message) or, in v2, a compact frame's elements (SPEC 12.1)."""
    if isinstance(data, str):
        return orjson.loads(data)
    return decode_frame(data, "msgpack")


def kind_of(msg: Any) -> str:
    if isinstance(msg, dict):
        return str(msg.get("type"))
    return {0: "patch", 1: "ack", 2: "finished"}.get(msg[0] & 3, "?") + " (v2)"


def encode(msg: dict[str, Any], sub: str) -> bytes | str:
    return orjson.dumps(msg).decode() if sub.endswith("json") else msgpack.packb(msg)


async def play(srv: S.Server, sub: str, spectators: int, dump: bool = False, said: bool = False) -> None:
    async with httpx.AsyncClient(base_url=srv.url, timeout=60) as http:
        m = (await http.post("/api/matches", json={"game": "handcards", "players": 4, "options": {"seed": 5},
                                                   "listed": False})).json()
        tokens = [(await http.post(f"/api/matches/{m['match']}/seats", json={"seat": s})).json()["token"]
                  for s in range(4)]
    match = m["match"]
    conns: list[tuple[str, Any]] = []
    for who in [*range(4), *([None] * spectators)]:
        ws = await connect(srv.ws_url, subprotocols=[sub], compression=None, ping_interval=None, max_size=1 << 22)
        await ws.send(encode({"type": "hello", **({} if said else {"said": False})}, sub))
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
    per_kind: dict[tuple[str, str], int] = {}
    dumped: list[tuple[int | str, bytes | str]] = []

    def count(who: str, data: bytes | str) -> None:
        got[who] += len(data)
        key = (who, kind_of(decode(data)))
        per_kind[key] = per_kind.get(key, 0) + len(data)
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
                count(kind, data)
                if dump and i == len(conns) - 1:
                    dumped.append((seq, data))
                if seq == SHOWN and i in (seat, (seat + 1) % 4, 4 if spectators else -1):
                    shown.append((f"{kind} {i}", data))
    for kind, ws in conns:  # the match is over: `finished` follows the last patch
        while True:
            try:
                data = await asyncio.wait_for(ws.recv(), 0.5)
            except TimeoutError:
                break
            count(kind, data)
            if dump and ws is conns[-1][1]:
                dumped.append(("end", data))
    for _, ws in conns:  # closed after all are read: a close changes the others' presence
        await ws.close()
    n = {"seat": 4 * 60, "spectator": max(1, spectators) * 60}
    print(f"platform_bytes: {sub}, handcards, 4 seats + {spectators} spectators, 60 moves, "
          f"{'with' if said else 'without'} sentences (hello said: {str(said).lower()})")
    print(f"  bytes per move: seat {got['seat'] / n['seat']:.1f}, spectator "
          f"{got['spectator'] / n['spectator']:.1f}  (all frames received while moving and the "
          f"`finished` after, the acks included, as bench/peers counts them)")
    for kind in sorted({k for _, k in per_kind}):
        print(f"    {kind:16} seat {per_kind.get(('seat', kind), 0) / n['seat']:5.1f}   spectator "
              f"{per_kind.get(('spectator', kind), 0) / n['spectator']:5.1f}")
    print(f"  the frames of seq {SHOWN} (the mover gets its ack too):")
    for who, data in shown:
        raw = data.encode() if isinstance(data, str) else data
        print(f"  {who:12} {len(raw):3} B  {raw.hex(' ')}")
        print(f"  {'':12}        {decode(data)!r}")
    if dump:
        print("  every frame the last connection received:")
        for seq, data in dumped:
            print(f"  {seq!s:>4} {len(data):4} B  {decode(data)!r}")


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
    ap.add_argument("--dump", action="store_true", help="print every frame the last connection received")
    ap.add_argument("--said", action="store_true", help="ask for the commits' sentences (hello without "
                    "`said: false`; the rig's adapter asks for none)")
    args = ap.parse_args()
    with S.Server("sqlite") as srv:
        asyncio.run(play(srv, args.subprotocol, args.spectators, args.dump, args.said))


if __name__ == "__main__":
    main()
