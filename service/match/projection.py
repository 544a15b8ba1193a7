"""The one place state leaves the server: view -> patch -> encode, once per audience.

An audience is a seat (0..n-1) or the spectators (None). For every audience that has at
least one connection, a commit produces one patch message, computed from that audience's
previous document and encoded at most once per wire encoding; every connection of the
audience receives the same bytes. A document is {"view": game.view(...), "status": ...};
because patches are taken between two already-filtered views, a patch cannot carry what the
view hides.

Protocol v2 (protocol/v2.py) sends the same patches in a compact form that names map keys and
paths by their index in the audience's key table; the table is kept here, per audience, and grows
as patches intern new keys and paths, so the compact form too is built once per commit and
audience. The match's sentences (`said`) are interned in one table for every audience.

Audiences whose tables hold the same (the seats of a match, as a rule: they learn the same keys
in the same order) share one table object, and a commit whose patch is the same ops for several
of them (every seat but the mover's, in most games) makes its compact form, its encodings and
its frame once for all of them: the bytes are the ones each would have been sent on its own. An
audience whose ops differ gets a copy of the shared table before anything is interned into it;
tables that hold the same again after a commit are shared again (`install`).
"""

from __future__ import annotations

from collections import deque
from operator import is_
from typing import Any

from protocol import messages
from protocol.codec import QUIET, decode, encode
from protocol.patch import diff
from protocol.v2 import (
    KeyTable,
    SentenceTable,
    compact_finished,
    compact_patch,
    compact_presence,
    decode_frame,
    expand_patch,
    without_said,
)
from service.games import Game

Audience = int | None
# How many past patches each audience keeps for a reconnecting client's resync.
RECENT = 256
# ...kept as bytes: a patch's message is a dozen or more containers the garbage collector walks on
# every full collection, for as long as the patch is kept (a node with many matches holds
# hundreds of thousands of them: bench/notes/wire.md, "Tail latency under load"); bytes are not
# walked. The bytes kept are the compact v2 form without the sentences, which v2 connections
# that want no sentences (the usual ones) are sent anyway, and the commit's sentences encoded once
# for every audience: keeping a patch costs no encoding of its own. A v1 client's resync (rare,
# and v2 resyncs get a full view) expands them back into the v1 messages, byte for byte.
KEPT_AS = QUIET + "v2.msgpack"


_VIEW, _STATUS = ("view",), ("status",)  # a document's parts, as the paths of their ops


class Frame:
    """One message, encoded lazily and at most once per wire encoding (msgpack, json,
    v2.msgpack, v2.json, each perhaps `quiet.`: without the patch's sentences, SPEC 4.1). `v2`
    is the message's protocol v2 form where it differs from v1."""

    __slots__ = ("message", "v2", "_bytes")

    def __init__(self, message: dict[str, Any], v2: Any = None) -> None:
        self.message = message
        self.v2 = v2
        self._bytes: dict[str, bytes] = {}

    def encoded(self, encoding: str) -> bytes:
        data = self._bytes.get(encoding)
        if data is None:
            data = self._bytes[encoding] = self._encode(encoding)
        return data

    def _encode(self, encoding: str) -> bytes:
        message: Any = self.message
        quiet = encoding.startswith(QUIET)
        wire = encoding[len(QUIET):] if quiet else encoding
        if quiet and "said" not in message:
            return self.encoded(wire)
        if self.v2 is not None and wire.startswith("v2."):
            return encode(without_said(self.v2, message) if quiet else self.v2, wire)
        return encode({k: v for k, v in message.items() if k != "said"} if quiet else message, wire)


class AudienceProjection:
    __slots__ = ("audience", "doc", "seq", "recent", "_full", "keys")

    def __init__(self, audience: Audience) -> None:
        self.audience = audience
        self.doc: dict[str, Any] | None = None
        self.seq = 0
        # (seq, patch encoded KEPT_AS, its sentences in msgpack or None)
        self.recent: deque[tuple[int, bytes, bytes | None]] = deque(maxlen=RECENT)
        self._full: Frame | None = None
        self.keys = KeyTable()  # protocol v2's key table for this audience


