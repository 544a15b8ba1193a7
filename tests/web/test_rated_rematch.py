"""A player's whole evening in Debian's Chromium, on two devices (SPEC 2.15-2.18): the player is
made on one device, signs in on another with the "sign in on another device" code, plays a rated
match against a server bot there by pointing, sees its rating change on the end screen, asks for
the rematch (the same player, one seat on, the bot first), plays it too, and the first device
finds both matches in "My matches" and the player on the leaderboard. And a seat kept for a player
in a rematch is offered to that player on any device it signed in on, and to nobody else.

The expectations come from the SPEC and Glicko-2, not from what the server printed: a win raises a
rating and a loss lowers it; a player with one or two games is provisional (deviation above 110,
marked "?"); the rematch's "before" is the first match's "after" (one fold, in order)."""

from __future__ import annotations

import random
import re

from tests.web.conftest import create_in_lobby, make_one_move, shot, wait_seq
from tests.web.test_lobby_invites_rematch import play_out


def play_to_the_end(page, api, match: str, seat: int, rng: random.Random) -> dict:
    """Point at the board for `seat` whenever it is to act, until the match is over; the other
    seat is the server's bot. Returns the finished match's summary."""
    for _ in range(400):
        summary = api.get(f"/api/matches/{match}").json()
        if summary["state"] == "finished":
            return summary
        if seat in api.get(f"/api/matches/{match}/replay").json()["status"]["to_act"]:
            make_one_move(page, rng, summary["seq"])
        wait_seq(page, summary["seq"] + 1)
    raise AssertionError(f"match {match} against the bot does not end")


def rank(result: dict, seat: int) -> int:
    ranks = result.get("ranks") or [1 + result["ranking"].index(s) for s in range(len(result["scores"]))]
    return ranks[seat]


def expected_sign(result: dict, mine: int, theirs: int, me_before: float, them_before: float) -> str:
    """Glicko-2 moves a winner up and a loser down; a draw pulls the lower rating up."""
    if rank(result, mine) != rank(result, theirs):
        return "+" if rank(result, mine) < rank(result, theirs) else "−"
    return "+" if them_before >= me_before else "−"


def test_a_rated_match_and_its_rematch_against_a_bot_from_two_devices(pages, api):
    # Device 1 makes the player and shows its code.
    desk = pages.new("Ada at her desk")
    desk.goto(pages.base + "/web/#/me")
    desk.fill("#player-name", "Ada")
    desk.click("#become-player-button")
    desk.wait_for_selector("#my-player-id")
    player = desk.inner_text("#my-player-id")
    desk.get_by_role("button", name="Sign in on another device").click()
    code = desk.inner_text("#my-code")
    assert len(code) == 43  # a 256-bit key (SPEC 2.15)

    # Device 2 signs in with that code: the same player.
    phone = pages.new("Ada on her phone")
    phone.goto(pages.base + "/web/#/me")
    phone.fill("#player-code", code)
    phone.locator("#sign-in button").click()
    phone.wait_for_selector("#my-player-id")
    assert phone.inner_text("#my-player-id") == player

    # A rated match against a random bot, made in the lobby; seat 0 moves first (first_player is
    # no secret option: the match stays rated, SPEC 2.16).
    first = create_in_lobby(phone, pages.base, "pixies", 2, '{"first_player": 0}', "Ada", bots={1: 0})
    done = play_to_the_end(phone, api, first, 0, random.Random(5))
    log = api.get(f"/api/matches/{first}/log").json()
    assert log["commits"][0]["players"] == [player, "bot:strength-0"]
    mine = next(r for r in done["ratings"] if r["player"] == player)
    bot = next(r for r in done["ratings"] if r["player"] == "bot:strength-0")
    assert mine["before"] == 1500  # a new player: Glicko-2's 1500 (the bot may have played before)
    sign = expected_sign(done["result"], 0, 1, 1500, bot["before"])
    assert (mine["change"] >= 0) == (sign == "+") and mine["provisional"] is True
    phone.wait_for_selector("#ratings")
    assert f"you {sign}{abs(mine['change']):.1f} → {mine['after']:.1f}?" in phone.inner_text("#ratings")

    # The rematch: the same player, one seat on (seat 1), the bot now at seat 0 and first.
    phone.click("#rematch")
    phone.wait_for_url(re.compile(r"#/match/[\w-]+\?seat=1"))
    second = re.search(r"#/match/([\w-]+)", phone.url).group(1)
    assert second != first
    wait_seq(phone, 1)
    made = api.get(f"/api/matches/{second}").json()
    assert made["rematch_of"]["match"] == first and made["options"] == {"first_player": 0}
    assert [(a["answer"], a["player"]) for a in made["rematch_of"]["seats"]] == [
        ("bot", "bot:strength-0"), ("accepted", player)]
    assert made["seed_sha256"] != done["seed_sha256"]
    again = play_to_the_end(phone, api, second, 1, random.Random(6))
    assert api.get(f"/api/matches/{second}/log").json()["commits"][0]["players"] == ["bot:strength-0", player]
    assert again["ratings"] is not None  # rated, like the match it follows
    mine2 = next(r for r in again["ratings"] if r["player"] == player)
    bot2 = next(r for r in again["ratings"] if r["player"] == "bot:strength-0")
    assert (mine2["before"], bot2["before"]) == (mine["after"], bot["after"])
    sign2 = expected_sign(again["result"], 1, 0, mine["after"], bot["after"])
    assert (mine2["change"] >= 0) == (sign2 == "+") and mine2["provisional"] is True
    phone.wait_for_selector("#ratings")
    assert f"you {sign2}{abs(mine2['change']):.1f} → {mine2['after']:.1f}?" in phone.inner_text("#ratings")
    shot(phone, "rated-rematch-end")

    # Back at the desk: both matches in "My matches", the rematch first (newest finished first),
    # each with its rating change; the leaderboard lists the player with two matches.
    # (the desk has shown "My matches" all along, refreshing it now and then: look at it afresh)
    desk.reload()
    desk.wait_for_selector(f'#my-matches tr[data-match="{second}"]')
    rows = desk.locator("#my-matches tbody tr")
    assert [rows.nth(i).get_attribute("data-match") for i in range(rows.count())] == [second, first]
    assert f"{sign2}{abs(mine2['change']):.1f} → {mine2['after']:.1f}?" in desk.inner_text(f'#my-matches tr[data-match="{second}"]')
    assert "finished" in desk.inner_text(f'#my-matches tr[data-match="{second}"]')
    desk.goto(pages.base + "/web/#/leaderboard/pixies")
    row = desk.locator(f'#leaderboard tr[data-player="{player}"]')
    row.wait_for()
    cells = row.locator("td").all_inner_texts()
    assert cells[1].startswith("Ada") and cells[2] == f"{mine2['after']:.1f}?" and cells[4] == "2"
    assert "me" in (row.get_attribute("class") or "")  # this device's player is marked
    assert pages.errors == [], pages.errors


