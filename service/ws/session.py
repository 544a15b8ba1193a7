"""One client connection, as a state machine independent of the WebSocket library.

Frames come in through `receive`; everything going out is handed to the connection's `Link`
at once when it can take it, else queued with `deliver` into a bounded outbox that the link
drains (`outgoing`). A client that stops reading fills its outbox and is cut off (close code
4408) instead of slowing anyone else; it reconnects and resyncs. Bad input is answered with an
error message and never ends the connection.

The session and its transport (service/ws/edge.py) talk only through `Link` one way and the
session's methods the other: neither sets the other's attributes.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Coroutine
from typing import Any, Protocol

from protocol import messages
from protocol.codec import KEYED, QUIET, decode, encode
from protocol.errors import ProtocolError
from protocol.v2 import compact_ack
from service.games import GAMES, IllegalMove
from service.match.lobby import Lobby, LobbyError
from service.match.projection import Audience
from service.match.runtime import SYSTEM_MOVE_PREFIX, Busy, Diverged, MatchRuntime, Stale, diverged_message
from service.ops import logs, metrics
from service.ops.limits import Limits
from service.store import StoreUnavailable
from service.ws.ratelimit import ConnectionBudget

log = logging.getLogger("teahouse.session")

MAX_FRAME = 64 * 1024
OUTBOX = 512
SERVER = "teahouse/0.1"
CLOSE_SLOW = 4408
# Whether a move sent then was committed is not known to the client: the same id settles it.
STORE_UNAVAILABLE = ("the server cannot reach its store right now; send the same message again in a moment "
                     "(a move with the same id is committed once)")
CLOSE_IDLE = 4410  # watched no match for Limits.idle_socket_s: an idle socket serves nobody
# After a `rate_limited` refusal the connection is not read for the advertised delay (at most
# this long): a flooder's refusals cost the node no more than its accepted requests would.
MAX_PAUSE_S = 1.0
# The requests whose handling waits (for the store): the others are answered at once.
_WAITING = frozenset({"join", "spectate", "move"})


class Link(Protocol):
    """What a session needs of its connection (the edge implements it)."""

    def send_now(self, data: bytes) -> bool:
        """Write one message's payload to the socket at once; False, and nothing written, when
        the connection cannot take it right now (the session then queues it in its outbox)."""

    def wake(self) -> None:
        """The outbox is no longer empty: drain it (`Session.outgoing`) when the socket can
        take it."""

    def cut(self, code: int, reason: str) -> None:
        """Close the connection with this code and reason (not from inside this call)."""

    def resume(self) -> None:
        """The request in flight is answered: hand over the frames held after it."""


class RateLimited(Exception):
    def __init__(self, wait_s: float, what: str) -> None:
        super().__init__(what)
        self.wait_s, self.what = wait_s, what


class Session:
    def __init__(self, lobby: Lobby, encoding: str, link: Link, limits: Limits | None = None) -> None:
        """`encoding` is the wire name (protocol.versions.Negotiated.wire): msgpack, json,
        v2.msgpack or v2.json; frames for this connection are encoded for it."""
        self.lobby = lobby
        self.encoding = encoding
        self.version = 2 if encoding.startswith("v2.") else 1
        self.id = secrets.token_hex(8)
        # Frames waiting for the socket; the link is woken when it goes from empty to not
        # empty. A list, not a deque: an empty deque holds a 64-slot block on every idle
        # connection (bench/platform_memory.py), and the outbox is short (drained as it fills).
        # While it is empty, a frame goes to the link at once (Link.send_now): a broadcast then
        # costs one call and one socket write per connection.
        self.outbox: list[bytes] = []
        self.greeted = False
        self.cut = False
        self.joined: dict[str, tuple[MatchRuntime, Audience]] = {}
        self._link = link
        self._unwatched_since = time.monotonic()
        self.limits = limits = limits if limits is not None else Limits()
        self.max_watched = limits.matches_per_connection
        self.budget = ConnectionBudget(limits.requests_per_second, limits.request_burst,
                                       limits.outbound_bytes_per_second)
        # Frames queued and bytes queued, ever; frames handed to the socket (the adapter counts
        # them); and how many frames had been queued when the last request was answered. A
        # request read while written < answered is pipelined: it counts against the rate.
        self.queued = self.queued_bytes = self.written = self._answered = 0
        self.pause_s = 0.0
        self.in_flight: asyncio.Task[None] | None = None  # the request that waits for the store

    def idle_for(self) -> float:
        """Seconds this connection has watched no match (0 while it watches one)."""
        return 0.0 if self.joined else time.monotonic() - self._unwatched_since

    @property
    def watching(self) -> bool:
        """Whether this connection watches a match (join or spectate)."""
        return bool(self.joined)

    # -- out --------------------------------------------------------------------------------
    def deliver(self, data: bytes) -> None:
        """Write `data` (one message's payload) at once if the outbox is empty and the link
        takes it, else queue it."""
        if self.cut:
            return
        outbox = self.outbox
        if not outbox and self._link.send_now(data):
            self.queued += 1
            self.queued_bytes += len(data)
            self.written += 1
            return
        if len(outbox) < OUTBOX:
            outbox.append(data)
            self.queued += 1
            self.queued_bytes += len(data)
            if len(outbox) == 1:
                self._link.wake()
        else:
            self.cut = True
            metrics.OUTBOX_CUTS.inc()
            # Not now: we may be inside a broadcast, and leaving broadcasts presence, which
            # may cut the next full outbox, and so on down the stack.
            asyncio.get_running_loop().call_soon(self.leave_all)
            self._link.cut(CLOSE_SLOW, "slow consumer: reconnect and resync")

    def outgoing(self) -> list[bytes]:
        """Take what waits in the outbox (the link writes it now: it counts as written)."""
        out, self.outbox = self.outbox, []
        self.written += len(out)
        return out

    def take_pause(self) -> float:
        """How long the link must not read this connection after a `rate_limited` refusal
        (SPEC 7.1), once; 0 when there is no pause."""
        pause, self.pause_s = self.pause_s, 0.0
        return pause

    def end(self) -> None:
        """The connection is gone: nothing is queued or handled any more. Its matches are left
        with `leave_all` once a request in flight has finished."""
        self.cut = True
        self.outbox = []

    def send(self, message: dict[str, Any]) -> None:
        self.deliver(encode(message, self.encoding))

    # -- in ---------------------------------------------------------------------------------
    def receive(self, frame: bytes | str) -> bool:
        """Handle one frame as far as it goes without waiting. False when it is answered (or
        refused); True when it waits for the store (join, spectate, move): it goes on in a task
        of its own (`in_flight`) and the link must hold the frames after it until its `resume`
        is called. After a refusal for the rate, `take_pause` says how long the link must not
        read this connection."""
        if self.cut:
            return False  # cut off: nothing it sends counts any more
        ref = match = raw = None
        pipelined = self.written < self._answered
        try:
            wait = self.budget.admit(pipelined)
            size = len(frame) if isinstance(frame, bytes) else len(frame.encode())
            if size > MAX_FRAME:
                raise ProtocolError("frame_too_large", f"a frame may be at most {MAX_FRAME} bytes")
            raw = decode(frame, self.encoding)
            if isinstance(raw, dict):
                ref = raw.get("id") if isinstance(raw.get("id"), str) else raw.get("type")
                ref = ref if isinstance(ref, str) else None
                named = raw.get("match")
                match = named if isinstance(named, str) and len(named) <= messages.MATCH_ID_MAX else None
                logs.MATCH.set(match)  # the match of every line logged while handling this frame
            if wait:
                raise RateLimited(wait, "requests")
            if isinstance(raw, dict) and not self.greeted and raw.get("type") not in ("hello", "ping"):
                raise ProtocolError("hello_required", "send hello first")
            msg = messages.parse_client(raw)
            kind = msg["type"]
            if kind in _WAITING:
                pending = getattr(self, f"_on_{kind}")(msg)
                self.in_flight = asyncio.get_running_loop().create_task(self._finish(pending, ref, match, raw))
                return True
            getattr(self, f"_on_{kind}")(msg)
        except Exception as exc:
            self._failed(exc, ref, match, raw)
        self._answered = self.queued
        return False

    async def _finish(self, pending: Coroutine[Any, Any, None], ref: str | None, match: str | None,
                      raw: Any) -> None:
        try:
            await pending
        except Exception as exc:
            self._failed(exc, ref, match, raw)
        finally:
            self._answered = self.queued
            self.in_flight = None
            self._link.resume()

    def _failed(self, exc: Exception, ref: str | None, match: str | None, raw: Any) -> None:
        """Answer a frame whose handling raised: a structured error, never the end of the
        connection. Called inside the `except` clause (log.exception reads the exception)."""
        if isinstance(exc, RateLimited):
            self._refuse(exc, ref, match, raw if isinstance(raw, dict) else None)
        elif isinstance(exc, ProtocolError):
            self._error(exc.code, exc.message, ref, match)
        elif isinstance(exc, LobbyError):
            code = exc.code if exc.code in ("unknown_match",) else "bad_field"
            self._error(code, exc.message, ref, match)
        elif isinstance(exc, StoreUnavailable):
            self._error("store_unavailable", STORE_UNAVAILABLE, ref, match)
        else:
            log.exception("session %s: failed on a frame", self.id)
            self._error("internal", "the server failed on this message; nothing was changed", ref, match)

    def _error(self, code: str, message: str, ref: str | None, match: str | None) -> None:
        metrics.ERRORS.labels(code).inc()
        self.send(messages.error(code, message, ref, match))

    def _refuse(self, exc: RateLimited, ref: str | None, match: str | None, raw: dict[str, Any] | None) -> None:
        """Answer a request refused for its rate or its bytes, naming it (`ref`: its id, else
        its type) so a client waiting for its answer knows to send it again; the adapter then
        stops reading this connection for the delay advertised (SPEC 7.1), `pause_s`."""
        kind = raw.get("type") if raw is not None and isinstance(raw.get("type"), str) else "message"
        retry_ms = max(1, int(exc.wait_s * 1000 + 0.999))
        if exc.what == "requests":
            why = (f"{kind} refused: this connection sent more than {self.limits.request_burst} requests "
                   f"without reading the answers, beyond {self.limits.requests_per_second:g} a second")
        else:
            why = (f"{kind} refused: this connection asked for more than "
                   f"{self.limits.outbound_bytes_per_second} bytes a second of answers")
        metrics.ERRORS.labels("rate_limited").inc()
        self.send(messages.error("rate_limited", f"{why}; send it again in {retry_ms} ms", ref, match, retry_ms))
        self._answered = self.queued
        self.pause_s = min(exc.wait_s, MAX_PAUSE_S)

    def _spend_bytes(self) -> None:
        """Refuse a large answer (legal moves, resync) while the byte budget is in debt."""
        wait = self.budget.bytes.wait()
        if wait:
            raise RateLimited(wait, "bytes")

    def _on_hello(self, msg: dict[str, Any]) -> None:
        if self.greeted:
            raise ProtocolError("already_greeted", "hello was already sent on this connection")
        self.greeted = True
        welcome = messages.welcome(self.encoding.rpartition(".")[2], self.id, SERVER, MAX_FRAME, list(GAMES))
        self.send({**welcome, "protocol": self.version})
        if msg.get("said") is False:  # patches without their sentences (SPEC 4.1)
            self.encoding = QUIET + self.encoding
        elif msg.get("said_keys") is True:  # ...or with their message keys too (SPEC 3.14)
            self.encoding = KEYED + self.encoding

    def _require_hello(self) -> None:
        if not self.greeted:
            raise ProtocolError("hello_required", "send hello first")

    async def _runtime(self, match_id: str) -> MatchRuntime:
        try:
            rt = await self.lobby.runtime(match_id)
        except LobbyError as exc:
            if exc.code == "node_full":
                raise ProtocolError("node_full", exc.message) from None
            raise ProtocolError("unknown_match", f"no match has the id {match_id!r}") from None
        if rt.diverged is not None:
            raise ProtocolError("diverged", diverged_message(match_id, rt.diverged["seen_seq"], rt.diverged["log_seq"]))
        return rt

    def _check_room(self, match_id: str) -> None:
        """A connection watches a bounded number of matches: each one loads a runtime on this node."""
        if self.max_watched and match_id not in self.joined and len(self.joined) >= self.max_watched:
            raise ProtocolError("too_many_matches", f"a connection may watch at most {self.max_watched} matches "
                                "at once; leave one first, or open another connection")

    async def _on_join(self, msg: dict[str, Any]) -> None:
        self._require_hello()
        self._check_room(msg["match"])
        rt = await self._runtime(msg["match"])
        seat = await self.lobby.seat_for_token(msg["match"], msg["token"], joining=True)
        if seat is None:
            raise ProtocolError("bad_token", "that token holds no seat of this match")
        self._watch(rt, seat, msg)

    async def _on_spectate(self, msg: dict[str, Any]) -> None:
        self._require_hello()
        self._check_room(msg["match"])
        rt = await self._runtime(msg["match"])
        try:
            self.lobby.check_public(rt.record, msg.get("key"))  # a private match's spectators (SPEC 4.3)
        except LobbyError as exc:
            raise ProtocolError(exc.code, exc.message) from None
        cap = self.limits.spectators_per_match
        if cap and self not in rt.watchers.get(None, ()) and rt.local_counts()[1] >= cap:
            raise ProtocolError("too_many_spectators", f"match {rt.id} has {cap} spectators on this server, its "
                                "limit; try again later")
        self._watch(rt, None, msg)

    def _watch(self, rt: MatchRuntime, audience: Audience, msg: dict[str, Any]) -> None:
        """Watch `rt` as `audience`, answering the join or spectate `msg` (its `since`, `ref`)."""
        previous = self.joined.get(rt.id)
        if previous is not None:
            previous[0].detach(self)
        self.joined[rt.id] = (rt, audience)
        rt.attach(self, audience, msg.get("since"), msg["type"], msg.get("ref"))

    def _joined(self, match_id: str) -> tuple[MatchRuntime, Audience]:
        self._require_hello()
        try:
            return self.joined[match_id]
        except KeyError:
            raise ProtocolError("not_joined", f"join or spectate match {match_id!r} first") from None

    def _on_leave(self, msg: dict[str, Any]) -> None:
        rt, _ = self._joined(msg["match"])
        rt.detach(self)
        del self.joined[msg["match"]]
        if not self.joined:
            self._unwatched_since = time.monotonic()
        self.send(messages.left(msg["match"]))

    async def _on_move(self, msg: dict[str, Any]) -> None:
        rt, seat = self._joined(msg["match"])
        if seat is None:
            raise ProtocolError("not_seated", "spectators cannot move")
        if msg["id"].startswith(SYSTEM_MOVE_PREFIX):
            raise ProtocolError("reserved_id", f"move ids starting with {SYSTEM_MOVE_PREFIX!r} are the server's own")
        if "seat" in msg and msg["seat"] != seat:
            raise ProtocolError("wrong_seat", f"this connection plays seat {seat}, not seat {msg['seat']}")
        try:
            seq = await rt.submit(seat, msg["command"], msg["id"], decided_at=msg.get("at"))
        except Stale as exc:
            metrics.ERRORS.labels("stale").inc()
            self.send(messages.error("stale", f"the move was decided at seq {exc.at}, but the match is at seq "
                                     f"{exc.seq}: nothing was committed; look at the position now and decide again",
                                     msg["id"], rt.id, seq=exc.seq))
        except IllegalMove as exc:
            metrics.REJECTS.labels(exc.code).inc()
            self.send(messages.reject(rt.id, msg["id"], exc.code, exc.message))
        except Busy:
            raise ProtocolError("busy", "the match is busy; send the same move again") from None
        except Diverged:
            raise ProtocolError("diverged", diverged_message(rt.id, rt.seq, (rt.diverged or {}).get("log_seq", 0))) from None
        else:
            if self.version == 2:
                self.deliver(encode(compact_ack(rt.ref, seq, msg["id"]), self.encoding))
            else:
                self.send(messages.ack(rt.id, msg["id"], seq))

    def _on_legal(self, msg: dict[str, Any]) -> None:
        rt, seat = self._joined(msg["match"])
        if seat is None:
            raise ProtocolError("not_seated", "spectators have no legal moves")
        self._spend_bytes()
        pages = rt.legal_pages(seat, self.limits.legal_moves_page)
        page = msg.get("page", 0)
        if page >= len(pages):
            raise ProtocolError("bad_field", f"legal: page must be from 0 to {len(pages) - 1} at seq {rt.seq} "
                                f"({len(pages)} pages)")
        data = pages[page].encoded(self.encoding)
        self.deliver(data)
        self.budget.bytes.charge(len(data))

    def _on_resync(self, msg: dict[str, Any]) -> None:
        rt, audience = self._joined(msg["match"])
        self._spend_bytes()
        before = self.queued_bytes
        rt.answer_resync(self, audience, msg["since"], msg.get("ref"))
        self.budget.bytes.charge(self.queued_bytes - before)

    def _on_ping(self, msg: dict[str, Any]) -> None:
        self.send(messages.pong(msg.get("nonce")))

    def leave_all(self) -> None:
        for rt, _ in self.joined.values():
            rt.detach(self)
        self.joined.clear()
        self._unwatched_since = time.monotonic()
