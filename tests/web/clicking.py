"""Playing a match in the browser by pointing at the board, as a person does.

A seat's page marks what may be picked next (`.pickable` on the board, buttons in the picker's
choice bar, both with `data-pick`), and Confirm sends the move once a whole move is picked. The
helpers here only click: they never send a command over HTTP or the WebSocket. A `policy` picks
among what the page offers, so each game's test steers its match (and keeps it short).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright import sync_api  # the test extra; the browser is Debian's, never a Playwright download

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
TIMEOUT_MS = 15_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# What a page offers right now: the picked tokens, the tokens that may come next (drawn on the
# board or as choice buttons), whether Confirm would send a whole move.
OFFER_JS = """() => {
  const picker = document.querySelector('#picker');
  if (!picker) return null;
  const next = [...document.querySelectorAll('#board-root .pickable[data-pick], #choices [data-pick]')]
    .filter((el) => !el.disabled).map((el) => el.getAttribute('data-pick'));
  const confirm = document.querySelector('#confirm-move');
  return { next: [...new Set(next)], confirm: !!confirm && !confirm.disabled,
           picked: document.querySelector('#picked')?.textContent ?? '',
           seq: Number(document.querySelector('#seq').textContent.split(' ').pop()) };
}"""


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail("Debian's chromium is missing: run ./deploy/bootstrap.sh --with-redis")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield b
        b.close()


class Pages:
    """Pages each in its own context (own localStorage: own seat tokens), every JavaScript error
    and console error collected so a test can insist there were none."""

    def __init__(self, browser, base: str) -> None:
        self.browser, self.base = browser, base
        self.errors: list[str] = []
        self.contexts: list = []

    def new(self, name: str, viewport: dict | None = None):
        ctx = self.browser.new_context(viewport=viewport or DESKTOP)
        ctx.set_default_timeout(TIMEOUT_MS)
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: self.errors.append(f"{name}: {e}"))
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"{name} console: {m.text}"))
        return page

    def close(self) -> None:
        for ctx in self.contexts:
            ctx.close()


def seq_of(page) -> int:
    return int(page.locator("#seq").inner_text().split()[-1])


def wait_seq(page, at_least: int) -> None:
    page.wait_for_function(
        "n => { const el = document.querySelector('#seq'); return el && Number(el.textContent.split(' ').pop()) >= n }",
        arg=at_least)


def create_and_sit(base: str, pages: Pages, game: str, options: str, names: tuple[str, ...]) -> tuple[str, dict]:
    """The first person creates the match from the lobby and sits; the others take their seats
    from their own lobby. Returns the match id and {seat: page}."""
    first = pages.new(names[0].lower())
    first.goto(base + "/web/")
    first.wait_for_selector("#create-match")
    first.fill("#my-name", names[0])
    first.select_option("#new-game", game)
    first.fill("#new-players", str(len(names)))
    first.fill("#new-options", options)
    first.click("#create-match")
    first.wait_for_url(re.compile(r"#/match/[\w-]+\?seat=0"))
    match = re.search(r"#/match/([\w-]+)", first.url).group(1)
    seats = {0: first}
    for seat, name in enumerate(names[1:], start=1):
        page = pages.new(name.lower())
        page.goto(base + "/web/")
        page.fill("#my-name", name)
        page.locator(f'tr[data-match="{match}"] button.take-seat[data-seat="{seat}"]').click()
        page.wait_for_url(re.compile(rf"#/match/{match}\?seat={seat}"))
        seats[seat] = page
    return match, seats


def watch(base: str, pages: Pages, match: str, name: str = "watcher", viewport: dict | None = None):
    page = pages.new(name, viewport)
    page.goto(base + "/web/")
    page.locator(f'tr[data-match="{match}"] a.watch').click()
    page.wait_for_selector("text=You are watching")
    return page


def offer(page) -> dict | None:
    return page.evaluate(OFFER_JS)


def pick(page, token: str) -> None:
    """Point at the thing carrying `token`: on the board if it is drawn there, else its button."""
    target = page.locator(f'#board-root .pickable[data-pick="{token}"], #choices [data-pick="{token}"]').first
    target.scroll_into_view_if_needed()
    target.click()


Policy = Callable[[int, dict, list[str]], str]


def play_one_move(page, seat: int, policy: Policy, steps_max: int = 30) -> list[str]:
    """Build one whole move on `page` by pointing, then Confirm. `policy(seat, offer, picked)`
    returns the next token or "confirm". Returns the tokens picked."""
    picked: list[str] = []
    for _ in range(steps_max):
        now = offer(page)
        assert now is not None, "the picker went away in the middle of a move"
        choice = policy(seat, now, picked)
        if choice == "confirm":
            assert now["confirm"], f"the policy confirmed an incomplete move {picked}"
            page.click("#confirm-move")
            return picked
        assert choice in now["next"], f"{choice} is not offered: {now['next']}"
        pick(page, choice)  # the picker redraws in the click's own handler: the next offer is there
        picked.append(choice)
    raise AssertionError(f"no whole move after {steps_max} picks: {picked}")


def acting(seats: dict, seq: int, timeout_ms: int = TIMEOUT_MS) -> int:
    """The seat whose page, at `seq`, offers a move (the picker bar is there)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        for seat, page in seats.items():
            o = offer(page)
            if o is not None and o["seq"] == seq and o["next"]:
                return seat
        time.sleep(0.03)
    raise AssertionError(f"no page offers a move at seq {seq}")


def no_horizontal_scroll(page) -> None:
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page scrolls sideways: {width[0]} px content in a {width[1]} px window"


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def tab_reaches_a_pickable(page, presses: int = 400) -> str:
    """Walk the page with Tab until the focus is on something to pick; returns its token."""
    page.evaluate("() => document.activeElement?.blur()")
    for _ in range(presses):
        page.keyboard.press("Tab")
        token = page.evaluate("() => document.activeElement?.classList.contains('pickable') ? document.activeElement.getAttribute('data-pick') : null")
        if token:
            return token
    raise AssertionError("Tab never reaches a board control")
