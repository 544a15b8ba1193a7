"""service/ops/logs.py against its docstring and docs/operators.md (Logs): every record is one
line; a JSON line is one object with `ts` (UTC), `level`, `logger`, `msg`, and where known `node`
and `match`, plus the record's own fields; a traceback is the `exc` field of the same line; text
is for a terminal; `--log-level` (default warning) sets the level of everything but the access
log, which `--no-access-log` turns off, and uvicorn's own access line gives way to ours."""

from __future__ import annotations

import asyncio
import calendar
import io
import logging
import re
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from service.ops import logs

ROOT = Path(__file__).resolve().parents[2]
TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture
def emit():
    """A logger of its own whose records go through a formatter into a string."""
    made: list[logging.Logger] = []

    def emit(formatter: logging.Formatter, name: str = "teahouse.test.logs") -> tuple[logging.Logger, io.StringIO]:
        out = io.StringIO()
        handler = logging.StreamHandler(out)
        handler.setFormatter(formatter)
        logger = logging.getLogger(name)
        logger.handlers, logger.propagate = [handler], False
        logger.setLevel(logging.DEBUG)
        made.append(logger)
        return logger, out

    yield emit
    for logger in made:
        logger.handlers, logger.propagate = [], True
        logger.setLevel(logging.NOTSET)


def lines(out: io.StringIO) -> list[str]:
    return out.getvalue().splitlines()


def log_failure(logger: logging.Logger, exc: Exception, msg: str) -> None:
    """`logger.exception(msg)` while `exc` is being handled, as a failing caller logs it."""
    try:
        raise exc
    except Exception:
        logger.exception(msg)


def test_a_json_line_has_the_documented_fields(emit):
    logger, out = emit(logs.JsonFormatter())
    before = time.time()
    logger.warning("seat %d of %s left", 2, "m1", extra={"method": "GET", "status": 200, "ms": 1.5})
    (line,) = lines(out)
    doc = orjson.loads(line)
    assert doc["level"] == "warning" and doc["logger"] == "teahouse.test.logs"
    assert doc["msg"] == "seat 2 of m1 left"
    assert (doc["method"], doc["status"], doc["ms"]) == ("GET", 200, 1.5)
    assert TS.match(doc["ts"]), doc["ts"]
    when = calendar.timegm(time.strptime(doc["ts"][:19], "%Y-%m-%dT%H:%M:%S"))  # read as UTC
    assert int(before) - 1 <= when <= time.time() + 1
    assert "exc" not in doc


def test_a_traceback_is_the_exc_field_of_the_same_line(emit):
    logger, out = emit(logs.JsonFormatter())
    log_failure(logger, ValueError("the store said no"), "append failed")
    (line,) = lines(out)
    doc = orjson.loads(line)
    assert doc["level"] == "error" and doc["msg"] == "append failed"
    assert "Traceback" in doc["exc"] and "ValueError: the store said no" in doc["exc"]


def test_a_field_json_cannot_hold_is_written_as_text(emit):
    logger, out = emit(logs.JsonFormatter())
    logger.warning("odd", extra={"where": Path("/var/lib/teahouse"), "seats": {1, 2}})
    doc = orjson.loads(lines(out)[0])
    assert doc["where"] == "/var/lib/teahouse" and isinstance(doc["seats"], str)


def test_a_message_with_newlines_stays_one_json_line(emit):
    logger, out = emit(logs.JsonFormatter())
    logger.warning("first\nsecond\r\nthird")
    (line,) = lines(out)
    assert orjson.loads(line)["msg"] == "first\nsecond\r\nthird"


async def test_each_task_logs_the_match_it_works_for(emit):
    logger, out = emit(logs.JsonFormatter())

    async def work(match: str | None) -> None:
        logs.MATCH.set(match)
        for _ in range(3):
            logger.warning("tick")
            await asyncio.sleep(0)

    await asyncio.gather(work("aaaaaaaaaaaa"), work("bbbbbbbbbbbb"), work(None))
    docs = [orjson.loads(line) for line in lines(out)]
    assert sorted(d.get("match", "-") for d in docs) == ["-"] * 3 + ["aaaaaaaaaaaa"] * 3 + ["bbbbbbbbbbbb"] * 3


def test_a_text_line_says_time_level_logger_message_and_fields(emit):
    logger, out = emit(logs.TextFormatter())
    token = logs.MATCH.set("Xq3vN8kPz2Lm")
    try:
        logger.warning("slow commit", extra={"ms": 12.5})
    finally:
        logs.MATCH.reset(token)
    (line,) = lines(out)
    assert re.match(r"^\d\d:\d\d:\d\d warning +teahouse\.test\.logs: slow commit  \[.*\]$", line), line
    assert "match=Xq3vN8kPz2Lm" in line and "ms=12.5" in line


def test_a_text_traceback_follows_its_line(emit):
    logger, out = emit(logs.TextFormatter())
    log_failure(logger, KeyError("seat"), "failed")
    first, *rest = lines(out)
    assert first.endswith("failed") and "Traceback" in rest[0] and "KeyError" in rest[-1]


def test_json_is_the_default_when_stderr_is_not_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert logs.default_format() == "json"


# -- the node's configuration, applied in a process of its own ---------------------------------

SCRIPT = """
import logging, logging.config, sys
from service.ops import logs
fmt, level, access = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
logging.config.dictConfig(logs.config(fmt, level, access))
logs.set_node("n0de1d")
logging.getLogger("teahouse.access").info("GET / 200", extra={"method": "GET", "path": "/", "status": 200})
logging.getLogger("uvicorn.access").info("uvicorn's own access line")
logging.getLogger("teahouse.lobby").info("an info line")
logging.getLogger("teahouse.lobby").warning("a warning line")
logging.getLogger("uvicorn.error").warning("uvicorn warns")
logging.getLogger("some.library").warning("a library warns")
"""


def run_node(fmt: str, level: str, access: bool) -> list[str]:
    done = subprocess.run([sys.executable, "-c", SCRIPT, fmt, level, "1" if access else "0"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    return done.stderr.splitlines()


def test_the_node_logs_json_lines_with_its_node_id_at_warning_with_the_access_log():
    docs = [orjson.loads(line) for line in run_node("json", "warning", True)]
    assert [d["msg"] for d in docs] == ["GET / 200", "a warning line", "uvicorn warns", "a library warns"]
    assert all(d["node"] == "n0de1d" for d in docs)
    assert docs[0]["logger"] == "teahouse.access" and docs[0]["status"] == 200


def test_no_access_log_turns_the_access_lines_off():
    docs = [orjson.loads(line) for line in run_node("json", "warning", False)]
    assert [d["msg"] for d in docs] == ["a warning line", "uvicorn warns", "a library warns"]


def test_the_log_level_sets_everything_else():
    docs = [orjson.loads(line) for line in run_node("json", "info", True)]
    msgs = [d["msg"] for d in docs]
    assert "an info line" in msgs and "uvicorn's own access line" not in msgs


def test_the_text_format_writes_text_lines():
    out = run_node("text", "warning", True)
    assert len(out) == 4
    assert all(not line.startswith("{") for line in out)
    assert "teahouse.access: GET / 200" in out[0] and "node=n0de1d" in out[0]
