"""Version and encoding negotiation through the WebSocket subprotocol header.

A client offers one or more of `teahouse.v1.msgpack` and `teahouse.v1.json`; the server picks
the first it speaks, in the client's order of preference.
"""

from __future__ import annotations

from dataclasses import dataclass

PROTOCOL_VERSION = 1
SUBPROTOCOLS: dict[str, str] = {
    "teahouse.v1.msgpack": "msgpack",
    "teahouse.v1.json": "json",
}


@dataclass(frozen=True)
class Negotiated:
    subprotocol: str
    encoding: str
    version: int = PROTOCOL_VERSION


def negotiate(offered: list[str]) -> Negotiated | None:
    """The first subprotocol we speak among those offered, or None."""
    for name in offered:
        name = name.strip()
        if name in SUBPROTOCOLS:
            return Negotiated(name, SUBPROTOCOLS[name])
    return None


def unsupported_reason(offered: list[str]) -> str:
    said = ", ".join(offered) if offered else "none"
    head, tail = "unsupported protocol (offered: ", f"); speak {', '.join(SUBPROTOCOLS)}"
    # A close reason must fit in 123 *bytes*; shorten what the client offered, never what we speak.
    room = 123 - len(head.encode()) - len(tail.encode())
    if len(said.encode()) > room:
        said = said.encode()[:room - 3].decode(errors="ignore") + "..."
    return head + said + tail
