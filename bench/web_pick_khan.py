"""How long one pick on Khan's board takes in the browser, with the ~2,000 legal moves of a turn.

A Khan turn offers about 2,000 legal moves (mostly invasions of choice: every free land cell
times every subset of the hand to discard). Pointing at something narrows them, redraws the board
and re-marks what may come next, all inside the click's handler. This starts a real server and
Debian's Chromium, opens seat 0 at the start of a match and times, in the page, the click
handler of: a hand card (invade), the Escape that cancels it, "invasion of choice" (140 cells lit)
and a cell after it. Prints the median and worst of each over the rounds.

    .venv/bin/python bench/web_pick_khan.py [rounds]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.server import sqlite_server  # noqa: E402

TIME_CLICK = """(token) => {
  const el = document.querySelector(`#board-root .pickable[data-pick="${token}"], #choices [data-pick="${token}"]`);
  const t0 = performance.now();
  el.dispatchEvent(new MouseEvent("click", { bubbles: true }));
  return performance.now() - t0;
}"""
TIME_ESCAPE = """() => {
  const t0 = performance.now();
  document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
  return performance.now() - t0;
}"""
NEXT = "() => [...document.querySelectorAll('#board-root .pickable[data-pick], #choices [data-pick]')].map((e) => e.getAttribute('data-pick'))"


def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, sqlite_server(Path(tmp)) as server, sync_playwright() as p:
        api = httpx.Client(base_url=server.url, timeout=10)
        mid = api.post("/api/matches", json={"game": "khan", "players": 2, "options": {"start_player": 0}}).json()["match"]
        token = api.post(f"/api/matches/{mid}/seats", json={"seat": 0, "name": "Ada"}).json()["token"]
        api.post(f"/api/matches/{mid}/seats", json={"seat": 1, "name": "Bob"})
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server.url + "/web/")
        page.evaluate("([m, t]) => localStorage.setItem('teahouse.seats', JSON.stringify({[m]: {0: t}}))", [mid, token])
        page.goto(f"{server.url}/web/#/match/{mid}?seat=0")
        page.wait_for_selector("#picker #confirm-move")
        moves = int(page.locator("#move-list summary").inner_text().split()[1])
        times: dict[str, list[float]] = {"hand card": [], "escape": [], "invasion of choice": [], "a cell after it": []}
        for _ in range(rounds):
            card = next(t for t in page.evaluate(NEXT) if t.startswith("card:"))
            times["hand card"].append(page.evaluate(TIME_CLICK, card))
            times["escape"].append(page.evaluate(TIME_ESCAPE))
            times["invasion of choice"].append(page.evaluate(TIME_CLICK, "choice"))
            cell = next(t for t in page.evaluate(NEXT) if t.startswith("cell:"))
            times["a cell after it"].append(page.evaluate(TIME_CLICK, cell))
            page.evaluate(TIME_ESCAPE)
        print(f"Khan, seat 0, turn 1: {moves} legal moves; one pick, click handler to redrawn board ({rounds} rounds)")
        for name, ts in times.items():
            print(f"  {name:20s} median {statistics.median(ts):6.1f} ms   worst {max(ts):6.1f} ms")
        browser.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
