"""service/ws/address_limits.py against SPEC.md 2 (429 `rate_limited` after 30 creations in the
last minute, with Retry-After), 8 (close 4429 past 64 connections of one address, reasons of at
most 123 bytes) and docs/operators.md (both per node, 0 switches a limit off)."""

from __future__ import annotations

import pytest

from service.ops.limits import Limits
from service.ws.address_limits import ConnectionCounts, CreationWindow
from tests.support.clock import Clock

PER_MINUTE, PER_ADDRESS = 30, 64  # SPEC.md's figures
A, B = "203.0.113.7", "198.51.100.2"


def test_the_defaults_are_the_ones_spec_states():
    lim = Limits()
    assert (lim.matches_per_address_per_minute, lim.connections_per_address) == (PER_MINUTE, PER_ADDRESS)


# -- creations: a sliding minute ---------------------------------------------------------------

def test_thirty_creations_in_a_minute_then_a_refusal_with_the_wait():
    clock = Clock()
    window = CreationWindow(PER_MINUTE, clock)
    assert [window.hit(A) for _ in range(PER_MINUTE)] == [0] * PER_MINUTE
    assert window.hit(A) == pytest.approx(60)


def test_the_minute_slides_the_oldest_creation_out_first():
    clock = Clock()
    window = CreationWindow(PER_MINUTE, clock)
    for _ in range(PER_MINUTE):  # one a second
        assert window.hit(A) == 0
        clock.advance(1)
    # At 30 s, the first creation (at 0 s) leaves the window at 60 s.
    assert window.hit(A) == pytest.approx(30)
    clock.advance(30)
    assert window.hit(A) == 0  # the first one is out: room for one
    assert window.hit(A) == pytest.approx(1)  # the second leaves a second later


def test_a_refused_creation_is_not_counted():
    clock = Clock()
    window = CreationWindow(2, clock)
    window.hit(A)
    window.hit(A)
    for _ in range(100):  # hammering while refused
        assert window.hit(A) > 0
        clock.advance(0.5)
    # 50 s later the two creations are 50 s old: room again at 60 s, the refusals changed nothing
    assert window.hit(A) == pytest.approx(10)
    clock.advance(10)
    assert window.hit(A) == 0


def test_each_address_has_its_own_minute():
    clock = Clock()
    window = CreationWindow(1, clock)
    assert window.hit(A) == 0
    assert window.hit(A) > 0
    assert window.hit(B) == 0


def test_zero_creations_a_minute_is_no_limit():
    window = CreationWindow(0, Clock())
    assert all(window.hit(A) == 0 for _ in range(10_000))


def test_many_addresses_do_not_make_it_forget_a_recent_one():
    clock = Clock()
    window = CreationWindow(1, clock)
    assert window.hit(A) == 0
    clock.advance(1)
    for n in range(10_050):  # a crowd of other addresses, each creating once
        assert window.hit(f"10.{n >> 16}.{(n >> 8) & 255}.{n & 255}") == 0
    assert window.hit(A) == pytest.approx(59), "A created a second ago: still refused"
    clock.advance(60)
    assert window.hit(A) == 0
    assert window.hit("10.0.0.0") == 0, "the crowd's minute is over too"


# -- connections: a count ------------------------------------------------------------------------

def test_an_address_holds_at_most_its_limit_of_connections():
    counts = ConnectionCounts(PER_ADDRESS)
    assert all(counts.open(A) for _ in range(PER_ADDRESS))
    assert not counts.open(A)
    assert counts.open(B), "another address is not affected"


def test_closing_one_makes_room_for_one():
    counts = ConnectionCounts(2)
    assert counts.open(A) and counts.open(A)
    counts.close(A)
    assert counts.open(A)
    assert not counts.open(A)


def test_a_refused_connection_holds_no_place():
    counts = ConnectionCounts(1)
    assert counts.open(A)
    assert not counts.open(A)
    assert not counts.open(A)
    counts.close(A)  # the one that was open
    assert counts.open(A)


def test_closing_more_than_was_opened_never_raises_the_limit():
    counts = ConnectionCounts(2)
    counts.open(A)
    counts.close(A)
    counts.close(A)
    counts.close(A)
    assert counts.open(A) and counts.open(A)
    assert not counts.open(A)


def test_zero_connections_per_address_is_no_limit():
    counts = ConnectionCounts(0)
    assert all(counts.open(A) for _ in range(10_000))


@pytest.mark.parametrize("limit", [1, PER_ADDRESS, 10**12])
def test_the_refusal_is_a_valid_close_reason_naming_the_limit(limit):
    reason = ConnectionCounts(limit).refusal()
    assert str(limit) in reason
    assert len(reason.encode()) <= 123
