"""Chinese Squared as data: the board (data/board.json) and content sets (data/*.json).

The rules never name a cell, a block or a character; they read them from here. A teacher's
own content set comes in through the `content` option and is checked by `compile_content`
before any match uses it (spec 2.2, "Custom content rules").
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

_DATA = Path(__file__).resolve().parent / "data"

HAND_SIZE = 4
COIN_CAP = 10
COINS_PER_PLAYER = 10
DEFAULT_TARGET = {2: 3, 3: 2, 4: 2}
DEFAULT_MAX_ROUNDS = 60
MIN_TASKS = 4
OPTIONS_PER_CLAIM = 4


def _load(name: str) -> dict[str, Any]:
    with open(_DATA / name, encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


# --- the board -------------------------------------------------------------------------

BOARD: dict[str, Any] = _load("board.json")
CELLS: dict[str, dict[str, Any]] = {c["id"]: c for c in BOARD["cells"]}
ADJ: dict[str, list[str]] = {c["id"]: list(c["adj"]) for c in BOARD["cells"]}
# Which circle an edge belongs to, both directions: "large" (the ring) or "small" (a spoke).
EDGE_CIRCLE: dict[tuple[str, str], str] = {}
for _circle, _edges in BOARD["edges"].items():
    for _a, _b in _edges:
        EDGE_CIRCLE[(_a, _b)] = _circle
        EDGE_CIRCLE[(_b, _a)] = _circle
BLOCKS: dict[str, list[str]] = dict(BOARD["blocks"])
BLOCK_IDS: list[str] = list(BLOCKS)
SLOT_DEAL_ORDER: list[str] = list(BOARD["slot_deal_order"])
SLOTS: list[str] = [c["id"] for c in BOARD["cells"] if c["kind"] == "slot"]
TELEPORTS: list[str] = list(BOARD["teleports"])
BASES: dict[str, str] = dict(BOARD["bases"])          # role -> cell
BASE_ROLE: dict[str, str] = {cell: role for role, cell in BASES.items()}
BASE_ORDER: list[str] = list(BASES)
EMPEROR: str = BOARD["emperor"]


def kind(cell: str) -> str:
    return str(CELLS[cell]["kind"])


# --- content sets ----------------------------------------------------------------------


class ContentError(ValueError):
    """A content set that breaks the rules of spec 2.2; the message says which and where."""


_TONE_MARKS = {
    1: "āēīōūǖĀĒĪŌŪǕ",
    2: "áéíóúǘÁÉÍÓÚǗ",
    3: "ǎěǐǒǔǚǍĚǏǑǓǙ",
    4: "àèìòùǜÀÈÌÒÙǛ",
}
_STOP_WORDS = {"to", "a", "an", "the", "of", "in", "and", "yet"}


def tone_of(pinyin: str) -> int:
    """The tone a pinyin syllable's mark shows; 0 (neutral) when it has none."""
    found = {tone for tone, marks in _TONE_MARKS.items() for ch in pinyin if ch in marks}
    if len(found) > 1:
        raise ContentError(f"pinyin {pinyin!r} carries more than one tone mark")
    return found.pop() if found else 0


@functools.lru_cache(maxsize=4096)
def content_words(gloss: str) -> frozenset[str]:
    """Spec 9.2: lower-case, drop bracketed parts, split at non-letters, drop the stop words.
    Cached: a fold checks every recorded challenge again, over the same few hundred glosses."""
    text = re.sub(r"\([^)]*\)", " ", gloss.lower())
    return frozenset(w for w in re.split(r"[^a-z]+", text) if w and w not in _STOP_WORDS)


def is_distractor(chars: dict[str, dict[str, Any]], char: str, gloss: str) -> bool:
    """Whether `gloss` is among distractors(chars, char), without building the whole list."""
    if content_words(gloss) & content_words(chars[char]["gloss"]):
        return False
    owners = _gloss_owners(chars).get(gloss)
    return owners is not None and (len(owners) > 1 or char not in owners)


# The characters of each gloss, per character table: a fold checks every claim's options against
# the same table (the match's content, which never changes), so it is indexed once, not scanned
# for every option. Keyed by the table's identity; the table is held so that id stays its own.
_GLOSS_INDEX: dict[int, tuple[dict[str, dict[str, Any]], dict[str, frozenset[str]]]] = {}


def _gloss_owners(chars: dict[str, dict[str, Any]]) -> dict[str, frozenset[str]]:
    held = _GLOSS_INDEX.get(id(chars))
    if held is not None and held[0] is chars:
        return held[1]
    owners: dict[str, set[str]] = {}
    for other, info in chars.items():
        owners.setdefault(info["gloss"], set()).add(other)
    index = {g: frozenset(cs) for g, cs in owners.items()}
    if len(_GLOSS_INDEX) >= 64:
        _GLOSS_INDEX.clear()
    _GLOSS_INDEX[id(chars)] = (chars, index)
    return index


