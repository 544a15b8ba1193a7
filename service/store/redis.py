"""The Redis store: one stream per match, never trimmed.

Keys carry the match id in a hash tag, so that every key of one match lives in one Redis
Cluster slot: `th:{<match>}:log` (stream, entry id `<seq>-0`), `th:{<match>}:meta`,
`th:{<match>}:seats` (hash: seat -> token hash), `th:{<match>}:snap`. The listing of matches
is a sorted set `th:matches` (by creation time).

The append is a small script: it checks the stream's top entry is `seq-1` and adds the entry
with the explicit id `<seq>-0`, so two nodes racing on one seq cannot both win and the log
never has a gap. Each tailing reader gets a dedicated connection: a cancelled blocking XREAD
leaves its connection in an unknown state, so it must never go back into a shared pool.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Sequence
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from service.store.base import (
    Commit,
    Conflict,
    EventStore,
    MatchRecord,
    SeatRecord,
    pack_state,
    unpack_state,
)

_APPEND = """
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local last = 0
if #top > 0 then last = tonumber(string.match(top[1][1], '^(%d+)')) end
if tonumber(ARGV[1]) ~= last + 1 then return redis.error_reply('CONFLICT ' .. last) end
redis.call('XADD', KEYS[1], ARGV[1] .. '-0', 'c', ARGV[2])
return last + 1
"""

BLOCK_MS = 5000
POOL_SIZE = 256
POOL_WAIT_S = 20
MATCHES = "th:matches"


def _key(match_id: str, part: str) -> str:
    return f"th:{{{match_id}}}:{part}"


# A node refreshes its presence entry this often while it has watchers; an entry older than
# PRESENCE_STALE_MS is a node that died without saying goodbye.
PRESENCE_REFRESH_S = 10
PRESENCE_STALE_MS = 30_000


class RedisStore(EventStore):
    name = "redis"
    shared = True

    def __init__(self, url: str) -> None:
        self.url = url
        # redis-py's reply types are unions of every possible reply; ours are known bytes.
        # A blocking pool waits for a free connection instead of failing a move under load.
        pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=POOL_SIZE, timeout=POOL_WAIT_S)
        self._pool = pool
        self._r: Any = aioredis.Redis(connection_pool=pool)
        self._append_script = self._r.register_script(_APPEND)

    # -- matches ------------------------------------------------------------------------
    async def create_match(self, record: MatchRecord, commits: Sequence[Commit] = ()) -> None:
        # One MULTI/EXEC: a fork's record never exists without the commits it starts from.
        async with self._r.pipeline(transaction=True) as p:
            for c in commits:
                p.xadd(_key(record.id, "log"), {"c": c.pack()}, id=f"{c.seq}-0")
            p.set(_key(record.id, "meta"), record.pack(), nx=True)
            for s in record.seats:
                if s.token_hash is not None:
                    p.hset(_key(record.id, "seats"), str(s.seat),
                           msgpack.packb({"t": s.token_hash, "n": s.name}))
            if record.listed:
                p.zadd(MATCHES, {record.id: record.created})
            await p.execute()

    async def get_match(self, match_id: str) -> MatchRecord | None:
        async with self._r.pipeline(transaction=False) as p:
            p.get(_key(match_id, "meta"))
            p.hgetall(_key(match_id, "seats"))
            p.get(_key(match_id, "fin"))
            meta, seats_raw, fin = await p.execute()
        if meta is None:
            return None
        taken = {int(k): msgpack.unpackb(v, raw=False) for k, v in seats_raw.items()}
        players = msgpack.unpackb(meta, raw=False)["players"]
        seats = [
            SeatRecord(seat=i, taken=i in taken, name=taken.get(i, {}).get("n"),
                       token_hash=taken.get(i, {}).get("t"))
            for i in range(players)
        ]
        rec = MatchRecord.unpack(meta, seats)
        if fin is not None:
            rec.finished = True
            rec.result = msgpack.unpackb(fin, raw=False)
        return rec

    async def list_matches(self, limit: int = 200) -> list[MatchRecord]:
        ids = await self._r.zrevrange(MATCHES, 0, limit - 1)
        recs = [await self.get_match(i.decode()) for i in ids]
        return [r for r in recs if r is not None]

    async def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str | None) -> bool:
        return bool(await self._r.hsetnx(
            _key(match_id, "seats"), str(seat), msgpack.packb({"t": token_hash, "n": name})))

    _RELEASE = """
    if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
    return 0
    """

    async def release_seat(self, match_id: str, seat: int, token_hash: str) -> None:
        # Only the claim that holds the seat is undone; the seat's value is the claim's bytes.
        raw = await self._r.hget(_key(match_id, "seats"), str(seat))
        if raw is not None and msgpack.unpackb(raw, raw=False).get("t") == token_hash:
            await self._r.eval(self._RELEASE, 1, _key(match_id, "seats"), str(seat), raw)

    async def mark_finished(self, match_id: str, result: dict[str, Any] | None) -> None:
        await self._r.set(_key(match_id, "fin"), msgpack.packb(result, use_bin_type=True))

    # -- the log --------------------------------------------------------------------------
    async def append(self, match_id: str, commit: Commit) -> None:
        try:
            await self._append_script(keys=[_key(match_id, "log")], args=[commit.seq, commit.pack()])
        except ResponseError as exc:
            if "CONFLICT" in str(exc) or "equal or smaller" in str(exc):
                raise Conflict(f"{match_id}: seq {commit.seq}: {exc}") from exc
            raise

    async def read(self, match_id: str, after: int = 0, until: int | None = None) -> list[Commit]:
        hi = f"{until}-0" if until is not None else "+"
        if until is not None and until <= after:
            return []
        entries = await self._r.xrange(_key(match_id, "log"), f"({after}-0", hi)
        return [Commit.unpack(fields[b"c"]) for _id, fields in entries]

    async def last_seq(self, match_id: str) -> int:
        top = await self._r.xrevrange(_key(match_id, "log"), "+", "-", count=1)
        return int(top[0][0].split(b"-")[0]) if top else 0

    async def tail(self, match_id: str, after: int) -> AsyncGenerator[Commit, None]:
        # A connection of its own, outside every pool, driven by hand: a blocking XREAD that
        # is cancelled mid-reply leaves the connection unusable, and redis-py's own cleanup of
        # a cancelled command can wait on a close that never comes (redis-py issue 3941). So a
        # cancel here drops the socket at once and the connection is never reused.
        conn: Any = self._pool.make_connection()
        key = _key(match_id, "log")
        me = asyncio.current_task()
        try:
            await conn.connect()
            while True:
                await conn.send_command("XREAD", "COUNT", 500, "BLOCK", BLOCK_MS, "STREAMS", key, f"{after}-0")
                if me is not None and me.cancelling():
                    # redis-py can swallow a cancel that lands while it sends; honour it here
                    # rather than block for BLOCK_MS.
                    raise asyncio.CancelledError
                # The read timeout must outlast the BLOCK, or every quiet match times out.
                reply = await conn.read_response(timeout=BLOCK_MS / 1000 + 10)
                # RESP3 answers a map of streams, RESP2 a list of [stream, entries] pairs.
                streams = reply.values() if isinstance(reply, dict) else [e for _s, e in reply or []]
                for entries in streams:
                    for _id, fields in entries:
                        commit = Commit.unpack(dict(zip(fields[::2], fields[1::2], strict=True))[b"c"])
                        after = commit.seq
                        yield commit
        finally:
            await conn.disconnect(nowait=True)

    # -- presence -------------------------------------------------------------------------------
    async def publish_presence(self, match_id: str, node: str, seats: list[int], spectators: int) -> None:
        key = _key(match_id, "presence")
        if not any(seats) and not spectators:
            await self._r.hdel(key, node)
            return
        entry = {"s": seats, "n": spectators, "t": int(time.time() * 1000)}
        await self._r.hset(key, node, msgpack.packb(entry))

    async def read_presence(self, match_id: str) -> dict[str, tuple[list[int], int]]:
        now = int(time.time() * 1000)
        out = {}
        for node, raw in (await self._r.hgetall(_key(match_id, "presence"))).items():
            e = msgpack.unpackb(raw, raw=False)
            if now - e["t"] <= PRESENCE_STALE_MS:
                out[node.decode()] = (e["s"], e["n"])
        return out

    # -- snapshots --------------------------------------------------------------------------
    _SNAP = """
    local cur = redis.call('GET', KEYS[1])
    if cur and tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[1]) then return 0 end
    redis.call('SET', KEYS[1], ARGV[2]); redis.call('SET', KEYS[2], ARGV[1]); return 1
    """

    async def save_snapshot(self, match_id: str, seq: int, state: dict[str, Any]) -> None:
        await self._r.eval(self._SNAP, 2, _key(match_id, "snap"), _key(match_id, "snapseq"),
                           seq, pack_state(seq, state))

    async def load_snapshot(self, match_id: str) -> tuple[int, dict[str, Any]] | None:
        data = await self._r.get(_key(match_id, "snap"))
        return unpack_state(data) if data else None

    async def close(self) -> None:
        await self._r.aclose()
        await self._pool.aclose()  # a pool given to the client is not closed with it
