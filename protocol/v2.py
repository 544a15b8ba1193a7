"""Protocol v2's compact forms (SPEC.md §12): patches and acks as positional arrays.

v2 is v1 with three messages changed. `view` also carries `ref` (a small integer naming the
match on this connection) and `keys` (the audience's key table). `patch` and `ack` are arrays:

    patch  [0, ref, seq, op, op, ..., said?, extras?]
    ack    [1, ref, seq, id]

Ops are a flat stream. Each starts with a header integer H: kind = H % 4 (0 add, 1 remove,
2 replace, 3 intern), keep = H // 4 % 8, fresh = H // 32. An intern op (H = 3) is followed by
one string, appended to the key table. Any other op addresses the path made of the first
`keep` elements of the previous op's path and `fresh` elements that follow H; add and replace
then carry the value. A path element >= 0 is a list index; a negative one -1 - k names the
map key at index k of the key table. Inside values every map key is a key index k (an integer
in msgpack; its decimal string in JSON, whose keys are strings). An array in place of a header
is the patch's `said` (its sentences, positional: the word "said" is not sent); inside it, an
integer k is the sentence at index k of the key table (interned like a key: a sentence the
match says again costs one index); a map there ends the stream: the patch message's other fields.

The key table belongs to one audience of one match and only grows; it starts with the keys of
the document the audience was first shown, and every key a patch needs that it lacks is
interned in that patch, before its first use. Everything here is sans-I/O and pure apart from
the KeyTable it is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from protocol.patch import PatchError

PATCH, ACK = 0, 1
ADD, REMOVE, REPLACE, INTERN = 0, 1, 2, 3
KINDS = {"add": ADD, "remove": REMOVE, "replace": REPLACE}
NAMES = {v: k for k, v in KINDS.items()}
MAX_KEEP = 7
# v1 fields a compact patch carries positionally; any others ride in the trailing extras map.
_PATCH_FIELDS = frozenset(("type", "match", "seq", "ops"))


class KeyTable:
    """An audience's interned map keys: index <-> string."""

    __slots__ = ("keys", "index")

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self.keys: list[str] = []
        self.index: dict[str, int] = {}
        for k in keys:
            self.add(k)

    def add(self, key: str) -> int:
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.keys)
            self.keys.append(key)
        return i

    def learn(self, value: Any) -> None:
        """Intern every key inside `value` (for the document a full view shows)."""
        if type(value) is dict:
            for k, v in value.items():
                self.add(k)
                self.learn(v)
        elif type(value) is list:
            for v in value:
                self.learn(v)

    def copy(self) -> KeyTable:
        out = KeyTable()
        out.keys, out.index = list(self.keys), dict(self.index)
        return out


# -- the server side ----------------------------------------------------------------------

class _Packer:
    """Turns v1 ops into the compact stream, interning new keys as it meets them."""

    __slots__ = ("table", "out")

    def __init__(self, table: KeyTable, out: list[Any]) -> None:
        self.table, self.out = table, out

    def key(self, key: str) -> int:
        i = self.table.index.get(key)
        if i is None:
            i = self.table.add(key)
            self.out += (INTERN, key)
        return i

    def value(self, value: Any) -> Any:
        if type(value) is dict:
            return {self.key(k): self.value(v) for k, v in value.items()}
        if type(value) is list:
            return [self.value(v) for v in value]
        return value


def compact_patch(ref: int, seq: int, message: dict[str, Any], table: KeyTable,
                  said_before: set[str] | frozenset[str] = frozenset()) -> list[Any]:
    """The v2 form of a v1 `patch` message; interns into `table` what it must. A sentence of
    `said` already in the table is sent as its index; one in `said_before` (said by an earlier
    commit of the match) is interned first; any other is sent as it is."""
    out: list[Any] = [PATCH, ref, seq]
    packer = _Packer(table, out)
    prev: list[Any] = []
    for op in message["ops"]:
        path = [-1 - packer.key(p) if type(p) is str else p for p in op["path"]]
        keep = 0
        limit = min(len(prev), len(path), MAX_KEEP)
        while keep < limit and prev[keep] == path[keep]:
            keep += 1
        kind = KINDS[op["op"]]
        value = packer.value(op["value"]) if kind != REMOVE else None
        out.append(kind + 4 * keep + 32 * (len(path) - keep))
        out += path[keep:]
        if kind != REMOVE:
            out.append(value)
        prev = path
    said = message.get("said")
    if said is not None:
        out.append([_sentence(packer, s, said_before) for s in said])
    extras = {k: v for k, v in message.items() if k not in _PATCH_FIELDS and k != "said"}
    if extras:
        out.append(extras)
    return out


