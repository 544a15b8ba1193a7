"""SPEC §6: the patch format and apply semantics (protocol/patch.py)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.patch import PatchError, apply, diff

PROPERTY = settings(max_examples=200, deadline=None)


def same(a: Any, b: Any) -> bool:
    """Equality as the wire sees it: True is not 1, and 1 is not 1.0 (key order does not matter)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    return a == b


# Small alphabets so that two drawn documents share structure and diffs get interesting;
# 0, 1, True and False together make sure bool/int confusions show up.
keys = st.sampled_from(["a", "b", "c", "view", "status", "é", ""])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["", "x", "y"]),
                    st.integers(-(2**63), 2**64 - 1), st.text(max_size=4))
docs = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                     st.dictionaries(keys, inner, max_size=5)), max_leaves=25)


@st.composite
def edited(draw, doc=None):
    """A document and an edit of it: kept, changed, dropped and inserted parts."""
    old = draw(docs) if doc is None else doc

    def edit(node: Any) -> Any:
        how = draw(st.integers(0, 5))
        if how <= 1:
            return node
        if how == 2:
            return draw(docs)
        if isinstance(node, dict):
            out = {k: edit(v) for k, v in node.items() if draw(st.integers(0, 4))}
            for k in draw(st.lists(keys, max_size=2)):
                out[k] = draw(docs)
            return out
        if isinstance(node, list):
            out = [edit(v) for v in node if draw(st.integers(0, 4))]
            for _ in range(draw(st.integers(0, 2))):
                out.insert(draw(st.integers(0, len(out))), draw(docs))
            return out
        return draw(scalars)

    return old, edit(old)


# -- the round trip ----------------------------------------------------------------------------

@PROPERTY
@given(st.tuples(docs, docs))
def test_apply_of_diff_gives_new_for_unrelated_documents(pair):
    old, new = pair
    assert same(apply(old, diff(old, new)), new)


@PROPERTY
@given(edited())
def test_apply_of_diff_gives_new_for_edited_documents(pair):
    old, new = pair
    assert same(apply(old, diff(old, new)), new)


@PROPERTY
@given(st.dictionaries(st.sampled_from(["view", "status"]), docs, min_size=2, max_size=2).flatmap(edited))
def test_apply_of_diff_on_documents_shaped_like_the_protocols(pair):
    old, new = pair
    assert same(apply(old, diff(old, new)), new)


@PROPERTY
@given(st.lists(st.tuples(edited(), docs, docs), min_size=1, max_size=4), edited(), st.data())
def test_diffs_sharing_a_memo_each_give_their_own_new(audiences, shared, data):
    """The server diffs every audience's document with one memo (service/match/projection.py), and
    those documents hold the same objects in places: each patch must still turn its own old
    document into its own new one, whatever the others shared."""
    shared_old, shared_new = shared
    pairs = []
    for (own_old, own_new), extra_old, extra_new in audiences:
        # the shared pair at the same path in some documents, other parts of their own
        where = data.draw(st.sampled_from(["view", "status", "a"]))
        old = {"own": own_old, where: shared_old, "x": extra_old}
        new = {"own": own_new, where: shared_new, "x": extra_new}
        pairs.append((old, new))
    memo: dict = {}
    patches = [diff(old, new, memo) for old, new in pairs]
    for (old, new), ops in zip(pairs, patches, strict=True):
        assert same(apply(old, ops), new)


@PROPERTY
@given(st.dictionaries(st.sampled_from("abcd"), edited(), min_size=1), st.lists(
    st.dictionaries(st.sampled_from("abcd"), st.sampled_from(["shared", "kept", "edited"])), min_size=2, max_size=5),
    st.data())
def test_maps_diffed_alike_through_a_memo_get_their_own_ops(shared, audiences, data):
    """The audiences of one commit see one map but for their own parts, which the commit may
    or may not have changed (each seat's hand): with one memo, a pair whose keys hold the very
    objects of a pair diffed before, or kept their values, takes that pair's ops. Each patch
    must still be its own: the ops a diff without the memo finds, turning its old map into its
    new one."""
    pairs = []
    for choice in audiences:
        old, new = {}, {}
        for key in sorted(shared):  # (the same keys in the same order, as a game's view has them)
            how = choice.get(key, "shared")
            if how == "shared":
                old[key], new[key] = shared[key]
            elif how == "kept":
                old[key] = new[key] = data.draw(docs)
            else:
                old[key], new[key] = data.draw(edited())
        pairs.append((old, new))
    memo: dict = {}
    for old, new in pairs:
        ops = diff(old, new, memo)
        assert ops == diff(old, new)
        assert same(apply(old, ops), new)


