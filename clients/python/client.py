"""Client SDK: HTTP lobby calls and a WebSocket connection that keeps views current."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
from collections.abc import Callable
from typing import Any

import httpx
import websockets

from protocol.codec import decode, encode
from protocol.patch import PatchError, apply
from protocol.v2 import Expander, decode_frame

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


class ServerError(Exception):
    """The server answered with an error message (`code`, `message`)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message

    @property
    def retryable(self) -> bool:
        """Send the same request again in a moment (SPEC 7.1: `busy`, `store_unavailable`)."""
        return self.code in RETRYABLE


class Rejected(ServerError):
    """The rules refused a move; the log did not change."""


class RateLimited(ServerError):
    """The server refused a message for the connection's rate or byte budget (SPEC 7.1); the
    SDK sends it again after `retry_after_ms` by itself."""

    def __init__(self, code: str, message: str, retry_after_ms: Any) -> None:
        super().__init__(code, message)
        ok = isinstance(retry_after_ms, int) and not isinstance(retry_after_ms, bool) and retry_after_ms >= 0
        self.retry_after_ms = min(retry_after_ms, 60_000) if ok else 1000


class MatchView:
    """One match as this connection's audience sees it. Read `doc`, `view`, `status`, and
    `said` / `story` for what happened in words (SPEC 3.14)."""

    def __init__(self, conn: Connection, match: str, seat: int | None, token: str | None) -> None:
        self.conn, self.match, self.seat, self.token = conn, match, seat, token
        self.key: str | None = None  # a private match's spectator key (SPEC 2.4), sent again on reconnect
        self.seq = -1
        self.doc: dict[str, Any] = {}
        self.presence: dict[str, Any] | None = None
        self.finished: dict[str, Any] | None = None
        self.deadline: int | None = None  # the turn clock, ms since the epoch (None: no clock)
        self.resyncs = 0
        # The latest commit's sentences, and (seq, sentences) of every commit seen live on this
        # connection (a resync's full view brings no words: read GET .../replay's `log` for those).
        self.said: list[str] = []
        self.story: list[tuple[int, list[str]]] = []
        self._resync_pending = False
        self._changed = asyncio.Condition()

    @property
    def view(self) -> dict[str, Any]:
        return self.doc.get("view", {})

    @property
    def status(self) -> dict[str, Any]:
        return self.doc.get("status", {})

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat in self.status.get("to_act", [])

    @property
    def over(self) -> bool:
        return bool(self.status.get("finished"))

    async def wait_for(self, predicate: Callable[[MatchView], bool], timeout: float = 30) -> None:
        """Wait until `predicate(self)` holds; raise ConnectionError if the connection drops
        first (then call `conn.reconnect()` and wait again)."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: predicate(self) or self.conn.lost), timeout)
            if not predicate(self):
                raise ConnectionError("the connection was lost")

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _on_view(self, msg: dict[str, Any]) -> None:
        self.doc, self.seq = msg["doc"], msg["seq"]
        self._resync_pending = False
        await self._notify()

    async def _on_patch(self, msg: dict[str, Any]) -> None:
        if msg["seq"] <= self.seq:
            return  # already have it (a resync overlapped a live patch)
        if msg["seq"] != self.seq + 1:
            await self._resync()
            return
        try:
            self.doc = apply(self.doc, msg["ops"])
        except PatchError:
            await self._resync()
            return
        self.seq = msg["seq"]
        self.said = [str(s) for s in msg.get("said") or []]
        self.story.append((self.seq, self.said))
        self._resync_pending = False
        await self._notify()

    def _resync_again(self) -> None:
        if self._resync_pending and not self.conn.lost:
            self._resync_pending = False
            task = asyncio.ensure_future(self._resync())
            self.conn._tasks.add(task)
            task.add_done_callback(self.conn._tasks.discard)

    async def _resync(self) -> None:
        """Ask once for what is missing; later patches past the same gap wait for the answer."""
        if self._resync_pending:
            return
        self._resync_pending = True
        self.resyncs += 1
        await self.conn._send({"type": "resync", "match": self.match, "since": max(self.seq, 0)})


class Connection:
    """A WebSocket session. Use `async with client.connect() as conn`."""

    def __init__(self, ws_url: str, encoding: str = "msgpack", record: bool = False, version: int = 2,
                 said: bool = True) -> None:
        """`said=False` asks the server to leave the commits' sentences out of patches (SPEC
        4.1), for a client that does not show them."""
        if version not in (1, 2):
            raise ValueError(f"protocol version {version!r}: this SDK speaks 1 and 2")
        self.ws_url, self.encoding, self.version, self.said = ws_url, encoding, version, said
        # v2 frames decode to v1-shaped messages through the expander (one per socket).
        self._wire = encoding if version == 1 else f"v2.{encoding}"
        self._expander: Expander | None = None
        self.matches: dict[str, MatchView] = {}
        self.welcome: dict[str, Any] | None = None
        self.frames: list[bytes] | None = [] if record else None  # every frame received, raw
        self.errors: list[dict[str, Any]] = []
        self.closed: asyncio.Future[tuple[int | None, str]] | None = None
        self._ws: Any = None
        self._reader: asyncio.Task | None = None
        self._waiting: dict[Any, asyncio.Future] = {}
        self._tasks: set[asyncio.Task] = set()  # resyncs sent again later (held so they are not collected)
        self._ids = itertools.count(1)
        self._prefix = secrets.token_hex(4)

    @property
    def lost(self) -> bool:
        """True once the socket is gone; `reconnect()` to go on."""
        return self.closed is None or self.closed.done()

    async def open(self) -> Connection:
        name = (SUBPROTOCOL if self.version == 2 else SUBPROTOCOL_V1)[self.encoding]
        self._ws = await websockets.connect(self.ws_url, subprotocols=[websockets.Subprotocol(name)],
                                            compression=None, max_size=2**24)
        self._expander = Expander() if self.version == 2 else None
        self.closed = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read())
        hello = {"type": "hello", "client": "teahouse-python/0.1", **({} if self.said else {"said": False})}
        self.welcome = await self._request("welcome", hello, ref="hello")
        return self

    async def close(self) -> None:
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
        """Open a new socket and join every match again from the last seq it holds."""
        await self.close()
        await self.open()
        for mv in list(self.matches.values()):
            msg: dict[str, Any] = {"type": "join" if mv.seat is not None else "spectate", "match": mv.match}
            if mv.token is not None:
                msg["token"] = mv.token
            if mv.key is not None:
                msg["key"] = mv.key
            if mv.seq >= 0:
                msg["since"] = mv.seq
            await self._send(msg)

    # -- matches --------------------------------------------------------------------------
    async def join(self, match: str, token: str, seat: int | None = None) -> MatchView:
        return await self._watch({"type": "join", "match": match, "token": token}, seat, token)

    async def spectate(self, match: str, key: str | None = None) -> MatchView:
        """Watch `match` as a spectator; `key`: a private match's spectator key (SPEC 2.4)."""
        msg: dict[str, Any] = {"type": "spectate", "match": match}
        if key is not None:
            msg["key"] = key
        return await self._watch(msg, None, None)

    async def _watch(self, msg: dict[str, Any], seat: int | None, token: str | None) -> MatchView:
        mv = MatchView(self, msg["match"], seat, token)
        mv.key = msg.get("key")
        self.matches[mv.match] = mv
        try:
            view_msg = await self._request(("view", mv.match), msg, ref=msg["type"])
        except BaseException:
            del self.matches[mv.match]
            raise
        mv.seat = view_msg["seat"]
        return mv

    async def move(self, match: str, command: dict[str, Any], move_id: str | None = None) -> int:
        """Send a move; return its seq once committed, or raise Rejected."""
        move_id = move_id or f"{self._prefix}-{next(self._ids)}"
        reply = await self._request(move_id, {"type": "move", "match": match, "id": move_id, "command": command})
        if reply["type"] == "reject":
            raise Rejected(reply["code"], reply["message"])
        return reply["seq"]

    async def legal_moves(self, match: str) -> list[dict[str, Any]]:
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
        return await self._request(("legal_moves", match), msg, ref="legal")

    @staticmethod
    def _labelled(reply: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        moves = list(reply["moves"])
        labels = reply.get("labels")
        if not isinstance(labels, list) or len(labels) != len(moves):
            labels = [str(m.get("type", "move")) for m in moves]
        return moves, list(labels)

    async def ping(self) -> dict[str, Any]:
        nonce = next(self._ids)
        return await self._request(("pong", nonce), {"type": "ping", "nonce": nonce})

    # -- plumbing -------------------------------------------------------------------------
    def _expect(self, key: Any) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        self._waiting[key] = fut
        return fut

    async def _request(self, key: Any, msg: dict[str, Any], ref: str | None = None,
                       timeout: float = 30) -> dict[str, Any]:
        """Send `msg` and wait for its answer; a `rate_limited` refusal is sent again after the
        delay the server gives (the refused message had no effect)."""
        for _ in range(RATE_LIMIT_RETRIES):
            try:
                return await self._request_once(key, msg, ref, timeout)
            except RateLimited as exc:
                await asyncio.sleep(exc.retry_after_ms / 1000)
        return await self._request_once(key, msg, ref, timeout)

    async def _request_once(self, key: Any, msg: dict[str, Any], ref: str | None, timeout: float) -> dict[str, Any]:
        fut = self._expect(key)
        err_key = ref or (key if isinstance(key, str) else msg["type"])
        err = self._expect(("error", err_key))
        try:
            await self._send(msg)
            done, _ = await asyncio.wait([fut, err], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if err in done:
                e = err.result()
                if e["code"] == "rate_limited":
                    raise RateLimited(e["code"], e["message"], e.get("retry_after_ms"))
                raise ServerError(e["code"], e["message"])
            if fut not in done:
                raise TimeoutError(f"no answer to {msg['type']}")
            return fut.result()
        finally:
            self._waiting.pop(key, None)
            self._waiting.pop(("error", err_key), None)

    async def send_raw(self, data: bytes | str) -> None:
        await self._ws.send(data)

    async def _send(self, msg: dict[str, Any]) -> None:
        data = encode(msg, self.encoding)
        await self._ws.send(data if self.encoding == "msgpack" else data.decode())

    def _resolve(self, key: Any, msg: dict[str, Any]) -> None:
        fut = self._waiting.get(key)
        if fut is not None and not fut.done():
            fut.set_result(msg)

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
                            await mv._resync()
                        continue
                else:
                    msg = decode(frame, self._wire)
                await self._dispatch(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            for fut in list(self._waiting.values()):
                if not fut.done():
                    fut.set_exception(ConnectionError("the connection was lost"))
                    fut.exception()  # retrieved here; the waiter re-raises it
            for mv in list(self.matches.values()):
                await mv._notify()
            if self.closed is not None and not self.closed.done():
                rcvd = getattr(self._ws, "close_code", None)
                self.closed.set_result((rcvd, getattr(self._ws, "close_reason", "") or ""))

    async def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        mv = self.matches.get(msg.get("match", ""))
        if kind == "welcome":
            self._resolve("welcome", msg)
        elif kind == "view" and mv is not None:
            await mv._on_view(msg)
            self._resolve(("view", mv.match), msg)
        elif kind == "patch" and mv is not None:
            await mv._on_patch(msg)
        elif kind in ("ack", "reject"):
            self._resolve(msg["id"], msg)
        elif kind == "legal_moves":
            self._resolve(("legal_moves", msg["match"]), msg)
        elif kind == "pong":
            self._resolve(("pong", msg["nonce"]), msg)
        elif kind == "presence" and mv is not None:
            mv.presence = msg
            mv._resync_pending = False  # presence ends every answer to resync (SPEC 3.7)
            await mv._notify()
        elif kind == "clock" and mv is not None:
            mv.deadline = msg["deadline"]
            await mv._notify()
        elif kind == "finished" and mv is not None:
            mv.finished = msg
            await mv._notify()
        elif kind == "error":
            self.errors.append(msg)
            if msg.get("code") == "rate_limited" and msg.get("ref") == "resync" and mv is not None:
                # a resync is not awaited by anyone: ask again after the delay given
                delay = RateLimited("", "", msg.get("retry_after_ms")).retry_after_ms / 1000
                asyncio.get_running_loop().call_later(delay, mv._resync_again)
            self._resolve(("error", msg.get("ref")), msg)


class TeahouseClient:
    """HTTP lobby calls, and `connect()` for a WebSocket session."""

    def __init__(self, url: str, encoding: str = "msgpack", timeout: float = 30, version: int = 2) -> None:
        self.url = url.rstrip("/")
        self.encoding = encoding
        self.version = version
        self.http = httpx.AsyncClient(base_url=self.url, timeout=timeout)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://").replace("https://", "wss://") + "/ws"

    def connect(self, record: bool = False, said: bool = True) -> Connection:
        return Connection(self.ws_url, self.encoding, record, self.version, said)

    async def _call(self, method: str, path: str, **kw: Any) -> Any:
        r = await self.http.request(method, path, **kw)
        data = r.json()
        if r.status_code >= 400:
            raise ServerError(data["error"]["code"], data["error"]["message"])
        return data

    async def create_match(self, game: str, players: int, options: dict[str, Any] | None = None,
                           listed: bool = True, turn_seconds: int | None = None, absent: str = "bot",
                           bots: dict[int, int] | None = None) -> dict[str, Any]:
        """Create a match. With `turn_seconds`, a seat that does not move in time has a move
        played for it: by a bot (`absent="bot"`), at random (`"random"`) or its first legal
        move (`"first"`). `bots` maps seats to the strength (0-5) of a server bot that plays it."""
        body: dict[str, Any] = {"game": game, "players": players, "options": options or {}, "listed": listed,
                                "turn_seconds": turn_seconds, "absent": absent}
        if bots:
            body["bots"] = [{"seat": seat, "strength": strength} for seat, strength in sorted(bots.items())]
        return await self._call("POST", "/api/matches", json=body)

    async def take_seat(self, match: str, seat: int | None = None, name: str | None = None) -> dict[str, Any]:
        return await self._call("POST", f"/api/matches/{match}/seats", json={"seat": seat, "name": name})

    async def match(self, match: str) -> dict[str, Any]:
        return await self._call("GET", f"/api/matches/{match}")

    async def matches(self, state: str | None = None) -> list[dict[str, Any]]:
        return await self._call("GET", "/api/matches", params={"state": state} if state else None)

    async def log(self, match: str) -> dict[str, Any]:
        return await self._call("GET", f"/api/matches/{match}/log")

    async def replay(self, match: str, seq: int | None = None, seat: int | None = None,
                     token: str | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if seq is not None:
            params["seq"] = seq
        if seat is not None:
            params["seat"] = seat
        # The token goes in a header: a URL ends up in logs and histories.
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        return await self._call("GET", f"/api/matches/{match}/replay", params=params, headers=headers)

    async def fork(self, match: str, seq: int, exact: bool = False) -> dict[str, Any]:
        """A new match from `seq` of a finished match; `exact` keeps the origin's shuffles
        (an open-hand continuation) instead of dealing the hidden cards again."""
        body: dict[str, Any] = {"seq": seq, "exact": True} if exact else {"seq": seq}
        return await self._call("POST", f"/api/matches/{match}/fork", json=body)

    async def aclose(self) -> None:
        await self.http.aclose()
