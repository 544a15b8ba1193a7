"""The messages of protocol v1: what a client may send (validated here) and what the server
sends (built here). Sans-I/O: maps in, maps out. SPEC.md §4-§6 describe each with examples.
"""

from __future__ import annotations

from typing import Any

from protocol.errors import ProtocolError

Message = dict[str, Any]

MATCH_ID_MAX = 64
MOVE_ID_MAX = 64
TOKEN_MAX = 128

# field -> (accepted types, required). bool is excluded from int explicitly below.
_CLIENT: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "hello": {"client": ((str,), False), "said": ((bool,), False), "said_keys": ((bool,), False)},
    "join": {"match": ((str,), True), "token": ((str,), True), "since": ((int,), False), "ref": ((str,), False)},
    "spectate": {"match": ((str,), True), "since": ((int,), False), "ref": ((str,), False), "key": ((str,), False)},
    "leave": {"match": ((str,), True)},
    "move": {"match": ((str,), True), "id": ((str,), True), "command": ((dict,), True), "seat": ((int,), False),
             "at": ((int,), False)},
    "legal": {"match": ((str,), True), "page": ((int,), False)},
    "resync": {"match": ((str,), True), "since": ((int,), True), "ref": ((str,), False)},
    "ping": {"nonce": ((int, str), False)},
}
CLIENT_TYPES = tuple(_CLIENT)
REF_MAX = 64
_MAX_LEN = {"match": MATCH_ID_MAX, "id": MOVE_ID_MAX, "token": TOKEN_MAX, "key": TOKEN_MAX, "client": 200, "nonce": 64,
            "ref": REF_MAX}


def parse_client(obj: Any) -> Message:
    """Check a decoded frame against its message type; raise ProtocolError on any fault."""
    if not isinstance(obj, dict):
        raise ProtocolError("not_a_map", f"a message must be a map, not {type(obj).__name__}")
    if any(not isinstance(k, str) for k in obj):
        raise ProtocolError("bad_field", "every key of a message is a string")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_field", "the field 'type' must be a string naming the message")
    fields = _CLIENT.get(kind)
    if fields is None:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:40]!r}; known: {', '.join(CLIENT_TYPES)}")
    for name, (types, required) in fields.items():
        if name not in obj:
            if required:
                raise ProtocolError("bad_field", f"{kind}: the field {name!r} is required")
            continue
        value = obj[name]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            want = " or ".join("map" if t is dict else t.__name__ for t in types)
            raise ProtocolError("bad_field", f"{kind}: the field {name!r} must be {want}, not {type(value).__name__}")
        if isinstance(value, str) and len(value) > _MAX_LEN.get(name, 10_000):
            raise ProtocolError("bad_field", f"{kind}: the field {name!r} is longer than {_MAX_LEN[name]} characters")
        if name == "id" and not value:
            # An empty move id would make every later empty-id move a "retry" of the first one.
            raise ProtocolError("bad_field", f"{kind}: the field 'id' must not be empty")
        if isinstance(value, int) and value < 0:
            raise ProtocolError("bad_field", f"{kind}: the field {name!r} must not be negative")
    if kind == "move":
        command = obj["command"]
        if not isinstance(command.get("type"), str):
            raise ProtocolError("bad_field", "move: the command must be a map with a string 'type'")
        _check_plain(command)
    return {k: obj[k] for k in ("type", *fields) if k in obj}


