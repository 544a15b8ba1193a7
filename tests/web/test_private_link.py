"""A private match in the web client (SPEC 2.4): created from the lobby "watched by its link
only", it is not listed; its creator's page shows the spectator link; a fresh browser that opens
the link watches it, one without the link is refused."""

from __future__ import annotations

import re

from tests.web.conftest import create_in_lobby, wait_seq
from tests.web.test_moments import at_seq


def test_a_match_watched_by_link_is_watched_with_the_link_only(pages, api):
    page = pages.new("creator")
    match = create_in_lobby(page, pages.base, "pixies", 2, "", "Ada",
                            selects={"#new-bot-1": "0", "#new-spectators": "link"})
    link = page.locator("#spectator-link").input_value()
    assert re.search(rf"/web/#/match/{match}\?key=[\w%-]+$", link), link
    assert match not in {m["match"] for m in api.get("/api/matches").json()}, "a private match is never listed"

    friend = pages.new("friend")
    friend.goto(link)
    friend.wait_for_selector("text=You are watching")
    wait_seq(friend, 1)
    # the link's key is kept for the match's other screens: its moments too
    friend.goto(f"{pages.base}/web/#/m/{match}@1?as=public")
    at_seq(friend, 1)
    assert friend.locator("#replay-viewer").inner_text() == "The spectators' view"

    stranger = pages.new("stranger")
    stranger.goto(f"{pages.base}/web/#/match/{match}")
    stranger.wait_for_selector("text=Something went wrong")
    assert "spectator link" in stranger.locator("#app").inner_text()
    # (the refused request is the only error: Chromium logs the 403)
    assert all(e.startswith("stranger console") and "403" in e for e in pages.errors), pages.errors
