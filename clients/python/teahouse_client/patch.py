"""Applying a patch to a document: what every client runs (SPEC section 6).

A patch is a list of ops, each `{"op": "add" | "remove" | "replace", "path": [key or index, ...],
"value": v}` (`remove` has no value). Paths are arrays, so keys need no JSON-Pointer escaping.
Ops apply in order; `add` on a list inserts at the index (the index may equal the length:
append), `remove` on a list deletes at the index, `replace` sets an existing key or index. The
empty path means the whole document (`replace` only). A patch applies whole or not at all.
"""

from __future__ import annotations

import copy
from typing import Any

Path = list[str | int]
Op = dict[str, Any]


class PatchError(ValueError):
    """A patch (or a compact v2 frame) that does not apply to the document held: ask for a
    resync rather than guess."""


def apply(doc: Any, ops: list[Op]) -> Any:
    """Return a new document; `doc` is left as it was."""
    doc = copy.deepcopy(doc)
    for op in ops:
        doc = _apply_one(doc, op)
    return doc


def _apply_one(doc: Any, op: Op) -> Any:
    if not isinstance(op, dict) or not isinstance(op.get("path"), list):
        raise PatchError(f"malformed op {op!r}")
    kind, path = op.get("op"), op["path"]
    if kind not in ("add", "remove", "replace"):
        raise PatchError(f"unknown op {kind!r}")
    if kind != "remove" and "value" not in op:
        raise PatchError(f"{kind} without a value at {path!r}")
    value = copy.deepcopy(op.get("value"))
    if not path:
        if kind != "replace":
            raise PatchError("only replace may address the whole document")
        return value
    parent = doc
    for key in path[:-1]:
        parent = _step(parent, key, path)
    last = path[-1]
    if isinstance(parent, dict):
        if not isinstance(last, str):
            raise PatchError(f"map key must be a string at {path!r}")
        if kind == "remove":
            if last not in parent:
                raise PatchError(f"remove of a missing key at {path!r}")
            del parent[last]
        elif kind == "replace" and last not in parent:
            raise PatchError(f"replace of a missing key at {path!r}")
        else:
            parent[last] = value
    elif isinstance(parent, list):
        if not isinstance(last, int) or isinstance(last, bool):
            raise PatchError(f"list index must be an integer at {path!r}")
        limit = len(parent) + (1 if kind == "add" else 0)
        if not 0 <= last < limit:
            raise PatchError(f"index {last} out of range at {path!r}")
        if kind == "add":
            parent.insert(last, value)
        elif kind == "remove":
            del parent[last]
        else:
            parent[last] = value
    else:
        raise PatchError(f"cannot address inside a {type(parent).__name__} at {path!r}")
    return doc


def _step(node: Any, key: Any, path: Path) -> Any:
    if isinstance(node, dict) and isinstance(key, str) and key in node:
        return node[key]
    if isinstance(node, list) and isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(node):
        return node[key]
    raise PatchError(f"path {path!r} does not exist")
