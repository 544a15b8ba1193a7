"""Chinese Squared on its board, in Debian's Chromium: two people play a whole short match
(rounds mode, 3 rounds, the canonical deck) by pointing at bases, tasks, hand cards, the
meaning buttons, the cells of their path and the stop actions, while a third watches.

The meaning check is judged against the shipped content set (the spec's data, not the engine's
output): every claim the page asks is answered, right or wrong on purpose, and the verdict on
the claimer's and the spectator's page must say which, with the right meaning. The spectator
never sees a hand card or a pending claim's options, and the characters are drawn with the font
the server ships.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from service.games import get_game
from tests.web.clicking import (
    acting,
    assert_one_path_each,
    board_paths,
    desktop_and_phone,
    offer,
    pick,
    play_one_move,
    sample_states,
    tab_reaches_a_pickable,
)
from tests.web.conftest import (
    PHONE,
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

CONTENT = json.loads((Path(__file__).resolve().parents[2] / "service" / "games" / "hieroglyphs" / "data"
                      / "default_content.json").read_text(encoding="utf-8"))
GLOSS = {c["char"]: c["gloss"] for c in CONTENT["characters"]}


def canonical_deck() -> list[str]:
    """Every character of T01..T20 in task order, each with the next free copy number (spec 2.2)."""
    seen: dict[str, int] = {}
    out = []
    for task in CONTENT["tasks"]:
        for ch in task["answer"]:
            seen[ch] = seen.get(ch, 0) + 1
            out.append(f"{ch}#{seen[ch]}")
    return out


OPTIONS = json.dumps({"first_player": 0, "mode": "rounds", "round_limit": 3, "deck_order": canonical_deck()},
                     ensure_ascii=False)
FONT = "/web/fonts/NotoSansSC-content.woff2"  # the shipped content set's characters alone
FONT_GB2312 = "/web/fonts/NotoSansSC-subset.woff2"  # GB2312 level 1: for a character FONT lacks
# The options a page shows as such: an element whose whole text is one, or a label naming it (a
# word like "west" may well appear elsewhere, in "west teleport").
SHOWN_AS_OPTION = """(options) => options.filter((o) => [...document.querySelectorAll('body *')].some((el) =>
  (el.childElementCount === 0 && el.textContent.trim() === o) || (el.getAttribute('aria-label') ?? '').includes(`meaning: ${o}`)
  || el.textContent.includes(`“${o}”`)))"""


class Learner:
    """Always claims the meaning; moves and stop actions at random, ending the turn soon."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seen: set[str] = set()

    def __call__(self, seat: int, now: dict, picked: list[str]) -> str:
        nxt = now["next"]
        self.seen.update(t.split(":")[0] for t in nxt)
        if picked:
            if "claim:yes" in nxt:
                return "claim:yes"
            if now["confirm"]:
                return "confirm"
            return self.rng.choice(nxt)
        if "end_turn" in nxt and self.rng.random() < 0.6:
            return "end_turn"
        return self.rng.choice(nxt)


def own_hand(page) -> list[str]:
    return [c.get_attribute("data-card") for c in page.locator(".h-own [data-card]").all()]


