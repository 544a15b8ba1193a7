"""The replays of finished matches, encoded once: a finished match's replay at a seq, for an
audience, never changes, so its body is kept (least recently used first out, bounded in bytes)
and served with a strong ETag; a client or cache that has it gets 304 (SPEC 2.8).

Only bodies are kept here: who may read a match is checked on every request before the cache
is asked (service/http/replay_routes.py), so a hit never skips a refusal."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

# A finished match's replay at a seq is final: a year, the most RFC 9111 asks caches to honour.
IMMUTABLE_MAX_AGE_S = 31_536_000


@dataclass(frozen=True)
class Encoded:
    body: bytes
    etag: str  # quoted, strong


Key = tuple[str, int, int | None]  # (match, seq, seat; None: the spectators)


def encoded(body: bytes) -> Encoded:
    return Encoded(body, '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"')


class ReplayCache:
    """At most `max_bytes` of bodies (0: nothing kept); one body above a quarter of that is
    served but not kept, so that one huge replay cannot empty the cache."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.hits = self.misses = 0
        self._items: OrderedDict[Key, Encoded] = OrderedDict()

    def get(self, key: Key) -> Encoded | None:
        found = self._items.get(key)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        self._items.move_to_end(key)
        return found

    def put(self, key: Key, body: bytes) -> Encoded:
        item = encoded(body)
        if len(body) * 4 > self.max_bytes or key in self._items:
            return item
        self._items[key] = item
        self.bytes += len(body)
        while self.bytes > self.max_bytes:
            _, old = self._items.popitem(last=False)
            self.bytes -= len(old.body)
        return item

    def __len__(self) -> int:
        return len(self._items)


def matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110 13.1.2: If-None-Match compares weakly, so W/"x" matches "x"; `*` matches any."""
    if not if_none_match:
        return False
    for candidate in if_none_match.split(","):
        tag = candidate.strip()
        if tag == "*" or tag.removeprefix("W/") == etag:
            return True
    return False
