"""A seat's legal moves cross the wire once per position: the web client asks for them (SPEC 3.6)
only on its own turn and only once per seq, so over a Khan match, whose lists run to some 2,000
moves, the bytes a seat receives hold each list once, and a list that has not changed since the
last one the page got is not sent again.

Counted on the wire: every WebSocket frame the page receives (Chromium's own record of the
socket), decoded as the protocol says (SPEC 5.6), while a person plays seat 0 by pointing against
a random bot."""

from __future__ import annotations

import json
from collections import Counter

from tests.web.clicking import play_one_move
from tests.web.conftest import TIMEOUT_MS, seq_of, wait_seq
from tests.web.test_khan_board import KhanPlayer

MOVES = 8


def test_a_khan_seat_gets_each_list_of_legal_moves_once(pages, api):
    created = api.post("/api/matches", json={"game": "khan", "players": 2, "options": {"start_player": 0},
                                             "bots": [{"seat": 1, "strength": 0}]})
    assert created.status_code == 201, created.text
    match = created.json()["match"]
    token = api.post(f"/api/matches/{match}/seats", json={"name": "Ada", "seat": 0}).json()["token"]
    page = pages.new("ada")
    page.add_init_script(f"localStorage.setItem('teahouse.seats', JSON.stringify({{{match!r}: {{0: {token!r}}}}}))")
    frames: list[str | bytes] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    page.goto(f"{pages.base}/web/#/match/{match}?seat=0")
    player = KhanPlayer(6, invade=0.6)  # invasions too: the lists of a turn after one differ in their hand part
    for _ in range(MOVES):
        page.wait_for_selector("#turn-strip.mine #turn-line, #the-end", timeout=TIMEOUT_MS * 3)
        if page.locator("#the-end").count():
            break
        page.wait_for_selector("#picker #confirm-move")
        seq = seq_of(page)
        play_one_move(page, 0, player)
        wait_seq(page, seq + 1)
    page.wait_for_selector("#turn-strip.mine #turn-line, #the-end", timeout=TIMEOUT_MS * 3)
    page.wait_for_selector("#picker #confirm-move, #the-end")

    lists = []
    for frame in frames:
        assert isinstance(frame, str), "the web client speaks the JSON subprotocol"
        msg = json.loads(frame)
        if isinstance(msg, dict) and msg.get("type") == "legal_moves":  # (v2's compact frames are arrays)
            lists.append((msg["seq"], msg["page"], json.dumps([msg["moves"], msg["labels"]], sort_keys=True)))
    assert len({seq for seq, *_ in lists}) >= MOVES, lists  # one list per turn of seat 0, at least
    # each (seq, page) once: the page never asks again for what it has
    per_page = Counter((seq, n) for seq, n, *_ in lists)
    assert max(per_page.values()) == 1, per_page
    # and a list unchanged since the last one the page got is not sent again
    whole = {}
    for seq, _, body in lists:
        whole[seq] = whole.get(seq, "") + body
    seqs = sorted(whole)
    resent = [(a, b) for a, b in zip(seqs, seqs[1:], strict=False) if whole[a] == whole[b]]
    assert resent == [], resent
    assert pages.errors == []
