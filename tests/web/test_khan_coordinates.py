"""Khan's coordinates (docs/games/khan.md): a cell is its column letter and row number, A1 at the
north-west. The map draws them along its edges, and a cell's name on the map is the name the
log's sentences and the move labels give it."""

from __future__ import annotations

import json
from pathlib import Path

from service.games.khan.narrate import cell_name
from tests.web.conftest import DESKTOP, match_against_bots


def test_the_map_draws_and_says_the_coordinates_the_log_uses(pages, api):
    match = match_against_bots(api, "khan", 3)
    page = pages.new("khan-coords", DESKTOP)
    page.goto(f"{pages.base}/web/#/match/{match}")
    page.wait_for_selector("svg.k-map .k-cell")
    rows = api.get(f"/api/matches/{match}/reference").json()["reference"]["board"]["rows"]
    top = page.eval_on_selector_all("svg.k-map .k-coords text[text-anchor=middle]", "els => els.map((e) => e.textContent)")
    left = page.eval_on_selector_all("svg.k-map .k-coords text[text-anchor=end]", "els => els.map((e) => e.textContent)")
    assert top == [chr(ord("A") + c) for c in range(len(rows[0]))]
    assert left == [str(r + 1) for r in range(len(rows))]
    # every cell on the map is named as the server's sentences name it ("C9 (tundra)")
    labels = page.eval_on_selector_all("svg.k-map rect.k-cell", "els => els.map((e) => [e.getAttribute('data-pick'), e.getAttribute('aria-label')])")
    assert len(labels) > 100
    for token, label in labels:
        r, c = (int(x) for x in token.removeprefix("cell:").split(","))
        name = cell_name([r, c])
        coordinate, _, region = name.partition(" (")
        assert label.startswith(f"{coordinate}: "), (token, label, name)
        assert region.rstrip(")").lower() in label.lower(), (token, label, name)
    assert not pages.errors, pages.errors


def test_the_terrains_are_named_in_the_readers_language(pages, api):
    french = json.loads((Path(__file__).resolve().parents[2] / "clients" / "web" / "locales" / "fr.json").read_text(encoding="utf-8"))
    match = match_against_bots(api, "khan", 3)
    page = pages.new("khan-fr", DESKTOP, locale="fr-FR")  # the browser's language chooses French
    page.goto(f"{pages.base}/web/#/match/{match}")
    page.wait_for_selector("svg.k-map .k-cell")
    rows = api.get(f"/api/matches/{match}/reference").json()["reference"]["board"]["rows"]
    labels = dict(page.eval_on_selector_all("svg.k-map rect.k-cell", "els => els.map((e) => [e.getAttribute('data-pick'), e.getAttribute('aria-label')])"))
    seen = set()
    for token, label in labels.items():
        r, c = (int(x) for x in token.removeprefix("cell:").split(","))
        letter = rows[r][c]
        assert label.startswith(f"{cell_name([r, c]).split(' (')[0]}: {french[f'khan.terrain.{letter}']}"), (token, label)
        seen.add(letter)
    assert len(seen) >= 5  # every kind of land the map has
    assert not pages.errors, pages.errors
