"""Version and encoding negotiation through the WebSocket subprotocol header.

A client offers one or more of `teahouse.v2.msgpack`, `teahouse.v2.json`,
`teahouse.v1.msgpack` and `teahouse.v1.json`; the server picks the first it speaks, in the
client's order of preference.
"""

from __future__ import annotations

from dataclasses import dataclass

PROTOCOL_VERSION = 1
LATEST_VERSION = 2
SUBPROTOCOLS: dict[str, tuple[int, str]] = {
    "teahouse.v2.msgpack": (2, "msgpack"),
    "teahouse.v2.json": (2, "json"),
    "teahouse.v1.msgpack": (1, "msgpack"),
    "teahouse.v1.json": (1, "json"),
}


# The close reason's list (a close frame holds 123 bytes): teahouse.v2.msgpack|json, ...
SPOKEN = ", ".join(f"teahouse.v{v}.msgpack|json" for v in range(LATEST_VERSION, 0, -1))


@dataclass(frozen=True)
class Negotiated:
    subprotocol: str
    encoding: str
    version: int = PROTOCOL_VERSION

    @property
    def wire(self) -> str:
        """What a frame is encoded for: the encoding, prefixed `v2.` for protocol v2
        (protocol.codec and service.match.projection.Frame take this name)."""
        return self.encoding if self.version == 1 else f"v{self.version}.{self.encoding}"


def negotiate(offered: list[str]) -> Negotiated | None:
    """The first subprotocol we speak among those offered, or None."""
    for name in offered:
        name = name.strip()
        if name in SUBPROTOCOLS:
            version, encoding = SUBPROTOCOLS[name]
            return Negotiated(name, encoding, version)
    return None


def unsupported_reason(offered: list[str]) -> str:
    said = ", ".join(offered) if offered else "none"
    head, tail = "unsupported protocol (offered: ", f"); speak {SPOKEN}"
    # A close reason must fit in 123 *bytes*; shorten what the client offered, never what we speak.
    room = 123 - len(head.encode()) - len(tail.encode())
    if len(said.encode()) > room:
        said = said.encode()[:room - 3].decode(errors="ignore") + "..."
    return head + said + tail
