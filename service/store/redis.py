"""The Redis store: one stream per match, never trimmed.

Keys carry the match id in a hash tag, so that every key of one match lives in one Redis
Cluster slot: `th:{<match>}:log` (stream, entry id `<seq>-0`), `th:{<match>}:meta`,
`th:{<match>}:seats` (hash: seat -> token hash), `th:{<match>}:snap`, `th:{<match>}:refused` (the
move ids the rules refused, SPEC 3.5). The listing of matches is a sorted set `th:matches` (by
creation time).

The append is a small script: it checks the stream's top entry is `seq-1` and adds the entry
with the explicit id `<seq>-0`, so two nodes racing on one seq cannot both win and the log
never has a gap; a commit whose move id was refused before is not added (its refusal is the
answer), so that a refused id gets one answer from every node. Tails share a few blocking XREADs per node (service/store/redis_follow.py).
The append and the XREADs go on connections outside the pool (service/store/resp.py): a move
skips the pool's checkout, and a blocking read must never hold a pooled connection.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Sequence
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.ops import metrics
from service.store import resp
from service.store.base import (
    REJECTION_TTL_MS,
    REMEMBERED_REJECTIONS,
    Claim,
    Commit,
    Conflict,
    EventStore,
    LogRewound,
    MatchRecord,
    PlayerRecord,
    Rejected,
    SeatRecord,
    pack_state,
    rejection_key,
    unpack_state,
)
from service.store.durability import Durability, judge_redis
from service.store.outage import guarded
from service.store.redis_errors import unreachable
from service.store.redis_follow import StreamReaders
from service.store.redis_hooks import RedisHooks

# A log written only by this script is 1..top with no gaps, so its length is its top: XLEN
# (O(1), a number) instead of XREVRANGE (the top entry copied into Lua), which saves
# redis-server CPU on every append (bench/platform_store_tail.py prints it). Where the length
# says otherwise (a conflict, or a stream with entries deleted by hand) the top entry decides.
_APPEND = """
local last = redis.call('XLEN', KEYS[1])
if tonumber(ARGV[1]) ~= last + 1 then
  local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  last = 0
  if #top > 0 then last = tonumber(string.match(top[1][1], '^(%d+)')) end
  if tonumber(ARGV[1]) ~= last + 1 then return redis.error_reply('CONFLICT ' .. last) end
end
if ARGV[3] and ARGV[3] ~= '' then
  local refused = redis.call('HGET', KEYS[2], ARGV[3])
  if refused then
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    if now - cmsgpack.unpack(refused)[1] < tonumber(ARGV[4]) then return refused end
  end
end
redis.call('XADD', KEYS[1], ARGV[1] .. '-0', 'c', ARGV[2])
return last + 1
"""

# A refusal of a move id: kept in a hash (key -> [time, code, message], the time Redis's own, so
# that every node agrees), the keys in the order refused in a list, to forget the oldest first.
_REMEMBER = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[4])
local known = redis.call('HGET', KEYS[1], ARGV[1])
if known and now - cmsgpack.unpack(known)[1] < ttl then return known end
if known then redis.call('LREM', KEYS[2], 0, ARGV[1]) end
local entry = cmsgpack.pack({now, ARGV[2], ARGV[3]})
redis.call('HSET', KEYS[1], ARGV[1], entry)
if redis.call('RPUSH', KEYS[2], ARGV[1]) > tonumber(ARGV[5]) then
  redis.call('HDEL', KEYS[1], redis.call('LPOP', KEYS[2]))
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return entry
"""

_guard = guarded(unreachable)

POOL_SIZE = 256
POOL_WAIT_S = 20
MATCHES = "th:matches"
ALL_MATCHES = "th:all"  # every match, unlisted too, by creation time (the admin API, retention)
DIVERGED = "th:diverged"  # the ids of matches marked diverged: /health counts them (SCARD)
MATCH_KEYS = ("meta", "seats", "fin", "diverged", "links", "log", "snap", "snapseq", "presence", "refused",
              "refusals", "analysis")


