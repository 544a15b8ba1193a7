from __future__ import annotations

import gc
import random
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright import sync_api  # the test extra; the browser is Debian's, never a Playwright download

from service.games import get_game
from service.games.interface import fold
from tests.support.server import ServerProcess
from tests.support.server import sqlite_server as running_sqlite_server

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
# Screenshots a person can look at after a run (README names this folder; git ignores it).
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
TIMEOUT_MS = 10_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module", autouse=True)
def _collect_garbage_left_by_earlier_tests():
    """Playwright allocates enough to run the garbage collector in the middle of a browser
    test; collect before, so that nothing left for it runs there. Nothing is hidden: the
    end-to-end tests close what they open in their own teardown (tests/e2e/conftest.py), so a
    ResourceWarning here is a real leak of an earlier test, reported as the error it is."""
    gc.collect()
    yield


@pytest.fixture(scope="session")
def web_server(tmp_path_factory):
    """A real server (sqlite store) serving the web client at /web/ and the JS SDK at /js/."""
    with running_sqlite_server(tmp_path_factory.mktemp("web")) as proc:
        yield proc


@pytest.fixture(scope="module")
def browser():
    # per module: Playwright's sync API keeps an event loop running while it is open, which
    # asyncio tests collected after these would trip over
    if not CHROMIUM.exists():
        pytest.fail("Debian's chromium is missing: run ./deploy/bootstrap.sh --with-redis")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield b
        b.close()


class Pages:
    """New pages, each in its own context (its own localStorage: its own seat tokens), with
    every JavaScript error collected so the test can insist there were none."""

    def __init__(self, browser, base: str) -> None:
        self.browser, self.base = browser, base
        self.errors: list[str] = []
        self.contexts: list = []

    def new(self, name: str, viewport: dict[str, int] = DESKTOP):
        ctx = self.browser.new_context(viewport=viewport)
        ctx.set_default_timeout(TIMEOUT_MS)
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: self.errors.append(f"{name}: {e}"))
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"{name} console: {m.text}"))
        return page

    def close(self) -> None:
        for ctx in self.contexts:
            ctx.close()


@pytest.fixture
def api(web_server: ServerProcess):
    with httpx.Client(base_url=web_server.url, timeout=10) as client:
        yield client


@pytest.fixture
def pages(browser, web_server: ServerProcess):
    p = Pages(browser, web_server.url)
    yield p
    p.close()


def seq_of(page) -> int:
    return int(page.locator("#seq").inner_text().split()[-1])


def wait_seq(page, at_least: int, timeout: int = TIMEOUT_MS) -> None:
    page.wait_for_function(
        "n => { const el = document.querySelector('#seq'); return el && Number(el.textContent.split(' ').pop()) >= n }",
        arg=at_least, timeout=timeout)


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def create_in_lobby(page, base: str, game: str, players: int, options: str, name: str,
                    delay: tuple[int, str] | None = None, selects: dict[str, str] | None = None) -> str:
    """Create a match from the lobby form and sit down in seat 0; returns the match id.
    `delay`: a spectator delay, (amount, "commits" or "seconds"); `selects`: more of the form's
    choices, {selector: value} (who plays a seat, who may watch)."""
    page.goto(base + "/web/")
    page.wait_for_selector("#create-match")
    page.fill("#my-name", name)
    page.select_option("#new-game", game)
    page.fill("#new-players", str(players))
    page.fill("#new-options", options)
    if delay is not None:
        page.fill("#new-delay", str(delay[0]))
        page.select_option("#new-delay-unit", delay[1])
    for selector, value in (selects or {}).items():
        page.select_option(selector, value)
    page.click("#create-match")
    page.wait_for_url(re.compile(r"#/match/[\w-]+\?seat=0"))
    return re.search(r"#/match/([\w-]+)", page.url).group(1)


def sit_from_lobby(page, base: str, match: str, seat: int, name: str) -> None:
    page.goto(base + "/web/")
    page.fill("#my-name", name)
    page.locator(f'tr[data-match="{match}"] button.take-seat', has_text=f"Take seat {seat}").click()
    page.wait_for_url(re.compile(rf"#/match/{match}\?seat={seat}"))


def watch_from_lobby(page, base: str, match: str) -> None:
    page.goto(base + "/web/")
    page.locator(f'tr[data-match="{match}"] a.watch').click()
    page.wait_for_selector("text=You are watching")


def moves_sent(page) -> int:
    """How many moves the page has sent (a pick that can mean one move only sends it at once)."""
    return int(page.evaluate("() => Number(document.body.dataset.moves ?? 0)"))


def make_one_move(page, rng: random.Random, seq: int, prefer: list[str] = ()) -> list[str]:
    """Make one whole move on the page by pointing: pick highlighted board elements or choice
    buttons until the move goes by itself (the picks can mean one move only) or Confirm is
    possible, then (sometimes after further optional picks) confirm. Tokens listed in `prefer`
    are picked whenever they are offered (to steer a match to its end). Returns the picked
    tokens."""
    wait_seq(page, seq)
    page.wait_for_selector("#picker #confirm-move")
    sent = moves_sent(page)
    picked: list[str] = []
    for _ in range(40):
        if moves_sent(page) > sent:
            return picked
        confirm = page.locator("#confirm-move:not([disabled])")
        options = page.locator("#board-root .pickable, #choices button")
        n = options.count()
        if confirm.count() and (n == 0 or rng.random() < 0.6):
            confirm.click()
            return picked
        assert n, "nothing to pick and nothing to confirm"
        tokens = [options.nth(i).get_attribute("data-pick") for i in range(n)]
        wanted = [i for i, t in enumerate(tokens) if t in prefer]
        i = wanted[0] if wanted else rng.randrange(n)
        picked.append(tokens[i])
        options.nth(i).click()
    raise AssertionError(f"no whole move after picking {picked}")


