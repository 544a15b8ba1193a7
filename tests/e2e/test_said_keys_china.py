"""China's sentences carry message keys (SPEC 3.14) and their parameters name only what the
sentence names for that audience: a card drawn from the face-down deck is named in no sentence
and no parameter, and a hand card that was never on the display reaches no other seat and no
spectator in any byte they receive."""

from __future__ import annotations

import random

from teahouse_client import TeahouseClient

from tests.e2e.helpers import close_all

CARD_PARAMS = ("card", "cards", "discarded")


async def test_china_sentences_are_keyed_and_their_parameters_hide_what_the_sentence_hides(sqlite_server):
    client = TeahouseClient(sqlite_server.url)
    mid = (await client.create_match("china", 3, {}))["match"]
    seats = [await client.take_seat(mid, name=name) for name in ("Alice", "Bob", "Cy")]
    conns = [await client.connect(record=True, said_keys=True).open() for _ in range(4)]
    players = [await conns[i].join(mid, seats[i]["token"]) for i in range(3)]
    watcher = await conns[3].spectate(mid)
    audiences = [*players, watcher]
    for view in audiences:
        await view.wait_for(lambda g: g.seq >= 1)
    rng = random.Random(7)
    shown: set[str] = set()  # every card the public ever saw: on the display, on the discard pile, named in a sentence
    keyed: list[tuple[str, dict]] = []
    for _ in range(40):
        if players[0].over:
            break
        shown |= {c for c in [*(watcher.view.get("display") or []), *(watcher.view.get("discard") or [])] if c}
        actor = next(i for i in range(3) if players[i].my_turn)
        moves = await conns[actor].legal_moves(mid)
        seq = await conns[actor].move(mid, rng.choice(moves))
        for view in audiences:
            await view.wait_for(lambda g, seq=seq: g.seq >= seq)
            assert len(view.said_keys) == len(view.said)
            keyed += [(text, k) for text, k in zip(view.said, view.said_keys, strict=True) if k]
        # every sentence of China has its key, and every audience reads the same words
        assert all(k for k in watcher.said_keys), watcher.said
        assert players[0].said == players[1].said == players[2].said == watcher.said
    kinds = {k["key"] for _, k in keyed}
    assert len(kinds) >= 3 and "china.drew" in kinds, kinds  # draws from the deck come every turn or two
    for text, k in keyed:
        assert k["key"].startswith("china."), k
        for name in CARD_PARAMS:
            for card in (lambda v: v if isinstance(v, list) else [v])(k["params"].get(name, [])):
                assert set(card) == {"colour", "number"}, card  # a face, never an id (a displayed card may go to a hand)
                assert f"{card['colour']} {card['number']}" in text.lower(), (card, text)  # what the sentence names
        if k["key"] in ("china.drew", "china.exchanged_for_deck"):
            assert "card" not in k["params"], k
    # a card in a hand that the public never saw: no byte of it reaches another seat or a spectator
    secrets = {i: [c for c in players[i].view.get("hand") or [] if c not in shown] for i in range(3)}
    assert any(secrets.values()), "some hand holds a card nobody else has seen"
    for i, secret in secrets.items():
        for j, conn in enumerate(conns):
            if j != i:
                assert conn.frames
                assert not [c for c in secret if any(c.encode() in f for f in conn.frames)], (i, j, secret)
    await close_all(*conns)
    await client.aclose()
