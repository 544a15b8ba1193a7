"""service.match.legal against SPEC 3.6: a seat's legal moves at the current seq, in pages of at
most the page size (at least one page, `page`, `pages`, `total`), labelled; computed once per seq."""

from __future__ import annotations

from service.games import get_game
from tests.match.conftest import started

KHAN = get_game("khan")


async def test_the_pages_hold_every_legal_move_in_order_and_say_how_many(lobby):
    mid = await started(lobby, "khan", 2)
    rt = await lobby.runtime(mid)
    seat = KHAN.status(rt.state)["to_act"][0]
    expected = KHAN.legal_moves(rt.state, seat)
    assert len(expected) > 7
    pages = [p.message for p in rt.legal_pages(seat, 7)]
    assert [m for p in pages for m in p["moves"]] == expected
    assert [p["page"] for p in pages] == list(range(len(pages))) and len(pages) == -(-len(expected) // 7)
    assert all(p["pages"] == len(pages) and p["total"] == len(expected) and p["seq"] == rt.seq for p in pages)
    assert all(len(p["labels"]) == len(p["moves"]) and all(isinstance(s, str) and s for s in p["labels"])
               for p in pages)
    whole = rt.legal_pages(seat, 0)
    assert len(whole) == 1 and whole[0].message["moves"] == expected


async def test_a_seat_with_nothing_to_do_gets_one_empty_page(lobby):
    mid = await started(lobby, "khan", 2)
    rt = await lobby.runtime(mid)
    waiting = next(s for s in (0, 1) if s not in KHAN.status(rt.state)["to_act"])
    (page,) = rt.legal_pages(waiting, 500)
    assert (page.message["moves"], page.message["pages"], page.message["total"]) == ([], 1, 0)


async def test_computed_once_per_seq_and_afresh_after_a_commit(lobby):
    mid = await started(lobby, "khan", 2)
    rt = await lobby.runtime(mid)
    seat = KHAN.status(rt.state)["to_act"][0]
    pages = rt.legal_pages(seat, 500)
    assert rt.legal_pages(seat, 500) is pages
    await rt.submit(seat, pages[0].message["moves"][0], "m1")
    after = rt.legal_pages(seat, 500)
    assert after is not pages and after[0].message["seq"] == rt.seq
    assert [m for p in after for m in p.message["moves"]] == KHAN.legal_moves(rt.state, seat)
