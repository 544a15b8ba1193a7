"""The SDK's core: HTTP lobby calls (TeahouseClient) and a WebSocket session (Connection) that
keeps one document per watched match (MatchView) current by applying patches."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import httpx
import websockets

from teahouse_client.patch import PatchError, apply
from teahouse_client.v2 import Expander, decode_frame
from teahouse_client.wire import decode, encode

log = logging.getLogger("teahouse_client")
CLIENT_NAME = "teahouse-python/0.2"
# Protocol v2 (compact patches, SPEC §12) is the default; version=1 speaks v1.
SUBPROTOCOL = {"msgpack": "teahouse.v2.msgpack", "json": "teahouse.v2.json"}
SUBPROTOCOL_V1 = {"msgpack": "teahouse.v1.msgpack", "json": "teahouse.v1.json"}
# A request refused with `rate_limited` is sent again after the server's retry_after_ms, up to
# this many times (SPEC 7.1); a list of legal moves that changed seq while being paged is
# asked for again from its first page up to LEGAL_RESTARTS times.
RATE_LIMIT_RETRIES = 50
LEGAL_RESTARTS = 5


# Codes that say "not now" rather than "no" (SPEC 7.1): the same request (a move with the same
# id) may be sent again after a moment.
RETRYABLE = frozenset({"busy", "store_unavailable"})
SEAT_RETRIES = 5  # take_seat sends its request again this many times (the server's store away)


class ServerError(Exception):
    """The server answered with an `error` message: `code` (stable, SPEC 7.1), `message` (a
    sentence for people) and `fields`, the whole error message as it came."""

    def __init__(self, code: str, message: str, fields: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message
        self.fields = fields or {}

    @property
    def retryable(self) -> bool:
        """Send the same request again in a moment (SPEC 7.1: `busy`, `store_unavailable`)."""
        return self.code in RETRYABLE


class Rejected(ServerError):
    """The rules refused a move (`reject`, SPEC 5.5); the log did not change."""


class Stale(ServerError):
    """The move was decided on a document older than the match (`at` was behind): nothing was
    committed. `seq` is the match's seq now; look at the new position and decide again."""

    def __init__(self, code: str, message: str, fields: dict[str, Any] | None = None) -> None:
        super().__init__(code, message, fields)
        seq = self.fields.get("seq")
        self.seq: int | None = seq if isinstance(seq, int) and not isinstance(seq, bool) else None


class RateLimited(ServerError):
    """The server refused a message for the connection's rate or byte budget (SPEC 7.1); the
    SDK sends it again after `retry_after_ms` by itself."""

    def __init__(self, code: str, message: str, fields: dict[str, Any] | None = None) -> None:
        super().__init__(code, message, fields)
        after = self.fields.get("retry_after_ms")
        self.retry_after_ms = 1000
        if isinstance(after, int) and not isinstance(after, bool) and after >= 0:
            self.retry_after_ms = min(after, 60_000)


def server_error(msg: dict[str, Any]) -> ServerError:
    """The exception for an `error` message."""
    kind = {"rate_limited": RateLimited, "stale": Stale}.get(msg.get("code", ""), ServerError)
    return kind(str(msg.get("code")), str(msg.get("message")), msg)


