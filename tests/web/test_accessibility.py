"""Any reader: axe-core (the npm package, pinned in tests/web/axe/package.json and installed with
`npm ci` on first use) reports no serious and no critical violation of WCAG 2 A/AA on the lobby,
every game's match page as a seat, as a spectator and on a phone, and the replay screen."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.web.conftest import PHONE, SHOTS, wait_seq

AXE_DIR = Path(__file__).parent / "axe"
GAMES = ["pixies", "china", "gugong", "khan", "hieroglyphs"]
BAD = {"serious", "critical"}


@pytest.fixture(scope="module")
def axe_source() -> str:
    script = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        assert npm, "npm is missing: run ./deploy/bootstrap.sh --with-redis"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=AXE_DIR, check=True, timeout=300,
                       capture_output=True)
    return script.read_text()


def violations(page, axe: str) -> list[str]:
    page.add_script_tag(content=axe)
    found = page.evaluate("""async () => {
      const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
                                          resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')), count: v.nodes.length }));
    }""")
    bad = [f"{v['impact']} {v['id']} x{v['count']}: {v['help']} e.g. {v['nodes']}" for v in found if v["impact"] in BAD]
    # every finding, minor ones too, for a person to read after the run (build/ is ignored by git)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with (SHOTS.parent / "axe.jsonl").open("a") as out:
        out.write(json.dumps({"url": page.url, "width": page.viewport_size["width"], "violations": found}) + "\n")
    return bad


def seated_match(api, game: str) -> tuple[str, str]:
    info = {g["id"]: g for g in api.get("/api/games").json()}[game]
    players = info["min_players"]
    body = {"game": game, "players": players, "turn_seconds": 3600,
            "bots": [{"seat": s, "strength": 0} for s in range(1, players)]}
    match = api.post("/api/matches", json=body).json()["match"]
    token = api.post(f"/api/matches/{match}/seats", json={"name": "Ada", "seat": 0}).json()["token"]
    return match, token


def open_seat(page, base: str, match: str, token: str) -> None:
    page.goto(base + "/web/")
    page.evaluate("([m, t]) => localStorage.setItem('teahouse.seats', JSON.stringify({[m]: {0: t}}))", [match, token])
    page.goto(f"{base}/web/#/match/{match}?seat=0")
    page.wait_for_selector("#turn-strip.mine #turn-line, #the-end", timeout=30_000)
    page.wait_for_selector("#picker, #the-end")


def test_the_lobby_has_no_serious_violation(pages, api, axe_source):
    api.post("/api/matches", json={"game": "pixies", "players": 2})
    for viewport in (None, PHONE):
        page = pages.new("lobby", **({"viewport": viewport} if viewport else {}))
        page.goto(pages.base + "/web/")
        page.wait_for_selector("#match-rows tr")
        assert violations(page, axe_source) == [], viewport


@pytest.mark.parametrize("game", GAMES)
def test_a_match_page_has_no_serious_violation_as_seat_spectator_and_phone(game, pages, api, axe_source):
    match, token = seated_match(api, game)
    seat = pages.new(f"{game}-seat")
    open_seat(seat, pages.base, match, token)
    found = {"seat": violations(seat, axe_source)}
    watcher = pages.new(f"{game}-watcher")
    watcher.goto(f"{pages.base}/web/#/match/{match}")
    wait_seq(watcher, 1)
    found["spectator"] = violations(watcher, axe_source)
    phone = pages.new(f"{game}-phone", viewport=PHONE)
    open_seat(phone, pages.base, match, token)
    found["phone"] = violations(phone, axe_source)
    assert found == {"seat": [], "spectator": [], "phone": []}


def test_the_replay_and_a_fork_have_no_serious_violation(pages, api, axe_source):
    body = {"game": "pixies", "players": 2, "bots": [{"seat": s, "strength": 0} for s in range(2)]}
    match = api.post("/api/matches", json=body).json()["match"]
    deadline = time.monotonic() + 60
    while api.get(f"/api/matches/{match}").json()["state"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    page = pages.new("replay")
    page.goto(f"{pages.base}/web/#/m/{match}@5?as=seat:1")
    page.wait_for_selector("body[data-replay-seq='5']")
    assert violations(page, axe_source) == []
    page.click("#replay-fork")
    page.wait_for_selector("button.take-seat")
    assert violations(page, axe_source) == []


def test_my_matches_and_the_leaderboard_have_no_serious_violations(pages, api, axe_source):
    page = pages.new("Ada")
    page.goto(pages.base + "/web/#/me")
    page.wait_for_selector("#become-player")
    assert violations(page, axe_source) == []
    page.fill("#player-name", "Ada")
    page.click("#become-player-button")
    page.wait_for_selector("#my-matches")
    assert violations(page, axe_source) == []
    page.goto(pages.base + "/web/#/leaderboard/pixies")
    page.wait_for_selector("#leaderboard")
    assert violations(page, axe_source) == []
    assert pages.errors == []