def _key(match_id: str, part: str) -> str:
    return f"th:{{{match_id}}}:{part}"


def refused_key(log_key: str) -> str:
    """`th:{M}:log` -> `th:{M}:refused`, the hash of the match's remembered refusals."""
    return log_key.rsplit(":", 1)[0] + ":refused"


def _refusal_key(commit: Commit) -> str:
    """The append script's name for the commit's move id in the refusals ("": it has none)."""
    return rejection_key(commit.seat, commit.move_id) if commit.move_id is not None else ""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def raise_conflict(exc: ResponseError, match_id: str, seq: int) -> None:
    """The append script's refusal (or XADD's, for an id at or below the top) is a Conflict."""
    if "CONFLICT" in str(exc) or "equal or smaller" in str(exc):
        raise Conflict(f"{match_id}: seq {seq}: {exc}") from exc


def queue_match(p: Any, record: MatchRecord, commits: Sequence[Commit]) -> None:
    """Queue on pipeline `p` the writes of a new match's own keys (all in its hash slot)."""
    for c in commits:
        p.xadd(_key(record.id, "log"), {"c": c.pack()}, id=f"{c.seq}-0")
    p.set(_key(record.id, "meta"), record.pack(), nx=True)
    for s in record.seats:
        if s.token_hash is not None:
            claim = {"t": s.token_hash, "n": s.name, **({"p": s.player} if s.player is not None else {})}
            p.hset(_key(record.id, "seats"), str(s.seat), msgpack.packb(claim))


# A node refreshes its presence entry this often while it has watchers; an entry older than
# PRESENCE_STALE_MS is a node that died without saying goodbye.
PRESENCE_REFRESH_S = 10
PRESENCE_STALE_MS = 30_000


