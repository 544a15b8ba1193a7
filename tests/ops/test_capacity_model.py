"""The capacity model's arithmetic (bench/capacity_model.py, docs/capacity.md) against the mix as
the capacity issue states it: one move per 10 s per match, 4 seats and 2 spectators each, 10% of
the matches with 100 spectators instead. The expected numbers are worked out here by hand."""

from __future__ import annotations

import pytest

from bench.capacity_model import Figures, Mix, Targets, connections, distinct_nodes, plan


@pytest.mark.parametrize("matches, moves_s, conns, frames_s", [
    # 90,000 x (4 + 2) + 10,000 x (4 + 100); each move reaches every connection of its match:
    # 9,000 moves/s x 6 + 1,000 moves/s x 104
    (100_000, 10_000, 1_580_000, 158_000),
    (1_000_000, 100_000, 15_800_000, 1_580_000),
])
def test_the_mix(matches, moves_s, conns, frames_s):
    p = plan(matches)
    assert p["moves_per_s"] == moves_s
    assert p["connections"] == conns == connections(matches, Mix())
    assert p["fanout_frames_per_s"] == pytest.approx(frames_s)


def test_matches_finished_per_day():
    # a 60-move match at one move per 10 s lasts 600 s: 100,000 at once end 144 times a day each
    assert plan(100_000)["finished_matches_per_day"] == 14_400_000


def test_nodes_per_match_under_round_robin():
    assert distinct_nodes(6, 1) == 1
    assert distinct_nodes(1, 5) == pytest.approx(1)
    # two connections on two nodes: the same node half the time
    assert distinct_nodes(2, 2) == pytest.approx(1.5)
    # many connections on few nodes: every node holds one
    assert distinct_nodes(104, 3) == pytest.approx(3)


def test_nodes_from_cpu_and_the_target():
    only_moves = Figures(node_cpu_ms_per_move=1.0, node_cpu_ms_per_move_per_extra_node=0.0,
                         node_cpu_us_per_connection_second=0.0, node_cpu_us_per_loaded_match_second=0.0)
    # 10,000 moves/s x 1 ms = 10 cores; at half a core per node, 20 nodes
    p = plan(100_000, f=only_moves, t=Targets(node_utilisation=0.5, placement="match"))
    assert p["node_cores_busy"] == 10
    assert p["nodes"] == 20
    assert p["node_match_pairs"] == 100_000
