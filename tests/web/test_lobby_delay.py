"""The spectator delay in the lobby (SPEC 2.4): set in the creation form, sent as the match's
`spectator_delay`, and shown on the match's row for everyone who reads the lobby."""

from __future__ import annotations

from tests.web.conftest import create_in_lobby


def test_a_delay_set_in_the_form_is_the_matchs_and_shows_on_its_row(pages, api):
    page = pages.new("creator")
    match = create_in_lobby(page, pages.base, "pixies", 2, "", "Ada", delay=(3, "commits"))
    assert api.get(f"/api/matches/{match}").json()["spectator_delay"] == {"commits": 3}

    other = pages.new("reader")
    other.goto(pages.base + "/web/")
    row = other.locator(f'tr[data-match="{match}"]')
    row.wait_for()
    assert row.locator(".badge.delay").inner_text() == "watched 3 moves behind"

    timed = create_in_lobby(page, pages.base, "pixies", 2, "", "Ada", delay=(45, "seconds"))
    assert api.get(f"/api/matches/{timed}").json()["spectator_delay"] == {"seconds": 45}
    assert pages.errors == []