class RedisStore(RedisHooks, EventStore):
    name = "redis"
    shared = True

    def __init__(self, url: str, wait_replicas: int = 0, wait_timeout_ms: int = 1000) -> None:
        self.url = url
        # WAIT before an append returns (Limits.wait_replicas): a failover to a replica then
        # keeps every acknowledged move. A WAIT that times out still acknowledges; it is counted.
        self.wait_replicas, self.wait_timeout_ms = wait_replicas, wait_timeout_ms
        self.wait_timeouts = 0
        # redis-py's reply types are unions of every possible reply; ours are known bytes.
        # A blocking pool waits for a free connection instead of failing a move under load.
        # One immediate retry on a broken connection: after Redis restarts, each pooled
        # connection is found dead once, and that must not fail a request while Redis is up. (A
        # repeated append is safe: it conflicts with itself and the runtime catches up.)
        pool = aioredis.BlockingConnectionPool.from_url(
            url, max_connections=POOL_SIZE, timeout=POOL_WAIT_S,
            retry=Retry(NoBackoff(), 1), retry_on_error=[RedisConnectionError])
        self._pool = pool
        self._r: Any = aioredis.Redis(connection_pool=pool)
        self._append_script = self._r.register_script(_APPEND)
        self._appender = Appender(pool)
        self._readers: Any = None  # StreamReaders, made on first use, inside the event loop

    # -- matches ------------------------------------------------------------------------
    @_guard
    async def create_match(self, record: MatchRecord, commits: Sequence[Commit] = ()) -> None:
        # One MULTI/EXEC: a fork's record never exists without the commits it starts from.
        async with self._r.pipeline(transaction=True) as p:
            queue_match(p, record, commits)
            if record.listed:
                p.zadd(MATCHES, {record.id: record.created})
            p.zadd(ALL_MATCHES, {record.id: record.created})
            await p.execute()

    @_guard
    async def get_match(self, match_id: str) -> MatchRecord | None:
        async with self._r.pipeline(transaction=False) as p:
            p.get(_key(match_id, "meta"))
            p.hgetall(_key(match_id, "seats"))
            p.get(_key(match_id, "fin"))
            p.get(_key(match_id, "diverged"))
            p.hgetall(_key(match_id, "links"))
            meta, seats_raw, fin, diverged, links = await p.execute()
        if meta is None:
            return None
        taken = {int(k): msgpack.unpackb(v, raw=False) for k, v in seats_raw.items()}
        players = msgpack.unpackb(meta, raw=False)["players"]
        seats = [
            SeatRecord(seat=i, taken=i in taken, name=taken.get(i, {}).get("n"),
                       token_hash=taken.get(i, {}).get("t"), claimed_at=taken.get(i, {}).get("at"),
                       joined=bool(taken.get(i, {}).get("j")), player=taken.get(i, {}).get("p"))
            for i in range(players)
        ]
        rec = MatchRecord.unpack(meta, seats)
        if fin is not None:
            rec.finished = True
            rec.result = msgpack.unpackb(fin, raw=False)
        if diverged is not None:
            rec.diverged = msgpack.unpackb(diverged, raw=False)
        rec.links = {k.decode(): v.decode() for k, v in links.items()}
        return rec

    @_guard
    async def list_matches(self, limit: int = 200) -> list[MatchRecord]:
        ids = await self._r.zrevrange(MATCHES, 0, limit - 1)
        recs = [await self.get_match(i.decode()) for i in ids]
        return [r for r in recs if r is not None]

    # The claim and, when it fills the match, its start: one script, so that a node dying or a
    # connection cut anywhere leaves no claim or a started match. A seat the same token already
    # holds counts as claimed (a retry whose first try landed). KEYS[4], on a cluster, is the
    # match's tick channel (service/store/redis_cluster_follow.py).
    _CLAIM = """
    local meta = redis.call('GET', KEYS[3])
    if not meta then return 0 end
    local cur = redis.call('HGET', KEYS[1], ARGV[1])
    if cur then
      if cmsgpack.unpack(cur)['t'] ~= ARGV[3] then return 0 end
    else
      redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
    end
    if ARGV[4] ~= '' and redis.call('HLEN', KEYS[1]) >= cmsgpack.unpack(meta)['players'] and redis.call('XLEN', KEYS[2]) == 0 then
      redis.call('XADD', KEYS[2], '1-0', 'c', ARGV[4])
      if KEYS[4] then redis.call('SPUBLISH', KEYS[4], '1') end
      return 2
    end
    return 1
    """

    def _claim_keys(self, match_id: str) -> list[str]:
        return [_key(match_id, "seats"), _key(match_id, "log"), _key(match_id, "meta")]

    @_guard
    async def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str | None,
                         start: Commit | None = None, player: str | None = None) -> Claim:
        fields = {"t": token_hash, "n": name, "at": int(time.time() * 1000)}
        if player is not None:
            fields["p"] = player
        claim = msgpack.packb(fields)
        keys = self._claim_keys(match_id)
        return Claim(int(await self._r.eval(self._CLAIM, len(keys), *keys, str(seat), claim, token_hash,
                                            start.pack() if start is not None else b"")))

    _RELEASE = """
    if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
    return 0
    """

    @_guard
    async def release_seat(self, match_id: str, seat: int, token_hash: str) -> None:
        # Only the claim that holds the seat is undone; the seat's value is the claim's bytes.
        raw = await self._r.hget(_key(match_id, "seats"), str(seat))
        if raw is not None and msgpack.unpackb(raw, raw=False).get("t") == token_hash:
            await self._r.eval(self._RELEASE, 1, _key(match_id, "seats"), str(seat), raw)

    _REPLACE = """
    if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
    return 0
    """

    @_guard
    async def mark_joined(self, match_id: str, seat: int, token_hash: str) -> None:
        # Only while `token_hash` holds the seat: a seat freed meanwhile stays free.
        raw = await self._r.hget(_key(match_id, "seats"), str(seat))
        claim = msgpack.unpackb(raw, raw=False) if raw is not None else None
        if claim is not None and claim.get("t") == token_hash and not claim.get("j"):
            await self._r.eval(self._REPLACE, 1, _key(match_id, "seats"), str(seat), raw,
                               msgpack.packb({**claim, "j": 1}))

    @_guard
    async def all_matches(self, offset: int = 0, limit: int = 100) -> list[MatchRecord]:
        ids = await self._r.zrevrange(ALL_MATCHES, offset, offset + limit - 1)
        recs = [await self.get_match(i.decode()) for i in ids]
        return [r for r in recs if r is not None]

    @_guard
    async def set_listed(self, match_id: str, listed: bool) -> None:
        meta = await self._r.get(_key(match_id, "meta"))
        if meta is None:
            return
        data = msgpack.unpackb(meta, raw=False)
        await self._r.set(_key(match_id, "meta"), msgpack.packb({**data, "listed": listed}, use_bin_type=True))
        if listed:
            await self._r.zadd(MATCHES, {match_id: data["created"]})
        else:
            await self._r.zrem(MATCHES, match_id)

    @_guard
    async def delete_match(self, match_id: str) -> None:
        # The match's keys share its hash slot (one DEL, cluster or not); the listings are apart.
        await self._r.delete(*(_key(match_id, part) for part in MATCH_KEYS))
        await self._r.zrem(MATCHES, match_id)
        await self._r.zrem(ALL_MATCHES, match_id)
        await self._r.srem(DIVERGED, match_id)

    @_guard
    async def mark_finished(self, match_id: str, result: dict[str, Any] | None) -> None:
        await self._r.set(_key(match_id, "fin"), msgpack.packb(result, use_bin_type=True))

    @_guard
    async def mark_diverged(self, match_id: str, info: dict[str, Any] | None) -> None:
        # The set is another key (another slot in a cluster): written after the match's own key,
        # so that a count never names a match whose mark is not there yet.
        if info is None:
            await self._r.delete(_key(match_id, "diverged"))
            await self._r.srem(DIVERGED, match_id)
        else:
            await self._r.set(_key(match_id, "diverged"), msgpack.packb(info, use_bin_type=True))
            await self._r.sadd(DIVERGED, match_id)

    @_guard
    async def count_diverged(self) -> int:
        return int(await self._r.scard(DIVERGED))

    # -- players: single-key writes (each key in a slot of its own on a cluster) ---------------
    @_guard
    async def put_player(self, player: PlayerRecord) -> bool:
        packed = msgpack.packb([player.name, player.created, player.key_hash], use_bin_type=True)
        if not await self._r.set(f"th:player:{player.id}", packed, nx=True):
            return False
        if player.key_hash is not None:
            await self._r.set(f"th:playerkey:{player.key_hash}", player.id, nx=True)
        return True

    @_guard
    async def get_player(self, player_id: str) -> PlayerRecord | None:
        raw = await self._r.get(f"th:player:{player_id}")
        if raw is None:
            return None
        name, created, key_hash = msgpack.unpackb(raw, raw=False)
        return PlayerRecord(player_id, name, created, key_hash)

    @_guard
    async def player_for_key(self, key_hash: str) -> PlayerRecord | None:
        pid = await self._r.get(f"th:playerkey:{key_hash}")
        return await self.get_player(pid.decode()) if pid is not None else None

    @_guard
    async def add_player_match(self, player_id: str, match_id: str, created: int) -> None:
        await self._r.zadd(f"th:pm:{player_id}", {match_id: created}, nx=True)

    @_guard
    async def player_matches(self, player_id: str) -> list[str]:
        return [m.decode() for m in await self._r.zrevrange(f"th:pm:{player_id}", 0, -1)]

    @_guard
    async def add_finished(self, game: str, match_id: str, ts: int) -> None:
        await self._r.zadd(f"th:finished:{game}", {match_id: ts}, nx=True)

    @_guard
    async def finished_matches(self, game: str) -> list[tuple[int, str]]:
        # Equal scores sort by member: (ts, id), as on SQLite.
        rows = await self._r.zrange(f"th:finished:{game}", 0, -1, withscores=True)
        return [(int(ts), m.decode()) for m, ts in rows]
    @_guard
    async def set_link(self, match_id: str, name: str, value: str) -> str:
        async with self._r.pipeline(transaction=True) as p:
            p.hsetnx(_key(match_id, "links"), name, value)
            p.hget(_key(match_id, "links"), name)
            _, held = await p.execute()
        return str(held.decode())

    # -- the log --------------------------------------------------------------------------
    async def append(self, match_id: str, commit: Commit, own: object = None) -> None:
        key = _key(match_id, "log")
        data = commit.pack()
        # The tails of `own` on this node: they pass this entry when the reader brings it
        # (service/store/follower.py), so our own XADD costs no decode and no wake-up.
        mine = self._readers.own_followers(key, own) if own is not None and self._readers is not None else ()
        for f in mine:
            f.expect(commit.seq, data)
        ok = False
        try:
            refused = await self._append_entry(match_id, key, commit.seq, data, _refusal_key(commit))
            if isinstance(refused, bytes):
                raise Rejected(*msgpack.unpackb(refused, raw=False)[1:])
            ok = True
        finally:
            for f in mine:
                f.appended(commit, ok)

    @_guard
    async def _append_entry(self, match_id: str, key: str, seq: int, data: bytes, refusal: str) -> Any:
        """The append script's answer: the new seq, or the refusal remembered for the move id."""
        keys: list[Any] = [key, refused_key(key)]
        args: list[Any] = [seq, data, refusal, REJECTION_TTL_MS]
        try:
            if not self.wait_replicas:
                return await self._appender.evalsha(self._append_script, keys, args)
            # WAIT counts the writes of its own connection: one pipeline, one connection.
            async with self._r.pipeline(transaction=False) as p:
                await self._append_script(keys=keys, args=args, client=p)  # queued, not sent
                p.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms)
                answer, replicas = await p.execute()
            self.count_wait(replicas)
            return answer
        except ResponseError as exc:
            raise_conflict(exc, match_id, seq)
            raise

    @_guard
    async def remember_rejection(self, match_id: str, seat: int | None, move_id: str, code: str,
                                 message: str) -> tuple[str, str]:
        entry = await self._r.eval(_REMEMBER, 2, _key(match_id, "refused"), _key(match_id, "refusals"),
                                   rejection_key(seat, move_id), code, message, REJECTION_TTL_MS,
                                   REMEMBERED_REJECTIONS)
        _, code, message = msgpack.unpackb(entry, raw=False)
        return code, message

    def count_wait(self, replicas: int) -> None:
        """A WAIT that returned with fewer replicas than asked for timed out."""
        if int(replicas) < self.wait_replicas:
            self.wait_timeouts += 1
            metrics.WAIT_TIMEOUTS.inc()

    @_guard
    async def read(self, match_id: str, after: int = 0, until: int | None = None) -> list[Commit]:
        hi = f"{until}-0" if until is not None else "+"
        if until is not None and until <= after:
            return []
        entries = await self._r.xrange(_key(match_id, "log"), f"({after}-0", hi)
        return [Commit.unpack(fields[b"c"]) for _id, fields in entries]

    @_guard
    async def last_seq(self, match_id: str) -> int:
        top = await self._r.xrevrange(_key(match_id, "log"), "+", "-", count=1)
        return int(top[0][0].split(b"-")[0]) if top else 0

    async def tail(self, match_id: str, after: int, own: object = None) -> AsyncGenerator[Commit, None]:
        if self._readers is None:
            self._readers = self._make_readers()
        # Commits already in the stream first, then what the shared readers bring; a stream
        # already below `after` is a log gone backwards.
        last = await self.last_seq(match_id) if after > 0 else 0
        if last < after:
            raise LogRewound(match_id, after, last)
        async for commit in self._readers.follow(_key(match_id, "log"), after, own):
            yield commit

    def _make_readers(self) -> Any:
        """What follows this node's streams (made on first use, inside the event loop)."""
        return StreamReaders(self._pool, self._r, self.reachability)

    @property
    def tail_connections(self) -> int:
        """Connections this node holds for tailing streams (outside the pool)."""
        return self._readers.connections if self._readers is not None else 0

    @_guard
    async def ping(self) -> None:
        await self._r.ping()

    @_guard
    async def durability(self) -> Durability:
        return judge_redis(await self._read_config(self._r), self.wait_replicas,
                           await self._read_replicas(self._r) if self.wait_replicas else None)

    @staticmethod
    async def _read_config(client: Any, **target: Any) -> dict[str, str] | None:
        """CONFIG GET appendonly and appendfsync, or None where CONFIG is disabled, renamed or not
        permitted (an error reply; a connection error is the store being away)."""
        try:
            raw = await client.config_get("append*", **target)
        except ResponseError:
            return None
        return {_text(k): _text(v) for k, v in raw.items()}

    @staticmethod
    async def _read_replicas(client: Any, **target: Any) -> int | None:
        try:
            info = await client.info("replication", **target)
        except ResponseError:
            return None
        return int(info.get("connected_slaves", 0))

    # -- presence -------------------------------------------------------------------------------
    @_guard
    async def publish_presence(self, match_id: str, node: str, seats: list[int], spectators: int) -> None:
        key = _key(match_id, "presence")
        if not any(seats) and not spectators:
            await self._r.hdel(key, node)
            return
        entry = {"s": seats, "n": spectators, "t": int(time.time() * 1000)}
        await self._r.hset(key, node, msgpack.packb(entry))

    @_guard
    async def read_presence(self, match_id: str) -> dict[str, tuple[list[int], int]]:
        return (await self.read_presences([match_id]))[match_id]

    @_guard
    async def publish_presences(self, node: str, counts: dict[str, tuple[list[int], int]]) -> None:
        now = int(time.time() * 1000)
        async with self._r.pipeline(transaction=False) as p:
            for match_id, (seats, spectators) in counts.items():
                if not any(seats) and not spectators:
                    p.hdel(_key(match_id, "presence"), node)
                else:
                    p.hset(_key(match_id, "presence"), node, msgpack.packb({"s": seats, "n": spectators, "t": now}))
            await p.execute()

    @_guard
    async def read_presences(self, match_ids: list[str]) -> dict[str, dict[str, tuple[list[int], int]]]:
        now = int(time.time() * 1000)
        async with self._r.pipeline(transaction=False) as p:
            for match_id in match_ids:
                p.hgetall(_key(match_id, "presence"))
            replies = await p.execute()
        out: dict[str, dict[str, tuple[list[int], int]]] = {}
        for match_id, entries in zip(match_ids, replies, strict=True):
            out[match_id] = {}
            for node, raw in entries.items():
                e = msgpack.unpackb(raw, raw=False)
                if now - e["t"] <= PRESENCE_STALE_MS:
                    out[match_id][node.decode()] = (e["s"], e["n"])
        return out

    # -- snapshots --------------------------------------------------------------------------
    _SNAP = """
    local cur = redis.call('GET', KEYS[1])
    if cur and tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[1]) then return 0 end
    redis.call('SET', KEYS[1], ARGV[2]); redis.call('SET', KEYS[2], ARGV[1]); return 1
    """

    @_guard
    async def save_snapshot(self, match_id: str, seq: int, state: dict[str, Any]) -> None:
        await self._r.eval(self._SNAP, 2, _key(match_id, "snap"), _key(match_id, "snapseq"),
                           seq, pack_state(seq, state))

    @_guard
    async def load_snapshot(self, match_id: str) -> tuple[int, dict[str, Any]] | None:
        data = await self._r.get(_key(match_id, "snap"))
        return unpack_state(data) if data else None

    # -- analyses ---------------------------------------------------------------------------
    @_guard
    async def save_analysis(self, match_id: str, analysis: dict[str, Any]) -> None:
        await self._r.set(_key(match_id, "analysis"), msgpack.packb(analysis, use_bin_type=True))

    @_guard
    async def load_analysis(self, match_id: str) -> dict[str, Any] | None:
        data = await self._r.get(_key(match_id, "analysis"))
        return msgpack.unpackb(data, raw=False) if data else None

    async def close(self) -> None:
        if self._readers is not None:
            await self._readers.close()
        await self._r.aclose()
        await self._appender.aclose()
        await self._pool.aclose()  # a pool given to the client is not closed with it


