"""The webhook keys of the Redis store (service/store/redis.py mixes this in).

Every key shares the hash tag `{hooks}`, so the scripts below touch one slot, on a cluster too:
`th:{hooks}:hooks:<owner>` (hash: hook id -> record), `th:{hooks}:owners` (set),
`th:{hooks}:d:<delivery id>` (the delivery's record), `th:{hooks}:outbox` (sorted set: the
pending deliveries by due time), `th:{hooks}:log:<owner>` (sorted set: the owner's deliveries by
creation) and `th:{hooks}:cursor` (hash: match -> last seq derived). A delivery's record and its
outbox entry change in one script, so the outbox holds exactly the pending deliveries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.store.base import DeliveryRecord, HookRecord
from service.store.outage import guarded
from service.store.redis_errors import unreachable

_guard = guarded(unreachable)

PREFIX = "th:{hooks}:"
OWNERS = PREFIX + "owners"
OUTBOX = PREFIX + "outbox"
CURSOR = PREFIX + "cursor"

_ADD_HOOK = """
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[4])
return 1
"""

_REMOVE_HOOK = """
local gone = redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('HLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[2]) end
return gone
"""

# KEYS: record, outbox, owner's log; ARGV: data, id, due, created
_ADD_DELIVERY = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
  return 1
end
return 0
"""

# KEYS: outbox, record; ARGV: id, now, until
_CLAIM = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) > tonumber(ARGV[2]) then return false end
local data = redis.call('GET', KEYS[2])
if not data then redis.call('ZREM', KEYS[1], ARGV[1]); return false end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return data
"""

# KEYS: record, outbox; ARGV: data, id, due ('' : settled)
_SAVE = """
redis.call('SET', KEYS[1], ARGV[1])
if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[2]) else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2]) end
return 1
"""

_CURSOR = """
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > cur then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1
"""


def _hooks_key(owner: str) -> str:
    return f"{PREFIX}hooks:{owner}"


def _record_key(delivery_id: str) -> str:
    return f"{PREFIX}d:{delivery_id}"


def _log_key(owner: str) -> str:
    return f"{PREFIX}log:{owner}"


class RedisHooks:
    _r: Any

    @_guard
    async def add_hook(self, hook: HookRecord, limit: int) -> bool:
        return bool(await self._r.eval(_ADD_HOOK, 2, _hooks_key(hook.owner), OWNERS,
                                       hook.id, hook.pack(), limit, hook.owner))

    @_guard
    async def hooks(self, owner: str) -> list[HookRecord]:
        found = [HookRecord.unpack(v) for v in (await self._r.hgetall(_hooks_key(owner))).values()]
        return sorted(found, key=lambda h: (h.created, h.id))

    @_guard
    async def remove_hook(self, owner: str, hook_id: str) -> bool:
        return bool(await self._r.eval(_REMOVE_HOOK, 2, _hooks_key(owner), OWNERS, hook_id, owner))

    @_guard
    async def hook_owners(self) -> list[str]:
        return sorted(o.decode() for o in await self._r.smembers(OWNERS))

    @_guard
    async def add_deliveries(self, deliveries: Sequence[DeliveryRecord]) -> int:
        added = 0
        for d in deliveries:
            added += int(await self._r.eval(_ADD_DELIVERY, 3, _record_key(d.id), OUTBOX, _log_key(d.owner),
                                            d.pack(), d.id, d.next_at, d.created))
        return added

    @_guard
    async def due_deliveries(self, now: int, limit: int) -> list[str]:
        return [i.decode() for i in await self._r.zrangebyscore(OUTBOX, "-inf", now, start=0, num=limit)]

    @_guard
    async def claim_delivery(self, delivery_id: str, now: int, until: int) -> DeliveryRecord | None:
        data = await self._r.eval(_CLAIM, 2, OUTBOX, _record_key(delivery_id), delivery_id, now, until)
        if not data:
            return None
        d = DeliveryRecord.unpack(data)
        d.next_at = until
        return d

    @_guard
    async def save_delivery(self, delivery: DeliveryRecord) -> None:
        due = delivery.next_at if delivery.status == "pending" else ""
        await self._r.eval(_SAVE, 2, _record_key(delivery.id), OUTBOX, delivery.pack(), delivery.id, due)

    @_guard
    async def deliveries(self, owner: str, offset: int, limit: int) -> tuple[int, list[DeliveryRecord]]:
        total = int(await self._r.zcard(_log_key(owner)))
        ids = [i.decode() for i in await self._r.zrevrange(_log_key(owner), offset, offset + limit - 1)]
        if not ids:
            return total, []
        rows = await self._r.mget([_record_key(i) for i in ids])
        return total, [DeliveryRecord.unpack(r) for r in rows if r is not None]

    @_guard
    async def hook_cursor(self, match_id: str) -> int:
        raw = await self._r.hget(CURSOR, match_id)
        return int(raw) if raw is not None else 0

    @_guard
    async def set_hook_cursor(self, match_id: str, seq: int) -> None:
        await self._r.eval(_CURSOR, 1, CURSOR, match_id, seq)
