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
from service.match.projection import Projection


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
    import service.match.projection as projection

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
    # (the other encoding is the form the resync window keeps: the one v2 connections get)
    assert sorted(calls) == ["msgpack", "v2.msgpack"]
    for _ in range(50):
        frames[None].encoded("quiet.v2.msgpack")
    assert sorted(calls) == ["msgpack", "v2.msgpack"]


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


V1_ENCODINGS = ("msgpack", "json", "quiet.msgpack", "quiet.json")


@pytest.mark.parametrize("game_id", [*GAMES, "handcards"])
def test_every_resync_sends_the_bytes_the_live_patches_had(game_id, monkeypatch):
    """The window keeps patches in another form than v1's (service.match.projection KEPT_AS): over a
    whole random match of every game, for every audience, a v1 resync from any seq the window
    covers gets exactly the live patches' bytes, in every v1 encoding, while patches intern keys
    and paths, sentences come and go, and the window drops its oldest patches."""
    import service.match.projection as projection
    from service.games import enable_bench_games

    enable_bench_games()
    monkeypatch.setattr(projection, "RECENT", 24)  # a window that rolls over within a match
    g = get_game(game_id)
    players = g.max_players
    audiences = [*range(players), None]
    steps = list(playout(g, players, f"window-{game_id}"))
    proj = Projection(g, "m")
    for a in audiences:
        proj.watch(a, steps[0].after, steps[0].seq)
    live: dict[int | None, list] = {a: [] for a in audiences}
    for st in steps[1:]:
        # some commits say nothing, some say a sentence again (SPEC 4.1, 5.3)
        said = None if st.seq % 5 == 0 else [f"move {st.seq}", "a sentence said again"][: 1 + st.seq % 2]
        for a, frame in proj.advance(st.after, st.seq, said).items():
            live[a].append((st.seq, {e: frame.encoded(e) for e in V1_ENCODINGS}))
    last = steps[-1].seq
    for a in audiences:
        window = live[a][-projection.RECENT:]
        first = window[0][0]
        assert proj.since(a, first - 2, "msgpack") is None  # older than the window: a full view
        for since in range(first - 1, last):
            again = proj.since(a, since, V1_ENCODINGS[since % 4])
            expected = [b for s, b in window if s > since]
            assert [f.encoded(e) for f in again for e in V1_ENCODINGS] == \
                [b[e] for b in expected for e in V1_ENCODINGS], (a, since)


def test_the_resync_window_holds_bytes_not_containers():
    """What the window keeps is not walked by the garbage collector (service/ops/pauses.py)."""
    g = get_game("pixies")
    steps = list(playout(g, 2, "gc"))
    proj = Projection(g, "m")
    proj.watch(0, steps[0].after, 1)
    for st in steps[1:]:
        proj.advance(st.after, st.seq, said=[f"move {st.seq}"])
    kept = list(proj._audiences[0].recent)
    assert kept and all(type(x) in (int, bytes, type(None)) for entry in kept for x in entry)


ENCODINGS = ("msgpack", "json", "v2.msgpack", "v2.json", "quiet.v2.msgpack")


def _tables(proj: Projection) -> object:
    """Everything the v2 tables hold, the server's own bookkeeping included."""
    return ([(a, list(ap.keys.keys), dict(ap.keys.index), list(ap.keys.paths), dict(ap.keys.path_index),
              set(ap.keys._once)) for a, ap in proj._audiences.items()],
            list(proj.sentences.sentences), dict(proj.sentences.index), set(proj.sentences._once))


def _fulls(proj: Projection) -> dict:
    return {a: [proj.full(a).encoded(e) for e in ENCODINGS] for a in proj._audiences}


@pytest.mark.parametrize("game_id", [*GAMES, "handcards"])
def test_a_discarded_prepare_leaves_no_trace(game_id):
    """A commit prepared while its append is in flight and then discarded (the append failed)
    changes nothing: the tables, the full views and every later frame, byte for byte in every
    encoding, are those of a projection that never saw it. Some discarded commits are the one
    installed next (a retry), some another (a rival node won the seq with its own move)."""
    from service.games import enable_bench_games

    enable_bench_games()
    g = get_game(game_id)
    players = g.max_players
    audiences = [*range(players), None]
    steps = list(playout(g, players, f"ahead-{game_id}"))
    ahead, plain = Projection(g, "m"), Projection(g, "m")
    for proj in (ahead, plain):
        for a in audiences:
            proj.watch(a, steps[0].after, steps[0].seq)
    for i, st in enumerate(steps[1:], 1):
        # sentences said twice are interned: some discarded commits intern them first
        said = [f"move {st.seq % 7}", "again"][: 1 + st.seq % 2]
        if i % 3:
            rival = steps[min(i + 1, len(steps) - 1)].after if i % 3 == 2 else st.after
            lost = ahead.prepare(rival, st.seq, [f"rival {st.seq % 5}", *said], speculative=True)
            # (`plain` is where `ahead` was before the prepare; its full views are not cached yet)
            assert _fulls(ahead) == _fulls(plain), "a full view shows only what is installed"
            ahead.discard(lost)
            assert _tables(ahead) == _tables(plain)
        mine = ahead.install(ahead.prepare(st.after, st.seq, said, speculative=True))
        theirs = plain.advance(st.after, st.seq, said)
        for a in audiences:
            assert [mine[a].encoded(e) for e in ENCODINGS] == [theirs[a].encoded(e) for e in ENCODINGS], (st.seq, a)
        assert _tables(ahead) == _tables(plain)
    assert _fulls(ahead) == _fulls(plain)
    for a in audiences:
        assert list(ahead._audiences[a].recent) == list(plain._audiences[a].recent)


