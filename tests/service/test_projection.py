"""The patch property, through the server's own projection: for every game, over random
playouts, each audience's patch (as encoded on the wire) applied to its previous document
gives exactly its new document; and the encoding happens once per audience and encoding."""

from __future__ import annotations

import msgpack
import orjson
import pytest

from protocol.patch import apply
from service.games import GAMES, get_game
from service.games.playout import playout
from service.projection import Projection


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("which", ["min", "max"])
def test_patches_rebuild_every_audience_view(game_id, which):
    g = get_game(game_id)
    players = g.min_players if which == "min" else g.max_players
    audiences = [*range(players), None]
    proj = Projection(g, "m")
    steps = iter(playout(g, players, f"patch-{game_id}-{which}"))
    first = next(steps)
    for a in audiences:
        proj.watch(a, first.after, first.seq)
    docs = {a: msgpack.unpackb(proj.full(a).encoded("msgpack"), raw=False)["doc"] for a in audiences}
    for step in steps:
        frames = proj.advance(step.after, step.seq)
        for a in audiences:
            wire = msgpack.unpackb(frames[a].encoded("msgpack"), raw=False)
            assert wire["seq"] == step.seq
            docs[a] = apply(docs[a], wire["ops"])
            assert docs[a] == proj.document(step.after, a)
            # the JSON encoding carries the same patch
            assert orjson.loads(frames[a].encoded("json"))["ops"] == wire["ops"]


def test_each_frame_is_encoded_once_per_encoding(monkeypatch):
    import service.projection as projection

    calls = []
    real = projection.encode
    monkeypatch.setattr(projection, "encode", lambda m, e: calls.append(e) or real(m, e))
    g = get_game("pixies")
    steps = list(playout(g, 2, "once"))
    proj = Projection(g, "m")
    proj.watch(None, steps[0].after, 1)
    frames = proj.advance(steps[1].after, 2)
    for _ in range(50):  # fifty connections of one audience
        frames[None].encoded("msgpack")
    assert calls == ["msgpack"]


def test_resync_window():
    g = get_game("pixies")
    steps = list(playout(g, 2, "window"))
    proj = Projection(g, "m")
    proj.watch(0, steps[0].after, 1)
    for st in steps[1:6]:
        proj.advance(st.after, st.seq)
    assert [msgpack.unpackb(f.encoded("msgpack"))["seq"] for f in proj.since(0, 3)] == [4, 5, 6]
    assert proj.since(0, 6) == []
    assert proj.since(0, 7) is None       # from the future: full view
    assert proj.since(0, 0) is None       # before this audience was watched: full view


def test_a_resync_sends_the_bytes_the_live_patches_had():
    """A reconnecting v1 client gets the patches it missed exactly as the others got them live,
    in each v1 encoding, with and without the sentences (SPEC 4.1)."""
    g = get_game("pixies")
    steps = list(playout(g, 2, "bytes"))
    proj = Projection(g, "m")
    proj.watch(0, steps[0].after, 1)
    live = []
    for st in steps[1:8]:
        live.append(proj.advance(st.after, st.seq, said=[f"move {st.seq}"])[0])
    for encoding in ("msgpack", "json", "quiet.msgpack", "quiet.json"):
        again = proj.since(0, steps[2].seq, encoding)
        assert [f.encoded(encoding) for f in again] == [f.encoded(encoding) for f in live[2:]]
