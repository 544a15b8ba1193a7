"""China on its board: a whole 3-player match played by pointing at the page (hand cards, then
house spaces or a province's dragon space; the deck or display cards to refill or exchange),
watched by a spectator; every page shows the server's final scores; a spectator's page never
holds a card of a hand; the replay shows the same board."""

from __future__ import annotations

from tests.web.conftest import check_the_end_and_replay, play_full_match


def test_a_whole_china_match_by_pointing(pages, api):
    played = play_full_match(pages, api, "china", ["Ada", "Bob", "Cai"], '{"start_player": 0}', seed=5)
    check_the_end_and_replay(played, api, "china")
    # the map shows every house the server's final view holds, in its owner's colour
    view = api.get(f"/api/matches/{played.match}/replay").json()["view"]
    built = {space for space, seat in view["houses"].items() if seat is not None}
    drawn = {g.get_attribute("data-space") for g in played.watcher.locator("#board-root g.house").all()}
    assert drawn == built
    # 15 alliance numbers sit on the map
    assert played.watcher.locator("#board-root g.alliance").count() == 15
    assert pages.errors == []
