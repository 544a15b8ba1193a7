"""SPEC §2-§5 against the running server: replay the recorded session and compare its shape.

make_vectors.capture drives the real app (in-process, temporary SQLite store) through every
step of the example session and asserts the order of frames SPEC §3 promises. Here it runs
again and the result is compared with the committed vectors: the same messages of the same
types with the same fields, the same error codes and HTTP statuses. Game content (cards,
scores) is not compared, so a rules change does not fail this test; a protocol change does.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.protocol.make_vectors import VECTORS, Recorder, capture

# starlette.testclient warns that it wants httpx2; httpx is what the project has.
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture(scope="module")
def live() -> Recorder:
    rec = Recorder()
    capture(rec)
    return rec


def _shape(msg: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: type(v).__name__ for k, v in msg.items()}
    out["type"] = msg["type"]
    if msg["type"] in ("error", "reject"):
        out["code"] = msg["code"]
    return out


def test_the_same_frames_with_the_same_shapes(live):
    index = {e["name"]: e for e in orjson.loads((VECTORS / "index.json").read_bytes())}
    assert set(live.frames) == set(index)
    for name, (direction, msg, _) in live.frames.items():
        assert direction == index[name]["direction"], name
        assert _shape(msg) == _shape(index[name]["value"]), name


def test_client_frames_are_identical(live):
    index = {e["name"]: e for e in orjson.loads((VECTORS / "index.json").read_bytes())}
    for name, (direction, msg, _) in live.frames.items():
        if direction == "client" and name not in ("move", "move_with_seat"):  # these carry game commands
            assert msg == index[name]["value"], name


def test_invalid_frames_get_the_same_codes(live):
    recorded = orjson.loads((VECTORS / "invalid.json").read_bytes())
    assert [(v["name"], v["code"]) for v in live.invalid] == [(v["name"], v["code"]) for v in recorded]


def test_http_calls_answer_the_same_statuses_and_codes(live):
    recorded = orjson.loads((VECTORS / "http.json").read_bytes())

    def summary(calls: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(c["name"], c["method"], c["path"], c["status"], c["content_type"],
                 c["response"]["error"]["code"] if isinstance(c["response"], dict) and "error" in c["response"]
                 else None) for c in calls]

    assert summary(live.http) == summary(recorded)


def test_the_unsupported_subprotocol_close(live):
    close = orjson.loads((VECTORS / "close.json").read_bytes())
    assert live.unsupported == (close["code"], close["reason"])