class Prepared:
    """One commit's patch frames, made by Projection.prepare and not yet installed: `frames`
    (audience -> frame) may be encoded ahead but not sent before `install`."""

    __slots__ = ("state", "seq", "said", "status", "before", "status_ops", "speculative", "compact_said",
                 "kept_said", "memo", "made", "frames", "tables")

    def __init__(self, state: dict[str, Any], seq: int, said: list[str] | None, status: dict[str, Any],
                 before: dict[str, Any] | None, status_ops: list[Any], speculative: bool) -> None:
        self.state, self.seq, self.said, self.speculative = state, seq, said, speculative
        self.status, self.before, self.status_ops = status, before, status_ops
        self.compact_said: list[Any] | None = None
        self.kept_said = encode(said, "msgpack") if said is not None else None
        # The audiences' documents share most of their parts (the status, the public part of
        # the state): the diff of a part shared by several is computed once.
        self.memo: dict[object, object] = {}
        self.made: dict[Audience, tuple[AudienceProjection, dict[str, Any], Frame]] = {}
        self.frames: dict[Audience, Frame] = {}
        self.tables: list[KeyTable] = []  # the key tables the patches interned into, each once


class Projection:
    def __init__(self, game: Game, match_id: str, ref: int = 1) -> None:
        self.game = game
        self.match_id = match_id
        self.ref = ref  # the match's number in protocol v2 frames (unique on this node)
        self._audiences: dict[Audience, AudienceProjection] = {}
        # v2's sentence table: a sentence the match says again is sent as its index.
        self.sentences = SentenceTable()
        self._status: dict[str, Any] | None = None  # the status of the last advance

    def document(self, state: dict[str, Any], audience: Audience,
                 status: dict[str, Any] | None = None) -> dict[str, Any]:
        """`audience`'s document of `state` (`status`: the game's status of it, if known)."""
        return {"view": self.game.view(state, audience),
                "status": status if status is not None else self.game.status(state)}

    def watch(self, audience: Audience, state: dict[str, Any], seq: int,
              status: dict[str, Any] | None = None) -> None:
        """Start keeping `audience` current (on its first connection)."""
        if audience not in self._audiences:
            ap = AudienceProjection(audience)
            ap.doc, ap.seq = self.document(state, audience, status), seq
            ap.keys.learn(ap.doc)
            self._audiences[audience] = ap

    def unwatch(self, audience: Audience) -> None:
        self._audiences.pop(audience, None)

    def full(self, audience: Audience) -> Frame:
        ap = self._audiences[audience]
        if ap._full is None:
            # (the tables as clients know them: not what a commit in flight interned)
            keys, paths = ap.keys.settled()
            message = messages.view(self.match_id, ap.seq, audience, ap.doc or {})
            ap._full = Frame(message, {**message, "ref": self.ref, "keys": keys,
                                       "paths": [list(p) for p in paths],
                                       "sentences": self.sentences.settled()})
        return ap._full

    def advance(self, state: dict[str, Any], seq: int, said: list[str] | None = None,
                status: dict[str, Any] | None = None) -> dict[Audience, Frame]:
        """The patch frame of every watched audience for the commit that made `state`;
        `said` (the commit's sentences, the same for everyone) rides along in each. `status`:
        the game's status of `state`, if the caller has it (it is not computed again)."""
        return self.install(self.prepare(state, seq, said, status=status))

    def prepare(self, state: dict[str, Any], seq: int, said: list[str] | None = None,
                speculative: bool = False, status: dict[str, Any] | None = None) -> Prepared:
        """`advance` up to, not including, making its frames the audiences' own: what `full`,
        `since` and the next commit see is unchanged until `install`. The work is the same; a
        runtime does it while the commit's append is in flight (`speculative`), and the tables
        the patches intern into are then kept ready for `discard` to undo (a commit whose append
        fails was never sent, and clients hold the tables as they were)."""
        # The status is the same for every audience: built and diffed once (a document is
        # {"view", "status"}: its ops are the view's, then the status's), and the previous object
        # is kept while it says the same thing, so that the next commit settles it by identity.
        if status is None:
            status = dict(self.game.status(state))
        before = self._status
        status_ops = diff(before, status, None, _STATUS) if before is not None else []
        if before is not None and not status_ops:
            status = before
        p = Prepared(state, seq, said, status, before, status_ops, speculative)
        if speculative:
            self.sentences.begin()
        try:
            # Once per commit: interning a sentence is the same step for every audience.
            p.compact_said = self.sentences.compact(said) if said is not None else None
            made = [(ap, *self._document(ap, p)) for ap in self._audiences.values()]
            # Which audiences get the same patch: the same table, and the same op objects (the
            # diffs share the ops of the parts their documents share: protocol/patch.py's memo).
            groups: dict[int, list[tuple[list[Any], KeyTable]]] = {}
            for ap, _, ops in made:
                same = groups.setdefault(id(ap.keys), [])
                for g_ops, table in same:
                    if len(g_ops) == len(ops) and all(map(is_, g_ops, ops)):
                        ap.keys = table
                        break
                else:
                    if same:  # another patch is interned into the table first: a copy, as it is now
                        ap.keys = ap.keys.copy()
                    same.append((ops, ap.keys))
            frames: dict[int, Frame] = {}
            for ap, doc, ops in made:
                frame = frames.get(id(ap.keys))
                if frame is None:
                    if speculative:
                        ap.keys.begin()
                    p.tables.append(ap.keys)
                    frame = frames[id(ap.keys)] = self._frame(ap.keys, p, ops)
                p.made[ap.audience] = ap, doc, frame
                p.frames[ap.audience] = frame
        except BaseException:
            self.discard(p)
            raise
        return p

    def install(self, p: Prepared) -> dict[Audience, Frame]:
        """Make `p`'s frames the audiences' own (their documents, seqs, resync windows, tables)
        and return them, for sending. An audience watched since `prepare` gets its patch now,
        from the document it was first shown."""
        frames: dict[Audience, Frame] = {}
        for table in p.tables:
            table.settle()
        for audience, ap in self._audiences.items():
            made = p.made.get(audience)
            if made is not None and made[0] is ap:
                _, doc, frame = made
            else:
                doc, ops = self._document(ap, p)
                frame = self._frame(ap.keys, p, ops)
            ap.doc, ap.seq, ap._full = doc, p.seq, None
            ap.recent.append((p.seq, frame.encoded(KEPT_AS), p.kept_said))
            frames[audience] = frame
        self.sentences.settle()
        self._status = p.status
        self._share_tables()
        return frames

    def discard(self, p: Prepared) -> None:
        """Forget `p` (its commit's append failed): the tables are as they were before it."""
        for table in p.tables:
            table.rollback()
        if p.speculative:
            self.sentences.rollback()

    def _share_tables(self) -> None:
        """Audiences whose key tables hold the same share one (see the module's docstring)."""
        kept: list[KeyTable] = []
        for ap in self._audiences.values():
            for table in kept:
                if table is ap.keys:
                    break
                if table.same_as(ap.keys):
                    ap.keys = table
                    break
            else:
                kept.append(ap.keys)

    def _document(self, ap: AudienceProjection, p: Prepared) -> tuple[dict[str, Any], list[Any]]:
        """`ap`'s new document for the commit of `p`, and its ops from the previous one."""
        old = ap.doc
        assert old is not None  # (set by watch)
        doc = {"view": self.game.view(p.state, ap.audience), "status": p.status}
        ops = diff(old["view"], doc["view"], p.memo, _VIEW)
        # (an audience first shown before this node's first commit has a status of its own)
        ops += p.status_ops if old["status"] is p.before else diff(old["status"], p.status, p.memo, _STATUS)
        return doc, ops

    def _frame(self, table: KeyTable, p: Prepared, ops: list[Any]) -> Frame:
        """The patch frame of `ops` for the commit of `p`, in compact form over `table`."""
        message = messages.patch(self.match_id, p.seq, ops, p.said)
        frame = Frame(message, compact_patch(self.ref, p.seq, message, table, p.compact_said))
        frame.encoded(KEPT_AS)  # (what the window keeps: encoded here, where the work is)
        return frame

    def finished(self, seq: int, result: dict[str, Any] | None, seed: str) -> Frame:
        """The match's `finished` message, in v2 compact (the same for every audience)."""
        return Frame(messages.finished(self.match_id, seq, result, seed), compact_finished(self.ref, seq, result, seed))

    def presence(self, message: dict[str, Any]) -> Frame:
        """A `presence` message (the same for every audience), in v2 compact too."""
        return Frame(message, compact_presence(self.ref, message["seats"], message["spectators"]))

    def since(self, audience: Audience, seq: int, encoding: str = "msgpack") -> list[Frame] | None:
        """The patches after `seq`, if all of them are still kept; None means: send a full view.
        Protocol v2 always gets the full view: only it carries the key table the patches need
        (a client reconnecting may hold an older table, or one of a projection since dropped)."""
        if "v2." in encoding:
            return None
        ap = self._audiences[audience]
        if seq == ap.seq:
            return []
        if seq > ap.seq:
            return None
        kept = [entry for entry in ap.recent if entry[0] > seq]
        if not kept or kept[0][0] != seq + 1:
            return None
        # The audience's tables as they are now hold every key and path the kept patches name
        # (they only grow); a copy, since reading a patch interns again what it interned.
        table = ap.keys.copy()
        frames = []
        for _, data, said in kept:
            message = expand_patch(self.match_id, decode_frame(data, KEPT_AS), table, [])
            if said is not None:
                message["said"] = decode(said, "msgpack")
            frames.append(Frame(message))
        return frames
