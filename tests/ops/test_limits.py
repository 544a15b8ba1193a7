"""service.ops.limits: one dataclass, set by flag, environment or default, in that order."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from service.ops.limits import Limits, env_name


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    Limits.add_arguments(parser)
    return parser.parse_args(argv)


def test_a_flag_beats_the_environment_which_beats_the_default():
    env = {"TEAHOUSE_CONNECTIONS_PER_ADDRESS": "7", "TEAHOUSE_SPECTATORS_PER_MATCH": "3"}
    limits = Limits.from_sources(_parse(["--connections-per-address", "9"]), env)
    assert limits.connections_per_address == 9
    assert limits.spectators_per_match == 3
    assert limits.live_matches_per_node == Limits().live_matches_per_node


def test_types_follow_the_defaults():
    env = {env_name("requests_per_second"): "2.5", env_name("cors_origins"): "https://a.example, https://b.example",
           env_name("admin_token"): "s3cret"}
    limits = Limits.from_sources(None, env)
    assert limits.requests_per_second == 2.5
    assert limits.cors_origins == ("https://a.example", "https://b.example")
    assert limits.admin_token == "s3cret"


@pytest.mark.parametrize("env", [{"TEAHOUSE_CONNECTIONS_PER_ADDRESS": "many"},
                                 {"TEAHOUSE_RETENTION_ACTION": "burn"},
                                 {"TEAHOUSE_SPECTATORS_PER_MATCH": "-1"}])
def test_a_bad_value_is_refused_with_its_name(env):
    with pytest.raises(ValueError, match=r"[a-z_]+"):
        Limits.from_sources(None, env)


def test_every_limit_has_a_sentence_and_a_flag():
    parser = argparse.ArgumentParser()
    Limits.add_arguments(parser)
    text = parser.format_help()
    for f in dataclasses.fields(Limits):
        assert f.metadata["help"]
        assert "--" + f.name.replace("_", "-") in text


def test_every_limit_is_read_by_the_service():
    """A declared limit that nothing reads is a defect: each field is used outside limits.py."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "service"
    code = "\n".join(p.read_text() for p in root.rglob("*.py") if p.name != "limits.py")
    unread = [f.name for f in dataclasses.fields(Limits) if f".{f.name}" not in code]
    assert not unread, f"declared but never read: {unread}"
