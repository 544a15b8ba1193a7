"""Any language: the web client's words come from message catalogues (clients/web/locales, one
JSON file per language, ICU-style `{name}` placeholders and plural choices), the language is the
browser's when the client speaks it, else chosen with a switch that is remembered, and the
server's sentences (SPEC 3.14) are said in the reader's language from their message keys."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from tests.web.conftest import PHONE, SHOTS, make_one_move, wait_seq

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
LOCALES = WEB / "locales"
LANGUAGES = ["ru", "fr", "es", "nl", "zh-Hans"]  # the five, besides English


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8"))


def arguments(pattern: str) -> set[str]:
    """The names a pattern fills in: `{name}` and `{name, plural, ...}`."""
    return set(re.findall(r"\{\s*([A-Za-z_]\w*)\s*[,}]", pattern))


def balanced(pattern: str) -> bool:
    depth = 0
    for ch in pattern:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def plural_branches(pattern: str) -> list[set[str]]:
    """The branch selectors of each plural choice (`=0`, `one`, `few`, `other`...)."""
    out = []
    for m in re.finditer(r"\{\s*\w+\s*,\s*plural\s*,", pattern):
        i, depth, selectors, word = m.end(), 1, set(), ""
        while i < len(pattern) and depth:
            ch = pattern[i]
            if ch == "{":
                if depth == 1:
                    selectors.add(word.strip())
                    word = ""
                depth += 1
            elif ch == "}":
                depth -= 1
            elif depth == 1:
                word += ch
            i += 1
        out.append(selectors)
    return out


def test_the_client_offers_english_and_the_five_languages_each_with_a_catalogue():
    source = (WEB / "i18n.js").read_text(encoding="utf-8")
    offered = re.findall(r'^\s*"?([\w-]+)"?: "[^"]+",$', source.split("export const LANGUAGES = {")[1].split("};")[0], re.M)
    assert offered == ["en", *LANGUAGES]
    assert sorted(p.stem for p in LOCALES.glob("*.json")) == sorted(offered)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalogue_has_every_key_of_english_with_the_same_placeholders(lang):
    english, other = catalogue("en"), catalogue(lang)
    assert sorted(set(english) - set(other)) == [], f"{lang} lacks keys"
    assert sorted(set(other) - set(english)) == [], f"{lang} has keys English does not"
    for key, pattern in other.items():
        assert isinstance(pattern, str) and pattern.strip(), (lang, key)
        assert balanced(pattern), (lang, key, pattern)
        assert arguments(pattern) == arguments(english[key]), (lang, key, pattern)
        for selectors in plural_branches(pattern):
            assert "other" in selectors, (lang, key, pattern)  # Intl.PluralRules may always say other


def test_every_key_the_client_names_is_in_the_english_catalogue():
    english = catalogue("en")
    used = set()
    for path in [*WEB.glob("*.js"), *WEB.glob("boards/*.js")]:
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'\bt\(\s*"([\w.]+)"', text))
        used |= {m for m in re.findall(r'data-i18n(?:-attr)?="(?:[\w-]+:)?([\w.]+)"', text)}
    used |= set(re.findall(r'data-i18n(?:-attr="[\w-]+:|=")([\w.]+)"', (WEB / "index.html").read_text(encoding="utf-8")))
    assert len(used) > 150
    assert sorted(used - set(english)) == []


def phone(pages, name: str, locale: str = "en-US"):
    return pages.new(name, PHONE, has_touch=True, is_mobile=True, locale=locale)


def shown_text(page) -> str:
    """Every word a person can read or hear: the visible text and the accessible names."""
    return page.evaluate("""() => document.body.innerText + '\\n' + [...document.querySelectorAll('[aria-label],[title],[placeholder]')]
      .map((el) => [el.getAttribute('aria-label'), el.getAttribute('title'), el.getAttribute('placeholder')].join('\\n')).join('\\n')""")


def no_key_shown(page, english: dict[str, str]) -> None:
    assert page.evaluate("() => globalThis.teahouseI18n.missingKeys()") == []
    text = shown_text(page)
    shown = sorted(k for k in english if re.search(rf"(?<![\w.]){re.escape(k)}(?![\w.])", text))
    assert shown == [], f"message keys shown as they are: {shown}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_reader_switches_language_and_the_lobby_and_a_match_speak_it(lang, pages, api):
    english, words = catalogue("en"), catalogue(lang)
    # Chinese comes from the browser's own languages; the others by the switch, remembered
    page = phone(pages, f"lang-{lang}", locale="zh-CN" if lang == "zh-Hans" else "en-US")
    page.goto(pages.base + "/web/")
    page.wait_for_selector("#create-match")
    if lang != "zh-Hans":
        assert page.evaluate("() => document.documentElement.lang") == "en"
        page.select_option("#lang", lang)
        page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
        page.reload()
        page.wait_for_selector("#create-match")
    assert page.evaluate("() => document.documentElement.lang") == lang
    assert page.locator("#create-match").inner_text() == words["lobby.create"]
    assert page.locator("h2").first.inner_text() == words["lobby.new_match"]
    assert page.locator("#lang").input_value() == lang
    no_key_shown(page, english)

    # a match: this reader in seat 0 against a bot; one move of theirs and the bot's answer
    created = api.post("/api/matches", json={"game": "pixies", "players": 2, "options": {"first_player": 0},
                                             "bots": [{"seat": 1, "strength": 0}]})
    assert created.status_code == 201, created.text
    match = created.json()["match"]
    token = api.post(f"/api/matches/{match}/seats", json={"name": "Ada", "seat": 0}).json()["token"]
    page.evaluate("([m, t]) => localStorage.setItem('teahouse.seats', JSON.stringify({[m]: {0: t}}))", [match, token])
    page.goto(f"{pages.base}/web/#/match/{match}?seat=0")
    page.wait_for_selector("#turn-strip.mine #turn-line")
    assert page.locator("#turn-line").inner_text() == words["strip.your_turn"]
    make_one_move(page, random.Random(lang), 1)
    wait_seq(page, 3, timeout=30_000)  # the move, then the bot's
    page.wait_for_selector("#turn-strip.mine #turn-line")
    page.evaluate("async () => { window.scrollTo(0, 0); await document.fonts.ready; }")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"pixies-phone-{lang}.png"))
    no_key_shown(page, english)
    # the server's sentences, said from their keys: none of the English ones is left in the log
    log = page.locator("#game-log").inner_text()
    english_said = [v.split("{")[0].strip() for k, v in english.items() if k.startswith("said.pixies.") and not v.startswith("{")]
    assert not [s for s in english_said if s and re.search(rf"(?<!\w){re.escape(s)}(?!\w)", log)], log
    assert "Ada" in log and " takes " not in log and "Turn 1:" not in log, log
    # the sentence of this reader's own move, as the catalogue says it
    mine = words["said.pixies.taken_face_up"].split("{who}")[1].split("{")[0].strip()
    assert mine in log, (mine, log)
    assert not pages.errors, pages.errors


# -- the game boards ------------------------------------------------------------------------------

BOARDS = {"pixies": ".pixies", "china": ".china", "gugong": ".gugong", "khan": ".khan"}
BOARD_DIR = WEB / "boards"
KEYED_SAID = {"pixies", "china"}
BROWSER_LOCALE = {"ru": "ru-RU", "fr": "fr-FR", "es": "es-ES", "nl": "nl-NL", "zh-Hans": "zh-CN"}


def board_text(page) -> str:
    """What the board and the picker's choices say: text, accessible names, titles (also SVG <title>)."""
    return page.evaluate("""() => [...document.querySelectorAll('#board, #choices')].map((root) => [root.innerText,
      ...[...root.querySelectorAll('[aria-label],[title]')].map((el) => [el.getAttribute('aria-label'), el.getAttribute('title')].join('\\n')),
      ...[...root.querySelectorAll('title')].map((el) => el.textContent)].join('\\n')).join('\\n')""")