_closing: set[asyncio.Future[Any]] = set()  # disconnects under way (a task must be referenced)


class Appender:
    """The connection the appends of a node go through, outside the pool: a move's append is
    one EVALSHA and its reply, without the pool's per-command checkout (a condition, a
    timeout, a read of the socket to check it is idle, wait-time metrics), which costs more
    CPU than the round trip (bench/platform_store_tail.py --appends-only). Appends of several
    matches are pipelined on it (sent at once, replies read in the order sent), so Redis still
    fsyncs the appends that arrive together once (appendfsync always). A broken connection is
    opened again and the append sent once more (a repeated append conflicts with itself, and
    the runtime catches up), as the pool's retry does. The connection and its commands are
    service/store/resp.py's."""

    def __init__(self, pool: aioredis.ConnectionPool) -> None:
        self._pool = pool
        self._timeout = resp.reply_timeout(pool)
        self._conn: AbstractConnection | None = None
        self._connecting: asyncio.Lock | None = None
        self._last: asyncio.Future[None] | None = None  # done when the last reply sent for is read

    async def evalsha(self, script: Any, keys: list[Any], args: list[Any]) -> Any:
        for attempt in (0, 1):
            conn = None
            try:
                conn = await self._connection()
                return await self._call(conn, script.sha, keys, args)
            except NoScriptError:  # a restarted Redis forgot its scripts
                assert conn is not None
                return await self._call(conn, script.script, keys, args, "EVAL")
            except ResponseError:
                raise  # Redis's answer (a conflict): the connection is as good as before
            except (RedisConnectionError, RedisTimeoutError, OSError):
                self._drop(conn)
                if attempt:
                    raise
            except BaseException:
                # Cancelled (or failed) between the command and its reply: the reply would be
                # read as the next append's. The connection is not used again.
                self._drop(conn)
                raise
        raise AssertionError("unreachable")

    async def _connection(self) -> AbstractConnection:
        conn = self._conn
        if conn is not None and conn.is_connected:
            return conn
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            conn = self._conn
            if conn is not None and conn.is_connected:
                return conn
            # A connection that broke is never opened again: appends still waiting for their
            # replies on it must not read the new one's.
            self._drop(conn)
            conn = resp.own_connection(self._pool)
            await conn.connect()
            self._conn, self._last = conn, None
            return conn

    async def _call(self, conn: AbstractConnection, script: str, keys: list[Any], args: list[Any],
                    command: str = "EVALSHA") -> Any:
        # Queued for its reply, then written before any other append can run (resp.send writes
        # before its first await): replies come in the order the commands were written.
        before = self._last
        mine = self._last = asyncio.get_running_loop().create_future()
        try:
            if self._conn is not conn or not conn.is_connected:
                raise RedisConnectionError("the append connection was dropped")
            await resp.send(conn, command, script, len(keys), *keys, *args)
            if before is not None and not before.done():
                await asyncio.shield(before)
                if self._conn is not conn:  # an append before this one lost its reply
                    raise RedisConnectionError("the append connection was dropped")
            return await resp.reply(conn, self._timeout)
        finally:
            mine.set_result(None)
            if self._last is mine:
                self._last = None

    def _drop(self, conn: AbstractConnection | None) -> None:
        if conn is None:
            return
        if self._conn is conn:
            self._conn = None
            self._last = None
        _closing.add(t := asyncio.ensure_future(conn.disconnect()))
        t.add_done_callback(_closing.discard)

    async def aclose(self) -> None:
        if self._conn is not None:
            await self._conn.disconnect()
            self._conn = None
