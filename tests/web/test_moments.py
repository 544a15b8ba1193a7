"""An address for every moment (`#/m/<match>@<seq>?as=public|seat:N`) and a replay people enjoy:
a link opened in a fresh browser shows the same board as the stepper at that seq and
perspective; a live match's seat view is refused without that seat's token; the move list jumps;
Home/End and the arrows step; the viewer is named as a viewer, never "you"; a live spectator looks
back and returns to live."""

from __future__ import annotations

from tests.e2e.helpers import finished_bot_match
from tests.web.conftest import wait_seq

BOARD_HTML = "() => document.querySelector('#board-root').innerHTML"


def at_seq(page, seq: int) -> None:
    page.wait_for_selector(f"body[data-replay-seq='{seq}']")


def test_a_moment_opened_from_its_address_shows_what_the_stepper_shows(pages, api):
    summary = finished_bot_match(api)
    match, seq = summary["match"], summary["seq"] // 2
    stepper = pages.new("stepper")
    stepper.goto(f"{pages.base}/web/#/replay/{match}")
    at_seq(stepper, summary["seq"])
    stepper.select_option("#replay-seat", "1")
    stepper.locator("#replay-slider").fill(str(seq))
    at_seq(stepper, seq)
    address = f"#/m/{match}@{seq}?as=seat:1"
    assert stepper.evaluate("() => location.hash") == address
    assert stepper.locator("#share-link").input_value().endswith("/web/" + address)
    board = stepper.evaluate(BOARD_HTML)
    name = summary["seats"][1]["name"] or "Seat 1"
    assert stepper.locator("#replay-viewer").inner_text() == f"{name}'s view"

    fresh = pages.new("fresh")
    fresh.goto(f"{pages.base}/web/{address}")
    at_seq(fresh, seq)
    assert fresh.evaluate(BOARD_HTML) == board
    assert fresh.locator("#replay-seat").input_value() == "1"
    # the viewer is not seat 1: nothing on the page calls that seat "you"
    status = fresh.locator("#status").inner_text()
    assert "Your turn" not in status and "— you" not in status

    # the public view of the same moment differs from a seat's whenever that seat holds hidden cards
    fresh.goto(f"{pages.base}/web/#/m/{match}@{seq}?as=public")
    at_seq(fresh, seq)
    assert fresh.locator("#replay-viewer").inner_text() == "The spectators' view"

    # the move list jumps; Home and End go to the ends; the arrows step
    fresh.locator("#replay-moves li[data-seq='3'] button").click()
    at_seq(fresh, 3)
    assert fresh.locator("#replay-moves li.current").get_attribute("data-seq") == "3"
    fresh.locator("body").press("End")
    at_seq(fresh, summary["seq"])
    fresh.locator("body").press("Home")
    at_seq(fresh, 0)
    fresh.locator("body").press("ArrowRight")
    at_seq(fresh, 1)
    assert fresh.locator("#replay-moves li").count() == summary["seq"]
    assert pages.errors == []


def test_a_live_seat_view_needs_its_token_and_a_spectator_looks_back_and_returns(pages, api):
    body = {"game": "pixies", "players": 2, "bots": [{"seat": 1, "strength": 0}]}
    match = api.post("/api/matches", json=body).json()["match"]
    token = api.post(f"/api/matches/{match}/seats", json={"name": "Ada"}).json()["token"]
    # the route behind the address refuses a seat's view of a live match without its token
    assert api.get(f"/api/matches/{match}/replay", params={"seq": 1, "seat": 0}).status_code in (401, 403)
    fresh = pages.new("no-token")
    fresh.goto(f"{pages.base}/web/#/m/{match}@1?as=seat:0")
    at_seq(fresh, 1)
    assert fresh.locator("#replay-viewer").inner_text() == "The spectators' view"
    assert fresh.locator("#replay-seat option[value='0']").count() == 0

    ada = pages.new("ada")
    ada.goto(pages.base + "/web/")
    ada.evaluate("([m, t]) => localStorage.setItem('teahouse.seats', JSON.stringify({[m]: {0: t}}))", [match, token])
    ada.goto(f"{pages.base}/web/#/m/{match}@1?as=seat:0")
    at_seq(ada, 1)
    assert ada.locator("#replay-viewer").inner_text() == "Your view"

    watcher = pages.new("watcher")
    watcher.goto(f"{pages.base}/web/#/match/{match}")
    wait_seq(watcher, 1)
    watcher.click("#look-back")
    watcher.wait_for_selector("#replay-viewer")
    assert watcher.locator("#replay-viewer").inner_text() == "The spectators' view"
    watcher.click("#back-to-live")
    watcher.wait_for_selector("text=You are watching")
    wait_seq(watcher, 1)
    assert pages.errors == []
