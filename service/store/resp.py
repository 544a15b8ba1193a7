"""Commands in Redis's wire form (RESP), packed here for the two sent on every move.

redis-py's `pack_command` encodes each argument through its encoder and builds the frame in
several steps: 5–10 µs for the append's EVALSHA and again for the tail's XREAD, on every move
(issue 12). This packs the same bytes: arguments are bytes, str (UTF-8, as redis-py's default
encoder) or int (in decimal); nothing else is sent this way.
"""

from __future__ import annotations


def pack(*args: bytes | str | int) -> bytes:
    """One command as a RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        elif isinstance(a, int):
            a = b"%d" % a
        out.append(b"$%d\r\n%b\r\n" % (len(a), a))
    return b"".join(out)