def test_an_audience_watched_while_a_commit_is_prepared_gets_its_patch_at_install():
    """Seats first watched (or dropped and watched again) between prepare and install get the
    patch from the document they were shown, as if they had been watched before an advance."""
    g = get_game("pixies")
    steps = list(playout(g, 3, "watch-ahead"))
    ahead, plain = Projection(g, "m"), Projection(g, "m")
    for proj in (ahead, plain):
        proj.watch(None, steps[0].after, 1)
        proj.watch(0, steps[0].after, 1)
        proj.advance(steps[1].after, 2, ["one"])
    p = ahead.prepare(steps[2].after, 3, ["two"], speculative=True)
    ahead.watch(1, steps[1].after, 2)     # a new audience
    ahead.unwatch(0)                       # an audience dropped and watched again
    ahead.watch(0, steps[1].after, 2)
    for a in (1, 0):
        plain.unwatch(a)
        plain.watch(a, steps[1].after, 2)
    mine, theirs = ahead.install(p), plain.advance(steps[2].after, 3, ["two"])
    assert sorted(mine, key=str) == sorted(theirs, key=str) == [0, 1, None]
    for a in (None, 0, 1):
        assert [mine[a].encoded(e) for e in ENCODINGS] == [theirs[a].encoded(e) for e in ENCODINGS], a
        doc = msgpack.unpackb(plain.full(a).encoded("msgpack"), raw=False)["doc"]
        assert doc == plain.document(steps[2].after, a) == ahead.document(steps[2].after, a)
    assert _tables(ahead) == _tables(plain)


@pytest.mark.parametrize("game_id", [*GAMES, "handcards"])
def test_audiences_sharing_a_patch_get_the_bytes_each_would_get_alone(game_id):
    """Audiences whose tables hold the same and whose patches are the same share one frame
    (the seats that did not move): every audience gets, in every encoding, the bytes of a
    projection that watches it alone, and its full view and resync window are those too."""
    from service.games import enable_bench_games

    enable_bench_games()
    g = get_game(game_id)
    players = g.max_players
    audiences = [*range(players), None]
    steps = list(playout(g, players, f"share-{game_id}"))
    together = Projection(g, "m")
    alone = {a: Projection(g, "m") for a in audiences}
    for a in audiences:
        for proj in (together, alone[a]):
            proj.watch(a, steps[0].after, steps[0].seq)
    for st in steps[1:]:
        said = [f"move {st.seq % 7}"]
        frames = together.advance(st.after, st.seq, said)
        for a in audiences:
            own = alone[a].advance(st.after, st.seq, said)[a]
            assert [frames[a].encoded(e) for e in ENCODINGS] == [own.encoded(e) for e in ENCODINGS], (st.seq, a)
    for a in audiences:
        assert [together.full(a).encoded(e) for e in ENCODINGS] == [alone[a].full(a).encoded(e) for e in ENCODINGS]
        assert list(together._audiences[a].recent) == list(alone[a]._audiences[a].recent)


def test_the_seats_that_did_not_move_share_one_frame():
    """handcards played as the rig plays it (each seat plays its first card): after the first
    commit, whose documents were each shown on their own, the three seats that did not move get
    one frame, the mover and the spectators one each."""
    from service.games import enable_bench_games, fold
    from service.games.chance import commit_rng

    enable_bench_games()
    g = get_game("handcards")
    state = g.initial({"seed": 7}, 4)
    proj = Projection(g, "m")
    for a in (0, 1, 2, 3, None):
        proj.watch(a, state, 0)
    seq, counts = 0, []
    while not g.status(state)["finished"]:
        seat = state["turn"] if state["started"] else None
        command = {"type": "play", "card": state["hands"][seat][0]["id"]} if seat is not None else {"type": "start"}
        seq += 1
        state = fold(g, g.decide(state, seat, command, commit_rng("s", seq)), state, 1)
        frames = proj.advance(state, seq, ["said"])
        counts.append(len({id(f) for f in frames.values()}))
    assert counts[1:] == [3] * (len(counts) - 1)
