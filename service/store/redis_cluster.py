"""The Redis store on Redis Cluster: `redis+cluster://HOST:PORT[,HOST:PORT...]`.

The keys are RedisStore's: every key of a match carries the match id as a hash tag, so a
match lives in one slot and every script and MULTI/EXEC touches one slot. Two things differ:

- Writes span slots only where they must: a new match's keys go in one MULTI/EXEC, then its
  entry in the listing `th:matches` (another slot) is added on its own. A node that dies in
  between leaves a match that is playable but not listed.
- Tails learn of new commits through sharded pub/sub (service/store/redis_cluster_follow.py):
  the append script also `SPUBLISH`es to `th:{M}:tick`.

The given nodes are seeds only: the client discovers the others (CLUSTER SLOTS) and follows
MOVED redirections. During a failover (a master unreachable until its replica is promoted,
`cluster-node-timeout` plus an election) every operation is retried with backoff for up to
RETRY_BUDGET_S; after that it raises StoreUnavailable, which clients see as the retryable
`store_unavailable`. Retrying an append is safe: if the first attempt did land, the seq check
answers Conflict and the runtime finds its own move in the log.

`wait_replicas` (Limits.wait_replicas) sends `WAIT n timeout` after the append on the same
connection, so a move is acknowledged once n replicas hold it: a failover then keeps it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

import redis
import redis.exceptions as rex
from redis.asyncio.cluster import ClusterNode, RedisCluster

from service.store.base import (
    REJECTION_TTL_MS,
    Claim,
    Commit,
    DeliveryRecord,
    HookRecord,
    MatchRecord,
    PlayerRecord,
    StoreUnavailable,
)
from service.store.durability import Durability, judge_redis, worst
from service.store.redis import (
    _APPEND,
    ALL_MATCHES,
    MATCHES,
    RedisStore,
    queue_match,
    raise_conflict,
    refused_key,
)
from service.store.redis_cluster_follow import ClusterFollowers, tick_channel

SCHEME = "redis+cluster://"
RETRY_BUDGET_S = 5.0
BACKOFF_S = (0.05, 0.1, 0.2, 0.4, 0.8)

# The append script, plus a tick on the match's shard channel for the nodes that follow it.
_APPEND_TICK = _APPEND.replace("return last + 1", "redis.call('SPUBLISH', KEYS[3], ARGV[1])\nreturn last + 1")
_APPEND_TICK_SHA = hashlib.sha1(_APPEND_TICK.encode()).hexdigest()

# What a cluster answers while it fails over or reshards: worth another try.
TRANSIENT: tuple[type[BaseException], ...] = (
    rex.ConnectionError, rex.TimeoutError, rex.ClusterDownError, rex.TryAgainError, rex.MovedError,
    rex.AskError, rex.ClusterError, rex.RedisClusterException, rex.ReadOnlyError, OSError,
    TimeoutError, StoreUnavailable,
)

T = TypeVar("T")


# Where redis-py's own code lives (a checkout of ours may well sit in a folder named redis).
_REDIS_PACKAGE = os.path.dirname(os.path.abspath(redis.__file__)) + os.sep


def _as_transient(exc: Exception) -> Exception:
    """redis-py's own failure while the cluster client closes connections under a command (it
    does on CLUSTERDOWN, mid-failover): an AttributeError on a writer it just dropped, a
    RuntimeError from a closed transport. Raised from inside the redis package and not a reply
    from Redis, it is a broken connection: retry."""
    if isinstance(exc, TRANSIENT) or isinstance(exc, rex.ResponseError):
        return exc
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(_REDIS_PACKAGE):
            return rex.ConnectionError(f"the connection failed inside redis-py ({type(exc).__name__}: {exc})")
        tb = tb.tb_next
    return exc


def seed_nodes(url: str) -> list[ClusterNode]:
    """`redis+cluster://h1:p1,h2:p2` -> the seed nodes (port 6379 if none is given)."""
    if not url.startswith(SCHEME):
        raise ValueError(f"a cluster URL starts with {SCHEME}")
    nodes = []
    for part in url.removeprefix(SCHEME).split("/")[0].split(","):
        if part.strip():
            loc = urlsplit("//" + part.strip())
            nodes.append(ClusterNode(loc.hostname or "127.0.0.1", loc.port or 6379))
    if not nodes:
        raise ValueError(f"{url!r} names no seed node: {SCHEME}HOST:PORT[,HOST:PORT...]")
    return nodes


class ClusterStore(RedisStore):
    name = "redis-cluster"

    def __init__(self, url: str, wait_replicas: int = 0, wait_timeout_ms: int = 1000) -> None:
        # Not RedisStore.__init__: no single-server pool; the cluster client keeps one per node.
        self.url = url
        self.wait_replicas, self.wait_timeout_ms = wait_replicas, wait_timeout_ms
        self.wait_timeouts = 0
        self._r: Any = RedisCluster(startup_nodes=seed_nodes(url), max_connections=256,
                                    socket_connect_timeout=2, socket_timeout=10)
        self._readers = None

    async def _retry(self, op: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run `op` until it answers, for up to RETRY_BUDGET_S; then StoreUnavailable."""
        deadline = time.monotonic() + RETRY_BUDGET_S
        attempt = 0
        while True:
            try:
                try:
                    out = await op(*args)
                except Exception as exc:
                    transient = _as_transient(exc)
                    if transient is exc:
                        raise
                    raise transient from exc
            except TRANSIENT as exc:
                pause = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
                if time.monotonic() + pause > deadline:
                    self.reachability.failed(exc)  # one log line per outage (service/store/outage.py)
                    raise StoreUnavailable(f"Redis Cluster did not answer within {RETRY_BUDGET_S:g} s "
                                           f"({type(exc).__name__}: {exc})") from exc
                attempt += 1
                await asyncio.sleep(pause)
            else:
                self.reachability.ok()
                return out

    async def ping(self) -> None:
        """Every master answers, now (no retry: /health/ready wants the present state; during a
        failover the node is not ready until the replica has taken over)."""
        try:
            await self._r.ping(target_nodes=RedisCluster.PRIMARIES)
        except Exception as exc:
            transient = _as_transient(exc)
            if not isinstance(transient, TRANSIENT):
                raise
            self.reachability.failed(transient)
            raise StoreUnavailable(f"Redis Cluster did not answer a ping ({type(exc).__name__}: {exc})") from exc

    # -- matches ---------------------------------------------------------------------------
    async def create_match(self, record: MatchRecord, commits: Sequence[Commit] = ()) -> None:
        await self._retry(self._create_keys, record, commits)
        if record.listed:
            await self._retry(self._r.zadd, MATCHES, {record.id: record.created})
        await self._retry(self._r.zadd, ALL_MATCHES, {record.id: record.created})

    async def _create_keys(self, record: MatchRecord, commits: Sequence[Commit]) -> None:
        async with self._r.pipeline(transaction=True) as p:  # one slot: the match's hash tag
            queue_match(p, record, commits)
            await p.execute()

    async def get_match(self, match_id: str) -> MatchRecord | None:
        return await self._retry(super().get_match, match_id)

    async def list_matches(self, limit: int = 200) -> list[MatchRecord]:
        return await self._retry(super().list_matches, limit)

    async def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str | None,
                         start: Commit | None = None, player: str | None = None) -> Claim:
        # (retrying is safe: a claim that landed is the same token's, and counts as taken)
        return await self._retry(super().claim_seat, match_id, seat, token_hash, name, start, player)

    def _claim_keys(self, match_id: str) -> list[str]:
        keys = super()._claim_keys(match_id)
        return [*keys, tick_channel(keys[1])]

    async def release_seat(self, match_id: str, seat: int, token_hash: str) -> None:
        await self._retry(super().release_seat, match_id, seat, token_hash)

    async def mark_finished(self, match_id: str, result: dict[str, Any] | None) -> None:
        await self._retry(super().mark_finished, match_id, result)

    async def mark_joined(self, match_id: str, seat: int, token_hash: str) -> None:
        await self._retry(super().mark_joined, match_id, seat, token_hash)

    async def all_matches(self, offset: int = 0, limit: int = 100) -> list[MatchRecord]:
        return await self._retry(super().all_matches, offset, limit)

    async def set_listed(self, match_id: str, listed: bool) -> None:
        await self._retry(super().set_listed, match_id, listed)

    async def delete_match(self, match_id: str) -> None:
        await self._retry(super().delete_match, match_id)

    async def mark_diverged(self, match_id: str, info: dict[str, Any] | None) -> None:
        await self._retry(super().mark_diverged, match_id, info)

    async def set_link(self, match_id: str, name: str, value: str) -> str:
        # (a retried HSETNX that had landed answers the value it set: the same result)
        return await self._retry(super().set_link, match_id, name, value)

    async def count_diverged(self) -> int:
        return await self._retry(super().count_diverged)

    # -- webhooks: writes keyed by hook and delivery id, cursors that only move forward, so a
    # retry after a lost answer changes nothing (a claim retried after it landed finds the
    # delivery held, and it is sent when the lease runs out: at least once still holds) ---
    async def add_hook(self, hook: HookRecord, limit: int) -> bool:
        return await self._retry(super().add_hook, hook, limit)

    async def hooks(self, owner: str) -> list[HookRecord]:
        return await self._retry(super().hooks, owner)

    async def remove_hook(self, owner: str, hook_id: str) -> bool:
        return await self._retry(super().remove_hook, owner, hook_id)

    async def hook_owners(self) -> list[str]:
        return await self._retry(super().hook_owners)

    async def hook_cursor(self, match_id: str) -> int:
        return await self._retry(super().hook_cursor, match_id)

    async def set_hook_cursor(self, match_id: str, seq: int) -> None:
        await self._retry(super().set_hook_cursor, match_id, seq)

    async def add_deliveries(self, deliveries: Sequence[DeliveryRecord]) -> int:
        return await self._retry(super().add_deliveries, deliveries)

    async def claim_delivery(self, delivery_id: str, now: int, until: int) -> DeliveryRecord | None:
        return await self._retry(super().claim_delivery, delivery_id, now, until)

    async def save_delivery(self, delivery: DeliveryRecord) -> None:
        await self._retry(super().save_delivery, delivery)

    async def due_deliveries(self, now: int, limit: int) -> list[str]:
        return await self._retry(super().due_deliveries, now, limit)

    async def deliveries(self, owner: str, offset: int, limit: int) -> tuple[int, list[DeliveryRecord]]:
        return await self._retry(super().deliveries, owner, offset, limit)

    # -- players: single-key writes with NX, so a retry after a lost answer changes nothing ---
    async def put_player(self, player: PlayerRecord) -> bool:
        return await self._retry(super().put_player, player)

    async def get_player(self, player_id: str) -> PlayerRecord | None:
        return await self._retry(super().get_player, player_id)

    async def player_for_key(self, key_hash: str) -> PlayerRecord | None:
        return await self._retry(super().player_for_key, key_hash)

    async def add_player_match(self, player_id: str, match_id: str, created: int) -> None:
        await self._retry(super().add_player_match, player_id, match_id, created)

    async def player_matches(self, player_id: str) -> list[str]:
        return await self._retry(super().player_matches, player_id)

    async def add_finished(self, game: str, match_id: str, ts: int) -> None:
        await self._retry(super().add_finished, game, match_id, ts)

    async def finished_matches(self, game: str) -> list[tuple[int, str]]:
        return await self._retry(super().finished_matches, game)

    async def durability(self) -> Durability:
        """Every primary's settings: the cluster is as durable as its least durable primary."""
        return await self._retry(self._durability)

    async def _durability(self) -> Durability:
        await self._r.initialize()
        verdicts = []
        for node in self._r.get_primaries():
            config = await self._read_config(self._r, target_nodes=node)
            replicas = await self._read_replicas(self._r, target_nodes=node) if self.wait_replicas else None
            verdicts.append(judge_redis(config, self.wait_replicas, replicas))
        return worst(verdicts)

    # -- the log -----------------------------------------------------------------------------
    async def _append_entry(self, match_id: str, key: str, seq: int, data: bytes, refusal: str) -> Any:
        return await self._retry(self._append_once, match_id, key, seq, data, refusal)

    async def _append_once(self, match_id: str, key: str, seq: int, data: bytes, refusal: str) -> Any:
        """EVALSHA (and WAIT) on one connection to the slot's master: WAIT counts the writes of
        its own connection, which the cluster client's pool would not guarantee."""
        await self._r.initialize()
        node = self._r.get_node_from_key(key)
        script: tuple[Any, ...] = ("EVALSHA", _APPEND_TICK_SHA, 3, key, refused_key(key), tick_channel(key), seq,
                                   data, refusal, REJECTION_TTL_MS)
        replies = await self._on_node(node, script)
        if isinstance(replies[0], rex.NoScriptError):
            replies = await self._on_node(node, ("SCRIPT", "LOAD", _APPEND_TICK), script)
            replies = replies[1:]
        first = replies[0]
        if isinstance(first, rex.ResponseError):
            if isinstance(first, rex.MovedError | rex.AskError | rex.ClusterDownError | rex.TryAgainError):
                await self._r.nodes_manager.initialize()  # the slot moved: look again, then retry
                raise first
            raise_conflict(first, match_id, seq)
            raise first
        if self.wait_replicas:
            self.count_wait(replies[1])
        return first

    async def _on_node(self, node: ClusterNode, *commands: tuple[Any, ...]) -> list[Any]:
        """Send `commands` (plus WAIT when asked) in one write on one connection; error replies
        come back as exception objects in the list."""
        if self.wait_replicas:
            commands = (*commands, ("WAIT", self.wait_replicas, self.wait_timeout_ms))
        conn = node.acquire_connection()
        clean = False
        try:
            await conn.send_packed_command(conn.pack_commands(commands))
            replies = []
            for _ in commands:
                try:
                    replies.append(await conn.read_response(timeout=self.wait_timeout_ms / 1000 + 5))
                except rex.ResponseError as exc:
                    replies.append(exc)
            clean = True
            return replies
        except (rex.ConnectionError, rex.TimeoutError, OSError, TimeoutError):
            # This bypassed the client, which refreshes its slot map on such errors itself:
            # a promoted replica is found on the next try only if we look again.
            with contextlib.suppress(Exception):
                await self._r.nodes_manager.initialize()
            raise
        finally:
            if not clean:
                await conn.disconnect()
            node.release(conn)

    async def remember_rejection(self, match_id: str, seat: int | None, move_id: str, code: str,
                                 message: str) -> tuple[str, str]:
        # (retrying is safe: a refusal that landed is the one answered)
        return await self._retry(super().remember_rejection, match_id, seat, move_id, code, message)

    async def read(self, match_id: str, after: int = 0, until: int | None = None) -> list[Commit]:
        return await self._retry(super().read, match_id, after, until)

    async def last_seq(self, match_id: str) -> int:
        return await self._retry(super().last_seq, match_id)

    def _make_readers(self) -> ClusterFollowers:
        return ClusterFollowers(self._r)

    # -- presence and snapshots ---------------------------------------------------------------
    async def publish_presence(self, match_id: str, node: str, seats: list[int], spectators: int) -> None:
        await self._retry(super().publish_presence, match_id, node, seats, spectators)

    async def publish_presences(self, node: str, counts: dict[str, tuple[list[int], int]]) -> None:
        await self._retry(super().publish_presences, node, counts)

    async def read_presences(self, match_ids: list[str]) -> dict[str, dict[str, tuple[list[int], int]]]:
        return await self._retry(super().read_presences, match_ids)

    async def save_snapshot(self, match_id: str, seq: int, state: dict[str, Any]) -> None:
        await self._retry(super().save_snapshot, match_id, seq, state)

    async def load_snapshot(self, match_id: str) -> tuple[int, dict[str, Any]] | None:
        return await self._retry(super().load_snapshot, match_id)

    async def save_analysis(self, match_id: str, analysis: dict[str, Any]) -> None:
        await self._retry(super().save_analysis, match_id, analysis)

    async def load_analysis(self, match_id: str) -> dict[str, Any] | None:
        return await self._retry(super().load_analysis, match_id)

    async def close(self) -> None:
        if self._readers is not None:
            await self._readers.close()
        await self._r.aclose()
