"""Write clients/js/test/fixtures/patch_cases.json: patch cases whose answers come from Python.

Every case is `{"name", "doc", "ops", "expect"}` where `expect` is the document that
protocol.patch.apply returns, or `{"error": true}` when it raises PatchError. The JS SDK must
agree on every one. Two sources:
  * random playouts of every registered game: each audience's document before and after a
    commit, and the patch the server would send (protocol.patch.diff);
  * hand-made edge cases (appends, type changes, bad paths, booleans as indexes, ...).
Run from the repository root: .venv/bin/python clients/js/test/make_fixtures.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from protocol.patch import PatchError, apply, diff
from service.games import GAMES, get_game
from service.games.playout import playout

OUT = Path(__file__).resolve().parent / "fixtures" / "patch_cases.json"
PER_GAME = 6   # sampled commits per game and audience: enough variety, a small file


def expect(doc, ops):
    try:
        return apply(doc, ops)
    except PatchError:
        return {"error": True}


def playout_cases() -> list[dict]:
    cases = []
    for gid in GAMES:
        g = get_game(gid)
        players = g.min_players
        steps = list(playout(g, players, f"js-fixtures-{gid}"))
        rng = random.Random(gid)
        picked = sorted(rng.sample(range(len(steps)), min(PER_GAME, len(steps))) + [0, len(steps) - 1])
        for i in dict.fromkeys(picked):
            st = steps[i]
            for seat in (0, None):
                old = {"view": g.view(st.before, seat), "status": g.status(st.before)}
                new = {"view": g.view(st.after, seat), "status": g.status(st.after)}
                ops = diff(old, new)
                assert apply(old, ops) == new
                who = "spectator" if seat is None else f"seat {seat}"
                cases.append({"name": f"{gid} {players}p seq {st.seq} {who}", "doc": old, "ops": ops, "expect": new})
    return cases


def edge_cases() -> list[dict]:
    d = {"a": 1, "b": [1, 2, 3], "c": {"d": None, "e": [True, False]}, "s": "x"}
    raw = [
        ("empty ops", d, []),
        ("replace whole document", d, [{"op": "replace", "path": [], "value": [1]}]),
        ("add at the empty path", d, [{"op": "add", "path": [], "value": 1}]),
        ("remove at the empty path", d, [{"op": "remove", "path": []}]),
        ("add new key", d, [{"op": "add", "path": ["z"], "value": {"k": [1]}}]),
        ("add overwrites an existing key", d, [{"op": "add", "path": ["a"], "value": 2}]),
        ("replace a key", d, [{"op": "replace", "path": ["c", "d"], "value": "now"}]),
        ("replace a missing key", d, [{"op": "replace", "path": ["nope"], "value": 1}]),
        ("remove a key", d, [{"op": "remove", "path": ["a"]}]),
        ("remove a missing key", d, [{"op": "remove", "path": ["nope"]}]),
        ("remove ignores a value", d, [{"op": "remove", "path": ["s"], "value": 9}]),
        ("append to a list", d, [{"op": "add", "path": ["b", 3], "value": 4}]),
        ("insert at the head", d, [{"op": "add", "path": ["b", 0], "value": 0}]),
        ("insert past the end", d, [{"op": "add", "path": ["b", 5], "value": 0}]),
        ("negative index", d, [{"op": "add", "path": ["b", -1], "value": 0}]),
        ("remove from a list", d, [{"op": "remove", "path": ["b", 1]}]),
        ("remove at the length", d, [{"op": "remove", "path": ["b", 3]}]),
        ("replace in a list", d, [{"op": "replace", "path": ["c", "e", 1], "value": True}]),
        ("replace at the length", d, [{"op": "replace", "path": ["b", 3], "value": 1}]),
        ("boolean as an index", d, [{"op": "replace", "path": ["b", True], "value": 1}]),
        ("boolean as a step", d, [{"op": "replace", "path": ["c", "e", False], "value": 1}]),
        ("string index into a list", d, [{"op": "replace", "path": ["b", "0"], "value": 1}]),
        ("integer key into a map", d, [{"op": "add", "path": [0], "value": 1}]),
        ("step through a missing key", d, [{"op": "add", "path": ["q", "r"], "value": 1}]),
        ("step into a scalar", d, [{"op": "add", "path": ["a", "x"], "value": 1}]),
        ("step into null", d, [{"op": "add", "path": ["c", "d", "x"], "value": 1}]),
        ("value may be null", d, [{"op": "replace", "path": ["a"], "value": None}]),
        ("add without a value", d, [{"op": "add", "path": ["a"]}]),
        ("replace without a value", d, [{"op": "replace", "path": ["a"]}]),
        ("unknown op", d, [{"op": "move", "path": ["a"], "value": 1}]),
        ("op not a map", d, ["add"]),
        ("path not a list", d, [{"op": "add", "path": "a", "value": 1}]),
        ("missing path", d, [{"op": "add", "value": 1}]),
        ("ops apply in order", d, [{"op": "remove", "path": ["b", 0]}, {"op": "remove", "path": ["b", 0]},
                                   {"op": "add", "path": ["b", 1], "value": 9}]),
        ("atomic: a bad op after good ones", d, [{"op": "replace", "path": ["a"], "value": 5},
                                                 {"op": "remove", "path": ["nope"]}]),
        ("boolean replaces an integer", d, [{"op": "replace", "path": ["a"], "value": True}]),
        ("keys that look special", d, [{"op": "add", "path": ["__proto__"], "value": {"x": 1}},
                                       {"op": "add", "path": ["constructor"], "value": 2},
                                       {"op": "add", "path": [""], "value": 3}]),
        ("remove a special key", {"__proto__": 1, "a": 1}, [{"op": "remove", "path": ["__proto__"]}]),
        ("unicode keys", d, [{"op": "add", "path": ["Gùgōng 故宫"], "value": "ok"}]),
        ("document is a list", [1, [2]], [{"op": "add", "path": [1, 0], "value": 1}]),
    ]
    return [{"name": name, "doc": doc, "ops": ops, "expect": expect(doc, ops)} for name, doc, ops in raw]


def main() -> None:
    cases = edge_cases() + playout_cases()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"generated_by": "clients/js/test/make_fixtures.py", "cases": cases},
                              ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"{len(cases)} cases, {OUT.stat().st_size} bytes -> {OUT}")


if __name__ == "__main__":
    main()