class MatchView:
    """One match as this connection's audience sees it.

    Read `doc` (`view` and `status`), `seq`, `presence`, `finished`, `deadline` (the turn clock)
    and `said` / `story` for what happened in words (SPEC 3.14), with `said_keys` (parallel to
    `said`: each sentence's message key and parameters, {"key", "params"}, or None) to say them
    in another language. Subscribe with `on_change`, or
    await `wait_for(predicate)`."""

    def __init__(self, conn: Connection, match: str, seat: int | None, token: str | None) -> None:
        self.conn, self.match, self.seat, self.token = conn, match, seat, token
        self.key: str | None = None  # a private match's spectator key (SPEC 2.4), sent again on reconnect
        self.seq = -1
        self.doc: dict[str, Any] = {}
        self.presence: dict[str, Any] | None = None
        self.finished: dict[str, Any] | None = None
        self.deadline: int | None = None  # the turn clock, ms since the epoch (None: no clock)
        self.banks: list[int] | None = None  # a Fischer clock's time left per seat at `deadline`'s seq (ms)
        self.resyncs = 0
        # The latest commit's sentences, and (seq, sentences) of every commit seen live on this
        # connection (a resync's full view brings no words: read GET .../replay's `log` for those).
        self.said: list[str] = []
        self.said_keys: list[dict[str, Any] | None] = []
        self.story: list[tuple[int, list[str]]] = []
        self._resync_ref: str | None = None  # the ref of the resync asked and not answered yet
        self._changed = asyncio.Condition()
        self._listeners: list[Callable[[str, MatchView], None]] = []

    @property
    def view(self) -> dict[str, Any]:
        """What this audience sees of the game (docs/games/<id>.md)."""
        return self.doc.get("view", {})

    @property
    def status(self) -> dict[str, Any]:
        """The match's status: `phase`, `to_act` (the seats to move), `finished`, ..."""
        return self.doc.get("status", {})

    @property
    def my_turn(self) -> bool:
        """True when this connection's seat is among those to act."""
        return self.seat is not None and self.seat in self.status.get("to_act", [])

    @property
    def over(self) -> bool:
        """True once the match is finished."""
        return bool(self.status.get("finished"))

    def on_change(self, fn: Callable[[str, MatchView], None]) -> Callable[[], None]:
        """Call `fn(reason, view)` after every change ("view", "patch", "presence", "clock",
        "finished", "lost"); returns a function that unsubscribes."""
        self._listeners.append(fn)
        return lambda: self._listeners.remove(fn) if fn in self._listeners else None

    async def wait_for(self, predicate: Callable[[MatchView], bool], timeout: float = 30) -> None:
        """Wait until `predicate(self)` holds; raise ConnectionError if the connection drops
        first (then call `conn.reconnect()` and wait again), TimeoutError after `timeout` s."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: predicate(self) or self.conn.lost), timeout)
            if not predicate(self):
                raise ConnectionError("the connection was lost")

    async def _notify(self, reason: str) -> None:
        for fn in list(self._listeners):
            try:
                fn(reason, self)
            except Exception:  # a listener's fault must not stop the connection's reader
                log.exception("teahouse_client: a change listener failed")
        async with self._changed:
            self._changed.notify_all()

    async def _on_view(self, msg: dict[str, Any]) -> None:
        self.doc, self.seq = msg["doc"], msg["seq"]
        if "seat" in msg:
            self.seat = msg["seat"]
        await self._notify("view")

    async def _on_patch(self, msg: dict[str, Any]) -> None:
        if self.seq < 0 or msg["seq"] <= self.seq:
            return  # no document yet, or already have it (a resync overlapped a live patch)
        if msg["seq"] != self.seq + 1:
            await self._resync()
            return
        try:
            self.doc = apply(self.doc, msg["ops"])
        except PatchError:
            await self._resync(force=True)
            return
        self.seq = msg["seq"]
        self.said = [str(s) for s in msg.get("said") or []]
        raw = msg.get("said_keys")
        keys: list[Any] = raw if isinstance(raw, list) else []
        self.said_keys = [k if i < len(keys) and isinstance(k := keys[i], dict) and isinstance(k.get("key"), str) else None
                          for i in range(len(self.said))]
        self.story.append((self.seq, self.said))
        await self._notify("patch")

    def _resync_again(self) -> None:
        if not self.conn.lost:
            task = asyncio.ensure_future(self._resync(force=True))
            self.conn._tasks.add(task)
            task.add_done_callback(self.conn._tasks.discard)

    async def _resync(self, force: bool = False) -> None:
        """Ask once for what is missing; later patches past the same gap wait for the answer,
        which ends with the presence that carries this resync's ref (SPEC 3.7)."""
        if self._resync_ref is not None and not force:
            return
        self._resync_ref = self.conn._new_ref()
        self.resyncs += 1
        await self.conn._send({"type": "resync", "match": self.match, "since": max(self.seq, 0),
                               "ref": self._resync_ref})


class _Answer:
    """A join / spectate waiting for its answer to end (the presence with its `reply` and `ref`)."""

    def __init__(self, ref: str, fut: asyncio.Future, needs_view: bool) -> None:
        self.ref, self.fut, self.needs_view = ref, fut, needs_view


