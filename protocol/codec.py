"""Frame codecs: msgpack (binary frames) and JSON (text frames). Pure functions."""

from __future__ import annotations

from typing import Any

import msgpack
import orjson

from protocol.errors import ProtocolError


def encode(message: Any, encoding: str) -> bytes:
    """`encoding` is a wire name: msgpack or json, prefixed `v2.` for protocol v2 (whose
    compact values have integer map keys: JSON writes them as decimal strings)."""
    if encoding.endswith("msgpack"):
        return msgpack.packb(message, use_bin_type=True)
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
