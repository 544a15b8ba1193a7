"""A real load balancer in front of several nodes, without Docker: HAProxy (the
Debian package) with a generated config in front of 2 real nodes (`teahouse serve`) on one
private redis-server. Clients play matches through the balancer; one node is killed with
kill -9; every client resumes through the balancer (the SDK's reconnect, which joins again
from its last seq) and no acknowledged move is lost."""

from __future__ import annotations

import shutil

import pytest

from tests.support.balancer import HAPROXY, kill_a_node_behind_the_balancer
from tests.support.failover import percentile

pytestmark = pytest.mark.skipif(shutil.which(HAPROXY) is None, reason="haproxy is not installed")


async def test_a_node_killed_behind_haproxy_loses_no_acknowledged_move(tmp_path):
    result = await kill_a_node_behind_the_balancer(tmp_path)
    print("\n" + result.line())
    assert result.acked > result.acked_before_kill, "play went on after the kill"
    assert result.resumes, "the killed node held some of the clients"
    assert result.lost == 0, result.line()
    assert set(result.errors) <= {"store_unavailable", "busy"}, result.errors
    assert not result.tracebacks, "\n\n".join(result.tracebacks)
    assert max(result.resumes) < 15 and percentile(result.resumes, 0.5) < 5, result.line()