class Connection:
    """A WebSocket session: `async with client.connect() as conn`, then `join` or `spectate`,
    `legal_moves`, `move`. Requests may run concurrently; answers are matched to them."""

    def __init__(self, ws_url: str, encoding: str = "msgpack", record: bool = False, version: int = 2,
                 said: bool = True, at: bool = True, client_name: str = CLIENT_NAME, said_keys: bool = False) -> None:
        """`said=False` asks the server to leave the commits' sentences out of patches (SPEC
        4.1), for a client that does not show them; `said_keys=True` asks for each sentence's
        message key and parameters too (SPEC 3.14): `MatchView.said_keys`. `at=False` sends moves without `at` (the seq
        of the document the move was decided on), so a move is never refused as stale.
        `record=True` keeps every frame received, raw, in `frames`."""
        if version not in (1, 2):
            raise ValueError(f"protocol version {version!r}: this SDK speaks 1 and 2")
        if encoding not in SUBPROTOCOL:
            raise ValueError(f"encoding {encoding!r}: this SDK speaks msgpack and json")
        self.ws_url, self.encoding, self.version, self.said, self.at = ws_url, encoding, version, said, at
        self.said_keys = said_keys
        self.client_name = client_name
        self._expander: Expander | None = None  # v2 frames decode to v1-shaped messages (one per socket)
        self.matches: dict[str, MatchView] = {}
        self.welcome: dict[str, Any] | None = None
        self.frames: list[bytes] | None = [] if record else None  # every frame received, raw
        self.errors: list[dict[str, Any]] = []
        self.closed: asyncio.Future[tuple[int | None, str]] | None = None
        # Whether this server ends its answers with a presence carrying `reply` (decided by the
        # first presence that does): a server that never does ends them with a plain presence.
        self.replies = False
        self._ws: Any = None
        self._reader: asyncio.Task | None = None
        self._waiting: dict[Any, asyncio.Future] = {}
        self._answers: dict[str, list[_Answer]] = {}  # match -> join/spectate answers not ended yet
        self._pending: dict[str, dict[str, Any]] = {}  # move id -> move not answered (resent on reconnect)
        self._tasks: set[asyncio.Task] = set()  # resyncs sent again later (held so they are not collected)
        self._on_close: list[Callable[[int | None, str], None]] = []
        self._ids = itertools.count(1)
        self._prefix = secrets.token_hex(4)

    @property
    def lost(self) -> bool:
        """True once the socket is gone; `reconnect()` to go on."""
        return self.closed is None or self.closed.done()

    def on_close(self, fn: Callable[[int | None, str], None]) -> Callable[[], None]:
        """Call `fn(code, reason)` when the socket closes (SPEC 8: 4408 too slow, 1012 the node
        restarts: reconnect); returns a function that unsubscribes."""
        self._on_close.append(fn)
        return lambda: self._on_close.remove(fn) if fn in self._on_close else None

    async def open(self) -> Connection:
        """Open the socket and greet (`hello` → `welcome`); returns this connection."""
        name = (SUBPROTOCOL if self.version == 2 else SUBPROTOCOL_V1)[self.encoding]
        self._ws = await websockets.connect(self.ws_url, subprotocols=[websockets.Subprotocol(name)],
                                            compression=None, max_size=2**24)
        self._expander = Expander() if self.version == 2 else None
        self.closed = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read())
        hello = {"type": "hello", "client": self.client_name, **({} if self.said else {"said": False}),
                 **({"said_keys": True} if self.said and self.said_keys else {})}
        self.welcome = await self._request("welcome", hello, ["hello"])
        return self

    async def close(self) -> None:
        """Close the socket; every match stops updating."""
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader

    async def __aenter__(self) -> Connection:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def reconnect(self) -> None:
        """Open a new socket, join every match again from the last seq it holds, and send every
        move that was not answered again with its id (SPEC 3.5: committed once whatever happens)."""
        await self.close()
        await self.open()
        for mv in list(self.matches.values()):
            msg: dict[str, Any] = {"type": "join" if mv.token is not None else "spectate", "match": mv.match}
            if mv.token is not None:
                msg["token"] = mv.token
            if mv.key is not None:
                msg["key"] = mv.key
            if mv.seq >= 0:
                msg["since"] = mv.seq
            await self._send(msg)
        for move in list(self._pending.values()):
            await self._send(move)

    # -- matches --------------------------------------------------------------------------
    async def join(self, match: str, token: str) -> MatchView:
        """Play the seat `token` holds (POST .../seats gave it); returns the match's MatchView once
        the answer is complete (SPEC 3.3). Joining a watched match again replaces its audience."""
        return await self._watch({"type": "join", "match": match, "token": token}, token)

    async def spectate(self, match: str, key: str | None = None) -> MatchView:
        """Watch a match as a spectator; returns its MatchView once the answer is complete.
        `key`: a private match's spectator key (SPEC 2.4)."""
        msg: dict[str, Any] = {"type": "spectate", "match": match}
        if key is not None:
            msg["key"] = key
        return await self._watch(msg, None)

    async def _watch(self, msg: dict[str, Any], token: str | None) -> MatchView:
        previous = self.matches.get(msg["match"])
        mv = MatchView(self, msg["match"], None, token)
        mv.key = msg.get("key")
        self.matches[mv.match] = mv
        ref = msg["ref"] = self._new_ref()
        # The answer is a view, perhaps finished and clock, then the presence that ends it.
        answer = _Answer(ref, asyncio.get_running_loop().create_future(), needs_view=True)
        answers = self._answers.setdefault(mv.match, [])
        answers.append(answer)
        try:
            # (errors name the request by its ref; a server that names requests by type, by
            # type and match)
            await self._request(answer, msg, [ref, (msg["type"], mv.match), msg["type"]])
        except BaseException:
            if previous is not None:
                self.matches[mv.match] = previous
            else:
                self.matches.pop(mv.match, None)
            raise
        finally:
            answers.remove(answer)
        return mv

    async def leave(self, match: str) -> None:
        """Stop watching a match (SPEC 4.4)."""
        await self._request(("left", match), {"type": "leave", "match": match}, ["leave", ("leave", match)])
        self.matches.pop(match, None)

    async def move(self, match: str, command: dict[str, Any], move_id: str | None = None,
                   at: int | None = None) -> int:
        """Send a move; return its seq once committed (the document already shows it).

        Raises Rejected (the rules said no), Stale (the match moved on since the document the
        move was decided on: decide again) or ServerError (a protocol fault; `retryable` ones
        may be sent again with the same `move_id`). The move carries `at`, the seq of the
        document held for the match (or `at` if given), unless the connection was made with
        `at=False`."""
        move_id = move_id or f"{self._prefix}-{next(self._ids)}"
        msg: dict[str, Any] = {"type": "move", "match": match, "id": move_id, "command": command}
        mv = self.matches.get(match)
        if at is None and self.at and mv is not None and mv.seq >= 0:
            at = mv.seq
        if at is not None and self.at:
            msg["at"] = at
        self._pending[move_id] = msg
        try:
            reply = await self._request(move_id, msg, [move_id])
        finally:
            if not self.lost:
                self._pending.pop(move_id, None)
        if reply["type"] == "reject":
            raise Rejected(reply["code"], reply["message"], reply)
        return reply["seq"]

    async def legal_moves(self, match: str) -> list[dict[str, Any]]:
        """The commands this connection's seat may send now (empty when it is not its turn);
        every page of a long list, all from one seq (SPEC 3.6)."""
        return (await self.labelled_moves(match))[0]

    async def labelled_moves(self, match: str) -> tuple[list[dict[str, Any]], list[str]]:
        """The seat's legal commands and a label for each, as two parallel lists (a server that
        sends no labels gets the commands' types). A long list comes in pages (SPEC 3.6): every
        page is fetched, and all of them from one seq."""
        for _ in range(LEGAL_RESTARTS):
            first = await self._legal_page(match, 0)
            moves, labels = self._labelled(first)
            for page in range(1, int(first.get("pages", 1))):
                reply = await self._legal_page(match, page)
                if reply["seq"] != first["seq"]:
                    break  # the match moved on between pages: start again at its new seq
                more, more_labels = self._labelled(reply)
                moves += more
                labels += more_labels
            else:
                return moves, labels
        raise TimeoutError(f"the legal moves of {match} kept changing while they were paged")

    async def _legal_page(self, match: str, page: int) -> dict[str, Any]:
        msg: dict[str, Any] = {"type": "legal", "match": match}
        if page:
            msg["page"] = page
        return await self._request(("legal_moves", match), msg, ["legal"])

    @staticmethod
    def _labelled(reply: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        moves = list(reply["moves"])
        labels = reply.get("labels")
        if not isinstance(labels, list) or len(labels) != len(moves):
            labels = [str(m.get("type", "move")) for m in moves]
        return moves, list(labels)

    async def ping(self) -> dict[str, Any]:
        """A round trip: returns the `pong` message."""
        nonce = next(self._ids)
        return await self._request(("pong", nonce), {"type": "ping", "nonce": nonce}, ["ping"])

    async def send_raw(self, data: bytes | str) -> None:
        """Send a frame as it is (tests of the server's handling of bad input)."""
        await self._ws.send(data)

    # -- plumbing -------------------------------------------------------------------------
    def _new_ref(self) -> str:
        return f"{self._prefix}-{next(self._ids)}"

    async def _request(self, key: Any, msg: dict[str, Any], err_keys: list[Any],
                       timeout: float = 30) -> dict[str, Any]:
        """Send `msg` and wait for its answer (`key`: where it is resolved, or an _Answer);
        an `error` whose ref is one of `err_keys` fails it. A `rate_limited` refusal is sent
        again after the delay the server gives (the refused message had no effect)."""
        for _ in range(RATE_LIMIT_RETRIES):
            try:
                return await self._request_once(key, msg, err_keys, timeout)
            except RateLimited as exc:
                await asyncio.sleep(exc.retry_after_ms / 1000)
        return await self._request_once(key, msg, err_keys, timeout)

    async def _request_once(self, key: Any, msg: dict[str, Any], err_keys: list[Any],
                            timeout: float) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        if isinstance(key, _Answer):
            if key.fut.done():
                key.fut = loop.create_future()
            fut = key.fut
        else:
            fut = self._waiting[key] = loop.create_future()
        err = loop.create_future()
        for k in err_keys:
            self._waiting[("error", k)] = err
        try:
            await self._send(msg)
            done, _ = await asyncio.wait([fut, err], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if err in done:
                raise server_error(err.result())
            if fut not in done:
                raise TimeoutError(f"no answer to {msg['type']}")
            return fut.result()
        finally:
            if not isinstance(key, _Answer):
                self._waiting.pop(key, None)
            for k in err_keys:
                if self._waiting.get(("error", k)) is err:
                    del self._waiting[("error", k)]

    async def _send(self, msg: dict[str, Any]) -> None:
        await self._ws.send(encode(msg, self.encoding))

    def _resolve(self, key: Any, msg: dict[str, Any]) -> bool:
        fut = self._waiting.get(key)
        if fut is None or fut.done():
            return False
        fut.set_result(msg)
        return True

    async def _read(self) -> None:
        try:
            async for frame in self._ws:
                if self.frames is not None:
                    self.frames.append(frame if isinstance(frame, bytes) else frame.encode())
                if self._expander is not None:
                    try:
                        msg = self._expander.expand(decode_frame(frame, self.encoding))
                    except PatchError:
                        # A frame we cannot read (an unknown ref, a broken patch): ask for the
                        # full views again rather than guess.
                        for mv in self.matches.values():
                            await mv._resync(force=True)
                        continue
                else:
                    msg = decode(frame, self.encoding)
                await self._dispatch(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            lost = [self._waiting.values(), [a.fut for answers in self._answers.values() for a in answers]]
            for fut in itertools.chain(*lost):
                if not fut.done():
                    fut.set_exception(ConnectionError("the connection was lost"))
                    fut.exception()  # retrieved here; the waiter re-raises it
            for mv in list(self.matches.values()):
                mv._resync_ref = None
                await mv._notify("lost")
            if self.closed is not None and not self.closed.done():
                code = getattr(self._ws, "close_code", None)
                reason = getattr(self._ws, "close_reason", "") or ""
                self.closed.set_result((code, reason))
                for fn in list(self._on_close):
                    fn(code, reason)

    def _answered(self, mv: MatchView, msg: dict[str, Any]) -> None:
        """A presence: the end of an answer to this connection's join, spectate or resync if it
        carries `reply` (SPEC 3.1); from a server that never sends `reply`, any presence after
        the answer's view is taken as its end."""
        answers = self._answers.get(mv.match, [])
        if "reply" in msg:
            self.replies = True
            ref = msg.get("ref")
            if msg["reply"] == "resync" and ref == mv._resync_ref:
                mv._resync_ref = None
            for a in answers:
                if a.ref == ref and not a.fut.done():
                    a.fut.set_result(msg)
        elif not self.replies:
            mv._resync_ref = None
            for a in answers:
                if not a.fut.done():
                    if not a.needs_view:
                        a.fut.set_result(msg)
                    break

    async def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        mv = self.matches.get(msg.get("match", ""))
        if kind == "welcome":
            self._resolve("welcome", msg)
        elif kind == "view" and mv is not None:
            await mv._on_view(msg)
            for a in self._answers.get(mv.match, []):
                if a.needs_view:
                    a.needs_view = False
                    break
        elif kind == "patch" and mv is not None:
            await mv._on_patch(msg)
        elif kind in ("ack", "reject"):
            self._pending.pop(msg["id"], None)
            self._resolve(msg["id"], msg)
        elif kind == "legal_moves":
            self._resolve(("legal_moves", msg["match"]), msg)
        elif kind == "pong":
            self._resolve(("pong", msg["nonce"]), msg)
        elif kind == "left":
            self._resolve(("left", msg["match"]), msg)
        elif kind == "presence" and mv is not None:
            mv.presence = msg
            self._answered(mv, msg)
            await mv._notify("presence")
        elif kind == "clock" and mv is not None:
            mv.deadline = msg["deadline"]
            mv.banks = msg.get("banks")
            await mv._notify("clock")
        elif kind == "finished" and mv is not None:
            mv.finished = msg
            await mv._notify("finished")
        elif kind == "error":
            self.errors.append(msg)
            ref = msg.get("ref")
            if msg.get("code") == "rate_limited" and mv is not None and ref in ("resync", mv._resync_ref):
                # a resync is not awaited by anyone: ask again after the delay given
                delay = RateLimited("", "", msg).retry_after_ms / 1000
                asyncio.get_running_loop().call_later(delay, mv._resync_again)
            # (to the request of that ref and match, else of that ref)
            if not self._resolve(("error", (ref, msg.get("match"))), msg):
                self._resolve(("error", ref), msg)


class TeahouseClient:
    """A Teahouse server: its HTTP lobby (SPEC section 2), and `connect()` for a WebSocket
    session. Close it with `await client.aclose()`."""

    def __init__(self, url: str, encoding: str = "msgpack", timeout: float = 30, version: int = 2) -> None:
        """`url`: the server's base URL (http://host:port); `encoding` and `version`: what the
        connections it makes speak (msgpack or json; protocol 2 or 1)."""
        self.url = url.rstrip("/")
        self.encoding = encoding
        self.version = version
        self.http = httpx.AsyncClient(base_url=self.url, timeout=timeout)

    @property
    def ws_url(self) -> str:
        """The server's WebSocket endpoint."""
        return self.url.replace("http://", "ws://").replace("https://", "wss://") + "/ws"

    def connect(self, record: bool = False, said: bool = True, at: bool = True, said_keys: bool = False) -> Connection:
        """A new, unopened Connection (`async with client.connect() as conn`); see Connection."""
        return Connection(self.ws_url, self.encoding, record, self.version, said, at, said_keys=said_keys)

    async def _call(self, method: str, path: str, **kw: Any) -> Any:
        r = await self.http.request(method, path, **kw)
        try:
            data = r.json()
        except ValueError:
            raise ServerError(f"http_{r.status_code}", f"the server answered {r.status_code} without JSON") from None
        if r.status_code >= 400:
            raise _http_error(r.status_code, data)
        return data

    async def games(self) -> list[dict[str, Any]]:
        """Every game of the server: [{id, name, min_players, max_players, rules_version, ...}]."""
        return await self._call("GET", "/api/games")

    async def create_match(self, game: str, players: int, options: dict[str, Any] | None = None,
                           listed: bool = True, turn_seconds: int | None = None, absent: str = "bot",
                           bots: dict[int, int] | None = None,
                           time_control: dict[str, Any] | None = None) -> dict[str, Any]:
        """Create a match; returns its summary (`match` is its id). With `turn_seconds`, a seat
        that does not move in time has a move played for it: by a bot (`absent="bot"`), at
        random (`"random"`) or its first legal move (`"first"`). `bots` maps seats to the
        strength (0-5) of a server bot that plays it (SPEC 2.4). `time_control` instead of
        `turn_seconds`: {"type": "per_move", "seconds"}, {"type": "correspondence", "days"} or
        {"type": "fischer", "bank_seconds", "increment_seconds"}."""
        body: dict[str, Any] = {"game": game, "players": players, "options": options or {}, "listed": listed,
                                "turn_seconds": turn_seconds, "absent": absent}
        if bots:
            body["bots"] = [{"seat": seat, "strength": strength} for seat, strength in sorted(bots.items())]
        if time_control is not None:
            body["time_control"] = time_control
        return await self._call("POST", "/api/matches", json=body)

    async def take_seat(self, match: str, seat: int | None = None, name: str | None = None,
                        token: str | None = None, player_key: str | None = None,
                        invite: str | None = None) -> dict[str, Any]:
        """Take a seat (the lowest free one when `seat` is None; the one an `invite` from the
        match's creation opens): {match, seat, token}. Keep the token: it is the only way to
        play the seat and is never shown again.

        The token is chosen here (or is `token`: 32 random bytes in base64url, or more), so the
        request is sent again, up to SEAT_RETRIES times a second apart, when the server cannot
        reach its store or the connection fails: a first try that took a seat is answered that
        seat (SPEC 2.7). Other errors are raised at once (ServerError). With `player_key` (a
        player key, or an app's signed token) the seat is the player's: the match's log records
        it, and it counts in the player's history and ratings (SPEC 2.7, 2.15)."""
        token = token or secrets.token_urlsafe(32)
        path = f"/api/matches/{_q(match)}/seats"
        body: dict[str, Any] = {"seat": seat, "name": name}
        if player_key:
            body["player_key"] = player_key
        if invite is not None:
            body["invite"] = invite
        for attempt in range(SEAT_RETRIES + 1):
            try:
                return await self._call("POST", path, json=body, headers=_bearer(token))
            except (ServerError, httpx.TransportError) as exc:
                if attempt == SEAT_RETRIES or (isinstance(exc, ServerError) and exc.code != "store_unavailable"):
                    raise
            await asyncio.sleep(1.0)
        raise AssertionError("unreachable")

    async def create_player(self, name: str) -> dict[str, Any]:
        """Become a player: {player, name, created, key}. Keep `key` (a secret shown once): send
        it as `player_key` to take seats as this player, and to read its private matches."""
        return await self._call("POST", "/api/players", json={"name": name})

    async def me(self, player_key: str) -> dict[str, Any]:
        """The player a key (or an app's token) stands for: {player, name, created}."""
        return await self._call("GET", "/api/players/me", headers=_bearer(player_key))

    async def player(self, player: str) -> dict[str, Any]:
        """A player's id, display name and creation time."""
        return await self._call("GET", f"/api/players/{_q(player)}")

    async def player_matches(self, player: str, offset: int = 0, limit: int = 50,
                             player_key: str | None = None) -> dict[str, Any]:
        """One page of a player's matches, those waiting on the player first (SPEC 2.15):
        {player, total, offset, matches}. With the player's own key its private matches too."""
        return await self._call("GET", f"/api/players/{_q(player)}/matches",
                                params={"offset": offset, "limit": limit}, headers=_bearer(player_key))

    async def create_webhook(self, player_key: str, url: str, events: list[str] | None = None) -> dict[str, Any]:
        """Register a webhook for the player the key (or app token) proves (SPEC 2.19): {id, url,
        events, created, secret}. Keep `secret`, shown this once: check each delivery with
        `teahouse_client.webhooks.verify_webhook(secret, headers, body)`. `events`: any of
        your_turn, clock_low, finished (None: all)."""
        body: dict[str, Any] = {"url": url}
        if events is not None:
            body["events"] = events
        return await self._call("POST", "/api/players/me/webhooks", json=body, headers=_bearer(player_key))

    async def webhooks(self, player_key: str) -> list[dict[str, Any]]:
        """The player's webhooks (without their secrets)."""
        return list((await self._call("GET", "/api/players/me/webhooks", headers=_bearer(player_key)))["webhooks"])

    async def delete_webhook(self, player_key: str, webhook: str) -> None:
        """Delete one of the player's webhooks; its pending deliveries are not sent."""
        r = await self.http.delete(f"/api/players/me/webhooks/{_q(webhook)}", headers=_bearer(player_key))
        if r.status_code != 204:
            try:
                data = r.json()
            except ValueError:
                data = None
            raise _http_error(r.status_code, data)

    async def webhook_deliveries(self, player_key: str, offset: int = 0, limit: int = 50) -> dict[str, Any]:
        """One page of the player's delivery log, newest first: {player, total, offset, deliveries},
        each with its id, event, match, seq, status, attempts, last_status, last_error, delivered."""
        return await self._call("GET", "/api/players/me/webhooks/deliveries",
                                params={"offset": offset, "limit": limit}, headers=_bearer(player_key))

    async def leaderboard(self, game: str, offset: int = 0, limit: int = 50) -> dict[str, Any]:
        """A game's ratings, best first (SPEC 2.16): {game, total, offset, players}."""
        return await self._call("GET", f"/api/games/{_q(game)}/leaderboard", params={"offset": offset, "limit": limit})

    async def rematch(self, match: str, token: str | None = None, player_key: str | None = None) -> dict[str, Any]:
        """Ask for the rematch of finished `match`, or accept it, as the seat `token` holds
        there (SPEC 2.18): {match, seat, token} of the new match. Keep the new token. A seat a
        player held is kept for that player: send its `player_key` (its key, or its app's
        token), with or without the seat's `token`; the new seat is the player's again."""
        return await self._call("POST", f"/api/matches/{_q(match)}/rematch", json=_credential(player_key),
                                headers=_bearer(token))

    async def decline_rematch(self, match: str, token: str | None = None,
                              player_key: str | None = None) -> dict[str, Any]:
        """Decline the rematch of `match` as the seat `token` holds (a player's seat: with its
        `player_key`, as for rematch): that seat there opens to anyone. Returns the rematch's
        summary."""
        return await self._call("POST", f"/api/matches/{_q(match)}/rematch/decline", json=_credential(player_key),
                                headers=_bearer(token))

    async def match(self, match: str) -> dict[str, Any]:
        """One match's summary (SPEC 2.1)."""
        return await self._call("GET", f"/api/matches/{_q(match)}")

    async def matches(self, state: str | None = None) -> list[dict[str, Any]]:
        """Listed matches; `state` filters: "open", "live" or "finished"."""
        return await self._call("GET", "/api/matches", params={"state": state} if state else None)

    async def game_reference(self, game: str, players: int | None = None) -> dict[str, Any]:
        """The public facts a client needs to draw a game (boards, card faces, tiles):
        {game, players, reference}."""
        params = {"players": players} if players is not None else None
        return await self._call("GET", f"/api/games/{_q(game)}/reference", params=params)

    async def reference(self, match: str) -> dict[str, Any]:
        """The reference data of a match's game, for its options and seat count."""
        return await self._call("GET", f"/api/matches/{_q(match)}/reference")

    async def log(self, match: str) -> dict[str, Any]:
        """The raw log of a finished match, with its revealed seed (SPEC 2.8)."""
        return await self._call("GET", f"/api/matches/{_q(match)}/log")

    async def record(self, match: str) -> str:
        """A finished match's game record (SPEC 2.13): its JSON Lines text, the file a third party
        checks without the server (`teahouse verify FILE`, or clients/js/verify.js)."""
        r = await self.http.get(f"/api/matches/{_q(match)}/record")
        if r.status_code >= 400:
            try:
                data = r.json()
            except ValueError:
                data = {}
            raise _http_error(r.status_code, data)
        return r.text

    async def analysis(self, match: str) -> dict[str, Any]:
        """A finished match's analysis (SPEC 2.14): every seat's chance of winning at every
        commit and the key moments; while it is made, `{"state": "queued", "retry_after_s"}`:
        ask again after that many seconds. A server that does not analyse raises `no_analysis`."""
        return await self._call("GET", f"/api/matches/{_q(match)}/analysis")

    async def replay(self, match: str, seq: int | None = None, seat: int | None = None,
                     token: str | None = None) -> dict[str, Any]:
        """The document audience `seat` (None: spectators) had right after commit `seq` (SPEC
        2.9); a seat's view of a live match needs its `token`."""
        params: dict[str, Any] = {}
        if seq is not None:
            params["seq"] = seq
        if seat is not None:
            params["seat"] = seat
        # The token goes in a header: a URL ends up in logs and histories.
        headers = _bearer(token) if token is not None else {}
        return await self._call("GET", f"/api/matches/{_q(match)}/replay", params=params, headers=headers)

    async def fork(self, match: str, seq: int, exact: bool = False, *, listed: bool = False,
                   seat: int | None = None, name: str | None = None,
                   bot_strength: int | None = None) -> dict[str, Any]:
        """A new match from `seq` of a finished match; `exact` keeps the origin's shuffles
        (an open-hand continuation) instead of dealing the hidden cards again (SPEC 11). It is
        unlisted unless `listed`. With `seat` you sit down at once: the answer's `token` plays
        it (join with it next); with `bot_strength` too, every other seat is a server bot."""
        body: dict[str, Any] = {"seq": seq}
        if exact:
            body["exact"] = True
        if listed:
            body["listed"] = True
        for key, value in (("seat", seat), ("name", name), ("bot_strength", bot_strength)):
            if value is not None:
                body[key] = value
        return await self._call("POST", f"/api/matches/{_q(match)}/fork", json=body)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.http.aclose()

    async def __aenter__(self) -> TeahouseClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _credential(player_key: str | None) -> dict[str, Any]:
    """A body naming the player that answers (SPEC 2.18), or none."""
    return {"player_key": player_key} if player_key else {}


def _bearer(secret: str | None) -> dict[str, str]:
    # Secrets travel in a header, never in a URL (logs and histories keep URLs).
    return {"Authorization": f"Bearer {secret}"} if secret else {}


def _http_error(status: int, data: object) -> ServerError:
    """The ServerError of an HTTP error answer: its `error` object's code and message."""
    e = data.get("error", {}) if isinstance(data, dict) else {}
    return ServerError(e.get("code", f"http_{status}"), e.get("message", f"HTTP {status}"), e)


def _q(part: str) -> str:
    return quote(str(part), safe="")