@PROPERTY
@given(edited(), edited(), st.sampled_from(["view", "status", ""]), st.sampled_from(["status", "b"]))
def test_a_document_diffed_part_by_part_gives_the_whole_documents_ops(view, status, first, second):
    """The server diffs a document's parts on their own, at their paths (`at`), and sends their
    ops one after the other (service/match/projection.py): those are the ops of the whole document's
    diff, the same in the same order."""
    if first == second:
        return
    old = {first: view[0], second: status[0]}
    new = {first: view[1], second: status[1]}
    assert diff(old[first], new[first], at=[first]) + diff(old[second], new[second], {}, (second,)) == diff(old, new)


@PROPERTY
@given(docs)
def test_no_change_no_ops(doc):
    assert diff(doc, copy.deepcopy(doc)) == []


@PROPERTY
@given(edited())
def test_neither_apply_nor_diff_mutates_its_inputs(pair):
    old, new = pair
    old_copy, new_copy = copy.deepcopy(old), copy.deepcopy(new)
    ops = diff(old, new)
    ops_copy = copy.deepcopy(ops)
    result = apply(old, ops)
    assert same(old, old_copy) and same(new, new_copy) and same(ops, ops_copy)
    # and the result shares nothing mutable with the ops: editing it leaves the patch intact
    if isinstance(result, (dict, list)):
        _scribble(result)
        assert same(ops, ops_copy)


def _scribble(node: Any) -> None:
    if isinstance(node, dict):
        for v in node.values():
            _scribble(v)
        node["scribbled"] = True
    elif isinstance(node, list):
        for v in node:
            _scribble(v)
        node.append("scribbled")


@pytest.mark.parametrize("old, new", [
    ({"x": [True]}, {"x": [1]}),
    ({"x": [1]}, {"x": [True]}),
    ([0], [False]),
    ({"a": {"b": 1}}, {"a": {"b": True}}),
    ({"a": [[False, 1]]}, {"a": [[0, 1]]}),
    (True, 1),
    ({"n": 1}, {"n": 1.0}),
])
def test_true_and_1_are_different_values_at_any_depth(old, new):
    # Regression: diff used to compare containers with ==, and [True] == [1] in Python.
    ops = diff(old, new)
    assert ops
    assert same(apply(old, ops), new)


# -- apply semantics, one rule at a time (SPEC §6.3) ------------------------------------------

DOC = {"view": {"market": ["B07", "G01"], "n": 1, "areas": [[{"card": None}]]}, "status": {"to_act": [0]}}


@pytest.mark.parametrize("ops, expected_view", [
    ([{"op": "replace", "path": ["view", "n"], "value": 2}], {"n": 2}),
    ([{"op": "add", "path": ["view", "new"], "value": {"k": [1]}}], {"new": {"k": [1]}}),
    ([{"op": "add", "path": ["view", "n"], "value": 5}], {"n": 5}),          # add overwrites a key
    ([{"op": "remove", "path": ["view", "n"]}], {"n": None}),
    ([{"op": "remove", "path": ["view", "n"], "value": "ignored"}], {"n": None}),
    ([{"op": "add", "path": ["view", "market", 0], "value": "R03"}], {"market": ["R03", "B07", "G01"]}),
    ([{"op": "add", "path": ["view", "market", 2], "value": "R03"}], {"market": ["B07", "G01", "R03"]}),
    ([{"op": "remove", "path": ["view", "market", 0]}], {"market": ["G01"]}),
    ([{"op": "replace", "path": ["view", "market", 1], "value": None}], {"market": ["B07", None]}),
    ([{"op": "replace", "path": ["view", "areas", 0, 0, "card"], "value": "B07"}], {"areas": [[{"card": "B07"}]]}),
    ([{"op": "remove", "path": ["view", "market", 1]}, {"op": "remove", "path": ["view", "market", 0]}],
     {"market": []}),
    ([{"op": "add", "path": ["view", "n"], "value": None, "extra": "ignored"}], {"n": None}),
])
def test_each_op(ops, expected_view):
    out = apply(DOC, ops)
    for key, value in expected_view.items():
        if key == "n" and value is None and ops[0]["op"] == "remove":
            assert "n" not in out["view"]
        else:
            assert same(out["view"][key], value)


def test_the_empty_path_replaces_the_whole_document():
    assert apply(DOC, [{"op": "replace", "path": [], "value": {"view": 1, "status": 2}}]) == {"view": 1, "status": 2}


def test_ops_apply_in_order_and_later_ops_see_earlier_ones():
    ops = [{"op": "add", "path": ["view", "x"], "value": []}, {"op": "add", "path": ["view", "x", 0], "value": 1},
           {"op": "replace", "path": ["view", "x", 0], "value": True}]
    assert same(apply(DOC, ops)["view"]["x"], [True])