def secrets_along(api: httpx.Client, match: str, seqs: list[int]) -> dict[int, set[str]]:
    """For each seq, every string only some seat (or nobody) may see then, from the engine's
    own `secrets` over the public log of the finished match."""
    log = api.get(f"/api/matches/{match}/log").json()
    game = get_game(log["game"])
    state: Any = game.initial(dict(log["options"]), log["players"])
    out: dict[int, set[str]] = {}
    wanted = set(seqs)
    for commit in log["commits"]:
        state = fold(game, commit["events"], state)
        if commit["seq"] in wanted:
            hidden = set(game.secrets(state, None))
            for seat in range(log["players"]):
                hidden |= set(game.secrets(state, seat))
            out[commit["seq"]] = hidden
    return out


def visible_text_and_attrs(page) -> str:
    """The spectator's whole page as markup: board, status, log of sentences and all."""
    return page.evaluate("() => document.body.outerHTML")


def leaked(markup: str, secrets: set[str]) -> list[str]:
    return sorted(s for s in secrets if re.search(rf"(?<![A-Za-z0-9_-]){re.escape(s)}(?![A-Za-z0-9_-])", markup))


def shown_scores(page) -> dict[int, int]:
    page.wait_for_selector("table.result")
    return {int(tr.get_attribute("data-seat")): int(tr.locator("td.score").inner_text())
            for tr in page.locator("table.result tbody tr").all()}


class Played:
    """What a full match played by clicking left behind: the pages, the match and its result."""

    def __init__(self, match: str, seats: list, watcher, final: dict[str, Any], moves: int) -> None:
        self.match, self.seats, self.watcher, self.final, self.moves = match, seats, watcher, final, moves


def play_full_match(pages: Pages, api: httpx.Client, game: str, names: list[str], options: str, *,
                    seed: int = 1, prefer: list[str] = (), max_moves: int = 600) -> Played:
    """Play a whole match of `game` with one browser context per seat, every move made by
    pointing at the page (the lobby creates the match and seats the players), while a spectator
    context watches. On the way: screenshots of a seat and the spectator (desktop and phone),
    no horizontal scroll on the phone, and the spectator's markup is kept now and then so the
    test can check it against the engine's secrets afterwards."""
    base = pages.base
    seats = [pages.new(n) for n in names]
    match = create_in_lobby(seats[0], base, game, len(names), options, names[0])
    watcher = pages.new("watcher")
    watch_from_lobby(watcher, base, match)
    for s in range(1, len(names)):
        sit_from_lobby(seats[s], base, match, s, names[s])
    for page in [*seats, watcher]:
        wait_seq(page, 1)
    rng = random.Random(seed)
    snapshots: dict[int, str] = {}
    moves = 0
    while True:
        summary = api.get(f"/api/matches/{match}").json()  # reading only: every move is a click
        if summary["state"] == "finished":
            break
        seq = summary["seq"]
        to_act = api.get(f"/api/matches/{match}/replay").json()["status"]["to_act"]
        page = seats[to_act[0]]
        make_one_move(page, rng, seq, prefer)
        wait_seq(page, seq + 1)
        moves += 1
        if moves == 4:
            shot(page, f"{game}-seat-desktop")
            page.set_viewport_size(PHONE)
            assert no_horizontal_scroll(page), f"{game}: the seat's page scrolls sideways on a phone"
            shot(page, f"{game}-seat-phone")
            page.set_viewport_size(DESKTOP)
        if moves % 12 == 3:
            wait_seq(watcher, seq + 1)
            snapshots[seq + 1] = visible_text_and_attrs(watcher)
        if moves == 8:
            shot(watcher, f"{game}-spectator-desktop")
            watcher.set_viewport_size(PHONE)
            assert no_horizontal_scroll(watcher), f"{game}: the spectator's page scrolls sideways on a phone"
            shot(watcher, f"{game}-spectator-phone")
            watcher.set_viewport_size(DESKTOP)
        assert moves < max_moves, f"{game}: the match does not end"

    final = api.get(f"/api/matches/{match}").json()
    hidden = secrets_along(api, match, list(snapshots))
    for at, markup in snapshots.items():
        assert leaked(markup, hidden[at]) == [], f"{game}: the spectator's page at seq {at} shows a secret"
    return Played(match, seats, watcher, final, moves)


def check_the_end_and_replay(played: Played, api: httpx.Client, game: str) -> None:
    """Every page shows the server's final scores; the replay steps on the same board, seen by a
    seat after the end; screenshots of the replay, desktop and phone."""
    result = played.final["result"]
    for page in [*played.seats, played.watcher]:
        wait_seq(page, played.final["seq"])
        assert shown_scores(page) == dict(enumerate(result["scores"]))
        page.wait_for_selector("#the-end")
        assert page.locator("#board-root").inner_text().strip()
    page = played.seats[0]
    shot(page, f"{game}-final-desktop")
    page.click("#to-replay")
    page.wait_for_selector(f"body[data-replay-seq='{played.final['seq']}']")
    assert shown_scores(page) == dict(enumerate(result["scores"]))
    middle = played.final["seq"] // 2
    page.select_option("#replay-seat", "1")
    page.locator("#replay-slider").fill(str(middle))
    page.wait_for_selector(f"body[data-replay-seq='{middle}']")
    assert page.locator("#replay-said").inner_text().strip()
    assert page.locator("#game-log li").count() >= 1
    shot(page, f"{game}-replay-desktop")
    page.set_viewport_size(PHONE)
    assert no_horizontal_scroll(page), f"{game}: the replay scrolls sideways on a phone"
    shot(page, f"{game}-replay-phone")
    page.set_viewport_size(DESKTOP)
