"""Server WebSocket data frames as bytes (RFC 6455 5.2), made once per broadcast.

A server's frames are not masked, so the frame of a message is the same bytes for every socket
that receives it: a broadcast frames its payload once and writes those bytes to each transport.
The edge sends no extensions (no permessage-deflate), which is what makes this framing valid.
"""

from __future__ import annotations

import struct


def ws_frame(payload: bytes, binary: bool) -> bytes:
    """`payload` as one unfragmented data frame: binary (msgpack) or text (JSON, UTF-8)."""
    n = len(payload)
    op = 0x82 if binary else 0x81
    if n < 126:
        return bytes((op, n)) + payload
    if n < 65536:
        return struct.pack("!BBH", op, 126, n) + payload
    return struct.pack("!BBQ", op, 127, n) + payload


class FrameCache:
    """The frame of the payload written last, per frame type: a broadcast hands the same
    payload object to every connection of an audience, one after the other, so it is framed
    once for all of them. The payload is kept referenced, so its identity cannot be reused by
    another object while it is cached."""

    __slots__ = ("_binary", "_text")

    def __init__(self) -> None:
        self._binary: tuple[bytes, bytes] = (b"", ws_frame(b"", True))
        self._text: tuple[bytes, bytes] = (b"", ws_frame(b"", False))

    def frame(self, payload: bytes, binary: bool) -> bytes:
        last = self._binary if binary else self._text
        if last[0] is payload:
            return last[1]
        framed = ws_frame(payload, binary)
        if binary:
            self._binary = (payload, framed)
        else:
            self._text = (payload, framed)
        return framed
