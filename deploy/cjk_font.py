"""Regenerate the web client's CJK font: a subset of Noto Sans CJK SC (SIL OFL 1.1).

Chinese Squared shows Chinese characters; a machine without a CJK font would draw empty boxes,
so the page ships its own font (clients/web/fonts/, served at /web/fonts/). The subset covers
every character (simplified and traditional) of the shipped content set, the 3,755 characters
of GB2312 level 1 (the common characters, so a teacher's own content usually works too) and CJK
punctuation; about 1 MB as WOFF2 instead of 19 MB for the collection.

Needs the Debian package `fonts-noto-cjk` (or its .deb unpacked with `dpkg -x`) and fontTools
with brotli, which the server itself does not need, so keep them out of the project's venv:

    python3 -m venv /tmp/ft && /tmp/ft/bin/pip install fonttools brotli
    /tmp/ft/bin/python deploy/cjk_font.py [/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
FAMILY = "Noto Sans CJK SC"
OUT = ROOT / "clients" / "web" / "fonts" / "NotoSansSC-subset.woff2"
CONTENT = ROOT / "service" / "games" / "hieroglyphs" / "data" / "default_content.json"


def gb2312_level1() -> str:
    """GB2312 rows 16-55 hold the 3,755 level-1 (most common) hanzi, sorted by pinyin."""
    chars = []
    for row in range(0xB0, 0xD8):
        for cell in range(0xA1, 0xFF):
            try:
                chars.append(bytes([row, cell]).decode("gb2312"))
            except UnicodeDecodeError:
                continue  # row 55 ends at 0xD7F9
    return "".join(chars)


def content_characters() -> str:
    content = json.loads(CONTENT.read_text(encoding="utf-8"))
    return "".join(c["char"] + c.get("trad", "") for c in content["characters"])


def wanted() -> str:
    punctuation = "".join(chr(c) for c in range(0x3000, 0x3040)) + "".join(chr(c) for c in range(0xFF01, 0xFF5F))
    return "".join(sorted(set(gb2312_level1() + content_characters() + punctuation)))


def main(source: Path) -> None:
    fonts = TTCollection(str(source)).fonts
    font = next(f for f in fonts if f["name"].getDebugName(1) == FAMILY)
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = []  # the SC cmap already maps to the simplified forms; locl/vert only add glyphs
    options.name_IDs = ["*"]  # keep the copyright and licence records of the name table
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(text=wanted())
    sub.subset(font)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(OUT), options)
    print(f"{OUT.relative_to(ROOT)}: {len(font.getGlyphOrder())} glyphs, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE)
