"""Protocol v2's compact forms (SPEC.md §12): patches, acks and `finished` as positional arrays.

v2 is v1 with five messages changed. `view` also carries `ref` (a small integer naming the
match on this connection), `keys` (the audience's key table), `paths` (its path table) and
`sentences` (the match's sentence table). `patch`, `ack`, `finished` and `presence` are arrays
whose first element `h = 4 * ref + kind` names the match and the kind of frame at once:

    patch     [4 ref,     seq, op, op, ..., said?, extras?]
    ack       [4 ref + 1, seq, id]
    finished  [4 ref + 2, seq, result, seed]
    presence  [4 ref + 3, seats, spectators]

In msgpack a compact frame is sent as its elements one after another (a msgpack stream, without
the array's header); a binary frame that starts with a map is an ordinary message.

Ops are a flat stream. Each starts with a header integer H. H >= 0: kind = H % 4 (0 add,
1 remove, 2 replace, 3 intern), keep = H // 4 % 8, fresh = H // 32. H = 3 is a key intern: one
string follows, appended to the key table. Any other op addresses the path made of the first
`keep` elements of the previous op's path and `fresh` elements that follow H; add and replace
then carry the value; kind 3 with a path (H > 3) is a replace that also appends its path to the
path table. H < 0 is a replace at the path table's path -1 - H; its value follows. A path
element >= 0 is a list index; a negative one -1 - k names the map key at index k of the key
table. Inside values every map key is a key index k (an integer in msgpack; its decimal string
in JSON, whose keys are strings). An array in place of a header is the patch's `said` (its
sentences, positional): in it a string is a sentence, a one-string array [s] is the sentence s
appended to the sentence table, an integer k is the sentence table's sentence k; a map there
ends the stream: the patch message's other fields.

The key and path tables belong to one audience of one match and only grow; the key table starts
with the keys of the document the audience was first shown, and every key a patch needs that it
lacks is interned in that patch, before its first use; a path is interned the second time it is
replaced. The sentence table belongs to the match: a sentence is interned the second time it is
said. Everything here is sans-I/O and pure apart from the tables it is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# Reading compact frames is the clients' side: the Python SDK's, which the server's own checks
# use too (service/match/projection.py expands what it kept).
from teahouse_client.v2 import Expander, decode_frame, expand_patch, unpack_value
from teahouse_client.v2 import KeyTable as ClientKeyTable

__all__ = ["Expander", "KeyTable", "SentenceTable", "compact_ack", "compact_finished", "compact_patch",
           "compact_presence", "decode_frame", "expand_patch", "unpack_value", "without_said"]

PATCH, ACK, FINISHED, PRESENCE = 0, 1, 2, 3
ADD, REMOVE, REPLACE, INTERN = 0, 1, 2, 3
KINDS = {"add": ADD, "remove": REMOVE, "replace": REPLACE}
NAMES = {v: k for k, v in KINDS.items()}
MAX_KEEP = 7
MAX_PATHS = 128  # path references -1..-128: one byte up to 32, two up to 128
MAX_SENTENCES = 256
_ONCE_KEPT = 1024  # paths replaced once (and sentences said once) remembered for interning
_WIRE_PATHS = 256  # v1 paths remembered in their wire form, per table
# v1 fields a compact patch carries positionally; any others ride in the trailing extras map.
_PATCH_FIELDS = frozenset(("type", "match", "seq", "ops", "said"))


def _take_back(items: list[Any], index: dict[Any, int], length: int) -> None:
    """Drop an interned list's entries after the first `length`, and their indices."""
    for item in items[length:]:
        del index[item]
    del items[length:]


