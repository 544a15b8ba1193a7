"""Which Redis errors mean "the store is unreachable" (StoreUnavailable) rather than a bad request."""

from __future__ import annotations

from redis.exceptions import ClusterDownError, MasterDownError, ResponseError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

# Replies that mean "Redis is not serving right now" rather than "this request is wrong".
_NOT_SERVING = ("LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN")


def unreachable(exc: BaseException) -> bool:
    """Redis is down, restarting, loading its data or cut off: StoreUnavailable."""
    if isinstance(exc, RedisConnectionError | RedisTimeoutError | OSError):  # BusyLoadingError too
        return True
    # redis-py parses these replies into classes of their own and drops the code from the message
    if isinstance(exc, ClusterDownError | MasterDownError | TryAgainError):
        return True
    return isinstance(exc, ResponseError) and str(exc).split(" ", 1)[0] in _NOT_SERVING