def fragments(pattern: str) -> list[str]:
    """The literal runs of a pattern outside its placeholders and plural choices."""
    while (inner := re.sub(r"\{[^{}]*\}", "\0", pattern)) != pattern:  # innermost braces first
        pattern = inner
    return re.split("\0+", pattern)


def english_left(text: str, english: dict[str, str], words: dict[str, str], prefixes: tuple[str, ...]) -> list[str]:
    """The keys (of `prefixes`) whose English words show although the language says them otherwise.
    Only runs long enough to be a sentence's own words count (two words, or one of 6+ letters)."""
    left = []
    for key, value in english.items():
        if not key.startswith(prefixes) or words[key] == value:
            continue
        theirs = " ".join(fragments(words[key]))
        for run in fragments(value):
            run = run.strip(" :;,.()—–·+×")
            if not re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}|[A-Za-z]{6,}", run) or run in theirs:
                continue
            # (a word joined to a number, "yellow-3", is a card's id, the same in every language)
            if re.search(rf"(?<![\w]){re.escape(run)}(?![\w]|-\d)", text):
                left.append(f"{key}: {run!r}")
    return left


def seated(api, game: str) -> tuple[str, str]:
    """A match of `game` against random bots: the reader in seat 0. Returns the match and its token."""
    players = {g["id"]: g for g in api.get("/api/games").json()}[game]["min_players"]
    created = api.post("/api/matches", json={"game": game, "players": players,
                                             "bots": [{"seat": s, "strength": 0} for s in range(1, players)]})
    assert created.status_code == 201, created.text
    match = created.json()["match"]
    taken = api.post(f"/api/matches/{match}/seats", json={"name": "Ada", "seat": 0})
    assert taken.status_code in (200, 201), taken.text
    return match, taken.json()["token"]


