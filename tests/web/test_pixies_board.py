"""Pixies on its board: a whole 2-player match played by pointing at the page (market cards,
then the choice of which card stays up, then the cell), watched by a spectator; the final scores
on every page are the server's; the replay shows the same board."""

from __future__ import annotations

import re

from tests.web.conftest import check_the_end_and_replay, play_full_match


def test_a_whole_pixies_match_by_pointing(pages, api):
    played = play_full_match(pages, api, "pixies", ["Ada", "Bob"], '{"first_player": 0}', seed=3)
    assert played.moves > 20
    check_the_end_and_replay(played, api, "pixies")
    # the areas' totals on the board are the server's scores (the rules: totals are the score)
    totals = [int(t.inner_text()) for t in played.watcher.locator(".area .total").all()]
    assert totals == played.final["result"]["scores"]
    # the replay (left at the middle by check_the_end_and_replay) forks a new match from there
    page = played.seats[0]
    at = int(page.locator("#replay-seq").inner_text())
    page.click("#replay-fork")
    page.wait_for_url(re.compile(r"#/match/[\w-]+$"))
    fork = re.search(r"#/match/([\w-]+)", page.url).group(1)
    assert fork != played.match
    summary = api.get(f"/api/matches/{fork}").json()
    assert summary["forked_from"]["seq"] == at and summary["open_hand"] is False
    page.wait_for_selector("button.take-seat[data-seat='1']")
    market = [c.get_attribute("data-card") for c in page.locator(".market .card").all()]
    assert market == api.get(f"/api/matches/{played.match}/replay", params={"seq": at}).json()["view"]["market"]
    assert page.locator(".badge.open-hand").count() == 0
    # an exact fork keeps the original's shuffles: its page says it is open-handed (SPEC 11)
    page.goto(f"{str(api.base_url).rstrip('/')}/web/#/replay/{played.match}?seq={at}&seat=spectator")
    page.check("#replay-fork-exact")
    page.click("#replay-fork")
    page.wait_for_url(re.compile(r"#/match/[\w-]+$"))
    exact = re.search(r"#/match/([\w-]+)", page.url).group(1)
    assert exact not in (fork, played.match)
    assert api.get(f"/api/matches/{exact}").json()["open_hand"] is True
    page.wait_for_selector(".badge.open-hand")
    assert pages.errors == []
