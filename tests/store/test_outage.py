"""service/store/outage.py: one log line when the store goes away and one when it is back
(docs/operators.md, Logs and Store outage: `"event": "store_down"` / `"store_up"` with
`outage_s`), the metrics it names (`teahouse_store_up`, `teahouse_store_outages_total`,
`teahouse_store_errors_total`), the `guarded` decorator's contract, and `Backoff`."""

from __future__ import annotations

import asyncio
import logging

import pytest

from service.ops.metrics import REGISTRY
from service.store import StoreUnavailable, open_store
from service.store.outage import Backoff, Reachability, guarded
from tests.support.redis_server import RedisServer


def store_lines(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "teahouse.store"]


def sample(name: str) -> float:
    value = REGISTRY.get_sample_value(name)
    assert value is not None, name
    return value


def test_an_outage_is_one_line_when_it_begins_and_one_when_it_ends(caplog):
    caplog.set_level(logging.INFO, logger="teahouse.store")
    r = Reachability("redis")
    told: list[bool] = []
    r.listeners.append(told.append)
    for _ in range(1000):
        r.failed(ConnectionError("connection refused"))
    down = store_lines(caplog)
    assert len(down) == 1
    assert down[0].levelno == logging.WARNING and down[0].event == "store_down"
    assert "redis" in down[0].getMessage() and "connection refused" in down[0].getMessage()
    assert (r.up, r.outages, r.errors) == (False, 1, 1000)
    for _ in range(1000):
        r.ok()
    lines = store_lines(caplog)
    assert len(lines) == 2
    assert lines[1].event == "store_up" and lines[1].outage_s >= 0
    assert "reachable again" in lines[1].getMessage()
    assert r.up and r.down_since is None
    assert told == [False, True], "listeners hear of each change once"


def test_a_second_outage_is_counted_and_logged_again(caplog):
    caplog.set_level(logging.INFO, logger="teahouse.store")
    r = Reachability("sqlite")
    for _ in range(2):
        r.failed(OSError("disk I/O error"))
        r.ok()
    assert r.outages == 2
    assert [x.event for x in store_lines(caplog)] == ["store_down", "store_up"] * 2


def test_the_metrics_follow_the_store():
    r = Reachability("redis")
    outages, errors = sample("teahouse_store_outages_total"), sample("teahouse_store_errors_total")
    r.failed(ConnectionError("gone"))
    r.failed(ConnectionError("gone"))
    assert sample("teahouse_store_up") == 0
    assert sample("teahouse_store_outages_total") == outages + 1
    assert sample("teahouse_store_errors_total") == errors + 2
    r.ok()
    assert sample("teahouse_store_up") == 1


# -- guarded: what a store method raises ------------------------------------------------------

class _Store:
    """The two names `guarded` reads on the object a method is called on."""

    name = "test"

    def __init__(self) -> None:
        self.reachability = Reachability(self.name)

    @guarded(lambda exc: isinstance(exc, ConnectionError))
    async def call(self, exc: BaseException | None = None, value: int = 7) -> int:
        """Raise `exc`, or answer `value`."""
        if exc is not None:
            raise exc
        return value


async def test_an_unreachable_store_raises_store_unavailable_and_is_noted_down():
    store = _Store()
    cause = ConnectionError("refused")
    with pytest.raises(StoreUnavailable) as raised:
        await store.call(cause)
    assert raised.value.__cause__ is cause
    assert "test" in str(raised.value)
    assert not store.reachability.up


async def test_any_other_error_is_raised_as_it_is_and_says_nothing_of_reachability():
    store = _Store()
    with pytest.raises(KeyError):
        await store.call(KeyError("no such match"))
    assert store.reachability.up and store.reachability.errors == 0


async def test_a_success_notes_the_store_up_again():
    store = _Store()
    with pytest.raises(StoreUnavailable):
        await store.call(ConnectionError("refused"))
    assert await store.call(value=3) == 3
    assert store.reachability.up


async def test_a_store_unavailable_from_inside_is_passed_on_and_not_counted_twice():
    store = _Store()
    inner = StoreUnavailable("already said")
    with pytest.raises(StoreUnavailable) as raised:
        await store.call(inner)
    assert raised.value is inner
    assert store.reachability.errors == 0


def test_the_decorated_method_keeps_its_name_and_doc():
    assert _Store.call.__name__ == "call"
    assert _Store.call.__doc__ == "Raise `exc`, or answer `value`."


# -- a real store that goes away and comes back --------------------------------------------------

async def test_a_redis_store_down_then_up_logs_two_lines(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="teahouse.store")
    server = RedisServer(tmp_path)  # its port chosen, nothing listening on it yet
    store = open_store(server.url)
    try:
        for _ in range(5):
            with pytest.raises(StoreUnavailable):
                await store.last_seq("m1")
        assert not store.reachability.up
        await asyncio.to_thread(server.start)
        assert await store.last_seq("m1") == 0
        assert store.reachability.up
        assert [r.event for r in store_lines(caplog)] == ["store_down", "store_up"]
    finally:
        await store.close()
        server.stop()


# -- Backoff ---------------------------------------------------------------------------------------

def test_backoff_doubles_up_to_its_cap_and_starts_over_after_a_reset():
    b = Backoff(first=0.1, cap=2.0)
    assert [b.delay() for _ in range(7)] == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0])
    b.reset()
    assert b.delay() == pytest.approx(0.1)