class _SeenOnce:
    """What both tables share: a "seen once" set (an entry is interned the second time it is
    met) and, between `begin` and `settle` or `rollback`, a log of what to undo: the
    server computes a commit's patch while the commit's append is still in flight, and a patch
    that is never sent must leave the table as the client knows it. The log is the lists'
    lengths at `begin` (the table's own), then every change to the set: (True, x) x was taken
    out, (False, x) x was put in, a set: the set it replaced."""

    __slots__ = ("_once", "_undo")
    _once: set[Any]
    _undo: list[Any] | None

    def _remember(self, item: Any) -> None:
        """Put `item` in the set (emptied first when full)."""
        undo = self._undo
        if len(self._once) >= _ONCE_KEPT:
            if undo is not None:
                undo.append(self._once)
            self._once = set()
        if item not in self._once:
            if undo is not None:
                undo.append((False, item))
            self._once.add(item)

    def _forget(self, item: Any) -> None:
        self._once.discard(item)
        if self._undo is not None:
            self._undo.append((True, item))

    def settle(self) -> None:
        """Keep the changes since `begin` (the patch that made them is sent)."""
        self._undo = None

    def _taken_log(self) -> list[Any] | None:
        """The log since `begin` (None: not begun), no longer kept."""
        undo, self._undo = self._undo, None
        return undo

    def _undo_once(self, changes: list[Any]) -> None:
        """Undo the logged changes to the set, the newest first."""
        for change in reversed(changes):
            if type(change) is set:
                self._once = change
            elif change[0]:
                self._once.add(change[1])
            else:
                self._once.discard(change[1])


class KeyTable(ClientKeyTable, _SeenOnce):
    """An audience's interned map keys (index <-> string) and interned paths (wire form): the
    clients' table (`add` as theirs), with what the server needs to write patches: a path's
    index, and `begin`, `settle`, `rollback` as _SeenOnce says."""

    __slots__ = ("path_index", "wire")

    def __init__(self, keys: Iterable[str] = (), paths: Iterable[Iterable[int]] = ()) -> None:
        self.path_index: dict[tuple[int, ...], int] = {}
        self._once: set[tuple[int, ...]] = set()
        self.wire: dict[tuple[str | int, ...], tuple[int, ...]] = {}  # v1 path -> wire path, once known
        self._undo: list[Any] | None = None  # while begun: [keys' length, paths' length, changes to _once]
        super().__init__(list(keys), list(paths))

    def add_path(self, path: tuple[int, ...]) -> None:
        self.path_index[path] = len(self.paths)
        self.paths.append(path)

    def learn(self, value: Any) -> None:
        """Intern every key inside `value` (for the document a full view shows)."""
        if type(value) is dict:
            for k, v in value.items():
                self.add(k)
                self.learn(v)
        elif type(value) is list:
            for v in value:
                self.learn(v)

    def second_replace(self, path: tuple[int, ...]) -> bool:
        """Whether a replace at `path` should intern it: the second time, while there is room."""
        if len(self.paths) >= MAX_PATHS:
            return False
        if path in self._once:
            self._forget(path)
            return True
        self._remember(path)
        return False

    def begin(self) -> None:
        """Keep, from here on, what `rollback` needs to undo every change."""
        self._undo = [len(self.keys), len(self.paths)]

    def rollback(self) -> None:
        """Undo every change since `begin`: the table is as it was then."""
        undo = self._taken_log()
        if undo is None:
            return
        _take_back(self.keys, self.index, undo[0])
        _take_back(self.paths, self.path_index, undo[1])
        self._undo_once(undo[2:])
        # (a cache: a wire path it holds may name a key just taken back)
        self.wire.clear()

    def settled(self) -> tuple[list[str], list[tuple[int, ...]]]:
        """The keys and paths as the clients may know them: without those since `begin`."""
        if self._undo is None:
            return list(self.keys), list(self.paths)
        return self.keys[:self._undo[0]], self.paths[:self._undo[1]]

    def copy(self) -> KeyTable:
        """The same table, settled (a server copies an audience's table once a commit when
        another audience sharing it is sent other ops: built field by field, not key by key)."""
        out = KeyTable.__new__(KeyTable)
        out.keys, out.index = list(self.keys), dict(self.index)
        out.paths, out.path_index, out._once = list(self.paths), dict(self.path_index), set(self._once)
        out.wire = dict(self.wire)  # (its entries name keys by the same indices)
        out._undo = None
        return out

    def same_as(self, other: KeyTable) -> bool:
        """Whether both tables would write any patch alike and change alike doing it (neither
        in the middle of a `begin`)."""
        return (self._undo is None and other._undo is None and self.keys == other.keys
                and self.paths == other.paths and self._once == other._once)


