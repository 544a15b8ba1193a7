"""Readable boards: the seats' colours stay apart for colour-blind players. Each pair of seat
colours is simulated for protanopia, deuteranopia and tritanopia with the matrices of Machado,
Oliveira & Fernandes (2009, severity 1.0, applied to linear sRGB) and must stay a clear
CIEDE2000 distance apart under every vision; each seat also has a mark of its own, and the ink
drawn on a seat's colour is readable (WCAG contrast 4.5:1)."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import pytest

RENDER = Path(__file__).resolve().parents[2] / "clients" / "web" / "render.js"
MIN_DE2000 = 20  # far above a just-noticeable difference (~2): small pieces on a busy map
# Machado et al. 2009, table 1, severity 1.0
MACHADO = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}


def constant(name: str) -> list[str]:
    source = RENDER.read_text(encoding="utf-8")
    return json.loads(re.search(rf"export const {name} = (\[.*?\]);", source).group(1))


def rgb(colour: str) -> list[float]:
    c = colour.lstrip("#")
    c = "".join(ch * 2 for ch in c) if len(c) == 3 else c
    return [int(c[i:i + 2], 16) / 255 for i in (0, 2, 4)]


def linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def seen(colour: str, vision: str) -> list[float]:
    lin = [linear(c) for c in rgb(colour)]
    if vision == "normal":
        return lin
    m = MACHADO[vision]
    return [min(1.0, max(0.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3)]


def lab(lin: list[float]) -> tuple[float, float, float]:
    r, g, b = lin  # sRGB (D65) -> XYZ -> CIELAB
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(p: tuple[float, float, float], q: tuple[float, float, float]) -> float:
    """Sharma, Wu & Dalal (2005)'s formulation."""
    (l1, a1, b1), (l2, a2, b2) = p, q
    cbar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cbar ** 7 / (cbar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p, h2p = math.degrees(math.atan2(b1, a1p)) % 360, math.degrees(math.atan2(b2, a2p)) % 360
    dlp, dcp = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    else:
        dhp = h2p - h1p - 360 if h2p - h1p > 180 else h2p - h1p + 360
    dh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))
    lbp, cbp = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbp = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbp = (h1p + h2p) / 2
    else:
        hbp = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbp - 30)) + 0.24 * math.cos(math.radians(2 * hbp))
         + 0.32 * math.cos(math.radians(3 * hbp + 6)) - 0.20 * math.cos(math.radians(4 * hbp - 63)))
    dtheta = 30 * math.exp(-(((hbp - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cbp ** 7 / (cbp ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (lbp - 50) ** 2 / math.sqrt(20 + (lbp - 50) ** 2)
    sc, sh = 1 + 0.045 * cbp, 1 + 0.015 * cbp * t
    rt = -math.sin(math.radians(2 * dtheta)) * rc
    return math.sqrt((dlp / sl) ** 2 + (dcp / sc) ** 2 + (dh / sh) ** 2 + rt * (dcp / sc) * (dh / sh))


def test_the_distance_is_sharmas():
    # Sharma, Wu & Dalal's test data, pairs 1, 7 and 17
    assert round(ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)), 4) == 2.0425
    assert round(ciede2000((50, 0, 0), (50, -1, 2)), 4) == 2.3669
    assert round(ciede2000((50, 2.5, 0), (73, 25, -18)), 4) == 27.1492


def test_a_simulation_merges_what_that_vision_cannot_tell_apart():
    # red and green collapse for a deutan; blue and green for a tritan less so than for normal vision
    red, green = "#d62728", "#2ca02c"
    normal = ciede2000(lab(seen(red, "normal")), lab(seen(green, "normal")))
    deutan = ciede2000(lab(seen(red, "deuteranopia")), lab(seen(green, "deuteranopia")))
    assert normal > 40 and deutan < normal / 3


@pytest.mark.parametrize("vision", ["normal", *MACHADO])
def test_every_pair_of_seat_colours_stays_apart(vision):
    colours = constant("SEAT_COLOURS")
    assert len(colours) >= 5  # the most seats any game has
    for (i, a), (j, b) in itertools.combinations(enumerate(colours), 2):
        d = ciede2000(lab(seen(a, vision)), lab(seen(b, vision)))
        assert d >= MIN_DE2000, f"{vision}: seats {i} ({a}) and {j} ({b}) are only {d:.1f} apart"


def test_each_seat_has_its_own_mark_and_readable_ink():
    colours, ink, marks = constant("SEAT_COLOURS"), constant("SEAT_INK"), constant("SEAT_MARKS")
    assert len(marks) == len(set(marks)) == len(colours) == len(ink)

    def luminance(c: str) -> float:
        r, g, b = (linear(x) for x in rgb(c))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    for c, k in zip(colours, ink, strict=True):
        hi, lo = sorted((luminance(c), luminance(k)), reverse=True)
        assert (hi + 0.05) / (lo + 0.05) >= 4.5, (c, k)
    # a seat's colour never vanishes on a light board (the old cream one did)
    assert all(luminance(c) < 0.5 for c in colours)
