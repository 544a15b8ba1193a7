"""Frame codecs: msgpack (binary frames) and JSON (text frames). Pure functions."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import msgpack
import orjson

from protocol.errors import ProtocolError

# A wire name's prefix for a connection whose `hello` said `"said": false` (SPEC 4.1): its
# patches leave out the commit's sentences (service.match.projection.Frame); it encodes alike.
QUIET = "quiet."
# ...and for one whose `hello` said `"said_keys": true` (SPEC 3.14): its patches carry the
# sentences' message keys too, for a client that says them in its reader's language.
KEYED = "keyed."

# Integers fit in 64 bits (SPEC 1.2): from -2**63 to 2**64 - 1, the range msgpack holds.
INT_MIN, INT_MAX = -(2 ** 63), 2 ** 64 - 1
# orjson reads an integer literal outside that range as a float, which would be refused with a
# message about floats; a frame with a run of 19 digits or more is read again to say what it holds.
_LONG_DIGITS = re.compile(rb"\d{19}")


def _checked_int(text: str) -> int:
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        raise ProtocolError("bad_field", f"the integer {text[:24]}{'…' if len(text) > 24 else ''} is beyond 64 bits: "
                            f"integers are from {INT_MIN} to {INT_MAX}")
    return value


def loads_json(data: bytes | str) -> Any:
    """A JSON document as plain data, like orjson.loads; an integer beyond 64 bits raises
    ProtocolError("bad_field") instead of becoming a float. Other junk raises orjson's error."""
    value = orjson.loads(data)
    raw = data.encode() if isinstance(data, str) else data
    if _LONG_DIGITS.search(raw):
        try:
            json.loads(raw, parse_int=_checked_int)  # raises ProtocolError for an integer out of range
        except (RecursionError, ValueError):
            pass  # deeper than the stdlib parser goes: orjson's value stands
    return value


_packers = threading.local()


def packb(value: Any) -> bytes:
    """`msgpack.packb(value, use_bin_type=True)`, the same bytes, through one packer per thread:
    `msgpack.packb` makes a packer (and its buffer) per call, which costs about half of packing a
    small message, and a server packs several per move."""
    try:
        packer = _packers.packer
    except AttributeError:
        packer = _packers.packer = msgpack.Packer(use_bin_type=True)
    return packer.pack(value)  # (it empties its buffer after each value, even one that fails)


def encode(message: Any, encoding: str) -> bytes:
    """`encoding` is a wire name: msgpack or json, prefixed `v2.` for protocol v2 (whose
    compact values have integer map keys: JSON writes them as decimal strings), and perhaps
    `quiet.` or `keyed.` before that."""
    if encoding.startswith(QUIET):
        encoding = encoding[len(QUIET):]
    elif encoding.startswith(KEYED):
        encoding = encoding[len(KEYED):]
    if encoding.endswith("msgpack"):
        data = packb(message)
        if type(message) is list and encoding.startswith("v2."):
            # A v2 compact frame is sent as its elements one after another (a msgpack
            # stream, SPEC 12.1): the array's header (1, 3 or 5 bytes) is dropped.
            n = len(message)
            return data[1 if n < 16 else 3 if n < 0x10000 else 5:]
        return data
    if encoding == "json":
        return orjson.dumps(message)
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS)


def decode(frame: bytes | str, encoding: str) -> Any:
    """Decode one frame; raise ProtocolError("bad_frame") if it is not a valid document."""
    try:
        if encoding.endswith("msgpack"):
            if isinstance(frame, str):
                raise ProtocolError("bad_frame", "this connection speaks msgpack: send binary frames")
            return msgpack.unpackb(frame, raw=False, strict_map_key=False)
        return loads_json(frame)
    except ProtocolError:
        raise
    except Exception as exc:  # the decoders raise several unrelated types on junk
        raise ProtocolError("bad_frame", f"the frame is not valid {encoding.rpartition('.')[2]}: {type(exc).__name__}") from None
