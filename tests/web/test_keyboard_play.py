"""Any reader: a whole match of each game played from the keyboard alone, and the page telling a
screen reader what happens.

One seat is a browser page; the other seats are server bots. Every move of the page is made by
walking the focus with Tab / Shift+Tab to a board part, a choice or Confirm and pressing Enter or
Space (Escape now and then drops a half-made move): no click, no element.click(), no command
sent by the test. Along the way and at the end:
- the live region (#announce, a polite log) said "Your turn." before each of the seat's moves and
  every sentence the server said about every commit (`said`, SPEC 3.14: on an English page the
  sentence is the English of `said`), read from the server's log, not from the page;
- the board's text summary (#position, a labelled region) says whose turn it is and the scores the
  server's view holds at that moment, and at the end that the match is over with the result's
  scores;
- the tab title says it is the seat's turn.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import pytest

from tests.web.clicking import offer
from tests.web.conftest import create_in_lobby, match_against_bots, moves_sent, wait_seq

# Every node added to the live region, in order (the page only ever appends to it).
RECORD_ANNOUNCEMENTS = """
window.__announced = [];
new MutationObserver((records) => {
  for (const r of records) {
    if (r.target.id !== 'announce') continue;
    for (const n of r.addedNodes) window.__announced.push(n.textContent);
  }
}).observe(document, { childList: true, subtree: true });
// the tones the page starts (the turn sound is made with Web Audio)
window.__tones = 0;
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) { window.__tones += 1; return start.apply(this, args); };
"""

# Where the focus stands relative to what the test wants to reach: `here`, `gone` (no longer
# offered), else the key that goes toward it: an arrow from one part of the board to another (the
# way the wanted part lies on the screen), else Tab or Shift+Tab (the way it lies in the page).
WHERE = """(want) => {
  const sel = want === 'confirm' ? '#confirm-move:not([disabled])' : want.startsWith('#') ? want
    : `#board-root .pickable[data-pick="${CSS.escape(want)}"], #choices [data-pick="${CSS.escape(want)}"]:not([disabled])`;
  const el = document.querySelector(sel);
  if (!el) return 'gone';
  const a = document.activeElement;
  if (a && a.matches(sel)) return 'here';
  if (!a || a === document.body) return 'Tab';
  if (a.matches('#board-root .pickable') && el.matches('#board-root .pickable')) {
    const c = (e) => { const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
    const [[ax, ay], [ex, ey]] = [c(a), c(el)];
    if (Math.abs(ex - ax) >= Math.abs(ey - ay)) return ex > ax ? 'ArrowRight' : 'ArrowLeft';
    return ey > ay ? 'ArrowDown' : 'ArrowUp';
  }
  return a.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING ? 'Tab' : 'Shift+Tab';
}"""
FOCUSED = "() => document.activeElement?.outerHTML ?? ''"


# Board parts a screen reader cannot name or place: a labelled part with no role, or a part to
# pick that is not a button with a name.
UNNAMED = """() => [
  ...[...document.querySelectorAll('#board-root [aria-label]:not([role])')].map((el) => 'no role: ' + el.outerHTML.slice(0, 80)),
  ...[...document.querySelectorAll('#board-root .pickable')].filter((el) => el.getAttribute('role') !== 'button'
      || !(el.getAttribute('aria-label') || '').trim()).map((el) => 'unnamed button: ' + el.outerHTML.slice(0, 80)),
]"""
TAB_WAY = """(w) => { const el = document.querySelector(`#board-root .pickable[data-pick="${CSS.escape(w)}"]`);
  return document.activeElement.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING ? 'Tab' : 'Shift+Tab' }"""


def reach(page, want: str, stats: dict, presses: int = 600) -> None:
    """Walk the focus to `want` (a token, "confirm" or an element's #id) with the arrow keys on
    the board and Tab or Shift+Tab elsewhere; once an arrow leads nowhere new (the way is not
    straight), Tab and Shift+Tab finish the walk."""
    arrows, seen = True, set()
    for _ in range(presses):
        key = page.evaluate(WHERE, want)
        if key == "here":
            return
        assert key != "gone", f"{want} is no longer offered"
        if key.startswith("Arrow"):
            if not arrows:
                key = page.evaluate(TAB_WAY, want)
            else:
                seen.add(page.evaluate(FOCUSED))
        page.keyboard.press(key)
        stats["arrows" if key.startswith("Arrow") else "tabs"] += 1
        if key.startswith("Arrow") and page.evaluate(FOCUSED) in seen:
            arrows = False
    raise AssertionError(f"the keyboard never reaches {want}")


def keyboard_move(page, rng: random.Random, stats: dict) -> list[str]:
    """One whole move from the keyboard: reach an offered token and press Enter or Space, until
    the move goes by itself or Confirm is reached and pressed. Sometimes Escape drops the picks
    and the move is started again."""
    sent = moves_sent(page)
    picked: list[str] = []
    for _ in range(60):
        if moves_sent(page) > sent:
            return picked
        now = offer(page)
        assert now is not None, "the picker went away in the middle of a move"
        if picked and (not stats["escapes"] or rng.random() < 0.05):
            page.keyboard.press("Escape")
            page.wait_for_function("() => !document.querySelector('#cancel-move') || document.querySelector('#cancel-move').disabled")
            stats["escapes"] += 1
            picked = []
            continue
        if now["confirm"] and (not now["next"] or rng.random() < 0.5):
            reach(page, "confirm", stats)
            page.keyboard.press(rng.choice(["Enter", "Space"]))
            return picked
        assert now["next"], f"nothing to pick and nothing to confirm after {picked}"
        token = rng.choice(now["next"])
        reach(page, token, stats)
        page.keyboard.press(rng.choice(["Enter", "Space"]))
        picked.append(token)
        stats["picks"] += 1
        stats["kinds"].add(token.split(":")[0])
    raise AssertionError(f"no whole move after {picked}")


def seat_label(names: list[str | None], seat: int) -> str:
    name = names[seat]
    return f"{name} (seat {seat})" if name else f"Seat {seat}"


def english_list(items: list[str]) -> str:
    """Names joined as English joins them (Intl.ListFormat en, long conjunction)."""
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


# Where each game's rules keep the running score in the public view (docs/games/<game>.md);
# Khan scores only at the end.
RUNNING_SCORES = {
    "pixies": lambda v: v["totals"],
    "china": lambda v: v["scores"],
    "gugong": lambda v: [p["vp"] for p in v["players"]],
    "khan": lambda v: None,
    "hieroglyphs": lambda v: v["scores"],
}


def scores_line(scores: list[int], names: list[str | None]) -> str:
    return "Scores: " + english_list([f"{seat_label(names, s)} {n}" for s, n in enumerate(scores)]) + "."


def position(page) -> list[str]:
    return [li.strip() for li in page.locator("#position li").all_inner_texts()]


ENGLISH = json.loads((Path(__file__).resolve().parents[2] / "clients" / "web" / "locales" / "en.json").read_text("utf-8"))
# parameters the client names in its own words (a card from its face or id, a command's type)
NAMED_BY_THE_CLIENT = {"card", "cards", "discarded", "move"}  # card ids the board names, command types


def sentence_pattern(text: str, keyed: dict | None) -> re.Pattern:
    """What an English page may say for one of the server's sentences (SPEC 3.14): its English
    text when it has no key or the catalogue lacks the key; else the catalogue's words for the key
    with every name and number of its parameters as the server gave them (cards, lists and
    plural choices are the client's words: any text there)."""
    pattern = ENGLISH.get(f"said.{keyed['key']}") if keyed else None
    if pattern is None:
        return re.compile(re.escape(text))
    params, out, i = keyed.get("params") or {}, "", 0
    while i < len(pattern):
        if pattern[i] != "{":
            out += re.escape(pattern[i])
            i += 1
            continue
        depth, j = 0, i
        while True:
            depth += {"{": 1, "}": -1}.get(pattern[j], 0)
            if depth == 0:
                break
            j += 1
        body = pattern[i + 1:j].strip()
        value = params.get(body)
        plain = "," not in body and body not in NAMED_BY_THE_CLIENT and isinstance(value, str | int) and not isinstance(value, bool)
        out += re.escape(str(value)) if plain else ".*?"
        i = j + 1
    return re.compile(out, re.DOTALL)


def said_by_commit(api, match: str) -> dict[int, list[re.Pattern]]:
    """Per commit, what an English page may announce for each of the server's sentences."""
    log = api.get(f"/api/matches/{match}/log").json()
    out = {}
    for c in log["commits"]:
        said = list(c.get("said") or [])
        keys = c.get("said_keys") or [None] * len(said)
        out[c["seq"]] = [sentence_pattern(text, k) for text, k in zip(said, keys, strict=True)]
    return out


GAMES = [
    # (game, players, options that keep the match short, seed)
    ("pixies", 2, {"first_player": 0}, 1),
    ("china", 3, {"start_player": 0}, 2),
    ("gugong", 2, {"start_player": 0}, 3),
    ("khan", 2, {"start_player": 0}, 4),
    ("hieroglyphs", 2, {"first_player": 0, "mode": "rounds", "round_limit": 8, "task_selection": "random"}, 5),
]


@pytest.mark.parametrize(("game", "players", "options", "seed"), GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_match_from_the_keyboard_alone(game, players, options, seed, pages, api):
    page = pages.new("Ada", locale="en-US")
    page.add_init_script(RECORD_ANNOUNCEMENTS)
    match = create_in_lobby(page, pages.base, game, players, json.dumps(options), "Ada",
                            bots={s: 0 for s in range(1, players)})
    wait_seq(page, 1)
    rng = random.Random(seed)
    stats = {"moves": 0, "picks": 0, "arrows": 0, "tabs": 0, "escapes": 0, "kinds": set()}
    turns_seen = 0
    started = time.monotonic()
    while True:
        summary = api.get(f"/api/matches/{match}").json()  # reading only: every move is a key press
        if summary["state"] == "finished":
            break
        replay = api.get(f"/api/matches/{match}/replay").json()
        if 0 not in replay["status"]["to_act"]:
            time.sleep(0.05)
            continue
        seq = replay["seq"]  # (a bot may have moved since the summary was read)
        wait_seq(page, seq)
        page.wait_for_function("(s) => { const o = document.querySelector('#picker'); return o && Number(document.querySelector('#seq').dataset.seq) === s }", arg=seq)
        names = [s.get("name") for s in summary["seats"]]
        # the page says it is this seat's turn: the live region, the summary, the tab title
        page.wait_for_function("() => (window.__announced || []).at(-1) === 'Your turn.'")
        lines = position(page)
        assert lines[0] == "It is your turn.", lines
        running = RUNNING_SCORES[game](replay["view"])
        if running is not None:
            assert scores_line(running, names) in lines, (lines, running)
        assert page.title().startswith("● Your turn"), page.title()
        assert page.evaluate(UNNAMED) == []
        if turns_seen == 0:
            # the sound on your turn is turned on from the keyboard too (it sounds once then)
            reach(page, "#turn-sound", stats)
            page.keyboard.press("Space")
            page.wait_for_function("() => document.querySelector('#turn-sound').checked && window.__tones >= 2")
        turns_seen += 1
        keyboard_move(page, rng, stats)
        stats["moves"] += 1
        wait_seq(page, seq + 1, timeout=20_000)
        assert stats["moves"] < 400, f"{game}: the match does not end"

    final = api.get(f"/api/matches/{match}").json()
    wait_seq(page, final["seq"])
    page.wait_for_selector("#the-end")
    names = [s.get("name") for s in final["seats"]]
    lines = position(page)
    assert lines[0] == "The match is over.", lines
    assert scores_line(final["result"]["scores"], names) in lines, lines

    # every sentence the server said from the first commit the page saw on was announced, in order
    announced = [re.sub(r"\s+", " ", a).strip() for a in page.evaluate("() => window.__announced")]
    said = said_by_commit(api, match)
    expected = [(seq, p) for seq in sorted(said) if seq >= 2 for p in said[seq]]
    rest = iter(announced)
    for seq, p in expected:
        assert any(p.fullmatch(a) for a in rest), f"{game}: commit {seq}'s sentence /{p.pattern}/ was not announced (in order)"
    assert announced.count("Your turn.") >= turns_seen
    assert stats["arrows"] and stats["tabs"] and stats["escapes"]
    # the turn came back to the seat after the sound was on: it sounded again (two tones a time)
    assert page.evaluate("() => window.__tones") >= 4
    assert pages.errors == []
    print(f"{game}: {stats} in {time.monotonic() - started:.1f} s")


def test_a_spectator_reads_the_position_in_words(pages, api):
    """The same region for someone watching: whose turn by name (never "your turn"), the scores
    and the deck as the server's public view holds them, and no line about a hand."""
    match = match_against_bots(api, "pixies", options={"first_player": 0})
    page = pages.new("watcher", locale="en-US")
    page.goto(f"{pages.base}/web/#/match/{match}")
    wait_seq(page, 1)
    replay = api.get(f"/api/matches/{match}/replay").json()
    view, names = replay["view"], [s.get("name") for s in api.get(f"/api/matches/{match}").json()["seats"]]
    assert replay["status"]["to_act"] == [0]  # Ada, a person, has not moved: the position stands
    page.wait_for_selector("#position li", state="attached")  # drawn for a screen reader, not the eye
    lines = position(page)
    assert lines[0] == f"{seat_label(names, 0)} to move.", lines
    assert scores_line(view["totals"], names) in lines, lines
    assert f"{view['deck_count']} cards in the deck." in lines, lines
    assert f"Round {view['round']}, turn {view['turn']}." in lines, lines
    assert not any("your" in line.lower() for line in lines), lines
    assert page.locator("#position").get_attribute("aria-label") == "The position in words"
    assert pages.errors == []
