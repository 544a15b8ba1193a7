"""Chinese Squared's slots carry their names on the board: the log's sentences and the move
labels say "P07 (心)", so the board prints P07 on that slot."""

from __future__ import annotations

from service.games.hieroglyphs.narrate import cell_name
from tests.web.conftest import DESKTOP, match_against_bots


def test_every_slot_shows_the_name_the_log_gives_it(pages, api):
    match = match_against_bots(api, "hieroglyphs")
    page = pages.new("hieroglyphs-slots", DESKTOP)
    page.goto(f"{pages.base}/web/#/match/{match}")
    page.wait_for_selector(".h-board .h-cell.h-slot")
    shown = page.eval_on_selector_all(".h-board .h-cell.h-slot", "els => els.map((e) => [e.dataset.cell, e.querySelector('.h-id')?.textContent])")
    assert len(shown) > 20
    for cell, printed in shown:
        assert printed == cell, (cell, printed)
        assert cell_name(cell).startswith(printed)  # the log's name for it begins with what is printed
    # the printed names are readable text (not hidden, not zero-sized)
    box = page.locator(".h-board .h-cell.h-slot .h-id").first.bounding_box()
    assert box and box["height"] >= 6 and box["width"] >= 8, box
    assert not pages.errors, pages.errors
