"""Frames on the wire: messages as msgpack (binary frames) or JSON (text frames), SPEC 1.4."""

from __future__ import annotations

import json
from typing import Any

import msgpack


def encode(message: dict[str, Any], encoding: str) -> bytes | str:
    """One client message as the frame to send: bytes for msgpack, text for JSON."""
    if encoding == "msgpack":
        return msgpack.packb(message, use_bin_type=True)
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def decode(frame: bytes | str, encoding: str) -> Any:
    """One v1 frame as a value (a map). Raises ValueError on a frame that is not valid."""
    if encoding == "msgpack":
        if isinstance(frame, str):
            raise ValueError("a msgpack connection's frames are binary")
        return msgpack.unpackb(frame, raw=False, strict_map_key=False)
    return json.loads(frame)
