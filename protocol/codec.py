"""Frame codecs: msgpack (binary frames) and JSON (text frames). Pure functions."""

from __future__ import annotations

from typing import Any

import msgpack
import orjson

from protocol.errors import ProtocolError


def encode(message: dict[str, Any], encoding: str) -> bytes:
    if encoding == "msgpack":
        return msgpack.packb(message, use_bin_type=True)
    return orjson.dumps(message)


def decode(frame: bytes | str, encoding: str) -> Any:
    """Decode one frame; raise ProtocolError("bad_frame") if it is not a valid document."""
    try:
        if encoding == "msgpack":
            if isinstance(frame, str):
                raise ProtocolError("bad_frame", "this connection speaks msgpack: send binary frames")
            return msgpack.unpackb(frame, raw=False, strict_map_key=False)
        return orjson.loads(frame)
    except ProtocolError:
        raise
    except Exception as exc:  # the decoders raise several unrelated types on junk
        raise ProtocolError("bad_frame", f"the frame is not valid {encoding}: {type(exc).__name__}") from None
