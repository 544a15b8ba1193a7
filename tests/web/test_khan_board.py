"""Khan on its board, in Debian's Chromium: two people play a whole 2-player match by pointing at
cards, cells, rulers and tiles on the map (each in its own browser context), a third watches, and
the end, the spectator's page and the replay are checked against the server.

The deck is fixed (`deck_order`: the cards ruler by ruler, as docs/games/khan.md allows for
tests), so the same ruler flees again and again and five rulers leave the board in a few dozen
turns; everything else is chosen at random among what the page highlights.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from service.games import get_game
from tests.web.clicking import (
    acting,
    assert_one_path_each,
    board_paths,
    desktop_and_phone,
    offer,
    play_one_move,
    sample_states,
    tab_reaches_a_pickable,
)
from tests.web.conftest import (
    DESKTOP,
    Played,
    check_the_end_and_replay,
    create_in_lobby,
    leaked,
    secrets_along,
    shot,
    sit_from_lobby,
    visible_text_and_attrs,
    wait_seq,
    watch_from_lobby,
)

DATA = Path(__file__).resolve().parents[2] / "service" / "games" / "khan" / "data"
DECK = [c["id"] for c in json.loads((DATA / "deck.json").read_text())["cards"]]
OPTIONS = json.dumps({"start_player": 0, "deck_order": DECK, "reshuffle": "in_order"})


class KhanPlayer:
    """Conquers whenever a tile is offered, invades now and then, plays High Morale once, else passes."""

    def __init__(self, seed: int, invade: float = 0.35) -> None:
        self.rng = random.Random(seed)
        self.invade = invade
        self.morale_played = False
        self.seen: set[str] = set()

    def __call__(self, seat: int, now: dict, picked: list[str]) -> str:
        nxt = now["next"]
        self.seen.update(t.split(":")[0] for t in nxt)
        if picked:
            if now["confirm"]:
                return "confirm"
            return self.rng.choice(nxt)
        if "consent:yes" in nxt:
            return "consent:yes"
        tiles = [t for t in nxt if t.startswith("tile:")]
        if tiles:
            return self.rng.choice(tiles)
        if "special:high_morale" in nxt and not self.morale_played:
            self.morale_played = True
            return "special:high_morale"
        cards = [t for t in nxt if t.startswith("card:")]
        if cards and self.rng.random() < self.invade:
            return self.rng.choice(cards)
        return "pass" if "pass" in nxt else self.rng.choice(nxt)


def seated(pages, base: str) -> tuple[str, dict, object]:
    """Ada creates the match in the lobby and sits, a spectator opens it, Bob takes seat 1."""
    ada, bob, watcher = pages.new("ada"), pages.new("bob"), pages.new("watcher")
    match = create_in_lobby(ada, base, "khan", 2, OPTIONS, "Ada")
    watch_from_lobby(watcher, base, match)
    sit_from_lobby(bob, base, match, 1, "Bob")
    for page in (ada, bob, watcher):
        wait_seq(page, 1)
    return match, {0: ada, 1: bob}, watcher


def conquer_step_by_step(page, tile: str, api, match: str, seq: int) -> None:
    """A conquest as a person builds it: after the tile only the cells that start a legal
    placement are lit; after the cell its orientations are drawn as shapes; the tile lands on
    exactly the cells the map previewed. ("Always confirm" is on for it, so that the preview can be
    read before the move goes; the tap that could only mean one placement sends it otherwise.)"""
    page.check("#always-confirm")
    page.locator(f".k-tiles [data-pick='{tile}']").click()
    anchors = offer(page)["next"]
    assert anchors and all(t.startswith("cell:") for t in anchors)
    assert page.locator("svg.k-map .pickable").count() == len(anchors)
    page.locator(f"svg.k-map [data-pick='{anchors[0]}']").click()
    shapes = offer(page)["next"]
    assert shapes and all(t.startswith("shape:") for t in shapes)
    assert page.locator(".k-orient [data-pick^='shape:']").count() == len(shapes)
    page.locator(f".k-orient [data-pick='{shapes[0]}']").click()
    preview = {e.get_attribute("data-key") for e in page.locator("svg.k-map g.k-preview").all()}
    shot(page, "khan-conquest-preview-desktop")
    page.click("#confirm-move")
    wait_seq(page, seq + 1)
    page.uncheck("#always-confirm")
    placed = api.get(f"/api/matches/{match}/replay", params={"seq": seq + 1}).json()["view"]["tiles_placed"][-1]
    assert placed["tile"] == tile.split(":")[1]
    assert {f"cell:{r},{c}" for r, c in placed["cells"]} == preview


def test_two_people_play_khan_to_the_end_on_the_map_while_a_third_watches(pages, api):
    match, seats, watcher = seated(pages, pages.base)
    ada = seats[0]
    ada.wait_for_selector("svg.k-map [data-pick='ruler:russian']")
    assert ada.locator("svg.k-map rect.k-cell").count() == 169 - 15  # 13×13 less the void corners

    # keyboard: Tab reaches a board control, Enter picks it, Escape cancels (with "always
    # confirm" on, since the first control may be a whole move that one key would send)
    ada.check("#always-confirm")
    token = tab_reaches_a_pickable(ada)
    ada.keyboard.press("Enter")
    assert ada.locator("#cancel-move").is_enabled(), f"Enter did not pick {token}"
    ada.keyboard.press("Escape")
    assert offer(ada)["confirm"] is False
    ada.uncheck("#always-confirm")

    # an invasion step by step: a hand card, then only the cells its background allows are lit
    card = next(t for t in offer(ada)["next"] if t.startswith("card:"))
    ada.locator(f".k-hand [data-pick='{card}']").click()
    cells = offer(ada)["next"]
    assert cells and all(t.startswith("cell:") for t in cells)
    assert ada.locator("svg.k-map .pickable").count() == len(cells)
    shot(ada, "khan-invade-desktop")
    ada.keyboard.press("Escape")

    player = KhanPlayer(7)
    seq = 1
    commits = 0
    snapshots: dict[int, str] = {}
    conquered_by_hand = False
    while api.get(f"/api/matches/{match}").json()["state"] != "finished":  # reading only
        seat = acting(seats, seq)
        page = seats[seat]
        tiles = [t for t in offer(page)["next"] if t.startswith("tile:")]
        if tiles and not conquered_by_hand:
            conquer_step_by_step(page, tiles[0], api, match, seq)
            conquered_by_hand = True
            played = [tiles[0]]
        else:
            played = play_one_move(page, seat, player)
        seq += 1
        commits += 1
        wait_seq(page, seq)
        if commits % 10 == 3:
            wait_seq(watcher, seq)
            assert watcher.locator(".k-hand").count() == 0
            snapshots[seq] = visible_text_and_attrs(watcher)
        if commits == 5:
            desktop_and_phone(page, "khan-seat")
        if commits == 13:
            desktop_and_phone(watcher, "khan-spectator")
        if played and played[0].startswith("tile:"):
            # a conquest: the spectator's map shows the tile at once
            wait_seq(watcher, seq)
            assert watcher.locator("svg.k-map .k-tile").count() >= 1
        assert commits < 400, "the match does not end"
    assert conquered_by_hand and {"card", "cell", "tile", "shape", "pass", "special"} <= player.seen
    hidden = secrets_along(api, match, list(snapshots))
    for at, markup in snapshots.items():
        assert leaked(markup, hidden[at]) == [], f"the spectator's page at seq {at} shows a card of a hand"

    final = api.get(f"/api/matches/{match}").json()
    result = final["result"]
    last = api.get(f"/api/matches/{match}/replay", params={"seq": final["seq"]}).json()["view"]
    tiles = last["tiles_placed"]
    assert tiles, "nobody conquered anything"
    for page in (*seats.values(), watcher):
        wait_seq(page, final["seq"])
        page.wait_for_selector(".k-score")
        shown = {int(e.get_attribute("data-seat")): int(e.inner_text()) for e in page.locator(".k-score").all()}
        assert shown == dict(enumerate(result["scores"]))
        # tile points, counted by the page from the tiles it draws and the reference values
        points = [int(e.inner_text()) for e in page.locator(".k-points").all()]
        assert points == last["result"]["tile_points"]
        assert page.locator("svg.k-map .k-tile").count() == len(tiles)
    shot(watcher, "khan-spectator-final-desktop")

    # the end on every page, then the replay on the same board (seen by seat 1, half way)
    check_the_end_and_replay(Played(match, list(seats.values()), watcher, final, commits), api, "khan")
    middle = final["seq"] // 2
    at = api.get(f"/api/matches/{match}/replay", params={"seq": middle, "seat": 1}).json()["view"]
    ada.set_viewport_size(DESKTOP)
    assert ada.locator("svg.k-map .k-tile").count() == len(at["tiles_placed"])
    on_board = {r for r, cell in at["rulers"].items() if cell}
    drawn = {e.get_attribute("data-pick").split(":")[1] for e in ada.locator("svg.k-map [data-pick^='ruler:']").all()}
    assert drawn == on_board
    assert [e.get_attribute("data-card") for e in ada.locator(".k-hand [data-card]").all()] == [c["id"] for c in at["hand"]]
    assert pages.errors == []


def test_every_legal_move_has_a_path_of_its_own(tmp_path):
    """Along random matches, the board maps each legal move of the seat to act to its own
    sequence of things to point at (the module itself, run in Node)."""
    game = get_game("khan")
    states = [*sample_states(game, 2, "paths-a", every=4, limit=40),
              *sample_states(game, 2, "paths-b", every=4, limit=40)]
    paths = board_paths("khan", game.reference({}, 2), states, tmp_path)
    kinds = {m["type"] for _, moves in states for m in moves}
    assert assert_one_path_each(states, paths) > 1000 and len(kinds) >= 5, kinds
