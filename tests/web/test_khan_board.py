"""Khan on its board, in Debian's Chromium: two people play a whole 2-player match by pointing at
cards, cells, rulers and tiles on the map (each in its own browser context), a third watches, and
the end, the spectator's page and the replay are checked against the server.

The deck is fixed (`deck_order`: the cards ruler by ruler, as docs/games/khan.md allows for
tests), so the same ruler flees again and again and five rulers leave the board in a few dozen
turns; everything else is chosen at random among what the page highlights.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import httpx
import pytest

from tests.support.server import ServerProcess
from tests.web.clicking import (
    PHONE,
    Pages,
    acting,
    browser,  # noqa: F401  (a fixture)
    create_and_sit,
    no_horizontal_scroll,
    offer,
    play_one_move,
    shot,
    tab_reaches_a_pickable,
    wait_seq,
    watch,
)

DATA = Path(__file__).resolve().parents[2] / "service" / "games" / "khan" / "data"
DECK = [c["id"] for c in json.loads((DATA / "deck.json").read_text())["cards"]]
OPTIONS = json.dumps({"start_player": 0, "deck_order": DECK, "reshuffle": "in_order"})


@pytest.fixture
def api(web_server: ServerProcess):
    with httpx.Client(base_url=web_server.url, timeout=10) as client:
        yield client


@pytest.fixture
def pages(browser, web_server: ServerProcess):  # noqa: F811
    p = Pages(browser, web_server.url)
    yield p
    p.close()


class KhanPlayer:
    """Conquers whenever a tile is offered, invades now and then, plays High Morale once, else passes."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.morale_played = False
        self.seen: set[str] = set()

    def __call__(self, seat: int, now: dict, picked: list[str]) -> str:
        nxt = now["next"]
        self.seen.update(t.split(":")[0] for t in nxt)
        if picked:
            if now["confirm"]:
                return "confirm"
            return self.rng.choice(nxt)
        if "consent:yes" in nxt:
            return "consent:yes"
        tiles = [t for t in nxt if t.startswith("tile:")]
        if tiles:
            return self.rng.choice(tiles)
        if "special:high_morale" in nxt and not self.morale_played:
            self.morale_played = True
            return "special:high_morale"
        cards = [t for t in nxt if t.startswith("card:")]
        if cards and self.rng.random() < 0.35:
            return self.rng.choice(cards)
        return "pass" if "pass" in nxt else self.rng.choice(nxt)


def hand_ids(page) -> list[str]:
    return [c.get_attribute("data-card") for c in page.locator(".k-hand [data-card]").all()]


def spectator_sees_no_hand(seats: dict, watcher, seq: int) -> None:
    """At one seq, no card id from any seat's hand is anywhere in the spectator's page."""
    html = watcher.content()
    assert watcher.locator(".k-hand").count() == 0
    for page in seats.values():
        wait_seq(page, seq)
        held = hand_ids(page)
        assert held and seq_now(page) == seq
        leaked = [c for c in held if c in html]
        assert not leaked, f"the spectator's page holds hand cards {leaked}"


def seq_now(page) -> int:
    return int(page.locator("#seq").inner_text().split()[-1])


