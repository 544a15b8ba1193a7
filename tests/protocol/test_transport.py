"""SPEC §1: subprotocol negotiation (protocol/versions.py) and the sans-I/O rule."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from protocol.versions import PROTOCOL_VERSION, SUBPROTOCOLS, negotiate, unsupported_reason

PROTOCOL_DIR = Path(__file__).resolve().parents[2] / "protocol"


def test_the_v1_and_v2_subprotocols():
    assert SUBPROTOCOLS == {"teahouse.v2.msgpack": (2, "msgpack"), "teahouse.v2.json": (2, "json"),
                            "teahouse.v1.msgpack": (1, "msgpack"), "teahouse.v1.json": (1, "json")}
    assert PROTOCOL_VERSION == 1


@pytest.mark.parametrize("name, encoding", [("teahouse.v1.msgpack", "msgpack"), ("teahouse.v1.json", "json")])
def test_a_single_offer_is_taken(name, encoding):
    n = negotiate([name])
    assert (n.subprotocol, n.encoding, n.version) == (name, encoding, 1)


def test_the_clients_order_of_preference_wins():
    assert negotiate(["teahouse.v1.json", "teahouse.v1.msgpack"]).encoding == "json"
    assert negotiate(["teahouse.v1.msgpack", "teahouse.v1.json"]).encoding == "msgpack"


def test_unknown_offers_are_skipped():
    n = negotiate(["teahouse.v2.cbor", "chat", "teahouse.v1.json"])
    assert n.subprotocol == "teahouse.v1.json"


def test_v2_is_negotiated_with_its_encoding():
    n = negotiate(["teahouse.v2.json", "teahouse.v1.json"])
    assert (n.subprotocol, n.version, n.encoding, n.wire) == ("teahouse.v2.json", 2, "json", "v2.json")
    assert negotiate(["teahouse.v1.msgpack", "teahouse.v2.msgpack"]).wire == "msgpack"


def test_whitespace_around_an_offer_is_ignored():
    assert negotiate([" teahouse.v1.msgpack "]).subprotocol == "teahouse.v1.msgpack"


@pytest.mark.parametrize("offered", [[], ["teahouse.v3.msgpack"], ["TEAHOUSE.V1.JSON"], ["teahouse.v1"], [""]])
def test_nothing_we_speak_is_none(offered):
    assert negotiate(offered) is None


def test_the_close_reason_names_both_sides_and_fits_a_close_frame():
    reason = unsupported_reason(["teahouse.v2.cbor"])
    assert "teahouse.v2.cbor" in reason and "teahouse.v2.msgpack|json" in reason and "teahouse.v1.msgpack|json" in reason
    assert "none" in unsupported_reason([])
    long = unsupported_reason(["x" * 500, "é" * 100])
    assert len(long.encode()) <= 123


def test_the_close_reason_is_at_most_123_bytes_even_with_multibyte_offers():
    # A close frame's reason is limited to 123 *bytes* (RFC 6455 §5.5).
    assert len(unsupported_reason(["é" * 200]).encode()) <= 123


def test_a_long_offer_never_hides_what_the_server_speaks():
    reason = unsupported_reason(["x" * 300])
    assert reason.endswith("speak teahouse.v2.msgpack|json, teahouse.v1.msgpack|json")
    assert len(reason.encode()) <= 123


# -- sans-I/O (STYLE.md practice 9) ---------------------------------------------------------------

FORBIDDEN = {"asyncio", "starlette", "redis", "uvicorn", "websockets", "httpx", "socket", "service", "clients"}


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "__import__"):
            raise AssertionError(f"{path.name}: dynamic import")
    return roots


@pytest.mark.parametrize("path", sorted(PROTOCOL_DIR.glob("*.py")), ids=lambda p: p.name)
def test_protocol_imports_no_io_framework(path):
    assert not _imported_roots(path) & FORBIDDEN
