"""Regenerate the web client's CJK fonts: subsets of Noto Sans CJK SC (SIL OFL 1.1).

Chinese Squared shows Chinese characters; a machine without a CJK font would draw empty boxes,
so the page ships its own font (clients/web/fonts/, served at /web/fonts/), in two files:

- NotoSansSC-content.woff2: only the characters of the shipped content set (simplified and
  traditional) and those the board's own code writes, a few dozen KB: all that a Chinese
  Squared page of the shipped content loads;
- NotoSansSC-subset.woff2: the 3,755 characters of GB2312 level 1 (the common characters, so a
  teacher's own content usually works too), the content set's and CJK punctuation, about 700 KB
  as WOFF2 instead of 19 MB for the collection. The page loads it only for a character the
  first file lacks, and a Chinese reader's page (cjk.css) for the interface's words.

Both are declared in boards/hieroglyphs.css, between its `gen:cjk-faces` marks, which this
rewrites: the second face's unicode-range leaves out every code point of the first, so a page
whose characters are all in the first never fetches the second.

Needs the Debian package `fonts-noto-cjk` (or its .deb unpacked with `dpkg -x`) and fontTools
with brotli, which the server itself does not need, so keep them out of the project's venv:

    python3 -m venv /tmp/ft && /tmp/ft/bin/pip install fonttools brotli
    /tmp/ft/bin/python deploy/cjk_font.py [/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc]

A content set changed without the collection at hand: `--content-only` cuts the first file out
of the shipped second one (which holds every content character) and rewrites the CSS.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
FAMILY = "Noto Sans CJK SC"
FONTS = ROOT / "clients" / "web" / "fonts"
OUT = FONTS / "NotoSansSC-subset.woff2"
CONTENT_OUT = FONTS / "NotoSansSC-content.woff2"
CONTENT = ROOT / "service" / "games" / "hieroglyphs" / "data" / "default_content.json"
CSS = ROOT / "clients" / "web" / "boards" / "hieroglyphs.css"
# what else writes CJK on a Chinese Squared page: the board's code, the game's sentences and the
# language switch (every page's: "简体中文")
WRITERS = [ROOT / "clients" / "web" / "boards" / "hieroglyphs.js", ROOT / "clients" / "web" / "i18n.js",
           *sorted((ROOT / "service" / "games" / "hieroglyphs").glob("*.py"))]
# the CJK blocks the faces answer for (unicode-range)
BLOCKS = [(0x2E80, 0x2FDF), (0x3000, 0x303F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF)]


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


def in_blocks(ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in BLOCKS)


def page_characters() -> str:
    """Every CJK character a Chinese Squared page of the shipped content writes."""
    text = CONTENT.read_text(encoding="utf-8") + "".join(p.read_text(encoding="utf-8") for p in WRITERS)
    return "".join(sorted({ch for ch in text if in_blocks(ch)}))


def ranges(points: list[int]) -> list[str]:
    """Code points as unicode-range terms, runs joined (U+4E00-4E09)."""
    out: list[str] = []
    start = prev = None
    for p in [*sorted(points), None]:
        if p is not None and prev is not None and p == prev + 1:
            prev = p
            continue
        if start is not None:
            out.append(f"U+{start:X}" if start == prev else f"U+{start:X}-{prev:X}")
        start = prev = p
    return out


def faces_css(own: str) -> str:
    """The two @font-face rules of hieroglyphs.css: the content file for its own characters,
    the larger one for the rest of the CJK blocks."""
    mine = {ord(c) for c in own}
    rest: list[str] = []
    for lo, hi in BLOCKS:
        holes = sorted(p for p in mine if lo <= p <= hi)
        edges = [lo - 1, *holes, hi + 1]
        rest += [f"U+{a + 1:X}" if a + 1 == b - 1 else f"U+{a + 1:X}-{b - 1:X}" for a, b in zip(edges, edges[1:], strict=False) if b - a > 1]

    def face(path: Path, terms: list[str]) -> str:
        return ('@font-face {\n  font-family: "Teahouse CJK";\n'
                f'  src: url("/web/fonts/{path.name}") format("woff2");\n'
                '  font-weight: 400;\n  font-display: swap;\n'
                f'  unicode-range: {", ".join(terms)};\n}}\n')

    return face(OUT, rest) + face(CONTENT_OUT, ranges(sorted(mine)))


def write_css(own: str) -> None:
    css = CSS.read_text(encoding="utf-8")
    block = re.compile(r"(/\* gen:cjk-faces[^\n]*\*/\n).*?(/\* /gen \*/)", re.S)
    if not block.search(css):
        raise SystemExit(f"{CSS}: no gen:cjk-faces marks")
    CSS.write_text(block.sub(lambda m: m.group(1) + faces_css(own) + m.group(2), css), encoding="utf-8")


def wanted() -> str:
    punctuation = "".join(chr(c) for c in range(0x3000, 0x3040)) + "".join(chr(c) for c in range(0xFF01, 0xFF5F))
    return "".join(sorted(set(gb2312_level1() + content_characters() + punctuation)))


def cut(font: TTFont, text: str, out: Path) -> None:
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = []  # the SC cmap already maps to the simplified forms; locl/vert only add glyphs
    options.name_IDs = ["*"]  # keep the copyright and licence records of the name table
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(text=text)
    sub.subset(font)
    out.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(out), options)
    print(f"{out.relative_to(ROOT)}: {len(font.getGlyphOrder())} glyphs, {out.stat().st_size} bytes")


def main(args: list[str]) -> None:
    own = page_characters()
    if args[:1] == ["--content-only"]:
        cut(TTFont(str(OUT)), own, CONTENT_OUT)
    else:
        source = Path(args[0]) if args else SOURCE
        def family() -> TTFont:
            return next(f for f in TTCollection(str(source)).fonts if f["name"].getDebugName(1) == FAMILY)
        cut(family(), wanted() + own, OUT)
        cut(family(), own, CONTENT_OUT)
    write_css(own)
    print(f"{CSS.relative_to(ROOT)}: faces rewritten, {len(own)} characters in the content file")


if __name__ == "__main__":
    main(sys.argv[1:])
