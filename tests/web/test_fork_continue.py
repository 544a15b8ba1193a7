""""Continue from here" in the replay (SPEC 2.10): against bots, the forker plays the seat the
replay shows at once and the server's bots play the others; with friends, each free seat has an
invitation link that takes it in another browser. The replay highlights what changed between
two steps however it got there (a jump from the move list, a step back)."""

from __future__ import annotations

import re

from tests.e2e.helpers import finished_bot_match
from tests.web.conftest import wait_seq
from tests.web.test_moments import at_seq

LAST_MOVE = "() => [...document.querySelectorAll('#board-root [data-key].last-move')].map(e => e.dataset.key).sort()"


def test_continue_against_bots_seats_the_forker_and_the_bots_move(pages, api):
    summary = finished_bot_match(api)
    match, seq = summary["match"], summary["seq"] // 2
    page = pages.new("forker")
    page.goto(f"{pages.base}/web/#/m/{match}@{seq}?as=seat:1")
    at_seq(page, seq)
    page.select_option("#fork-strength", "0")
    page.click("#continue-bots")
    page.wait_for_url(re.compile(r"#/match/[\w-]+\?seat=1$"))
    fork = re.search(r"#/match/([\w-]+)", page.url).group(1)
    assert fork != match
    page.wait_for_selector("#audience")
    assert page.locator("#audience").inner_text().startswith("You play")
    made = api.get(f"/api/matches/{fork}").json()
    assert made["forked_from"]["match"] == match and made["forked_from"]["seq"] == seq
    assert made["bots"] == [{"seat": 0, "strength": 0}] and made["state"] == "live"
    assert made["listed"] is False
    assert fork not in {m["match"] for m in api.get("/api/matches").json()}
    # the page holds seat 1's token: the server shows it seat 1's view of the live fork
    token = page.evaluate("(m) => JSON.parse(localStorage.getItem('teahouse.seats'))[m]['1']", fork)
    r = api.get(f"/api/matches/{fork}/replay", params={"seat": 1}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    # whenever the bot's seat is to act, it moves by itself
    at = r.json()
    if 0 in at["status"]["to_act"]:
        wait_seq(page, at["seq"] + 1, timeout=20_000)
    assert pages.errors == []


def test_continue_with_friends_gives_a_link_per_free_seat(pages, api):
    summary = finished_bot_match(api)
    match, seq = summary["match"], 3
    page = pages.new("host")
    page.goto(f"{pages.base}/web/#/m/{match}@{seq}?as=public")
    at_seq(page, seq)
    page.click("#continue-friends")
    page.wait_for_url(re.compile(r"#/match/[\w-]+\?seat=0$"))
    fork = re.search(r"#/match/([\w-]+)", page.url).group(1)
    page.wait_for_selector("#invites .invite-link")
    link = page.locator("#invites label[data-seat='1'] .invite-link").input_value()
    assert link.endswith(f"/web/#/match/{fork}?take=1")
    assert page.locator("#invites .invite-link").count() == 1, "one link per free seat"

    friend = pages.new("friend")
    friend.goto(link)
    friend.wait_for_url(re.compile(rf"#/match/{fork}\?seat=1$"))
    friend.wait_for_selector("#audience")
    assert friend.locator("#audience").inner_text().startswith("You play")
    made = api.get(f"/api/matches/{fork}").json()
    assert [s["taken"] for s in made["seats"]] == [True, True] and made["state"] == "live"
    # a second opening of the same link finds the seat taken and only watches
    late = pages.new("late")
    late.goto(link)
    late.wait_for_selector("text=You are watching")
    assert pages.errors == []


def test_a_jump_highlights_what_the_step_changed_as_stepping_does(pages, api):
    summary = finished_bot_match(api)
    match = summary["match"]
    page = pages.new("replay")
    page.goto(f"{pages.base}/web/#/m/{match}@0?as=seat:0")
    at_seq(page, 0)
    highlighted = 0
    for n in (4, 5, 9):
        page.goto(f"{pages.base}/web/#/m/{match}@{n - 1}?as=seat:0")
        at_seq(page, n - 1)
        page.locator("body").press("ArrowRight")
        at_seq(page, n)
        stepped = page.evaluate(LAST_MOVE)
        page.locator("body").press("End")
        at_seq(page, summary["seq"])
        page.locator(f"#replay-moves li[data-seq='{n}'] button").click()
        at_seq(page, n)
        assert page.evaluate(LAST_MOVE) == stepped, f"seq {n}: a jump highlights what a step does"
        page.locator("body").press("ArrowRight")
        at_seq(page, n + 1)
        page.locator("body").press("ArrowLeft")
        at_seq(page, n)
        assert page.evaluate(LAST_MOVE) == stepped, f"seq {n}: a step back highlights it too"
        highlighted += bool(stepped)
    assert highlighted, "no step highlighted anything"
    assert pages.errors == []
