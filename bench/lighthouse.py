"""Lighthouse on the web client: the lobby and a live match page of every game, on a phone.

Starts a real server (`teahouse serve`, a temp SQLite directory; bench/_support.py), and per
game creates a match with the server's bots in every seat but seat 0, takes seat 0 and plays
`--moves` of its random legal moves over a real WebSocket (the bots answer), so the match page
shows a position in play. Then runs Lighthouse 12.2.3 (pinned in bench/lighthouse/package-lock.json;
`npm ci` there once) against Debian's Chromium (`CHROME_PATH=/usr/bin/chromium`, headless,
Lighthouse's default mobile form factor and throttling: a Moto G Power on slow 4G, 4x CPU
slowdown, simulated) for `/web/` and `/web/#/match/<id>` of each game, as a spectator sees it.

Prints, per page: the performance and accessibility scores, CLS, LCP, TBT, the bytes
transferred, and the accessibility audits that failed. `--json DIR` keeps each full report.

    (cd bench/lighthouse && npm ci)          # once
    .venv/bin/python bench/lighthouse.py [--games khan,pixies,...] [--moves 4] [--runs 1] [--json DIR]

The performance score moves with the machine's load (Lighthouse simulates the network and CPU
from a trace taken on this machine); `--runs N` reports the median of N runs per page.
CLS, transfer size and accessibility do not depend on the load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from _support import ROOT, Conn, Server, apply_inplace, loadavg, machine

LIGHTHOUSE = ROOT / "bench" / "lighthouse" / "node_modules" / "lighthouse" / "cli" / "index.js"
CHROMIUM = "/usr/bin/chromium"
GAMES = ["china", "gugong", "hieroglyphs", "khan", "pixies"]


async def live_match(server: Server, game: str, moves: int, rng: random.Random) -> str:
    """A match of `game` with bots in every seat but 0, after seat 0 played `moves` random moves
    (fewer if the match ends first): a position in play, waiting for seat 0."""
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        players = next(g["min_players"] for g in (await http.get("/api/games")).json() if g["id"] == game)
        r = await http.post("/api/matches", json={
            "game": game, "players": players, "listed": True,
            "bots": [{"seat": s, "strength": 0} for s in range(1, players)]})
        r.raise_for_status()
        mid = r.json()["match"]
        r = await http.post(f"/api/matches/{mid}/seats", json={"seat": 0, "name": "Ada"})
        r.raise_for_status()
        token = r.json()["token"]
    state: dict[str, Any] = {"doc": None, "seq": 0}
    turn = asyncio.Event()

    def on_message(conn: Conn, msg: dict[str, Any], t: float) -> None:
        if msg.get("type") == "patch" and state["doc"] is not None:
            state["doc"] = apply_inplace(state["doc"], msg["ops"])
            state["seq"] = msg["seq"]
            turn.set()

    conn = await Conn.open(server.ws_url, on_message)
    try:
        view = await conn.request(("view", mid), {"type": "join", "match": mid, "token": token})
        state["doc"], state["seq"] = view["doc"], view["seq"]
        played = 0
        deadline = asyncio.get_running_loop().time() + 120
        while played < moves and asyncio.get_running_loop().time() < deadline:
            status = state["doc"].get("status", {})
            if status.get("finished"):
                break
            if 0 not in (status.get("to_act") or []):
                turn.clear()
                await asyncio.wait_for(turn.wait(), 60)
                continue
            legal = await conn.request(("legal_moves", mid), {"type": "legal", "match": mid})
            cmd = rng.choice(legal["moves"])
            await conn.request(f"m{played}", {"type": "move", "id": f"m{played}", "match": mid, "command": cmd})
            played += 1
        # wait until it is seat 0's turn again (the bots answered), so the page shows a settled position
        while not state["doc"]["status"].get("finished") and 0 not in (state["doc"]["status"].get("to_act") or []):
            turn.clear()
            await asyncio.wait_for(turn.wait(), 60)
    finally:
        await conn.close()
    return mid


def lighthouse(url: str, out: Path) -> dict[str, Any]:
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    cmd = ["node", str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
           "--only-categories=performance,accessibility", "--form-factor=mobile",
           "--chrome-flags=--headless=new --no-sandbox --disable-gpu --no-first-run"]
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    return json.loads(out.read_text())


def figures(report: dict[str, Any]) -> dict[str, Any]:
    cats, audits = report["categories"], report["audits"]
    failed = sorted(a for a in (ref["id"] for ref in cats["accessibility"]["auditRefs"] if ref["weight"] > 0)
                    if audits[a]["score"] is not None and audits[a]["score"] < 1)
    return {
        "performance": round(cats["performance"]["score"] * 100),
        "accessibility": round(cats["accessibility"]["score"] * 100),
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "lcp_ms": audits["largest-contentful-paint"]["numericValue"],
        "tbt_ms": audits["total-blocking-time"]["numericValue"],
        "fcp_ms": audits["first-contentful-paint"]["numericValue"],
        "bytes": audits["total-byte-weight"]["numericValue"],
        "failed": failed,
        "opportunities": sorted(
            a["id"] for a in audits.values()
             if a.get("details", {}).get("type") == "opportunity" and (a.get("numericValue") or 0) > 0
             and a["score"] is not None and a["score"] < 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--moves", type=int, default=4, help="seat 0's moves before the page is measured")
    ap.add_argument("--runs", type=int, default=1, help="Lighthouse runs per page (the median is printed)")
    ap.add_argument("--json", type=Path, help="a folder to keep each full report in")
    args = ap.parse_args()
    if not LIGHTHOUSE.exists():
        raise SystemExit("Lighthouse is not installed: (cd bench/lighthouse && npm ci)")
    version = json.loads((LIGHTHOUSE.parent.parent / "package.json").read_text())["version"]
    print(f"machine: {machine()}")
    print(f"Lighthouse {version}, {CHROMIUM} ({subprocess.run([CHROMIUM, '--version'], capture_output=True, text=True).stdout.strip()}), "
          f"mobile, simulated throttling; {args.runs} run(s) per page, median")
    rng = random.Random(1)
    keep = args.json
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    with Server("sqlite") as server, tempfile.TemporaryDirectory() as tmp:
        pages = [("lobby", f"{server.url}/web/")]
        for game in args.games.split(","):
            mid = asyncio.run(live_match(server, game, args.moves, rng))
            pages.append((game, f"{server.url}/web/#/match/{mid}"))
        rows = []
        for name, url in pages:
            runs = []
            for i in range(args.runs):
                out = (keep or Path(tmp)) / f"{name}-{i}.json"
                runs.append(figures(lighthouse(url, out)))
            med = {k: statistics.median(r[k] for r in runs) for k in ("performance", "accessibility", "cls", "lcp_ms",
                                                                      "tbt_ms", "fcp_ms", "bytes")}
            med["failed"] = sorted({a for r in runs for a in r["failed"]})
            med["opportunities"] = sorted({a for r in runs for a in r["opportunities"]})
            rows.append((name, med))
        print()
        print("| page | performance | accessibility | CLS | LCP ms | FCP ms | TBT ms | transfer KiB |")
        print("|---|---|---|---|---|---|---|---|")
        for name, m in rows:
            print(f"| {name} | {m['performance']:.0f} | {m['accessibility']:.0f} | {m['cls']:.3f} | {m['lcp_ms']:.0f} | "
                  f"{m['fcp_ms']:.0f} | {m['tbt_ms']:.0f} | {m['bytes'] / 1024:.1f} |")
        print()
        for name, m in rows:
            if m["failed"] or m["opportunities"]:
                print(f"{name}: accessibility audits failed: {', '.join(m['failed']) or 'none'}; "
                      f"performance opportunities: {', '.join(m['opportunities']) or 'none'}")
        print(f"load avg at the end: {loadavg()}")


if __name__ == "__main__":
    sys.exit(main())
