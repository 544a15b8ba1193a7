"""Gùgōng on its board: a whole 2-player match played by pointing at the page (a hand card, a
location, the payment; then the card and location actions with their choices on the board),
watched by a spectator; every page shows the server's final scores and why; a spectator's page
never holds a card of a hand or gift pile; the replay shows the same board."""

from __future__ import annotations

from tests.web.conftest import check_the_end_and_replay, play_full_match


def test_a_whole_gugong_match_by_pointing(pages, api):
    played = play_full_match(pages, api, "gugong", ["Ada", "Bob"], '{"start_player": 0}', seed=7)
    check_the_end_and_replay(played, api, "gugong")
    view = api.get(f"/api/matches/{played.match}/replay").json()["view"]
    end = played.watcher.locator("#board-root").inner_text()
    # the rules (docs/games/gugong.md, Result): nobody arrived -> nobody wins, and the page says so
    if view["breakdown"].get("nobody_arrived"):
        assert "Nobody reached the Palace" in end
        assert played.final["result"]["winners"] == []
    assert played.watcher.locator("#board-root .location").count() == 7
    # the final scoring is a table a player reads: a row per seat, its parts and total as the
    # server scored them, no data terms
    rows = played.watcher.locator("#breakdown table.scores tbody tr")
    seats = view["breakdown"]["seats"]
    assert rows.count() == len(seats)
    for s, b in enumerate(seats):
        cells = [c.strip() for c in rows.nth(s).locator("td").all_inner_texts()]
        assert cells[5] == str(b["vp"]), cells
        assert [c.lstrip("+") for c in cells[1:5]] == [str(b[k]) for k in ("wall", "palace", "decrees", "jade")], cells
    for term in ("eligible", "nobody_arrived", "per_reward_slot", "VP4", "CARD 0"):
        assert term not in end, term
    assert pages.errors == []
