"""Players in the web client (SPEC 2.15-2.17), in Debian's Chromium: becoming a player on "My
matches", a notification and the tab title when a match made on another device turns to the
player, a rated match against a server bot played by pointing with the rating change on the end
screen, the leaderboard page, and signing in on a second device with the player's code.

Notifications are the browser's own (permission granted to the page's origin); the page's
`Notification` is wrapped only to record what was shown, and still shows it."""

from __future__ import annotations

import random

from tests.web.conftest import create_in_lobby, make_one_move, wait_seq

RECORD_NOTIFICATIONS = """
(() => {
  const Real = window.Notification;
  if (!Real) return;
  window.__shown = [];
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      window.__shown.push({ title, body: options?.body, tag: options?.tag });
    }
  }
  window.Notification = Recorded;
})();
"""


def become_player(page, base: str, name: str) -> dict:
    page.goto(base + "/web/#/me")
    page.fill("#player-name", name)
    page.click("#become-player-button")
    page.wait_for_selector("#my-player-id")
    return page.evaluate("() => JSON.parse(localStorage.getItem('teahouse.player'))")


def test_my_matches_notifies_a_turn_and_a_rated_match_shows_its_rating_change(pages, api):
    page = pages.new("Ada")
    page.context.grant_permissions(["notifications"], origin=pages.base)
    page.add_init_script(RECORD_NOTIFICATIONS)
    me = become_player(page, pages.base, "Ada")
    assert page.inner_text("#my-player-name") == "Ada" and page.inner_text("#my-player-id") == me["player"]
    assert len(me["key"]) == 43
    page.wait_for_selector("#notify-state")  # permission granted: no button to ask for it

    # On another device (the API with her key) Ada takes seat 0 of a match where seat 0 moves
    # first: the open page learns that it waits on her.
    waiting = api.post("/api/matches", json={"game": "pixies", "players": 2, "options": {"first_player": 0}}).json()
    took = api.post(f"/api/matches/{waiting['match']}/seats", json={"seat": 0, "player_key": me["key"]})
    assert took.status_code == 201
    assert api.post(f"/api/matches/{waiting['match']}/seats", json={"seat": 1, "name": "Bo"}).status_code == 201
    page.wait_for_function("() => (window.__shown || []).length > 0", timeout=25_000)
    shown = page.evaluate("() => window.__shown")
    assert shown == [{"title": "Your turn in pixies", "body": f"Match {waiting['match']} waits on you.",
                      "tag": f"#/match/{waiting['match']}?seat=0"}]
    page.wait_for_function("() => document.title.startsWith('(1) Your turn')", timeout=10_000)
    row = page.locator(f'#my-matches tr[data-match="{waiting["match"]}"]')
    assert row.get_attribute("data-your-turn") == "1"
    assert page.inner_text("#nav-my-matches") == "My matches (1)"

    # A rated match against a random bot, created and played in the lobby by pointing.
    match = create_in_lobby(page, pages.base, "pixies", 2, '{"first_player": 0}', "Ada", bots={1: 0})
    rng = random.Random(11)
    for _ in range(400):
        summary = api.get(f"/api/matches/{match}").json()
        if summary["state"] == "finished":
            break
        if 0 in api.get(f"/api/matches/{match}/replay").json()["status"]["to_act"]:
            make_one_move(page, rng, summary["seq"])
        wait_seq(page, summary["seq"] + 1)
    else:
        raise AssertionError("the match against the bot does not end")
    final = api.get(f"/api/matches/{match}").json()
    log = api.get(f"/api/matches/{match}/log").json()
    assert log["commits"][0]["players"] == [me["player"], "bot:strength-0"]
    mine = next(r for r in final["ratings"] if r["player"] == me["player"])
    assert mine["before"] == 1500 and mine["after"] != 1500
    page.wait_for_selector("#ratings")
    sign = "+" if mine["change"] >= 0 else "−"
    assert f"you {sign}{abs(mine['change']):.1f} → {mine['after']:.1f}?" in page.inner_text("#ratings")

    page.goto(pages.base + "/web/#/leaderboard/pixies")
    page.wait_for_selector(f'#leaderboard tr[data-player="{me["player"]}"]')
    rows = page.locator("#leaderboard tbody tr")
    board = api.get("/api/games/pixies/leaderboard").json()["players"]
    assert [rows.nth(i).get_attribute("data-player") for i in range(rows.count())] == [p["player"] for p in board]

    # Another device: the code shown on "Sign in on another device" is the key.
    other = pages.new("Ada on a phone")
    other.goto(pages.base + "/web/#/me")
    other.fill("#player-code", me["key"])
    other.locator("#sign-in button").click()
    other.wait_for_selector("#my-player-id")
    assert other.inner_text("#my-player-id") == me["player"]
    other.wait_for_selector(f'#my-matches tr[data-match="{match}"]')
    assert other.locator(f'#my-matches tr[data-match="{waiting["match"]}"]').get_attribute("data-your-turn") == "1"
    assert pages.errors == []
