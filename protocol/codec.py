"""Frame codecs: msgpack (binary frames) and JSON (text frames). Pure functions."""

from __future__ import annotations

from typing import Any

import msgpack
import orjson

from protocol.errors import ProtocolError

# A wire name's prefix for a connection whose `hello` said `"said": false` (SPEC 4.1): its
# patches leave out the commit's sentences (service.match.projection.Frame); it encodes alike.
QUIET = "quiet."


def encode(message: Any, encoding: str) -> bytes:
    """`encoding` is a wire name: msgpack or json, prefixed `v2.` for protocol v2 (whose
    compact values have integer map keys: JSON writes them as decimal strings), and perhaps
    `quiet.` before that."""
    if encoding.startswith(QUIET):
        encoding = encoding[len(QUIET):]
    if encoding.endswith("msgpack"):
        data = msgpack.packb(message, use_bin_type=True)
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
        return orjson.loads(frame)
    except ProtocolError:
        raise
    except Exception as exc:  # the decoders raise several unrelated types on junk
        raise ProtocolError("bad_frame", f"the frame is not valid {encoding.rpartition('.')[2]}: {type(exc).__name__}") from None
