"""Teahouse's Python SDK: the HTTP lobby and a WebSocket session that keeps views current.

    from teahouse_client import TeahouseClient

    client = TeahouseClient("http://127.0.0.1:8000")
    match = await client.create_match("pixies", 3)
    seat = await client.take_seat(match["match"])
    async with client.connect() as conn:
        game = await conn.join(match["match"], seat["token"])
        await game.wait_for(lambda g: g.my_turn)
        moves = await conn.legal_moves(game.match)
        await conn.move(game.match, moves[0])

A `MatchView` keeps the audience's document current by applying patches; it checks seq
continuity and asks for a resync itself when a patch is missing. After a lost connection,
`conn.reconnect()` joins every match again from its last seq and sends unanswered moves again.
Moves carry `at`, the seq of the document they were decided on: a move decided on a position
the match has left raises `Stale` instead of being applied to the new one. A request refused
with `rate_limited` (SPEC 7.1) is sent again after the server's `retry_after_ms`;
`legal_moves` fetches every page of a long list (SPEC 3.6). `teahouse_client.bot` plays seats
with random legal moves. `verify_webhook` checks a webhook delivery's signature (SPEC 2.19).
"""

from teahouse_client.client import (
    Connection,
    MatchView,
    RateLimited,
    Rejected,
    ServerError,
    Stale,
    TeahouseClient,
)
from teahouse_client.patch import PatchError, apply
from teahouse_client.webhooks import WebhookSignatureError, verify_webhook

__all__ = ["Connection", "MatchView", "PatchError", "RateLimited", "Rejected", "ServerError", "Stale",
           "TeahouseClient", "WebhookSignatureError", "apply", "verify_webhook"]
__version__ = "0.2.0"
