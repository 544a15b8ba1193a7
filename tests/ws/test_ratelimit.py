"""service/ws/ratelimit.py against SPEC.md 7.1 (`rate_limited`) and 9, and the charging rule of
the module's docstring: pipelined requests get a burst of 100, then 50 a second; a client with
one request in flight is never refused; once refused, every request is charged until the bucket
is full again; `legal_moves` and `resync` answers have a budget of 4194304 bytes a second with a
burst of one second.

The buckets take their clock as an argument, so the seconds below are the test's own; "after a
wait" is a microsecond past it, as a client's next frame always is."""

from __future__ import annotations

import pytest

from service.ops.limits import Limits
from service.ws.ratelimit import ConnectionBudget, TokenBucket
from tests.support.clock import Clock

# SPEC.md 9: the defaults a client author is told.
RATE, BURST, BYTES = 50.0, 100, 4194304
AFTER = 1e-6


def budget(clock: Clock, rate: float = RATE, burst: int = BURST, per_second: int = BYTES) -> ConnectionBudget:
    return ConnectionBudget(rate, burst, per_second, clock)


def spent(clock: Clock) -> ConnectionBudget:
    """A budget whose pipelined burst was all spent just now."""
    b = budget(clock)
    assert [b.admit(pipelined=True) for _ in range(BURST)] == [0] * BURST
    return b


def test_the_defaults_are_the_ones_spec_states():
    lim = Limits()
    assert (lim.requests_per_second, lim.request_burst, lim.outbound_bytes_per_second) == (RATE, BURST, BYTES)


def test_one_request_in_flight_is_never_refused_however_fast():
    clock = Clock()
    b = budget(clock)
    # Ten thousand requests in one instant, each sent after the previous answer was written.
    assert all(b.admit(pipelined=False) == 0 for _ in range(10_000))
    # ...and it cost nothing: the whole burst is still there for pipelined requests.
    assert all(b.admit(pipelined=True) == 0 for _ in range(BURST))


def test_pipelined_requests_get_the_burst_then_are_refused_with_a_wait():
    b = spent(Clock())
    wait = b.admit(pipelined=True)
    # The next token comes 1/50 s later.
    assert wait == pytest.approx(1 / RATE)


def test_a_refused_request_sent_again_after_the_wait_is_admitted():
    clock = Clock()
    b = spent(clock)
    wait = b.admit(pipelined=True)
    assert wait > 0
    clock.advance(wait + AFTER)
    assert b.admit(pipelined=True) == 0


def test_a_refused_request_had_no_cost():
    clock = Clock()
    b = spent(clock)
    first = b.admit(pipelined=True)
    # Refusals in the same instant do not push the next token further away.
    assert [b.admit(pipelined=True) for _ in range(50)] == [pytest.approx(first)] * 50


def test_after_a_refusal_every_request_is_charged_even_one_in_flight():
    clock = Clock()
    b = spent(clock)
    assert b.admit(pipelined=True) > 0
    # A flooder paused by its refusal looks one-in-flight when it is read again: still charged.
    assert b.admit(pipelined=False) > 0
    clock.advance(1 / RATE + AFTER)
    assert b.admit(pipelined=False) == 0  # the one token that came
    assert b.admit(pipelined=False) > 0  # and no more


def test_the_charging_ends_once_the_bucket_is_full_again():
    clock = Clock()
    b = spent(clock)
    assert b.admit(pipelined=True) > 0
    clock.advance(BURST / RATE - 0.1)  # not quite full
    assert all(b.admit(pipelined=False) == 0 for _ in range(4))  # charged: 4 of the 95 tokens
    clock.advance(BURST / RATE)  # full again
    assert all(b.admit(pipelined=False) == 0 for _ in range(1000))  # free again
    assert all(b.admit(pipelined=True) == 0 for _ in range(BURST))  # with its whole burst


def test_a_sustained_flood_is_held_to_the_rate():
    clock = Clock()
    b = budget(clock)
    admitted = 0
    for _ in range(10_000):  # one pipelined request every millisecond for ten seconds
        admitted += b.admit(pipelined=True) == 0
        clock.advance(0.001)
    assert BURST + 10 * RATE - 1 <= admitted <= BURST + 10 * RATE + 1


def test_a_rate_of_zero_is_no_limit():
    clock = Clock()
    b = budget(clock, rate=0, per_second=0)
    assert all(b.admit(pipelined=True) == 0 for _ in range(10_000))
    b.bytes.charge(1 << 30)
    assert b.bytes.wait() == 0


def test_a_configured_burst_and_rate_are_used():
    clock = Clock()
    b = budget(clock, rate=10, burst=3)
    assert [b.admit(pipelined=True) == 0 for _ in range(4)] == [True, True, True, False]
    assert b.admit(pipelined=True) == pytest.approx(0.1)


# -- the byte budget --------------------------------------------------------------------------

def test_answers_within_one_second_of_bytes_are_not_held():
    clock = Clock()
    b = budget(clock)
    for _ in range(3):
        assert b.bytes.wait() == 0
        b.bytes.charge(1 << 20)
    assert b.bytes.wait() == 0  # 3 MiB of the 4 asked for


def test_past_the_budget_a_large_answer_waits_until_the_debt_is_paid():
    clock = Clock()
    b = budget(clock)
    b.bytes.charge(BYTES + BYTES // 4)  # one answer a quarter second of bytes beyond the budget
    wait = b.bytes.wait()
    assert 0.25 <= wait <= 0.26
    clock.advance(wait + AFTER)
    assert b.bytes.wait() == 0


def test_the_byte_budget_is_charged_whatever_the_pacing():
    clock = Clock()
    b = budget(clock)
    # A client that waits for every answer (never refused for its request rate) still spends
    # its byte budget with every large answer.
    for _ in range(5):
        assert b.admit(pipelined=False) == 0
        b.bytes.charge(BYTES // 4)
    assert b.bytes.wait() > 0


def test_an_idle_connection_saves_at_most_one_second_of_bytes():
    clock = Clock()
    b = budget(clock)
    clock.advance(3600)
    b.bytes.charge(BYTES + 1)
    assert b.bytes.wait() > 0


# -- the bucket itself ---------------------------------------------------------------------------

def test_take_spends_only_what_the_bucket_holds():
    clock = Clock()
    bucket = TokenBucket(rate=2, burst=5, clock=clock)
    assert bucket.take(5) == 0
    assert bucket.take(1) == pytest.approx(0.5)  # one token at 2 a second
    clock.advance(0.25)
    assert bucket.take(1) == pytest.approx(0.25)  # half a token there, nothing spent
    clock.advance(0.25 + AFTER)
    assert bucket.take(1) == 0


def test_full_means_the_whole_burst_is_back():
    clock = Clock()
    bucket = TokenBucket(rate=10, burst=4, clock=clock)
    assert bucket.full()
    bucket.take(4)
    assert not bucket.full()
    clock.advance(0.39)
    assert not bucket.full()
    clock.advance(0.01 + AFTER)
    assert bucket.full()


def test_a_burst_below_one_still_admits_one_request():
    clock = Clock()
    bucket = TokenBucket(rate=1, burst=0, clock=clock)
    assert bucket.take() == 0
    assert bucket.take() > 0
