"""Every error code the protocol can send, with what it means. SPEC.md §7 lists the same."""

from __future__ import annotations

ERROR_CODES: dict[str, str] = {
    "bad_frame": "The frame could not be decoded in the connection's encoding.",
    "frame_too_large": "The frame is larger than the server accepts.",
    "not_a_map": "A message must be a map.",
    "unknown_type": "The message type is not one this protocol version knows.",
    "bad_field": "A field is missing or of the wrong type.",
    "hello_required": "The first message on a connection must be hello.",
    "already_greeted": "hello was already sent on this connection.",
    "unknown_match": "No match has that id.",
    "bad_token": "The seat token is missing, malformed or not the token of any seat of this match.",
    "not_joined": "The connection has not joined or spectated that match.",
    "not_seated": "Only a seated player may do this; spectators may not.",
    "wrong_seat": "The message names a seat other than the one this connection joined.",
    "reserved_id": "The move id starts with `sys:`, which only the server's own moves use.",
    "too_many_matches": "The connection already watches as many matches as it may.",
    "too_many_spectators": "The match has as many spectators on this server as it may.",
    "spectators_off": "The match is private and has no spectators: only its seats may watch it.",
    "spectator_key": "The match is watched by its spectator link only: spectate with the link's key.",
    "node_full": "This server holds as many live matches as it may; try again later.",
    "busy": "The match is busy; try again.",
    "stale": "The move was decided at a seq (`at`) the match is no longer at; nothing was committed; `seq` is the match's seq now.",
    "rate_limited": "The connection sent requests faster, or asked for more bytes, than it may; send the same message again after retry_after_ms.",
    "store_unavailable": "The server cannot reach its store right now; send the same message again in a moment.",
    "diverged": "The match's log lost commits the server had seen; play is stopped until an operator restores it.",
    "internal": "The server failed to handle the message; nothing was changed.",
}
# Rejections of a move carry the rules engine's own code (not_your_turn, game_over, ...),
# documented per game in docs/games/<id>.md.


class ProtocolError(Exception):
    def __init__(self, code: str, message: str) -> None:
        assert code in ERROR_CODES, code
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