def test_two_people_play_chinese_squared_to_the_end_and_learn_meanings(pages, api):
    ada, bob, watcher = pages.new("ada"), pages.new("bob"), pages.new("watcher")
    match = create_in_lobby(ada, pages.base, "hieroglyphs", 2, OPTIONS, "Ada")
    watch_from_lobby(watcher, pages.base, match)
    sit_from_lobby(bob, pages.base, match, 1, "Bob")
    seats = {0: ada, 1: bob}
    for page in (ada, bob, watcher):
        wait_seq(page, 1)
    ada.wait_for_selector(".h-board .h-cell[data-pick='base:TEACHER']")
    assert ada.locator(".h-board .h-cell").count() == 45
    assert own_hand(ada) == ["天#1", "长#1", "地#1", "久#1"]  # spec S23: the canonical deal
    token = tab_reaches_a_pickable(ada)
    assert token.startswith("base:")

    player = Learner(5)
    seq = 1
    verdicts = []
    options_checked = False
    commits = 0
    shots = False
    snapshots: dict[int, str] = {}
    while api.get(f"/api/matches/{match}").json()["state"] != "finished":
        seat = acting(seats, seq)
        page = seats[seat]
        other = seats[1 - seat]
        question = page.locator("#meaning-question [data-pick^='answer:']")
        if question.count():
            # the meaning question, where the player looks: four meanings as buttons
            options = [b.inner_text() for b in page.locator("#meaning-question [data-pick^='answer:']:not([data-pick='answer:none'])").all()]
            char = page.locator("#meaning-question .h-big").inner_text()
            assert len(options) == 4 and GLOSS[char] in options
            if not options_checked:
                # nobody else sees the options of a pending claim
                for onlooker in (watcher, other):
                    wait_seq(onlooker, seq)
                    onlooker.wait_for_selector("#meaning-question")
                    assert onlooker.locator("[data-pick^='answer:']").count() == 0
                    assert onlooker.evaluate(SHOWN_AS_OPTION, options) == [], "a pending claim's options leaked"
                shot(page, "hieroglyphs-question-desktop")
                options_checked = True
            want_right = len(verdicts) % 2 == 0
            choice = options.index(GLOSS[char]) if want_right else next(i for i, o in enumerate(options) if o != GLOSS[char])
            pick(page, f"answer:{choice}")  # a quiz answer is one tap
            seq += 1
            for looker in (page, watcher):
                wait_seq(looker, seq)
                box = looker.locator("#meaning-verdict")
                assert box.get_attribute("data-correct") == ("true" if want_right else "false")
                text = box.inner_text()
                assert ("Right" if want_right else "Wrong") in text and f"“{GLOSS[char]}”" in text
            verdicts.append(want_right)
            commits += 1
            continue
        play_one_move(page, seat, player)
        seq += 1
        wait_seq(page, seq)
        commits += 1
        if commits % 5 == 2:
            wait_seq(watcher, seq)
            assert watcher.locator(".h-own").count() == 0
            snapshots[seq] = visible_text_and_attrs(watcher)
        if commits >= 6 and not shots:
            shots = True
            desktop_and_phone(page, "hieroglyphs-seat")
            wait_seq(watcher, seq)
            desktop_and_phone(watcher, "hieroglyphs-spectator")
        assert seq < 200, "the match does not end"
    assert True in verdicts and False in verdicts and options_checked and snapshots and shots
    hidden = secrets_along(api, match, list(snapshots))
    for at, markup in snapshots.items():
        assert leaked(markup, hidden[at]) == [], f"the spectator's page at seq {at} shows a secret"
    assert {"base", "task", "play", "claim", "cell"} <= player.seen

    final = api.get(f"/api/matches/{match}").json()
    result = final["result"]
    last = api.get(f"/api/matches/{match}/replay", params={"seq": final["seq"]}).json()["view"]
    for page in (*seats.values(), watcher):
        wait_seq(page, final["seq"])
        page.wait_for_selector("#h-result")
        shown = {int(e.get_attribute("data-seat")): int(e.inner_text()) for e in page.locator(".h-final").all()}
        assert shown == dict(enumerate(result["scores"]))
        winners = {int(li.get_attribute("data-seat")) for li in page.locator("#h-result li:has(.badge)").all()}
        assert winners == set(result["winners"])
        coins = [int(t) for t in re.findall(r"· (\d+) coins", page.locator("#h-result").inner_text())]
        assert coins == last["coins"]
    # a coin for a right answer only, from the bank of 10 per player (spec 2.1, 5.2)
    assert sum(last["coins"]) <= verdicts.count(True) and sum(last["coins"]) + last["bank"] == 20

    # the end on every page, then the replay on the same board (seen by seat 1, half way)
    check_the_end_and_replay(Played(match, [ada, bob], watcher, final, commits), api, "hieroglyphs")
    middle = final["seq"] // 2
    at = api.get(f"/api/matches/{match}/replay", params={"seq": middle, "seat": 1}).json()["view"]
    drawn = {e.get_attribute("data-cell"): e.get_attribute("data-card") for e in ada.locator(".h-board .h-slot").all()}
    assert drawn == at["slots"]
    assert [e.get_attribute("data-card") for e in ada.locator(".h-own [data-card]").all()] == at["you"]["hand"]
    assert pages.errors == []


