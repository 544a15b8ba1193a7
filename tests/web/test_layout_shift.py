"""No layout jump: the Cumulative Layout Shift of the lobby and of a match page of every game,
seated and watching, stays under 0.1, the bound web.dev gives for a "good" page
(https://web.dev/articles/cls: "sites should strive to have a CLS score of 0.1 or less").

Measured in Debian's Chromium with the Layout Instability API (a PerformanceObserver of
`layout-shift` entries, buffered from the navigation on, those after a person's input left out,
as the metric says). The sum of every entry is taken, which is at least CLS (the largest
session window of entries), so the bound is checked with margin. The page is loaded as a phone
on a slow link would load it (Chromium's CPU throttling ×4 and 150 ms more per request,
through the DevTools protocol): the data then arrives after the first paint, which is when a
page that does not keep the places of what is still to come jumps."""

from __future__ import annotations

import pytest

from tests.web.conftest import PHONE, TIMEOUT_MS

GAMES = ["pixies", "china", "gugong", "khan", "hieroglyphs"]
CLS_GOOD = 0.1

OBSERVE = """() => {
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.hadRecentInput) continue;
      window.__shifts.push({ value: e.value, at: Math.round(e.startTime),
        sources: e.sources.map((s) => { const n = s.node?.nodeType === 1 ? s.node : s.node?.parentElement;
          return n ? `${n.tagName.toLowerCase()}${n.id ? '#' + n.id : ''}.${String(n.className?.baseVal ?? n.className ?? '')}` : '?'; }) });
    }
  }).observe({ type: 'layout-shift', buffered: true });
}"""


def slow_phone(pages, name: str):
    ctx = pages.browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
    ctx.set_default_timeout(TIMEOUT_MS * 3)
    pages.contexts.append(ctx)
    page = ctx.new_page()
    page.on("pageerror", lambda e: pages.errors.append(f"{name}: {e}"))
    page.add_init_script(f"({OBSERVE})()")
    cdp = ctx.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions",
             {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8 * 1024 // 1000,
              "uploadThroughput": 750_000 / 8 * 1024 // 1000})
    return page


def settled_shifts(page, ready: str) -> list[dict]:
    """The layout shifts once the page has drawn `ready`, its fonts and its last request."""
    page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")
    page.evaluate("() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))")
    page.wait_for_timeout(500)  # a frame or two after the last change, for the observer's last entries
    return page.evaluate("window.__shifts")


def test_the_lobby_does_not_jump(pages):
    page = slow_phone(pages, "lobby")
    page.goto(pages.base + "/web/")
    shifts = settled_shifts(page, "#match-rows")
    assert sum(s["value"] for s in shifts) < CLS_GOOD, shifts
    assert pages.errors == []


@pytest.mark.parametrize("game", GAMES)
def test_a_match_page_does_not_jump_seated_or_watching(game, pages, api):
    players = {g["id"]: g for g in api.get("/api/games").json()}[game]["min_players"]
    created = api.post("/api/matches", json={"game": game, "players": players, "turn_seconds": 3600,
                                             "bots": [{"seat": s, "strength": 0} for s in range(1, players)]})
    assert created.status_code == 201, created.text
    match = created.json()["match"]
    token = api.post(f"/api/matches/{match}/seats", json={"name": "Ada", "seat": 0}).json()["token"]
    for who, seat in (("watching", None), ("seated", 0)):
        page = slow_phone(pages, f"{game}-{who}")
        if seat is not None:  # the seat's token where the page looks for it, before the page's first script
            page.add_init_script(f"localStorage.setItem('teahouse.seats', JSON.stringify({{{match!r}: {{0: {token!r}}}}}))")
        page.goto(f"{pages.base}/web/#/match/{match}" + (f"?seat={seat}" if seat is not None else ""))
        # seated, on its turn: measured once the legal moves are in the picker too
        page.wait_for_function("() => document.querySelector('#turn-line') && (!document.querySelector('#turn-strip.mine')"
                               " || document.querySelector('#picker #confirm-move'))", timeout=TIMEOUT_MS * 3)
        shifts = settled_shifts(page, "#turn-line")
        assert sum(s["value"] for s in shifts) < CLS_GOOD, (game, who, shifts)
    assert pages.errors == []
