"""The spectator delay in the lobby (SPEC 2.4): set in the creation form, sent as the match's
`spectator_delay`, and shown on the match's row for everyone who reads the lobby."""

from __future__ import annotations

import re


def test_a_delay_set_in_the_form_is_the_matchs_and_shows_on_its_row(pages, api):
    page = pages.new("creator")
    page.goto(pages.base + "/web/")
    page.wait_for_selector("#create-match")
    page.select_option("#new-game", "pixies")
    page.fill("#new-players", "2")
    page.fill("#new-delay", "3")
    page.select_option("#new-delay-unit", "commits")
    page.click("#create-match")
    page.wait_for_url(re.compile(r"#/match/[\w-]+\?seat=0"))
    match = re.search(r"#/match/([\w-]+)", page.url).group(1)
    assert api.get(f"/api/matches/{match}").json()["spectator_delay"] == {"commits": 3}

    other = pages.new("reader")
    other.goto(pages.base + "/web/")
    row = other.locator(f'tr[data-match="{match}"]')
    row.wait_for()
    assert row.locator(".badge.delay").inner_text() == "watched 3 moves behind"

    page.goto(pages.base + "/web/")
    page.wait_for_selector("#create-match")
    page.fill("#new-delay", "45")
    page.select_option("#new-delay-unit", "seconds")
    page.click("#create-match")
    page.wait_for_url(re.compile(r"#/match/[\w-]+\?seat=0"))
    timed = re.search(r"#/match/([\w-]+)", page.url).group(1)
    assert api.get(f"/api/matches/{timed}").json()["spectator_delay"] == {"seconds": 45}
    assert pages.errors == []
