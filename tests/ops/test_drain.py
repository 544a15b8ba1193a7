"""The drain: on SIGTERM a node stops accepting, closes every WebSocket with 1012
(service restart) so that clients reconnect elsewhere, and exits. Real HAProxy in front of 2
real nodes on one redis-server; one node gets SIGTERM mid-play."""

from __future__ import annotations

import shutil
import signal

import pytest

from service.ops.limits import Limits
from tests.support.balancer import HAPROXY, kill_a_node_behind_the_balancer

pytestmark = pytest.mark.skipif(shutil.which(HAPROXY) is None, reason="haproxy is not installed")


async def test_sigterm_closes_every_socket_with_1012_and_clients_resume_elsewhere(tmp_path):
    result = await kill_a_node_behind_the_balancer(tmp_path, signal="TERM")
    print("\n" + result.line())
    # uvicorn ends a graceful shutdown by re-raising the signal it caught: exit status SIGTERM
    assert result.exit_code in (0, -signal.SIGTERM), result.exit_code
    assert result.exit_s is not None and result.exit_s < Limits.drain_s + 5
    assert result.resumes, "the stopped node held some of the clients"
    assert set(result.close_codes) == {1012}, f"every socket of the node was closed with 1012: {result.close_codes}"
    assert result.lost == 0, result.line()
    assert set(result.errors) <= {"store_unavailable", "busy"}, result.errors
    assert not result.tracebacks, "\n\n".join(result.tracebacks)
