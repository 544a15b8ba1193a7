"""Words for people over the wire (SPEC 3.14): a seat's patch after its move says what it did,
legal_moves labels every move, spectators read the same sentences, and the log and replay
routes tell the story per commit."""

from __future__ import annotations

from teahouse_client import TeahouseClient

from service.games.pixies.data import CARDS
from tests.e2e.helpers import close_all


async def test_a_move_is_told_to_everyone_and_labelled_for_its_seat(sqlite_server):
    client = TeahouseClient(sqlite_server.url)
    mid = (await client.create_match("pixies", 2, {"first_player": 0}))["match"]
    spec = await client.connect().open()
    watching = await spec.spectate(mid)
    seats = [await client.take_seat(mid, name=name) for name in ("Alice", "Bob")]
    conns = [await client.connect().open() for _ in seats]
    views = [await c.join(mid, s["token"]) for c, s in zip(conns, seats, strict=True)]
    await watching.wait_for(lambda g: g.seq >= 1)
    # The start commit: the rules' first player (fixed to seat 0 here) picks first.
    assert any("Alice picks first" in s for s in watching.story[0][1]), watching.story

    moves, labels = await conns[0].labelled_moves(mid)
    assert len(labels) == len(moves) > 0 and len(set(labels)) == len(labels)
    move = moves[0]
    card = CARDS[move["card"]]
    face = f"{card['colour'].capitalize()} {card['number']}"
    assert all(label.startswith("Take ") for label in labels)
    assert face in labels[0] and f"cell {card['number']}" in labels[0]

    seq = await conns[0].move(mid, move)
    assert views[0].seq == seq  # the patch arrives before the ack
    assert views[0].said and views[0].said[0].startswith(f"Alice takes {face}")
    await watching.wait_for(lambda g: g.seq == seq)
    await views[1].wait_for(lambda g: g.seq == seq)
    assert watching.said == views[0].said == views[1].said
    _, bob_labels = await conns[1].labelled_moves(mid)
    assert bob_labels and all(label.startswith("Take ") for label in bob_labels)
    assert (await conns[0].labelled_moves(mid)) == ([], [])

    rep = await client.replay(mid)
    assert rep["said"] == watching.said
    assert [e["seq"] for e in rep["log"]] == list(range(1, seq + 1))
    assert {k: rep["log"][-1][k] for k in ("seq", "seat", "said")} == {"seq": seq, "seat": 0, "said": watching.said}
    await close_all(spec, *conns)
    await client.aclose()