class SentenceTable(_SeenOnce):
    """A match's interned sentences: one said a second time is appended and then sent by index.
    `begin`, `settle` and `rollback` as KeyTable's."""

    __slots__ = ("sentences", "index")

    def __init__(self, sentences: Iterable[str] = ()) -> None:
        self.sentences: list[str] = []
        self.index: dict[str, int] = {}
        self._once: set[str] = set()
        self._undo: list[Any] | None = None  # while begun: [sentences' length, changes to _once]
        for s in sentences:
            self.index[s] = len(self.sentences)
            self.sentences.append(s)

    def compact(self, said: list[str]) -> list[Any]:
        """The compact form of one commit's `said`; interns as it goes. Built once per commit:
        every audience's patch carries the same element."""
        out: list[Any] = []
        for s in said:
            i = self.index.get(s)
            if i is not None:
                out.append(i)
            elif s in self._once and len(self.sentences) < MAX_SENTENCES:
                self.index[s] = len(self.sentences)
                self.sentences.append(s)
                out.append([s])
            else:
                self._remember(s)
                out.append(s)
        return out

    def begin(self) -> None:
        self._undo = [len(self.sentences)]

    def rollback(self) -> None:
        undo = self._taken_log()
        if undo is None:
            return
        _take_back(self.sentences, self.index, undo[0])
        self._undo_once(undo[1:])

    def settled(self) -> list[str]:
        """The sentences as the clients may know them: without those since `begin`."""
        return self.sentences[:self._undo[0]] if self._undo is not None else list(self.sentences)


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
            index = self.table.index
            # (a key already in the table, and a scalar value, without a call: the common case)
            return {(index[k] if k in index else self.key(k)):
                    (self.value(v) if type(v) is dict or type(v) is list else v) for k, v in value.items()}
        if type(value) is list:
            return [self.value(v) if type(v) is dict or type(v) is list else v for v in value]
        return value


def compact_patch(ref: int, seq: int, message: dict[str, Any], table: KeyTable,
                  said: list[Any] | None = None) -> list[Any]:
    """The v2 form of a v1 `patch` message; interns into `table` what it must. `said` is the
    compact form of the message's `said` (SentenceTable.compact, built once per commit for every
    audience); without it the message's sentences are sent as they are."""
    out: list[Any] = [4 * ref + PATCH, seq]
    packer = _Packer(table, out)
    paths, index = table.path_index, table.index
    prev: tuple[int, ...] = ()
    wire = table.wire
    for op in message["ops"]:
        # A path met before (a count, a turn: the same few every commit) is looked up whole.
        names = tuple(op["path"])
        path = wire.get(names)
        if path is None:
            path = tuple([(-1 - (index[p] if p in index else packer.key(p))) if type(p) is str else p
                          for p in names])
            if len(wire) >= _WIRE_PATHS:
                wire.clear()
            wire[names] = path
        kind = KINDS[op["op"]]
        value = None
        if kind != REMOVE:
            value = op["value"]
            if type(value) is dict or type(value) is list:
                value = packer.value(value)
        if kind == REPLACE and path:
            at = paths.get(path)
            if at is not None:
                out += (-1 - at, value)
                prev = path
                continue
            if table.second_replace(path):
                kind = INTERN  # with a path: a replace that interns it
                table.add_path(path)
        keep = 0
        limit = min(len(prev), len(path), MAX_KEEP)
        while keep < limit and prev[keep] == path[keep]:
            keep += 1
        out.append(kind + 4 * keep + 32 * (len(path) - keep))
        out += path[keep:]
        if kind != REMOVE:
            out.append(value)
        prev = path
    if said is None and message.get("said") is not None:
        said = list(message["said"])
    if said is not None:
        out.append(said)
    if not message.keys() <= _PATCH_FIELDS:
        out.append({k: v for k, v in message.items() if k not in _PATCH_FIELDS})
    return out


def without_said(compact: list[Any], message: dict[str, Any]) -> list[Any]:
    """The compact patch `compact` (of the v1 `message`) without its `said` element, for a
    connection that asked for no sentences (SPEC 4.1)."""
    if message.get("said") is None:
        return compact
    at = len(compact) - 1 - (not message.keys() <= _PATCH_FIELDS)  # before the extras map
    return compact[:at] + compact[at + 1:]


def compact_ack(ref: int, seq: int, move_id: str) -> list[Any]:
    return [4 * ref + ACK, seq, move_id]


def compact_finished(ref: int, seq: int, result: dict[str, Any] | None, seed: str) -> list[Any]:
    return [4 * ref + FINISHED, seq, result, seed]


def compact_presence(ref: int, seats: list[bool], spectators: int) -> list[Any]:
    return [4 * ref + PRESENCE, seats, spectators]