def _check_plain(value: Any, depth: int = 0) -> None:
    """A command is plain data (SPEC §1.2): it is logged, replayed and re-encoded in both
    encodings, so msgpack bin/ext values, floats and non-string keys are refused here."""
    if depth > 32:
        raise ProtocolError("bad_field", "move: the command is nested too deeply")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ProtocolError("bad_field", "move: every key inside the command must be a string")
            _check_plain(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _check_plain(v, depth + 1)
    elif not isinstance(value, (str, int, bool, type(None))):
        raise ProtocolError("bad_field", f"move: the command holds a {type(value).__name__}; commands hold "
                                         "only maps, lists, strings, integers, booleans and null")


# -- what the server sends -------------------------------------------------------------

def welcome(encoding: str, session: str, server: str, max_frame: int, games: list[str]) -> Message:
    return {"type": "welcome", "protocol": 1, "encoding": encoding, "server": server,
            "session": session, "max_frame": max_frame, "games": games}


def view(match: str, seq: int, seat: int | None, doc: dict[str, Any]) -> Message:
    """A full document: `doc` is {"view": ..., "status": ...}; patches apply to it."""
    return {"type": "view", "match": match, "seq": seq, "seat": seat, "doc": doc}


def patch(match: str, seq: int, ops: list[dict[str, Any]], said: list[str] | None = None,
          said_keys: list[dict[str, Any] | None] | None = None) -> Message:
    """`said`: the commit's sentences for people (SPEC §5.3), the same for every audience;
    `said_keys`: their message keys and parameters, parallel to them (SPEC 3.14), if any."""
    return {"type": "patch", "match": match, "seq": seq, "ops": ops, **({} if said is None else {"said": said}),
            **({} if said_keys is None or said is None else {"said_keys": said_keys})}


def ack(match: str, move_id: str, seq: int) -> Message:
    return {"type": "ack", "match": match, "id": move_id, "seq": seq}


def reject(match: str, move_id: str, code: str, message: str) -> Message:
    return {"type": "reject", "match": match, "id": move_id, "code": code, "message": message}


def error(code: str, message: str, ref: Any = None, match: str | None = None,
          retry_after_ms: int | None = None, seq: int | None = None) -> Message:
    """`match`: the match the failed message named, so a client watching several can tell.
    `retry_after_ms`: for `rate_limited`, when the same message will be accepted again.
    `seq`: for `stale`, the match's seq now (the move's `at` was another)."""
    named = {"match": match} if match is not None else {}
    retry = {"retry_after_ms": retry_after_ms} if retry_after_ms is not None else {}
    now = {"seq": seq} if seq is not None else {}
    return {"type": "error", "code": code, "message": message, "ref": ref, **named, **retry, **now}


def presence(match: str, seats: list[bool], spectators: int) -> Message:
    return {"type": "presence", "match": match, "seats": seats, "spectators": spectators}


def answer_presence(broadcast: Message, reply: str, ref: str | None = None) -> Message:
    """The presence that ends the answer to a join, spectate or resync (SPEC 3.1): the same
    presence marked with the request it answers (`reply`) and the request's `ref`, if any."""
    return {**broadcast, "reply": reply, **({} if ref is None else {"ref": ref})}


def legal_moves(match: str, seq: int, moves: list[dict[str, Any]], labels: list[str] | None = None,
                page: int = 0, pages: int = 1, total: int | None = None) -> Message:
    """`labels`: a sentence per move, parallel to `moves`, as the asking seat sees it. A long
    list comes in `pages` pages (SPEC 3.6); `total` counts the moves of every page."""
    return {"type": "legal_moves", "match": match, "seq": seq, "moves": moves,
            **({} if labels is None else {"labels": labels}),
            "page": page, "pages": pages, "total": len(moves) if total is None else total}


def finished(match: str, seq: int, result: dict[str, Any] | None, seed: str,
             ratings: list[dict[str, Any]] | None = None) -> Message:
    """`ratings`: a rated match's rating change per seat (SPEC 2.16); absent when unrated."""
    extras = {"ratings": ratings} if ratings is not None else {}
    return {"type": "finished", "match": match, "seq": seq, "result": result, "seed": seed, **extras}


def clock(match: str, seq: int, deadline: int | None, banks: list[int] | None = None) -> Message:
    """The turn clock: if the seats to act have not moved by `deadline` (ms since the epoch),
    the server plays for them (as the match's `absent` option says: a bot, a random move or the
    first legal move). None: no clock is running."""
    # `banks`: a Fischer clock's time left per seat at `seq` (ms), before the turn now running
    return {"type": "clock", "match": match, "seq": seq, "deadline": deadline, **({} if banks is None else {"banks": banks})}


def left(match: str) -> Message:
    return {"type": "left", "match": match}


def pong(nonce: Any) -> Message:
    return {"type": "pong", "nonce": nonce}
