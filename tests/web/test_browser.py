"""The web client in a real browser: Debian's Chromium driven by Playwright, against a real server.

Two people play a 2-player Pixies match to the end by clicking the legal moves the page shows
(each in its own browser context, as two browsers would), a third page watches live, and the
replay screen steps through the finished match. Screenshots land in /tmp for a person to look at.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import httpx
import pytest
from playwright import sync_api  # the test extra; the browser is Debian's, never a Playwright download

from tests.support.server import ServerProcess

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = Path("/tmp")
TIMEOUT_MS = 10_000


@pytest.fixture(scope="module")
def browser():
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

    def new(self, name: str):
        ctx = self.browser.new_context(viewport={"width": 1280, "height": 900})
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


def wait_seq(page, at_least: int) -> None:
    page.wait_for_function(
        "n => { const el = document.querySelector('#seq'); return el && Number(el.textContent.split(' ').pop()) >= n }",
        arg=at_least)


def test_two_browsers_play_pixies_to_the_end_while_a_third_watches_and_replays(pages, web_server, api):

    # -- the lobby: Ada creates a 2-player Pixies match and sits down --------------------------
    ada = pages.new("ada")
    ada.goto(web_server.url + "/")
    ada.wait_for_url(re.compile(r"/web/"))
    ada.wait_for_selector("#create-match")
    assert ada.locator("#new-game option").count() == len(api.get("/api/games").json())
    ada.fill("#my-name", "Ada")
    ada.select_option("#new-game", "pixies")
    ada.fill("#new-players", "2")
    ada.fill("#new-options", '{"first_player": 0}')
    ada.click("#create-match")
    ada.wait_for_url(re.compile(r"#/match/[\w-]+\?seat=0"))
    match = re.search(r"#/match/([\w-]+)", ada.url).group(1)
    ada.wait_for_selector("text=You play Ada (seat 0)")
    assert "Waiting for every seat" in ada.locator("#moves").inner_text()

    # -- a spectator opens it from the lobby -------------------------------------------------------
    watcher = pages.new("watcher")
    watcher.goto(web_server.url + "/web/")
    watcher.locator(f'tr[data-match="{match}"] a.watch').click()
    watcher.wait_for_selector("text=You are watching")
    ada.wait_for_selector("#spectators:has-text('1 watching')")

    # -- Bob takes the other seat from his lobby -------------------------------------------------
    bob = pages.new("bob")
    bob.goto(web_server.url + "/web/")
    bob.fill("#my-name", "Bob")
    row = bob.locator(f'tr[data-match="{match}"]')
    row.locator("button.take-seat", has_text="Take seat 1").click()
    bob.wait_for_url(re.compile(rf"#/match/{match}\?seat=1"))
    for page in (ada, bob, watcher):
        wait_seq(page, 1)  # the start, as a live patch
    watcher.wait_for_selector("#presence li[data-seat='1'] .dot.on")
    assert "Bob (seat 1)" in watcher.locator("#presence").inner_text()

    # -- play to the end by clicking what the pages offer ------------------------------------------
    rng = random.Random(3)
    players = {0: ada, 1: bob}
    moves = 0
    used_market = False
    seq = 1
    while ada.locator(".phase").inner_text() != "game over":
        seat = int(ada.locator(".area.acting").get_attribute("data-seat"))  # whose pick, as drawn
        page = players[seat]
        wait_seq(page, seq)
        page.wait_for_selector("#legal-moves button.move:not([disabled])")
        if not used_market:
            # the first pick goes through the market: click the card, then its move (if it asks)
            page.locator(".market .card.clickable").first.click()
            used_market = True
            page.wait_for_function(
                "n => document.querySelector('.market .card.selected')"
                " || Number(document.querySelector('#seq').textContent.split(' ').pop()) > n", arg=seq)
            if seq_of(page) == seq:  # the card needs a choice: only its moves are offered now
                card = page.locator(".market .card.selected").get_attribute("data-card")
                offered = page.locator("#legal-moves button.move")
                assert all(f'"card":"{card}"' in b.get_attribute("data-move") for b in offered.all())
                offered.first.click()
        else:
            buttons = page.locator("#legal-moves button.move:not([disabled])")
            buttons.nth(rng.randrange(buttons.count())).click()
        seq += 1
        moves += 1
        wait_seq(ada, seq)
        if moves == 10:
            # the spectator's page follows live, without a reload
            wait_seq(watcher, seq)
            watcher.screenshot(path=str(SHOTS / "teahouse-spectator-live.png"), full_page=True)
        assert moves < 300, "the match does not end"

    final = api.get(f"/api/matches/{match}").json()
    result = final["result"]
    assert final["seq"] == moves + 1 and moves > 20

    # -- every page shows the server's result --------------------------------------------------------
    for page in (ada, bob, watcher):
        wait_seq(page, final["seq"])
        page.wait_for_selector("table.result")
        shown = {int(tr.get_attribute("data-seat")): int(tr.locator("td.score").inner_text())
                 for tr in page.locator("table.result tbody tr").all()}
        assert shown == dict(enumerate(result["scores"]))
        winners = {int(tr.get_attribute("data-seat")) for tr in page.locator("table.result tr.winner").all()}
        assert winners == set(result["winners"])
        assert page.locator(".phase").inner_text() == "game over"
        totals = [int(t.inner_text()) for t in page.locator(".area .total").all()]
        assert totals == result["scores"]
    assert final["seed"] in watcher.locator("#status").inner_text()
    faces = [n.inner_text() for n in ada.locator(".area .card .n").all()]
    assert faces and all(f.isdigit() for f in faces), "card faces come from the reference data"
    ada.screenshot(path=str(SHOTS / "teahouse-match-final.png"), full_page=True)

    # -- the replay screen steps through the match ---------------------------------------------------
    ada.click("#to-replay")
    ada.wait_for_url(re.compile(rf"#/replay/{match}"))
    ada.wait_for_selector(f"body[data-replay-seq='{final['seq']}']")
    ada.click("#replay-first")
    ada.wait_for_selector("body[data-replay-seq='0']")
    assert "Before the start" in ada.locator("#replay-commit").inner_text()
    assert ada.locator(".market .card").count() == 0
    ada.click("#replay-next")
    ada.wait_for_selector("body[data-replay-seq='1']")
    assert "system" in ada.locator("#replay-commit").inner_text()
    ada.click("#replay-next")
    ada.wait_for_selector("body[data-replay-seq='2']")
    assert "Ada (seat 0)" in ada.locator("#replay-commit").inner_text()
    ada.locator("#replay-events summary").click()
    assert "card_taken" in ada.locator("#replay-events").inner_text()
    ada.select_option("#replay-seat", "1")
    middle = final["seq"] // 2
    ada.locator("#replay-slider").fill(str(middle))
    ada.wait_for_selector(f"body[data-replay-seq='{middle}']")
    expected = api.get(f"/api/matches/{match}/replay", params={"seq": middle, "seat": 1}).json()
    shown_market = [c.get_attribute("data-card") for c in ada.locator(".market .card").all()]
    assert shown_market == expected["view"]["market"]
    shown_up = [c.get_attribute("data-card") for c in ada.locator(".area[data-seat='1'] .cell .card[data-card]").all()]
    assert shown_up == [cell["card"] for cell in expected["view"]["areas"][1] if cell["card"]]
    assert ada.locator("#replay-seq").inner_text() == str(middle)
    ada.keyboard.press("ArrowRight")
    ada.wait_for_selector(f"body[data-replay-seq='{middle + 1}']")
    ada.screenshot(path=str(SHOTS / "teahouse-replay.png"), full_page=True)

    # -- and forks a new match from there: same table, free seats -----------------------------------
    ada.click("#replay-fork")
    ada.wait_for_url(re.compile(r"#/match/[\w-]+$"))
    fork = re.search(r"#/match/([\w-]+)", ada.url).group(1)
    assert fork != match
    assert api.get(f"/api/matches/{fork}").json()["forked_from"]["seq"] == middle + 1
    ada.wait_for_selector("button.take-seat[data-seat='1']")
    forked_market = [c.get_attribute("data-card") for c in ada.locator(".market .card").all()]
    at = api.get(f"/api/matches/{match}/replay", params={"seq": middle + 1}).json()
    assert forked_market == at["view"]["market"]

    assert pages.errors == []


def test_any_game_is_playable_from_its_generic_panels(pages, web_server, api):
    created = api.post("/api/matches", json={"game": "khan", "players": 2, "options": {"start_player": 0}}).json()
    mid = created["match"]
    api.post(f"/api/matches/{mid}/seats", json={"seat": 1, "name": "p1"})
    page = pages.new("khan")
    page.goto(web_server.url + "/web/")
    row = page.locator(f'tr[data-match="{mid}"]')
    assert "open" in row.inner_text() and "p1" in row.inner_text()
    page.screenshot(path=str(SHOTS / "teahouse-lobby.png"), full_page=True)
    row.locator("button.take-seat", has_text="Take seat 0").click()
    page.wait_for_url(re.compile(rf"#/match/{mid}\?seat=0"))
    wait_seq(page, 1)
    page.wait_for_selector("#board .tree")
    text = page.locator("#board").inner_text()
    assert "rulers" in text and "camps" in text
    assert "p1 (seat 1)" in page.locator("#presence").inner_text()
    to_act = api.get(f"/api/matches/{mid}/replay").json()["status"]["to_act"]
    assert to_act == [0]
    page.locator("#legal-moves button.move").first.click()
    wait_seq(page, 2)
    assert api.get(f"/api/matches/{mid}").json()["seq"] == 2
    page.screenshot(path=str(SHOTS / "teahouse-khan-seat.png"), full_page=True)
    assert pages.errors == []


def test_the_page_reconnects_after_the_server_restarts_and_plays_on(pages, tmp_path):
    server = ServerProcess(f"sqlite:{tmp_path / 'data'}", tmp_path / "server.log").start()
    try:
        with httpx.Client(base_url=server.url, timeout=10) as api:
            mid = api.post("/api/matches", json={"game": "pixies", "players": 2,
                                                 "options": {"first_player": 0}}).json()["match"]
            token = api.post(f"/api/matches/{mid}/seats", json={"name": "Ada"}).json()["token"]
            api.post(f"/api/matches/{mid}/seats", json={"name": "Bob"})
            page = pages.new("ada")
            page.goto(server.url + "/web/")
            # a token this browser got earlier (the lobby stores them the same way)
            page.evaluate("([m, t]) => localStorage.setItem('teahouse.seats', JSON.stringify({[m]: {0: t}}))",
                          [mid, token])
            page.goto(f"{server.url}/web/#/match/{mid}?seat=0")
            wait_seq(page, 1)
            page.wait_for_selector("#legal-moves button.move")

            server.kill()  # a crash: no goodbye frames
            page.wait_for_selector("#conn-state:has-text('reconnecting')")
            server.start()
            page.wait_for_selector("#conn-state:has-text('connected'):not(:has-text('lost'))", timeout=15_000)
            page.locator("#legal-moves button.move:not([disabled])").first.click()
            wait_seq(page, 2)
            assert api.get(f"/api/matches/{mid}").json()["seq"] == 2
        # the crash shows up as failed requests in the console; nothing else may go wrong
        assert [e for e in pages.errors if "ERR_CONNECTION_REFUSED" not in e and "WebSocket" not in e] == []
    finally:
        server.stop()


def test_pixies_choices_keep_and_face_down_target_by_clicking_the_board(pages, web_server, api):
    # A known deck: every card of the first turn and the first of the second is a 1, so the
    # third and fourth picks pair up (keep which?) and the fifth must go face down somewhere.
    order = ["B01", "G01", "Y01", "R01", "R02", "B05", "G05", "Y05"]
    mid = api.post("/api/matches", json={"game": "pixies", "players": 2,
                                         "options": {"first_player": 0, "deck_orders": [order]}}).json()["match"]
    seats = [api.post(f"/api/matches/{mid}/seats", json={"name": n}).json()["token"] for n in ("Ada", "Bob")]
    players = []
    for seat, token in enumerate(seats):
        page = pages.new(f"seat{seat}")
        page.goto(web_server.url + "/web/")
        page.evaluate("([m, s, t]) => localStorage.setItem('teahouse.seats', JSON.stringify({[m]: {[s]: t}}))",
                      [mid, seat, token])
        page.goto(f"{web_server.url}/web/#/match/{mid}?seat={seat}")
        wait_seq(page, 1)
        players.append(page)
    ada, bob = players

    def take(page, card: str, seq: int) -> None:
        wait_seq(page, seq)
        page.locator(f".market .card.clickable[data-card='{card}']").click()

    take(ada, "B01", 1)  # one way to place it: played at once
    wait_seq(ada, 2)
    take(bob, "G01", 2)
    wait_seq(bob, 3)
    take(ada, "Y01", 3)  # cell 1 holds a face-up card: which stays up?
    ada.wait_for_selector(".market .card.selected[data-card='Y01']")
    labels = [b.inner_text() for b in ada.locator("#legal-moves button.move").all()]
    assert sorted(labels) == ["Take Y01 (1 yellow) · keep it face up", "Take Y01 (1 yellow) · keep the old card up"]
    ada.locator("#legal-moves button.move", has_text="keep it face up").click()
    wait_seq(ada, 4)
    take(bob, "R01", 4)
    bob.locator("#legal-moves button.move", has_text="keep the old card up").click()
    wait_seq(bob, 5)
    # turn 2: Bob took the last card, so he picks first; his cell 1 is a validated pair now
    take(bob, "R02", 5)
    targets = bob.locator(".area[data-seat='1'] .cell.target")
    targets.first.wait_for()
    assert sorted(int(t.get_attribute("data-cell")) for t in targets.all()) == list(range(2, 10))
    assert bob.locator(".area[data-seat='0'] .cell.target").count() == 0
    bob.screenshot(path=str(SHOTS / "teahouse-pixies-target.png"), full_page=True)
    bob.locator(".area[data-seat='1'] .cell.target[data-cell='5']").click()
    wait_seq(bob, 6)
    wait_seq(ada, 6)
    view = api.get(f"/api/matches/{mid}/replay").json()["view"]
    assert view["areas"][0][0] == {"card": "Y01", "face_down": True}
    assert view["areas"][1][0] == {"card": "G01", "face_down": True}
    assert view["areas"][1][4] == {"card": None, "face_down": True}
    # both pages draw the same: a validated pair in cell 1, a face-down back in Bob's cell 5
    for page in (ada, bob):
        assert page.locator(".area[data-seat='1'] .cell[data-cell='5'] .card.back").count() == 1
        assert page.locator(".area[data-seat='0'] .cell[data-cell='1'] .card.pair").get_attribute("data-card") == "Y01"
    assert pages.errors == []


def test_a_turn_clock_counts_down_and_the_server_moves_for_an_idle_seat(pages, web_server, api):
    page = pages.new("slow")
    page.goto(web_server.url + "/web/")
    page.select_option("#new-game", "pixies")
    page.fill("#new-players", "2")
    page.fill("#new-clock", "2")
    page.click("#create-match")
    page.wait_for_url(re.compile(r"#/match/[\w-]+\?seat=0"))
    mid = re.search(r"#/match/([\w-]+)", page.url).group(1)
    assert api.get(f"/api/matches/{mid}").json()["turn_seconds"] == 2
    api.post(f"/api/matches/{mid}/seats", json={"name": "Bob"})
    wait_seq(page, 1)
    # Waits for what the page shows, never reads it inside a time window: on a loaded machine
    # the 2 s clock may run out (and be re-armed for the next seat) before a read comes.
    page.wait_for_function(
        "() => /Clock: [0-2] s left for (you|Bob \\(seat 1\\))/.test(document.querySelector('#clock')?.textContent ?? '')")
    wait_seq(page, 2)  # nobody clicked: the clock ran out and the server moved for the seat to act
    assert api.get(f"/api/matches/{mid}").json()["seq"] >= 2
    assert pages.errors == []


def test_every_game_is_drawn_for_a_spectator_and_a_seat(pages, web_server, api):
    page = pages.new("tour")
    for game in api.get("/api/games").json():
        mid = api.post("/api/matches", json={"game": game["id"], "players": game["min_players"]}).json()["match"]
        tokens = [api.post(f"/api/matches/{mid}/seats", json={"name": f"p{i}"}).json()["token"]
                  for i in range(game["min_players"])]
        page.goto(f"{web_server.url}/web/#/match/{mid}")
        wait_seq(page, 1)
        assert page.locator("#board").inner_text().strip(), game["id"]
        assert game["name"] in page.locator("h1").inner_text()
        # the seat to act sees its legal moves as buttons
        to_act = api.get(f"/api/matches/{mid}/replay").json()["status"]["to_act"]
        page.evaluate("([m, s, t]) => localStorage.setItem('teahouse.seats', JSON.stringify({[m]: {[s]: t}}))",
                      [mid, to_act[0], tokens[to_act[0]]])
        page.goto(f"{web_server.url}/web/#/match/{mid}?seat={to_act[0]}")
        page.wait_for_selector("#legal-moves button.move")
    assert pages.errors == []