def test_an_empty_patch_gives_an_equal_copy():
    out = apply(DOC, [])
    assert out == DOC and out is not DOC


BAD_OPS = [
    ("op not a map", ["view"]),
    ("op is null", None),
    ("path missing", {"op": "replace", "value": 1}),
    ("path not an array", {"op": "replace", "path": "/view/n", "value": 1}),
    ("unknown op", {"op": "move", "path": ["view", "n"], "value": 1}),
    ("op missing", {"path": ["view", "n"], "value": 1}),
    ("test op", {"op": "test", "path": ["view", "n"], "value": 1}),
    ("add without value", {"op": "add", "path": ["view", "x"]}),
    ("replace without value", {"op": "replace", "path": ["view", "n"]}),
    ("add at the root", {"op": "add", "path": [], "value": 1}),
    ("remove the root", {"op": "remove", "path": []}),
    ("remove a missing key", {"op": "remove", "path": ["view", "zzz"]}),
    ("replace a missing key", {"op": "replace", "path": ["view", "zzz"], "value": 1}),
    ("int key into a map", {"op": "add", "path": ["view", 0], "value": 1}),
    ("bool key into a map", {"op": "add", "path": ["view", True], "value": 1}),
    ("string index into an array", {"op": "replace", "path": ["view", "market", "0"], "value": 1}),
    ("bool index into an array", {"op": "replace", "path": ["view", "market", False], "value": 1}),
    ("add past the end", {"op": "add", "path": ["view", "market", 3], "value": 1}),
    ("remove at the length", {"op": "remove", "path": ["view", "market", 2]}),
    ("replace at the length", {"op": "replace", "path": ["view", "market", 2], "value": 1}),
    ("negative index", {"op": "remove", "path": ["view", "market", -1]}),
    ("dash index", {"op": "add", "path": ["view", "market", "-"], "value": 1}),
    ("step through a missing key", {"op": "add", "path": ["view", "nope", "x"], "value": 1}),
    ("step through an index out of range", {"op": "add", "path": ["view", "areas", 5, "x"], "value": 1}),
    ("step with a bool index", {"op": "add", "path": ["view", "areas", True, "x"], "value": 1}),
    ("step into a scalar", {"op": "add", "path": ["view", "n", "x", "y"], "value": 1}),
    ("address inside a scalar", {"op": "add", "path": ["view", "n", "x"], "value": 1}),
    ("address inside null", {"op": "replace", "path": ["view", "areas", 0, 0, "card", "x"], "value": 1}),
]


@pytest.mark.parametrize("op", [op for _, op in BAD_OPS], ids=[name for name, _ in BAD_OPS])
def test_malformed_ops_raise_patch_error(op):
    with pytest.raises(PatchError):
        apply(DOC, [op])


def test_a_failing_patch_leaves_the_document_untouched():
    before = copy.deepcopy(DOC)
    with pytest.raises(PatchError):
        apply(DOC, [{"op": "replace", "path": ["view", "n"], "value": 9}, {"op": "remove", "path": ["nope"]}])
    assert DOC == before


anything = st.recursive(st.one_of(scalars, st.floats(allow_nan=False)),
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                    max_size=3), max_leaves=8)
random_ops = st.one_of(
    anything,
    st.fixed_dictionaries({"op": st.sampled_from(["add", "remove", "replace", "copy", 1]),
                           "path": st.lists(st.one_of(keys, st.integers(-1, 4), st.booleans(), st.none()),
                                            max_size=4)},
                          optional={"value": anything}),
)


@PROPERTY
@given(docs, st.lists(random_ops, max_size=4))
def test_garbage_ops_either_apply_or_raise_patch_error(doc, ops):
    before = copy.deepcopy(doc)
    try:
        apply(doc, ops)
    except PatchError:
        pass
    assert same(doc, before)


def test_a_card_played_from_a_hand_and_one_drawn_is_two_ops():
    a, b, c, d, e, f = ({"id": k, "value": i} for i, k in enumerate("abcdef"))
    old = {"hand": [a, b, c, d, e]}
    new = {"hand": [a, c, d, e, f]}
    ops = diff(old, new)
    assert ops == [{"op": "remove", "path": ["hand", 1]}, {"op": "add", "path": ["hand", 4], "value": f}]
    assert apply(old, ops) == new
    # the same shape at the front, and a shift that is not one (every element changes)
    assert apply({"h": [1, 2, 3]}, diff({"h": [1, 2, 3]}, {"h": [2, 3, 4]})) == {"h": [2, 3, 4]}
    assert len(diff({"h": [1, 2, 3]}, {"h": [2, 3, 4]})) == 2
    assert apply({"h": [1, 2, 3]}, diff({"h": [1, 2, 3]}, {"h": [3, 1, 2]})) == {"h": [3, 1, 2]}
