"""A sentence's message key and parameters (SPEC 3.14): a connection that asks for them in its
`hello` gets them beside each patch's English sentences, in v1 and v2 alike; one that does not
gets exactly the bytes it got before; the log and replay routes carry them for everyone."""

from __future__ import annotations

from teahouse_client import TeahouseClient

from service.games.pixies.data import CARDS
from tests.e2e.helpers import close_all


async def test_keys_come_to_those_who_ask_and_say_what_the_english_says(sqlite_server):
    client = TeahouseClient(sqlite_server.url)
    v1 = TeahouseClient(sqlite_server.url, encoding="json", version=1)
    mid = (await client.create_match("pixies", 2, {"first_player": 0}))["match"]
    seats = [await client.take_seat(mid, name=name) for name in ("Alice", "Bob")]
    keyed = await client.connect(said_keys=True).open()
    keyed_v1 = await v1.connect(said_keys=True).open()
    plain = await client.connect(record=True).open()
    alice = await keyed.join(mid, seats[0]["token"])
    watcher_v1 = await keyed_v1.spectate(mid)
    bob = await plain.join(mid, seats[1]["token"])
    for view in (alice, watcher_v1, bob):
        await view.wait_for(lambda g: g.seq >= 1)
    moves = await keyed.legal_moves(mid)
    move = next(m for m in moves if not m.get("keep") and m.get("target_cell") is None)
    seq = await keyed.move(mid, move)
    for view in (watcher_v1, bob):
        await view.wait_for(lambda g, seq=seq: g.seq >= seq)
    # Pixies: a card taken onto an empty area goes face up on the cell of its number
    card = CARDS[move["card"]]
    face = {"colour": card["colour"], "number": card["number"], "spirals": card["spirals"], "crosses": card["crosses"],
            "condition": card["condition"]["colour"] if card["condition"] else None}  # SPEC 3.14: a face, never the id
    expected = {"key": "pixies.taken_face_up", "params": {"who": "Alice", "card": face, "cell": card["number"]}}
    assert alice.said_keys[0] == expected and alice.said[0].startswith("Alice takes ")
    assert watcher_v1.said_keys == alice.said_keys and watcher_v1.said == alice.said
    # the connection that did not ask has the sentences only, and no key on the wire
    assert bob.said == alice.said and bob.said_keys == [None] * len(bob.said)
    assert plain.frames and not any(b"said_keys" in f for f in plain.frames)

    rep = await client.replay(mid)
    assert rep["said"] == alice.said and rep["said_keys"] == alice.said_keys
    assert rep["log"][-1]["said_keys"] == alice.said_keys
    # the start commit (before anyone joined): the rules' first player (seat 0) picks first
    start = rep["log"][0]
    assert len(start["said_keys"]) == len(start["said"])
    assert {"key": "pixies.game_started", "params": {"players": 2, "first": "Alice"}} in start["said_keys"]
    await close_all(keyed, keyed_v1, plain)
    await client.aclose()
    await v1.aclose()