def _sentence(packer: _Packer, sentence: str, said_before: set[str] | frozenset[str]) -> str | int:
    if sentence in packer.table.index or sentence in said_before:
        return packer.key(sentence)
    return sentence


def compact_ack(ref: int, seq: int, move_id: str) -> list[Any]:
    return [ACK, ref, seq, move_id]


# -- the client side ----------------------------------------------------------------------

class Expander:
    """A connection's decoder state: turns v2 frames back into v1-shaped messages, so that
    one client code path handles both versions. Feed it every decoded message in order."""

    def __init__(self) -> None:
        self.matches: dict[int, str] = {}
        self.tables: dict[int, KeyTable] = {}

    def expand(self, msg: Any) -> Any:
        if isinstance(msg, dict):
            if msg.get("type") == "view" and isinstance(msg.get("ref"), int):
                self.matches[msg["ref"]] = msg["match"]
                self.tables[msg["ref"]] = KeyTable(msg.get("keys") or [])
            return msg
        if not isinstance(msg, list) or len(msg) < 3 or msg[0] not in (PATCH, ACK):
            raise PatchError(f"not a v2 frame: {msg!r:.80}")
        ref = msg[1]
        if ref not in self.matches:
            raise PatchError(f"v2 frame for unknown ref {ref!r}")
        if msg[0] == ACK:
            return {"type": "ack", "match": self.matches[ref], "seq": msg[2], "id": msg[3]}
        out: dict[str, Any] = {"type": "patch", "match": self.matches[ref], "seq": msg[2]}
        out["ops"] = self._ops(msg, self.tables[ref], out)
        return out

    @staticmethod
    def _ops(msg: list[Any], table: KeyTable, out: dict[str, Any]) -> list[dict[str, Any]]:
        # Keys are resolved against the table as it is at each op: interns come before use.
        # The path kept from the previous op stays in wire form (negative = key index).
        ops: list[dict[str, Any]] = []
        prev: list[Any] = []
        i, n = 3, len(msg)
        while i < n:
            h = msg[i]
            if isinstance(h, list):  # said: after it, only the extras map may follow
                out["said"] = [_said(x, table) for x in h]
                i += 1
                if i < n and not (i + 1 == n and isinstance(msg[i], dict)):
                    raise PatchError("only the extras map may follow a patch's said")
                continue
            if isinstance(h, dict):
                if i + 1 != n:
                    raise PatchError("the extras map must end the patch")
                out.update({k: v for k, v in h.items() if k not in _PATCH_FIELDS})
                break
            if not isinstance(h, int) or isinstance(h, bool) or h < 0:
                raise PatchError(f"bad op header {h!r}")
            kind, keep, fresh = h % 4, h // 4 % 8, h // 32
            if kind == INTERN:
                if h != INTERN or i + 1 >= n or not isinstance(msg[i + 1], str):
                    raise PatchError("an intern op is 3 followed by one string")
                table.add(msg[i + 1])
                i += 2
                continue
            path = prev[:keep] + msg[i + 1:i + 1 + fresh]
            if len(path) != keep + fresh:
                raise PatchError("an op's path runs past the end of the patch")
            i += 1 + fresh
            op: dict[str, Any] = {"op": NAMES[kind], "path": [_element(p, table) for p in path]}
            if kind != REMOVE:
                if i >= n:
                    raise PatchError("an op's value runs past the end of the patch")
                op["value"] = unpack_value(msg[i], table.keys)
                i += 1
            ops.append(op)
            prev = path
        return ops


def _element(p: Any, table: KeyTable) -> str | int:
    if not isinstance(p, int) or isinstance(p, bool):
        raise PatchError(f"a path element must be an integer, not {p!r}")
    if p >= 0:
        return p
    if -p > len(table.keys):
        raise PatchError(f"key index {-1 - p} is not in the key table")
    return table.keys[-1 - p]


def _said(x: Any, table: KeyTable) -> str:
    if isinstance(x, str):
        return x
    if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x < len(table.keys):
        raise PatchError(f"a sentence must be a string or a key index, not {x!r:.40}")
    return table.keys[x]


def unpack_value(value: Any, keys: list[str]) -> Any:
    if type(value) is dict:
        try:
            return {keys[int(k)]: unpack_value(v, keys) for k, v in value.items()}
        except (ValueError, IndexError):
            raise PatchError("a map key inside a value is not in the key table") from None
    if type(value) is list:
        return [unpack_value(v, keys) for v in value]
    return value
