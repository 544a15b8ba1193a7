"""Patches between two views: a list of ops, each addressing a place by an array path.

An op is a map `{"op": "add" | "remove" | "replace", "path": [key or index, ...], "value": v}`
(`remove` has no value). Paths are arrays, so keys need no JSON-Pointer escaping. Ops apply
in order; `add` on a list inserts at the index (the index may equal the length: append),
`remove` on a list deletes at the index, `replace` sets an existing key or index. The empty
path means the whole document (`replace` only).

`diff(old, new)` is what the server sends; `apply(doc, ops)` is what every client runs; the
suite checks `apply(old, diff(old, new)) == new` over random playouts of every game.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import is_
from typing import Any

import msgpack

# Applying is the clients' side: the Python SDK's, so that the server and every client apply alike.
from teahouse_client.patch import Op, PatchError, Path, apply

__all__ = ["Op", "Path", "PatchError", "apply", "diff"]


_ABSENT = object()
_CONTAINERS = (dict, list)
# Values that are never walked: two of them are told apart by == and their types alone.
_SCALARS = frozenset((str, int, bool, float, type(None)))


def diff(old: Any, new: Any, memo: dict[Any, Any] | None = None, at: Sequence[str | int] = ()) -> list[Op]:
    """`memo` (a dict, empty at first) lets several diffs share work: the server diffs every
    audience's document against its previous one, and those documents share most of their
    subtrees (the same objects: the public part of the state, the status), whose ops are then
    computed once and the same op objects used for every audience. Use one memo only while
    the documents it saw are not edited (ops are shared, not copied). `at`: the path of `old`
    and `new` inside a larger document, which prefixes every op's path."""
    ops: list[Op] = []
    if not _same(old, new):
        if memo is not None and type(old) is dict and type(new) is dict:
            return _diff_alike(old, new, memo, at)
        # (not through the memo: a whole document's pair is its own, met once)
        _diff_unequal(old, new, list(at), ops, memo)
    return ops


_ALIKE = object()  # the memo's key (with the path) of the maps diff() diffed whole there
_ALIKE_KEPT = 4  # ...of which at most this many are remembered


def _diff_alike(old: dict[Any, Any], new: dict[Any, Any], memo: dict[Any, Any], at: Sequence[str | int]) -> list[Op]:
    """diff() of two maps through a memo. The audiences' views of one commit are, as a rule,
    one map but for parts the commit did not change (each seat's own hand): a pair in which
    every key either kept its value or holds the very objects of a pair diffed before at this
    path (with the same keys, in the same order) has that pair's ops, the same op objects a
    walk would have found through the memo."""
    keys = list(new)
    seen = None
    if list(old) == keys:
        seen = memo.get((_ALIKE, *at))
        if seen is None:
            seen = memo[(_ALIKE, *at)] = []
        for s_keys, s_olds, s_news, s_ops in seen:
            if s_keys != keys:
                continue
            for was, value, s_was, s_value in zip(old.values(), new.values(), s_olds, s_news, strict=True):
                if was is value:
                    if s_was is not s_value:
                        break
                elif was is not s_was or value is not s_value:
                    break
            else:
                return list(s_ops)
    ops: list[Op] = []
    _diff_unequal(old, new, list(at), ops, memo)
    if seen is not None and len(seen) < _ALIKE_KEPT:
        # (the values' lists hold the objects compared: their ids stay theirs while the memo lives)
        seen.append((keys, list(old.values()), list(new.values()), list(ops)))
    return ops


def _same(a: Any, b: Any) -> bool:
    # Identity first: views built copy-on-write share every unchanged subtree with the
    # previous view, so most of a document is settled here without looking inside.
    if a is b:
        return True
    # bool is an int in Python: True == 1, but they encode differently, at any depth
    # ([True] == [1] too). For containers, == (in C) rules out most differences and the
    # msgpack bytes (also in C) catch the rest; a walk in Python per level would cost more
    # than the whole rest of a commit.
    if type(a) is not type(b) or a != b:
        return False
    if isinstance(a, (dict, list)):
        return msgpack.packb(a) == msgpack.packb(b)
    return True


def _diff(old: Any, new: Any, path: Path, ops: list[Op], memo: dict[Any, Any] | None = None) -> None:
    if old is new:
        return
    kind = type(old)
    if kind is type(new) and old == new and (kind in _SCALARS or _same(old, new)):
        return  # (_same's tests, the first two inline)
    if memo is not None and kind is type(new) and (kind is dict or kind is list):
        # A pair of containers met before at this path (in another audience's document): the
        # same ops. The entry holds both objects, so their ids cannot be reused meanwhile.
        key = (id(old), id(new), *path)
        hit = memo.get(key)
        if hit is not None:
            ops.extend(hit[2])
            return
        start = len(ops)
        _diff_unequal(old, new, path, ops, memo)
        memo[key] = (old, new, ops[start:])
        return
    _diff_unequal(old, new, path, ops, memo)