def test_a_seat_kept_for_a_player_is_taken_from_its_other_device(pages, api):
    """Bea asks for the rematch of a match between two players; Ada, on a device that holds no
    token of that match, signs in with her code, follows the rematch from the finished match and
    takes the seat kept for her; a guest's browser is offered no seat."""
    ada = api.post("/api/players", json={"name": "Ada"}).json()
    bea = api.post("/api/players", json={"name": "Bea"}).json()
    made = api.post("/api/matches", json={"game": "pixies", "players": 2, "options": {"first_player": 0}}).json()
    grants = [api.post(f"/api/matches/{made['match']}/seats", json={"seat": s, "player_key": p["key"]}).json()
              for s, p in ((0, ada), (1, bea))]
    play_out(pages.base, made["match"], grants)
    asked = api.post(f"/api/matches/{made['match']}/rematch", headers={"Authorization": f"Bearer {grants[1]['token']}"},
                     json={"player_key": bea["key"]}).json()
    new = asked["match"]
    assert asked["seat"] == 0  # Bea had seat 1

    guest = pages.new("a guest")
    guest.goto(f"{pages.base}/web/#/match/{new}")
    guest.wait_for_selector("#rematch-answers")
    assert guest.locator("button.take-seat").count() == 0  # Ada's seat is kept for her

    phone = pages.new("Ada on her phone")
    phone.goto(pages.base + "/web/#/me")
    phone.fill("#player-code", ada["key"])
    phone.locator("#sign-in button").click()
    phone.wait_for_selector("#my-player-id")
    phone.goto(f"{pages.base}/web/#/match/{made['match']}")
    phone.click("#rematch-watch")
    phone.wait_for_url(re.compile(rf"#/match/{new}$"))
    phone.click("button.take-seat[data-seat='1']")
    phone.wait_for_url(re.compile(rf"#/match/{new}\?seat=1"))
    wait_seq(phone, 1)
    assert api.get(f"/api/matches/{new}/log").status_code == 409  # live: started, with its start commit
    m = api.get(f"/api/matches/{new}").json()
    assert m["state"] == "live" and [(a["answer"], a["player"]) for a in m["rematch_of"]["seats"]] == [
        ("accepted", bea["player"]), ("accepted", ada["player"])]
    rows = api.get(f"/api/players/{ada['player']}/matches").json()["matches"]
    assert new in [r["match"] for r in rows]  # her history has it: the seat is hers
    assert pages.errors == [], pages.errors

