"""A practice match against a server bot, from the web lobby: the creator picks
a bot of a chosen strength for seat 1 in the lobby's seat pickers, sits in seat 0, and plays the
whole match by pointing at the page while the bot answers; the end shows the server's scores and
the log marks every seat-1 move as the bot's (SPEC 2.4)."""

from __future__ import annotations

import random
import re

from tests.web.conftest import make_one_move, shown_scores, wait_seq

GREEDY = 1


def test_a_whole_match_against_a_bot_picked_in_the_lobby(pages, api):
    page = pages.new("Ada")
    page.goto(pages.base + "/web/")
    page.wait_for_selector("#create-match")
    page.fill("#my-name", "Ada")
    page.select_option("#new-game", "pixies")
    page.fill("#new-players", "2")
    page.fill("#new-options", '{"first_player": 0}')
    # one picker per seat; the bot's strengths are the server's (docs/bots.md)
    assert page.locator("#new-seats select").count() == 2
    assert page.locator("#new-bot-1 option").count() == 1 + 6
    page.select_option("#new-bot-1", str(GREEDY))
    page.click("#create-match")
    page.wait_for_url(re.compile(r"#/match/[\w-]+\?seat=0"))
    match = re.search(r"#/match/([\w-]+)", page.url).group(1)
    summary = api.get(f"/api/matches/{match}").json()
    assert summary["bots"] == [{"seat": 1, "strength": GREEDY}]
    assert summary["seats"][0]["name"] == "Ada" and summary["state"] == "live"

    rng = random.Random(5)
    mine = 0
    for _ in range(400):
        summary = api.get(f"/api/matches/{match}").json()  # reading only: every move is a click or the bot's
        if summary["state"] == "finished":
            break
        seq = summary["seq"]
        to_act = api.get(f"/api/matches/{match}/replay").json()["status"]["to_act"]
        if 0 in to_act:
            make_one_move(page, rng, seq)
            mine += 1
        wait_seq(page, seq + 1)  # my move, or the bot's answer
    else:
        raise AssertionError("the match against the bot does not end")

    final = api.get(f"/api/matches/{match}").json()
    wait_seq(page, final["seq"])
    assert shown_scores(page) == dict(enumerate(final["result"]["scores"]))
    log = api.get(f"/api/matches/{match}/log").json()
    bot_moves = [c for c in log["commits"] if c["seat"] == 1]
    assert mine > 5 and len(bot_moves) > 5
    assert all(c["move_id"] == f"sys:bot:{c['seq'] - 1}:1" for c in bot_moves)
    assert all(not (c["move_id"] or "").startswith("sys:") for c in log["commits"] if c["seat"] == 0)
    assert pages.errors == []
