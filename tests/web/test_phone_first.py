"""Phone first: on a 390x844 touch screen, during a seat's turn, whose turn it is, the seat's clock,
the last move and the top of the board are in the first screen, the picker is a bottom sheet of
at most ~40% of the screen that never hides what was just picked, and the log is one tap away.
The lobby fits 390 px and every button in it is a finger-sized target that a tap really hits."""

from __future__ import annotations

import random

import pytest

from tests.web.conftest import (
    PHONE,
    SHOTS,
    TIMEOUT_MS,
    make_one_move,
    moves_sent,
    no_horizontal_scroll,
    shot,
    wait_seq,
)

GAMES = ["pixies", "china", "gugong", "khan", "hieroglyphs"]
SHEET_SHARE = 0.42  # "never more than ~40% of the screen"
TARGET_PX = 44  # WCAG 2.5.5's 44 CSS px; the phone rules make most 48


def phone_page(pages, name: str):
    ctx = pages.browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    ctx.set_default_timeout(TIMEOUT_MS)
    pages.contexts.append(ctx)
    page = ctx.new_page()
    page.on("pageerror", lambda e: pages.errors.append(f"{name}: {e}"))
    return page


IN_FIRST_SCREEN = """() => {
  const box = (sel) => { const el = document.querySelector(sel); if (!el) return null;
    const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, height: r.height}; };
  return { turn: box('#turn-line'), clock: box('#clock'), last: box('#last-move-line'),
           board: box('#board-root'), sheet: box('#picker-slot'), log: box('#game-log'),
           height: window.innerHeight, turnText: document.querySelector('#turn-line')?.textContent ?? '',
           title: document.title, announce: document.querySelector('#announce')?.textContent ?? '' };
}"""


def assert_first_screen(page, game: str) -> None:
    got = page.evaluate(IN_FIRST_SCREEN)
    height = got["height"]
    assert got["turnText"] == "Your turn", got["turnText"]
    for part in ("turn", "clock", "last"):
        box = got[part]
        assert box is not None, f"{game}: no {part} on the page"
        assert 0 <= box["top"] and box["bottom"] <= height, f"{game}: the {part} is out of the first screen: {box}"
    assert got["board"]["top"] < height * 0.6, f"{game}: the board starts at {got['board']['top']} px"
    sheet = got["sheet"]
    assert sheet is not None and sheet["height"] <= SHEET_SHARE * height, f"{game}: the picker covers {sheet}"
    assert got["title"].startswith("● Your turn"), got["title"]
    assert "Your turn." in got["announce"], got["announce"]


def picked_is_above_the_sheet(page) -> bool:
    return page.evaluate("""() => {
      const picked = [...document.querySelectorAll('#board-root .picked')].pop();
      const sheet = document.querySelector('#picker-slot');
      if (!picked || !sheet) return true;
      return picked.getBoundingClientRect().bottom <= sheet.getBoundingClientRect().top + 1;
    }""")


@pytest.mark.parametrize("game", GAMES)
def test_a_phone_seat_sees_its_turn_clock_last_move_and_board_in_the_first_screen(game, pages, api):
    info = {g["id"]: g for g in api.get("/api/games").json()}[game]
    players = info["min_players"]
    body = {"game": game, "players": players, "turn_seconds": 3600,
            "bots": [{"seat": s, "strength": 0} for s in range(1, players)]}
    created = api.post("/api/matches", json=body)
    assert created.status_code == 201, created.text
    match = created.json()["match"]
    token = api.post(f"/api/matches/{match}/seats", json={"name": "Ada", "seat": 0}).json()["token"]
    page = phone_page(pages, f"{game}-phone")
    page.goto(pages.base + "/web/")
    page.evaluate("([m, t]) => localStorage.setItem('teahouse.seats', JSON.stringify({[m]: {0: t}}))", [match, token])
    page.goto(f"{pages.base}/web/#/match/{match}?seat=0")
    rng = random.Random(game)
    turns = 0
    while turns < 3:
        page.wait_for_selector("#turn-strip.mine #turn-line, #the-end", timeout=30_000)
        if page.locator("#the-end").count():
            break
        page.wait_for_selector("#picker #confirm-move")
        page.evaluate("() => window.scrollTo(0, 0)")
        assert_first_screen(page, game)
        assert no_horizontal_scroll(page), f"{game}: the match page scrolls sideways"
        if turns == 0:
            SHOTS.mkdir(parents=True, exist_ok=True)  # what the thumb sees: the viewport only
            page.screenshot(path=str(SHOTS / f"{game}-phone-first-screen.png"))
        seq = int(page.locator("#seq").inner_text().split()[-1])
        options = page.locator("#board-root .pickable")
        sent = moves_sent(page)
        if options.count():
            options.first.tap()
        if moves_sent(page) == sent:  # not a whole move yet: what was picked stays above the sheet
            if options.count():
                assert picked_is_above_the_sheet(page), f"{game}: the sheet hides what was just picked"
                page.locator("#cancel-move").tap()
            make_one_move(page, rng, seq)
        wait_seq(page, seq + 1)
        turns += 1
    assert turns >= 1, f"{game}: the seat never had a turn"
    # the log is one tap away, and a keyboard can scroll it
    page.locator("#to-log").tap()
    log = page.evaluate(IN_FIRST_SCREEN)["log"]
    assert log is not None and 0 <= log["top"] < PHONE["height"], log
    assert page.evaluate("() => document.activeElement?.id") == "game-log"
    assert not pages.errors, pages.errors


def test_the_lobby_fits_a_phone_and_every_tap_hits_its_button(pages, api):
    match = api.post("/api/matches", json={"game": "khan", "players": 3}).json()["match"]
    page = phone_page(pages, "lobby-phone")
    page.goto(pages.base + "/web/")
    row = page.locator(f'tr[data-match="{match}"]')
    row.wait_for()
    assert no_horizontal_scroll(page), "the lobby scrolls sideways on a phone"
    shot(page, "lobby-phone")
    for button in page.locator("#create-match, .take-seat, a.watch, a.replay").all()[:12]:
        box = button.bounding_box()
        assert box["height"] >= TARGET_PX and box["width"] >= TARGET_PX, (button.inner_text(), box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (button.inner_text(), box)
    take = row.locator("button.take-seat", has_text="Take seat 1")
    take.scroll_into_view_if_needed()
    box = take.bounding_box()
    hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.textContent", [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
    assert hit == "Take seat 1", hit
    take.tap()
    page.wait_for_url(f"**/#/match/{match}?seat=1")
    assert api.get(f"/api/matches/{match}").json()["seats"][1]["taken"]
    assert not pages.errors, pages.errors
