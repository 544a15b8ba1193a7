"""A valid Chinese Squared content set of any size, for the abuse tests and bench figures."""

from __future__ import annotations

from typing import Any

_PINYIN = ["mā", "má", "mǎ", "mà", "ma"]


def big_content(characters: int, per_task: int = 4) -> dict[str, Any]:
    """`characters` characters (CJK code points from U+4E00), each used once by one task of
    `per_task` characters, every gloss with words of its own (so every other gloss is an
    eligible distractor: the most work the distractor rule can ask)."""
    chars = [chr(0x4E00 + i) for i in range(characters)]
    entries = [{"char": c, "pinyin": _PINYIN[i % 5], "tone": (i % 5 + 1) % 5, "gloss": f"gloss{_word(i)}",
                "copies": 1} for i, c in enumerate(chars)]
    tasks = [{"id": f"T{k:05d}", "question": f"question {k}", "answer": chars[k * per_task:(k + 1) * per_task]}
             for k in range(characters // per_task)]
    return {"id": f"big-{characters}", "characters": entries, "tasks": tasks}


def _word(i: int) -> str:
    # letters only: content words split at non-letters
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(97 + r) + out
    return out
