"""Protocol v2's compact frames, read (SPEC section 12): turns them back into v1-shaped messages.

A v2 `view` carries `ref`, the number that names its match in this connection's compact
frames, and the audience's tables (`keys`, `paths`, `sentences`); the compact frames' first
element `h = 4 * ref + kind` names the match and the kind of frame at once:

    patch     [4 ref,     seq, op, op, ..., said?, extras?]
    ack       [4 ref + 1, seq, id]
    finished  [4 ref + 2, seq, result, seed]
    presence  [4 ref + 3, seats, spectators, extras?]

In msgpack a compact frame is sent as its elements one after another (a msgpack stream, without
the array's header); a binary frame that starts with a map is an ordinary message. The op
stream's encoding is SPEC 12.3's; the server's side (protocol/v2.py) writes what this reads.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import msgpack

from teahouse_client.patch import PatchError

PATCH, ACK, FINISHED, PRESENCE = 0, 1, 2, 3
ADD, REMOVE, REPLACE, INTERN = 0, 1, 2, 3
NAMES = {ADD: "add", REMOVE: "remove", REPLACE: "replace"}
# v1 fields a compact patch carries positionally; any others ride in the trailing extras map.
PATCH_FIELDS = frozenset(("type", "match", "seq", "ops", "said"))
_PRESENCE_FIELDS = frozenset(("type", "match", "seats", "spectators"))


class Tables(Protocol):
    """What reading a compact patch needs of an audience's tables (the server's KeyTable is one)."""

    keys: list[str]
    paths: list[tuple[int, ...]]

    def add(self, key: str) -> int:
        """Intern a key; return its index."""

    def add_path(self, path: tuple[int, ...]) -> None:
        """Intern a path (wire form)."""


class KeyTable:
    """One audience's interned map keys and paths, as a client learns them: from its `view`,
    then from the interns in each patch. Both only grow."""

    def __init__(self, keys: list[str] | None = None, paths: list[Any] | None = None) -> None:
        self.keys: list[str] = []
        self.index: dict[str, int] = {}
        self.paths: list[tuple[int, ...]] = []
        for k in keys or []:
            if not isinstance(k, str):
                raise PatchError("a view's key table holds something else than strings")
            self.add(k)
        for p in paths or []:
            self.add_path(tuple(p))

    def add(self, key: str) -> int:
        """Intern a key (one already there keeps its index); return its index."""
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.keys)
            self.keys.append(key)
        return i

    def add_path(self, path: tuple[int, ...]) -> None:
        """Append an interned path (in wire form: negative elements are key indices)."""
        self.paths.append(path)


_MAP_MARKERS = frozenset([*range(0x80, 0x90), 0xDE, 0xDF])


def decode_frame(data: bytes | str, encoding: str) -> Any:
    """One v2 frame as a value: a map (an ordinary message) or a compact frame's array. In
    msgpack a compact frame is a stream of values (12.1); raises PatchError on junk."""
    try:
        if encoding.endswith("json"):
            return json.loads(data)
        if isinstance(data, str):
            raise PatchError("a msgpack connection's frames are binary")
        if data and data[0] in _MAP_MARKERS:
            return msgpack.unpackb(data, raw=False, strict_map_key=False)
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=max(len(data), 1))
        unpacker.feed(data)
        values, end = [], 0
        for value in unpacker:
            values.append(value)
            end = unpacker.tell()
        if end != len(data):
            raise PatchError("a compact frame ends inside a value")
        return values
    except PatchError:
        raise
    except Exception as exc:  # the decoders raise several unrelated types on junk
        raise PatchError(f"not a v2 frame: {type(exc).__name__}") from None


class Expander:
    """A connection's decoder state: turns v2 frames back into v1-shaped messages, so that
    one client code path handles both versions. Feed it every decoded message in order."""

    def __init__(self) -> None:
        self.matches: dict[int, str] = {}
        self.tables: dict[int, Tables] = {}
        self.sentences: dict[int, list[str]] = {}

    def expand(self, msg: Any) -> Any:
        """A decoded frame (decode_frame) in, a v1-shaped message out; raises PatchError on a
        frame it cannot read (then resync rather than guess)."""
        if isinstance(msg, dict):
            ref = msg.get("ref")
            if msg.get("type") == "view" and isinstance(ref, int) and not isinstance(ref, bool):
                try:
                    table = KeyTable(msg.get("keys") or [], msg.get("paths") or [])
                except TypeError:
                    raise PatchError("a view's path table holds something else than paths") from None
                self.matches[ref] = msg["match"]
                self.tables[ref] = table
                self.sentences[ref] = list(msg.get("sentences") or [])
            return msg
        if not isinstance(msg, list) or len(msg) < 2 or not _is_int(msg[0]):
            raise PatchError(f"not a v2 frame: {msg!r:.80}")
        ref, kind = msg[0] >> 2, msg[0] & 3
        if ref not in self.matches:
            raise PatchError(f"v2 frame for unknown ref {ref!r}")
        match, seq = self.matches[ref], msg[1]
        if kind == PRESENCE:
            extras = msg[3] if len(msg) == 4 else {}
            if not 3 <= len(msg) <= 4 or not isinstance(msg[1], list) or not _is_int(msg[2]) \
                    or not isinstance(extras, dict):
                raise PatchError("a presence is [h, seats, spectators, extras?]")
            # (the extras map, like a patch's, carries fields such as an answer's `reply` and `ref`)
            return {**{k: v for k, v in extras.items() if k not in _PRESENCE_FIELDS},
                    "type": "presence", "match": match, "seats": msg[1], "spectators": msg[2]}
        if not _is_int(seq):
            raise PatchError(f"a v2 frame's seq must be an integer, not {seq!r:.20}")
        if kind == ACK:
            if len(msg) != 3:
                raise PatchError("an ack is [h, seq, id]")
            return {"type": "ack", "match": match, "seq": seq, "id": msg[2]}
        if kind == FINISHED:
            # (a rated match's rating changes follow as the extras map: [h, seq, result, seed, {...}])
            if len(msg) not in (4, 5) or (len(msg) == 5 and not isinstance(msg[4], dict)):
                raise PatchError("a finished is [h, seq, result, seed] or [h, seq, result, seed, extras]")
            extras = {k: v for k, v in (msg[4] if len(msg) == 5 else {}).items()
                      if k not in ("type", "match", "seq", "result", "seed")}
            return {**extras, "type": "finished", "match": match, "seq": seq, "result": msg[2], "seed": msg[3]}
        return expand_patch(match, msg, self.tables[ref], self.sentences[ref])


def expand_patch(match: str, msg: list[Any], table: Tables, sentences: list[str]) -> dict[str, Any]:
    """The v1 `patch` message of the compact patch `msg` (decoded); interns into `table` and
    `sentences` what it carries. A table that already holds those interns (a copy of the
    server's, which only grows) reads it alike: keys are found again, and a path interned again
    goes after every index the patch can name."""
    out: dict[str, Any] = {"type": "patch", "match": match, "seq": msg[1]}
    out["ops"] = _ops(msg, table, sentences, out)
    return out


def _ops(msg: list[Any], table: Tables, sentences: list[str], out: dict[str, Any]) -> list[dict[str, Any]]:
    # Keys are resolved against the table as it is at each op: interns come before use.
    # The path kept from the previous op stays in wire form (negative = key index).
    ops: list[dict[str, Any]] = []
    prev: tuple[Any, ...] = ()
    i, n = 2, len(msg)
    while i < n:
        h = msg[i]
        if isinstance(h, list):  # said: after it, only the extras map may follow
            out["said"] = [_said(x, sentences) for x in h]
            i += 1
            if i < n and not (i + 1 == n and isinstance(msg[i], dict)):
                raise PatchError("only the extras map may follow a patch's said")
            continue
        if isinstance(h, dict):
            if i + 1 != n:
                raise PatchError("the extras map must end the patch")
            out.update({k: v for k, v in h.items() if k not in PATCH_FIELDS})
            break
        if not _is_int(h):
            raise PatchError(f"bad op header {h!r}")
        if h < 0:  # a replace at an interned path
            if -h > len(table.paths):
                raise PatchError(f"path index {-1 - h} is not in the path table")
            if i + 1 >= n:
                raise PatchError("an op's value runs past the end of the patch")
            path = table.paths[-1 - h]
            ops.append({"op": "replace", "path": [_element(p, table) for p in path],
                        "value": unpack_value(msg[i + 1], table.keys)})
            prev = path
            i += 2
            continue
        kind, keep, fresh = h % 4, h // 4 % 8, h // 32
        if h == INTERN:
            if i + 1 >= n or not isinstance(msg[i + 1], str):
                raise PatchError("an intern op is 3 followed by one string")
            table.add(msg[i + 1])
            i += 2
            continue
        if keep > len(prev):
            raise PatchError("an op keeps more of the previous path than there is")
        path = prev[:keep] + tuple(msg[i + 1:i + 1 + fresh])
        if len(path) != keep + fresh:
            raise PatchError("an op's path runs past the end of the patch")
        i += 1 + fresh
        op: dict[str, Any] = {"op": NAMES.get(kind, "replace"), "path": [_element(p, table) for p in path]}
        if kind != REMOVE:
            if i >= n:
                raise PatchError("an op's value runs past the end of the patch")
            op["value"] = unpack_value(msg[i], table.keys)
            i += 1
        if kind == INTERN:
            table.add_path(path)
        ops.append(op)
        prev = path
    return ops


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _element(p: Any, table: Tables) -> str | int:
    if not _is_int(p):
        raise PatchError(f"a path element must be an integer, not {p!r}")
    if p >= 0:
        return p
    if -p > len(table.keys):
        raise PatchError(f"key index {-1 - p} is not in the key table")
    return table.keys[-1 - p]


def _said(x: Any, sentences: list[str]) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, list) and len(x) == 1 and isinstance(x[0], str):
        sentences.append(x[0])
        return x[0]
    if not _is_int(x) or not 0 <= x < len(sentences):
        raise PatchError(f"a sentence must be a string, [string] or a sentence index, not {x!r:.40}")
    return sentences[x]


def unpack_value(value: Any, keys: list[str]) -> Any:
    """A value of a compact patch with its map keys (key-table indices) named again."""
    if type(value) is dict:
        try:
            return {keys[_index(k)]: unpack_value(v, keys) for k, v in value.items()}
        except (ValueError, IndexError, TypeError):
            raise PatchError("a map key inside a value is not in the key table") from None
    if type(value) is list:
        return [unpack_value(v, keys) for v in value]
    return value


def _index(k: Any) -> int:
    i = int(k)
    if i < 0 or isinstance(k, bool):
        raise IndexError(i)
    return i