def test_the_characters_are_drawn_with_the_font_the_server_ships(pages, api):
    for font in (FONT, FONT_GB2312):
        got = api.get(font)
        assert got.status_code == 200 and got.content[:4] == b"wOF2"
    assert len(api.get(FONT).content) <= 300_000  # the bound for the font a page loads
    licence = api.get("/web/fonts/OFL.txt")
    assert licence.status_code == 200 and "SIL OPEN FONT LICENSE Version 1.1" in licence.text
    mid = api.post("/api/matches", json={"game": "hieroglyphs", "players": 2, "options": {"first_player": 0}}).json()["match"]
    for name in ("Ada", "Bob"):
        api.post(f"/api/matches/{mid}/seats", json={"name": name})
    page = pages.new("reader", PHONE)
    page.goto(f"{pages.base}/web/#/match/{mid}")
    wait_seq(page, 1)
    page.wait_for_selector(".h-board .h-char")
    chars = "".join(sorted(GLOSS))
    state = page.evaluate("""async (chars) => {
      await document.fonts.ready;
      await document.fonts.load('20px "Teahouse CJK"', chars);
      const faces = [...document.fonts].filter((f) => f.family.replace(/"/g, '') === 'Teahouse CJK');
      const el = document.querySelector('.h-board .h-char');
      return { faces: faces.map((f) => [f.unicodeRange, f.status]), check: document.fonts.check('20px "Teahouse CJK"', chars),
               family: getComputedStyle(el).fontFamily,
               fetched: performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname) };
    }""", chars)
    # two faces: the content set's few characters, loaded; the rest of the CJK blocks, never
    # fetched while the page writes none of them
    def covers(unicode_range: str, ch: str) -> bool:
        terms = [t.strip().removeprefix("U+").removeprefix("u+").split("-") for t in unicode_range.split(",")]
        return any(int(t[0], 16) <= ord(ch) <= int(t[-1], 16) for t in terms)
    assert len(state["faces"]) == 2, state["faces"]
    own = [status for rng, status in state["faces"] if all(covers(rng, ch) for ch in chars)]
    rest = [status for rng, status in state["faces"] if covers(rng, "你")]  # GB2312, not in the content set
    assert (own, rest) == (["loaded"], ["unloaded"]), state["faces"]
    assert state["check"] is True
    assert state["family"].startswith('"Teahouse CJK"')
    assert FONT in state["fetched"] and FONT_GB2312 not in state["fetched"]
    # the characters cover the cells: a glyph of the font (1 em wide), not a fallback box
    widths = page.evaluate("""(chars) => {
      const c = document.createElement('canvas').getContext('2d');
      c.font = '100px "Teahouse CJK"';
      return [...chars].map((ch) => c.measureText(ch).width);
    }""", chars)
    assert all(abs(w - 100) < 0.5 for w in widths), widths
    assert offer(page) is None  # a spectator gets no picker
    assert pages.errors == []


def test_every_legal_move_has_a_path_of_its_own(tmp_path):
    """Along random matches, the board maps each legal move of the seat to act to its own
    sequence of things to point at (the module itself, run in Node)."""
    game = get_game("hieroglyphs")
    states = [*sample_states(game, 3, "paths-a", every=1, limit=400),
              *sample_states(game, 2, "paths-b", every=1, limit=400)]
    paths = board_paths("hieroglyphs", game.reference({}, 3), states, tmp_path)
    kinds = {m["type"] for _, moves in states for m in moves}
    assert assert_one_path_each(states, paths) > 1000 and len(kinds) >= 8, kinds


STEPS = {c["char"]: c["steps"] for c in CONTENT["characters"]}
ANSWER = {t["id"]: "".join(t["answer"]) for t in CONTENT["tasks"]}
BOARD = json.loads((Path(__file__).resolve().parents[2] / "service" / "games" / "hieroglyphs" / "data"
                    / "board.json").read_text(encoding="utf-8"))


def distances(to: str) -> dict[str, int]:
    """Steps from every cell to `to` along the board's adjacency (board.json)."""
    adj = {c["id"]: c["adj"] for c in BOARD["cells"]}
    dist, frontier = {to: 0}, [to]
    while frontier:
        nxt = []
        for cell in frontier:
            for n in adj[cell]:
                if n not in dist:
                    dist[n] = dist[cell] + 1
                    nxt.append(n)
        frontier = nxt
    return dist