def test_the_boards_name_no_english_prose_outside_the_catalogue():
    """Every sentence a board shows goes through t(): a string literal of two English words (or a
    capitalised word) in a board module is a word the reader's language never gets."""
    literal = re.compile(r'"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`|\'((?:[^\'\\\n]|\\.)*)\'')
    found = []
    for game in BOARDS:
        for no, line in enumerate((BOARD_DIR / f"{game}.js").read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//")[0]
            if re.match(r"\s*(import|\*|/\*)", code):
                continue
            for m in literal.finditer(code):
                s = re.sub(r"\$\{[^}]*\}", " ", next(g for g in m.groups() if g is not None))
                if re.search(r"(?:class|viewBox|style)\W*$", code[:m.start()]) or re.fullmatch(r"[\w.#:\- ]*\w[-.]\w[\w.#:\- ]*", s):
                    continue  # a CSS class list or selector, not words
                if re.search(r"[A-Za-z]{2,}\s+[a-z]{2,}", s) or re.fullmatch(r"\s*[A-Z][a-z]{2,}[ :.…]*", s):
                    found.append(f"{game}.js:{no}: {s.strip()}")
    assert found == []


@pytest.mark.parametrize("game", list(BOARDS))
@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_board_speaks_the_readers_language_to_a_player_and_a_spectator(lang, game, pages, api):
    english, words = catalogue("en"), catalogue(lang)
    prefixes = (f"{game}.", "board.", "common.")
    match, token = seated(api, game)
    reader = phone(pages, f"{game}-{lang}-seat", locale=BROWSER_LOCALE[lang])  # the browser's language chooses
    reader.goto(pages.base + "/web/")
    reader.evaluate("([m, t]) => localStorage.setItem('teahouse.seats', JSON.stringify({[m]: {0: t}}))", [match, token])
    reader.goto(f"{pages.base}/web/#/match/{match}?seat=0")
    reader.reload()
    reader.wait_for_selector(f"#board {BOARDS[game]}")
    reader.wait_for_function("l => document.documentElement.lang === l", arg=lang)
    reader.wait_for_selector("#turn-strip.mine")  # seat 0 moves first or the bots have answered
    reader.evaluate("async () => { window.scrollTo(0, 0); await document.fonts.ready; }")
    SHOTS.mkdir(parents=True, exist_ok=True)
    reader.screenshot(path=str(SHOTS / f"{game}-board-phone-{lang}.png"))
    no_key_shown(reader, english)
    assert english_left(board_text(reader), english, words, prefixes) == []
    if game in KEYED_SAID:  # the server's sentences of this game carry keys (SPEC 3.14): its log speaks the language
        log = reader.locator("#game-log").inner_text()
        assert log.strip() and english_left(log, english, words, (f"said.{game}.",)) == [], log

    watcher = phone(pages, f"{game}-{lang}-watch", locale=BROWSER_LOCALE[lang])
    watcher.goto(f"{pages.base}/web/#/match/{match}")
    watcher.wait_for_selector(f"#board {BOARDS[game]}")
    watcher.wait_for_function("l => document.documentElement.lang === l", arg=lang)
    no_key_shown(watcher, english)
    assert english_left(board_text(watcher), english, words, prefixes) == []
    assert not pages.errors, pages.errors


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lobby_the_players_pages_and_the_leaderboard_speak_the_readers_language(lang, pages, api):
    english, words = catalogue("en"), catalogue(lang)
    prefixes = ("lobby.", "players.", "nav.", "common.", "options.", "option.", "state.", "bot.")
    page = phone(pages, f"pages-{lang}", locale=BROWSER_LOCALE[lang])
    page.goto(pages.base + "/web/")
    page.wait_for_selector("#create-match")
    page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
    assert page.locator("#nav-my-matches").inner_text() == words["players.my_matches"]
    no_key_shown(page, english)
    assert english_left(shown_text(page), english, words, prefixes) == []
    # the players page before and after becoming a player, then the leaderboard
    page.goto(pages.base + "/web/#/me")
    page.wait_for_selector("#become-player")
    assert page.locator("#identity h2").inner_text() == words["players.play_as"]
    no_key_shown(page, english)
    assert english_left(shown_text(page), english, words, prefixes) == []
    page.fill("#player-name", "Ada")
    page.click("#become-player-button")
    page.wait_for_selector("#my-matches")
    page.wait_for_function("() => document.querySelector('#my-match-rows')?.innerText.trim()")
    assert page.locator("#my-match-rows").inner_text().strip() == words["players.none"]
    no_key_shown(page, english)
    assert english_left(shown_text(page), english, words, prefixes) == []
    page.goto(pages.base + "/web/#/leaderboard/china")
    page.wait_for_selector("#leaderboard")
    assert page.locator("h2").first.inner_text() == words["players.leaderboard"]
    no_key_shown(page, english)
    assert english_left(shown_text(page), english, words, prefixes) == []
    assert not pages.errors, pages.errors


def test_every_chinese_word_is_one_the_shipped_font_draws():
    """The Chinese page draws with the shipped subset font (clients/web/fonts, README): GB2312
    level 1 and the characters of Chinese Squared's content set. A word outside it shows as a box."""
    content = (Path(__file__).resolve().parents[2] / "service" / "games" / "hieroglyphs" / "data" / "default_content.json").read_text(encoding="utf-8")

    def drawn(ch: str) -> bool:
        try:
            lead = ch.encode("gb2312")[0]
        except UnicodeEncodeError:
            return ch in content
        return 0xB0 <= lead <= 0xD7 or ch in content

    missing = {ch: key for key, value in catalogue("zh-Hans").items() for ch in value if "\u4e00" <= ch <= "\u9fff" and not drawn(ch)}
    assert missing == {}