def test_two_people_play_khan_to_the_end_on_the_map_while_a_third_watches(pages, web_server, api):
    match, seats = create_and_sit(web_server.url, pages, "khan", OPTIONS, ("Ada", "Bob"))
    watcher = watch(web_server.url, pages, match)
    for page in (*seats.values(), watcher):
        wait_seq(page, 1)
    ada = seats[0]
    ada.wait_for_selector("svg.k-map [data-pick='ruler:russian']")
    assert ada.locator("svg.k-map rect.k-cell").count() == 169 - 15  # 13×13 less the void corners
    shot(ada, "khan-seat-desktop")

    # keyboard: Tab reaches a board control, Enter picks it, Escape cancels
    token = tab_reaches_a_pickable(ada)
    ada.keyboard.press("Enter")
    assert ada.locator("#cancel-move").is_enabled(), f"Enter did not pick {token}"
    ada.keyboard.press("Escape")
    assert offer(ada)["confirm"] is False

    # the first move step by step: a hand card, then a cell its background allows
    now = offer(ada)
    card = next(t for t in now["next"] if t.startswith("card:"))
    ada.locator(f".k-hand [data-pick='{card}']").click()
    cells = offer(ada)["next"]
    assert cells and all(t.startswith("cell:") for t in cells)
    assert ada.locator("svg.k-map .pickable").count() == len(cells)

    player = KhanPlayer(7)
    seq = 1
    commits = 0
    while True:
        summary = api.get(f"/api/matches/{match}").json()
        if summary["state"] == "finished":
            break
        seat = acting(seats, seq)
        page = seats[seat]
        played = play_one_move(page, seat, player)
        seq += 1
        commits += 1
        wait_seq(page, seq)
        if commits in (3, 20):
            spectator_sees_no_hand(seats, watcher, seq)
            wait_seq(watcher, seq)
            shot(watcher, "khan-spectator-desktop")
        if played and played[0].startswith("tile:"):
            # a conquest: the tile is on every map at once
            wait_seq(watcher, seq)
            assert watcher.locator("svg.k-map .k-tile").count() >= 1
        assert commits < 400, "the match does not end"
    assert {"card", "cell", "tile", "shape", "pass"} <= player.seen

    final = api.get(f"/api/matches/{match}").json()
    result = final["result"]
    last = api.get(f"/api/matches/{match}/replay", params={"seq": final["seq"]}).json()["view"]
    tiles = last["tiles_placed"]
    assert tiles, "nobody conquered anything"
    for page in (*seats.values(), watcher):
        wait_seq(page, final["seq"])
        page.wait_for_selector(".k-score")
        shown = {int(e.get_attribute("data-seat")): int(e.inner_text()) for e in page.locator(".k-score").all()}
        assert shown == dict(enumerate(result["scores"]))
        # tile points, counted by the page from the tiles it draws and the reference values
        points = [int(e.inner_text()) for e in page.locator(".k-points").all()]
        assert points == last["result"]["tile_points"]
        assert page.locator("svg.k-map .k-tile").count() == len(tiles)
    shot(ada, "khan-final-desktop")
    shot(watcher, "khan-spectator-final-desktop")

    # -- the replay: the same board at every step ------------------------------------------------------
    ada.click("#to-replay")
    ada.wait_for_url(re.compile(rf"#/replay/{match}"))
    middle = final["seq"] // 2
    ada.locator("#replay-slider").fill(str(middle))
    ada.wait_for_selector(f"body[data-replay-seq='{middle}']")
    at = api.get(f"/api/matches/{match}/replay", params={"seq": middle}).json()["view"]
    ada.wait_for_selector("svg.k-map")
    assert ada.locator("svg.k-map .k-tile").count() == len(at["tiles_placed"])
    on_board = {r for r, cell in at["rulers"].items() if cell}
    drawn = {e.get_attribute("data-pick").split(":")[1] for e in ada.locator("svg.k-map [data-pick^='ruler:']").all()}
    assert drawn == on_board
    shot(ada, "khan-replay-desktop")

    # -- a phone: the seat, the spectator and the replay fit 390 px ------------------------------------
    stored = ada.evaluate("() => localStorage.getItem('teahouse.seats')")
    phone = pages.new("phone", PHONE)
    phone.goto(web_server.url + "/web/")
    phone.evaluate("s => localStorage.setItem('teahouse.seats', s)", stored)
    for route, name in ((f"#/match/{match}?seat=0", "khan-seat-phone"), (f"#/match/{match}", "khan-spectator-phone"),
                        (f"#/replay/{match}?seq={middle}", "khan-replay-phone")):
        phone.goto(f"{web_server.url}/web/{route}")
        phone.wait_for_selector("svg.k-map")
        phone.wait_for_selector(".k-player")
        no_horizontal_scroll(phone)
        shot(phone, name)
    assert pages.errors == []


def test_a_conquest_is_built_tile_then_first_cell_then_orientation(pages, web_server, api):
    """A fixed opening lets Ada conquer on her second turn: after the tile, only cells that start
    a legal placement are lit; after the cell, the orientations are drawn as shapes; the tile
    lands on exactly the cells previewed."""
    match, seats = create_and_sit(web_server.url, pages, "khan", OPTIONS, ("Ada", "Bob"))
    wait_seq(seats[0], 1)
    player = KhanPlayer(1)
    seq = 1
    # invade with every action until a tile is offered to the seat to act
    for _ in range(40):
        seat = acting(seats, seq)
        page = seats[seat]
        tiles = [t for t in offer(page)["next"] if t.startswith("tile:")]
        if tiles:
            break
        play_one_move(page, seat, player)
        seq += 1
        wait_seq(page, seq)
    else:
        pytest.fail("no conquest became possible")
    page.locator(f".k-tiles [data-pick='{tiles[0]}']").click()
    anchors = offer(page)["next"]
    assert anchors and all(t.startswith("cell:") for t in anchors)
    page.locator(f"svg.k-map [data-pick='{anchors[0]}']").click()
    shapes = offer(page)["next"]
    assert shapes and all(t.startswith("shape:") for t in shapes)
    assert page.locator(".k-orient [data-pick^='shape:']").count() == len(shapes)
    page.locator(f".k-orient [data-pick='{shapes[0]}']").click()
    preview = {e.get_attribute("data-key") for e in page.locator("svg.k-map g.k-preview").all()}
    shot(page, "khan-conquest-preview-desktop")
    page.click("#confirm-move")
    wait_seq(page, seq + 1)
    view = api.get(f"/api/matches/{match}/replay", params={"seq": seq + 1}).json()["view"]
    placed = view["tiles_placed"][-1]
    assert placed["tile"] == tiles[0].split(":")[1]
    assert {f"cell:{r},{c}" for r, c in placed["cells"]} == preview
    assert pages.errors == []