class Pilgrim:
    """Heads for the Emperor: a card whose steps land on a teleport (or reach the Emperor), each
    step the one nearest the Emperor; there it attaches one card, goes one step out, comes back
    and declares."""

    TO_EMP = distances("EMP")
    TELEPORTS = {c["id"] for c in BOARD["cells"] if c["kind"] == "teleport"}

    def __init__(self) -> None:
        self.at = ""
        self.attached = 0

    def steps_to_teleport(self) -> int:
        return min(d for tp, d in ((tp, distances(tp)[self.at]) for tp in self.TELEPORTS) if d > 0)

    def __call__(self, seat: int, now: dict, picked: list[str]) -> str:
        nxt = now["next"]
        plays = [t for t in nxt if t.startswith("play:")]
        if plays and not picked:
            steps = {t: STEPS[t.split(":")[1].split("#")[0]] for t in plays}
            if self.at == "EMP":
                return min(plays, key=lambda t: steps[t])  # one step out, to come back next turn
            if self.at in self.TELEPORTS or self.at[0] in "NESW":
                return max(plays, key=lambda t: steps[t])
            exact = [t for t in plays if steps[t] == self.steps_to_teleport()]
            return exact[0] if exact else max(plays, key=lambda t: steps[t])
        if now["confirm"] and not any(t.startswith("order:") for t in nxt):
            return "confirm"
        cells = [t for t in nxt if t.startswith("cell:")]
        if cells:
            return min(cells, key=lambda t: self.TO_EMP[t.split(":")[1]])
        if "teleport:stay" in nxt:
            return "teleport:stay"
        if "declare" in nxt and self.attached:
            return "declare"
        orders = [t for t in nxt if t.startswith("order:")]
        if orders:
            return orders[0]
        attach = [t for t in nxt if t.startswith("attach:")]
        if attach and not self.attached:
            return attach[0]
        if "end_turn" in nxt:
            return "end_turn"
        return sorted(nxt)[0]


def test_a_task_is_declared_at_the_emperor_by_pointing(pages, api):
    """Ada walks to the Emperor, attaches a card to her task, steps out and back, and declares:
    one card for a four-character answer is wrong, so the answer is shown to everyone and she
    gets the next task (spec 5.7)."""
    options = {"first_player": 0, "meaning_check": "off", "deck_order": canonical_deck(), "task_selection": "random"}
    mid = api.post("/api/matches", json={"game": "hieroglyphs", "players": 2, "options": options}).json()["match"]
    tokens = [api.post(f"/api/matches/{mid}/seats", json={"name": n}).json()["token"] for n in ("Ada", "Bob")]
    seats = {}
    for seat, token in enumerate(tokens):
        page = pages.new(f"seat{seat}")
        page.goto(pages.base + "/web/")
        page.evaluate("([m, s, t]) => localStorage.setItem('teahouse.seats', JSON.stringify({[m]: {[s]: t}}))", [mid, seat, token])
        page.goto(f"{pages.base}/web/#/match/{mid}?seat={seat}")
        seats[seat] = page
    watcher = pages.new("watcher")
    watcher.goto(f"{pages.base}/web/#/match/{mid}")
    ada = seats[0]
    pilgrim, other = Pilgrim(), Learner(3)
    seq = 1
    for _ in range(120):
        seat = acting(seats, seq)
        page = seats[seat]
        if seat == 0:
            here = ada.locator(".h-board .h-cell:has(.h-fig[aria-label^='figure of Ada'])")
            pilgrim.at = here.get_attribute("data-cell") if here.count() else ""
            pilgrim.attached = ada.locator(".h-player[data-seat='0'] .h-attached [data-card]").count()
            held = ada.locator(".h-player[data-seat='0'] .h-task[data-task]")
            task = held.get_attribute("data-task") if held.count() else None
            picked = play_one_move(page, 0, pilgrim)
        else:
            picked = play_one_move(page, 1, other)
        seq += 1
        wait_seq(page, seq)
        if picked and picked[0] == "declare":
            break
    else:
        raise AssertionError("Ada never declared at the Emperor")
    for looker in (ada, watcher):
        wait_seq(looker, seq)
        said = looker.locator(".h-turn").inner_text()
        assert f"declared {task}: wrong" in said and ANSWER[task] in said
        verdict = looker.locator(f".h-declared[data-task='{task}']")
        assert verdict.get_attribute("data-correct") == "false"
        assert "Wrong" in verdict.inner_text() and f"The answer is {ANSWER[task]}" in verdict.inner_text()
        assert looker.locator(f".h-player[data-seat='0'] .h-task[data-task='{task}']").count() == 0  # the next task
    shot(ada, "hieroglyphs-declared-desktop")
    assert pages.errors == []