def _diff_unequal(old: Any, new: Any, path: Path, ops: list[Op], memo: dict[Any, Any] | None) -> None:
    # (exact types first: an isinstance test that fails looks for a __class__ attribute, which
    # costs more than the rest of the step)
    kind = type(old)
    if kind in _SCALARS or type(new) in _SCALARS:
        ops.append({"op": "replace", "path": path, "value": new})
        return
    if kind is list and type(new) is list:
        _diff_list(old, new, path, ops, memo)
        return
    if isinstance(old, dict) and isinstance(new, dict):
        if old.keys() != new.keys():  # (compared in C: the same keys, as a rule)
            for key in old:
                if key not in new:
                    ops.append({"op": "remove", "path": [*path, key]})
        get = old.get
        for key, value in new.items():
            was = get(key, _ABSENT)
            if was is value:
                continue  # shared with the previous document (or a small int): nothing to walk
            if was is _ABSENT:
                ops.append({"op": "add", "path": [*path, key], "value": value})
                continue
            kind = type(value)
            if kind in _SCALARS and type(was) in _SCALARS:
                # Two scalars (a count, a turn): the isinstance tests below, answered by a set lookup.
                if kind is type(was) and was == value:
                    continue
            elif kind is list or kind is dict or isinstance(value, _CONTAINERS) or isinstance(was, _CONTAINERS):
                _diff(was, value, [*path, key], ops, memo)
                continue
            elif type(was) is type(value) and was == value:
                continue
            # Two scalars (a count, a turn) that differ: what _diff would find, without its calls.
            if memo is None:
                ops.append({"op": "replace", "path": [*path, key], "value": value})
                continue
            # The same two objects at the same path of another audience's document: the
            # same op object, so that the server can tell equal patches by identity.
            mkey = (id(was), id(value), key, *path)
            hit = memo.get(mkey)
            if hit is None:
                hit = memo[mkey] = (was, value, {"op": "replace", "path": [*path, key], "value": value})
            ops.append(hit[2])
        return
    if isinstance(old, list) and isinstance(new, list):
        _diff_list(old, new, path, ops, memo)
        return
    ops.append({"op": "replace", "path": path, "value": new})


def _diff_list(old: list, new: list, path: Path, ops: list[Op], memo: dict[Any, Any] | None) -> None:
    n_old, n_new = len(old), len(new)
    # Common head and tail; what differs is a middle stretch. A list that only grew at its end
    # (a pile, a log of moves) shares every old element with the new one: settled by identity
    # in one pass in C instead of an element-by-element walk in Python.
    head = min(n_old, n_new) if all(map(is_, old, new)) else 0
    while head < n_old and head < n_new and _same(old[head], new[head]):
        head += 1
    tail = 0
    while tail < n_old - head and tail < n_new - head and _same(old[n_old - 1 - tail], new[n_new - 1 - tail]):
        tail += 1
    mid_old, mid_new = n_old - head - tail, n_new - head - tail
    if mid_old == mid_new > 1 and _shifted(old, new, head, mid_old):
        # One element left at the front of the middle and another arrived at its end (a card
        # played from a hand and one drawn): two ops instead of rewriting every element.
        ops.append({"op": "remove", "path": [*path, head]})
        ops.append({"op": "add", "path": [*path, head + mid_new - 1], "value": new[head + mid_new - 1]})
        return
    paired = min(mid_old, mid_new)
    local: list[Op] = []
    for i in range(head, head + paired):
        _diff(old[i], new[i], [*path, i], local, memo)
    for i in range(head + mid_old - 1, head + paired - 1, -1):
        local.append({"op": "remove", "path": [*path, i]})
    for i in range(head + paired, head + mid_new):
        local.append({"op": "add", "path": [*path, i], "value": new[i]})
    # Many small ops on a short list cost more than sending the list again.
    if len(local) > max(2, n_new // 2):
        ops.append({"op": "replace", "path": path, "value": new})
    else:
        ops.extend(local)


def _shifted(old: list, new: list, start: int, length: int) -> bool:
    """old[start + 1 : start + length] == new[start : start + length - 1], element by element."""
    return all(_same(old[start + 1 + i], new[start + i]) for i in range(length - 1))