def distractors(chars: dict[str, dict[str, Any]], char: str) -> list[str]:
    """Glosses of the other characters that share no content word with `char`'s gloss, sorted."""
    own = content_words(chars[char]["gloss"])
    return sorted(
        info["gloss"] for other, info in chars.items()
        if other != char and not (content_words(info["gloss"]) & own)
    )


# What one content set may hold: bounded, so that checking it (which compares glosses pairwise
# in the worst case) stays a few milliseconds and a request cannot hold a node.
MAX_CONTENT_CHARACTERS = 400
MAX_CONTENT_TASKS = 400
MAX_CONTENT_TEXT = 200  # code points of any one string (char, trad, pinyin, gloss, question, id)
MAX_TASK_ANSWER = 16  # characters in one task's answer
_checks = 0


def content_checks() -> int:
    """How many content sets this process has checked (the rest came from the cache)."""
    return _checks


def compile_content(raw: Any) -> dict[str, Any]:
    """Check a content set against spec 2.2 and return it in the form the rules read.

    Result: {"id", "chars": {char: {trad, pinyin, tone, steps, gloss}}, "tasks": {id: {question,
    answer: [char], answer_text, pinyin}}, "task_ids": [...], "card_ids": [canonical order]}.
    A content set equal to one already checked is not checked again: loads, replays and forks
    of a match fold from `initial` with the same options. The result is shared: never mutate it.
    """
    if isinstance(raw, dict):
        _check_sizes(raw.get("characters"), raw.get("tasks"))  # before any work proportional to the set
    try:
        key = json.dumps(raw, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return _compile(raw)  # not plain data: refused below
    return _compile_once(key)


@functools.lru_cache(maxsize=64)
def _compile_once(key: str) -> dict[str, Any]:
    return _compile(json.loads(key))


def card_char(card: str) -> str:
    """`心#2` -> `心`: a card id is its character and a copy number."""
    return card.rsplit("#", 1)[0]


def _compile(raw: Any) -> dict[str, Any]:
    global _checks
    _checks += 1
    if not isinstance(raw, dict):
        raise ContentError("a content set is an object with 'id', 'characters' and 'tasks'")
    unknown = sorted(set(raw) - {"id", "characters", "tasks"})
    if unknown:
        raise ContentError(f"unknown content fields: {', '.join(unknown)}")
    set_id = raw.get("id", "custom")
    if not isinstance(set_id, str) or not set_id:
        raise ContentError("content 'id' must be a non-empty string")
    entries, tasks_raw = raw.get("characters"), raw.get("tasks")
    if not isinstance(entries, list) or not entries:
        raise ContentError("content 'characters' must be a non-empty list")
    if not isinstance(tasks_raw, list):
        raise ContentError("content 'tasks' must be a list")
    _check_sizes(entries, tasks_raw)
    _check_text_lengths(set_id, entries, tasks_raw)

    chars: dict[str, dict[str, Any]] = {}
    copies: dict[str, int] = {}
    for i, e in enumerate(entries):
        where = f"characters[{i}]"
        if not isinstance(e, dict):
            raise ContentError(f"{where} must be an object")
        char = e.get("char")
        if not isinstance(char, str) or not char or "#" in char:
            raise ContentError(f"{where}: 'char' must be a non-empty string without '#'")
        where = f"character {char!r}"
        if char in chars:
            raise ContentError(f"{where} is listed twice")
        pinyin, gloss = e.get("pinyin"), e.get("gloss")
        if not isinstance(pinyin, str) or not pinyin:
            raise ContentError(f"{where}: 'pinyin' must be a non-empty string")
        if not isinstance(gloss, str) or not gloss:
            raise ContentError(f"{where}: 'gloss' must be a non-empty string")
        if "tone" not in e:
            raise ContentError(f"{where} lacks a tone (0 for neutral, or 1-4)")
        tone = e["tone"]
        if not _is_int(tone) or not 0 <= tone <= 4:
            raise ContentError(f"{where}: 'tone' must be 0 (neutral) or 1-4, not {tone!r}")
        if tone_of(pinyin) != tone:
            raise ContentError(f"{where}: tone {tone} does not match the pinyin {pinyin!r} (tone {tone_of(pinyin)})")
        steps: Any = e.get("steps", tone)
        if not _is_int(steps) or not 0 <= steps <= 4:
            raise ContentError(f"{where}: 'steps' must be 0-4, not {steps!r}")
        trad = e.get("trad", char)
        if not isinstance(trad, str) or not trad:
            raise ContentError(f"{where}: 'trad' must be a non-empty string")
        n: Any = e.get("copies")
        if not _is_int(n) or n < 1:
            raise ContentError(f"{where}: 'copies' must be a positive integer")
        chars[char] = {"trad": trad, "pinyin": pinyin, "tone": tone, "steps": steps, "gloss": gloss}
        copies[char] = n

    glosses = Counter(info["gloss"] for info in chars.values())
    repeated = sorted(g for g, k in glosses.items() if k > 1)
    if repeated:
        raise ContentError(f"glosses must be distinct; repeated: {', '.join(repeated)}")

    tasks: dict[str, dict[str, Any]] = {}
    for i, t in enumerate(tasks_raw):
        where = f"tasks[{i}]"
        if not isinstance(t, dict):
            raise ContentError(f"{where} must be an object")
        tid, question, answer = t.get("id"), t.get("question"), t.get("answer")
        if not isinstance(tid, str) or not tid:
            raise ContentError(f"{where}: 'id' must be a non-empty string")
        if tid in tasks:
            raise ContentError(f"task {tid!r} is listed twice")
        if not isinstance(question, str) or not question:
            raise ContentError(f"task {tid!r}: 'question' must be a non-empty string")
        if not isinstance(answer, list) or not answer or not all(isinstance(c, str) for c in answer):
            raise ContentError(f"task {tid!r}: 'answer' must be a non-empty list of characters")
        missing = sorted({c for c in answer if c not in chars})
        if missing:
            raise ContentError(f"task {tid!r} uses characters with no card entry: {', '.join(missing)}")
        pinyin = t.get("pinyin", "")
        if not isinstance(pinyin, str):
            raise ContentError(f"task {tid!r}: 'pinyin' must be a string")
        tasks[tid] = {"question": question, "answer": list(answer), "answer_text": "".join(answer),
                      "pinyin": pinyin}
    if len(tasks) < MIN_TASKS:
        raise ContentError(f"a content set needs at least {MIN_TASKS} tasks, this one has {len(tasks)}")

    # The deck is exactly the characters of the tasks, repeats included (a sum, not a union).
    needed = Counter(c for t in tasks.values() for c in t["answer"])
    wrong = [f"{c} ({copies.get(c, 0)} cards, tasks need {needed.get(c, 0)})"
             for c in sorted(set(needed) | set(copies)) if copies.get(c, 0) != needed.get(c, 0)]
    if wrong:
        raise ContentError("the hieroglyph deck must equal the characters of the tasks: " + "; ".join(wrong))
    total = sum(copies.values())
    minimum = len(SLOTS) + HAND_SIZE * 4
    if total < minimum:
        raise ContentError(f"a content set needs at least {minimum} cards (field plus four hands), this one has {total}")
    words = {char: content_words(info["gloss"]) for char, info in chars.items()}
    for char, own in words.items():
        # Stop at the third eligible distractor: in the usual set that comes within a few
        # glosses, so the check is linear; the size limit bounds the worst case.
        found = 0
        for other, theirs in words.items():
            if other != char and not (own & theirs):
                found += 1
                if found == OPTIONS_PER_CLAIM - 1:
                    break
        else:
            raise ContentError(f"character {char!r} needs at least 3 other glosses sharing no content word with its own")

    card_ids: list[str] = []
    seen: Counter[str] = Counter()
    for t in tasks.values():
        for c in t["answer"]:
            seen[c] += 1
            card_ids.append(f"{c}#{seen[c]}")
    return {"id": set_id, "chars": chars, "tasks": tasks, "task_ids": list(tasks), "card_ids": card_ids}


def _check_sizes(entries: Any, tasks: Any) -> None:
    n, k = (len(x) if isinstance(x, list) else 0 for x in (entries, tasks))
    if n > MAX_CONTENT_CHARACTERS or k > MAX_CONTENT_TASKS:
        raise ContentError(f"a content set has at most {MAX_CONTENT_CHARACTERS} characters and "
                           f"{MAX_CONTENT_TASKS} tasks; this one has {n} and {k}")


def _check_text_lengths(set_id: Any, entries: list[Any], tasks: list[Any]) -> None:
    """Every string of the set within MAX_CONTENT_TEXT (the types are checked field by field)."""
    texts = [set_id]
    texts += [e.get(k) for e in entries if isinstance(e, dict) for k in ("char", "trad", "pinyin", "gloss")]
    texts += [t.get(k) for t in tasks if isinstance(t, dict) for k in ("id", "question", "pinyin")]
    for text in texts:
        if isinstance(text, str) and len(text) > MAX_CONTENT_TEXT:
            raise ContentError(f"a content string has at most {MAX_CONTENT_TEXT} characters: {text[:40]!r}...")
    for t in tasks:
        answer = t.get("answer") if isinstance(t, dict) else None
        if isinstance(answer, list) and len(answer) > MAX_TASK_ANSWER:
            raise ContentError(f"a task's answer has at most {MAX_TASK_ANSWER} characters")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


DEFAULT_CONTENT_RAW: dict[str, Any] = _load("default_content.json")
DEFAULT_CONTENT: dict[str, Any] = compile_content(DEFAULT_CONTENT_RAW)
