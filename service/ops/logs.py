"""The node's logs: one line per record, JSON (for log shippers) or text (for a terminal).

`teahouse serve --log-format json|text` chooses; the default is json unless stderr is a
terminal. A JSON line is one object: `ts`, `level`, `logger`, `msg`, and where known `node`
(this process's node id, as in presence) and `match`, plus a record's own fields (an access
line's `method`, `path`, `status`, `ms`; a store outage's `event`). A traceback, when there is
one, is the `exc` field of the same line, never lines of its own.
"""

from __future__ import annotations

import contextvars
import logging
import sys
import time
from typing import Any

import orjson

# The match a task is working for: set by the runtime's tasks and per client frame, read by
# every line logged meanwhile (a contextvar: each asyncio task has its own).
MATCH: contextvars.ContextVar[str | None] = contextvars.ContextVar("teahouse_match", default=None)
_node: str | None = None

# LogRecord's own attributes: anything else on a record came from `extra=` and is a field.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


def set_node(node: str) -> None:
    global _node
    _node = node


def _context(record: logging.LogRecord) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if _node is not None:
        out["node"] = _node
    match = MATCH.get()
    if match is not None:
        out["match"] = match
    for key, value in vars(record).items():
        if key not in _STANDARD and not key.startswith("_"):
            out[key] = value
    return out


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(), "logger": record.name, "msg": record.getMessage(),
            **_context(record),
        }
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        fields = " ".join(f"{k}={v}" for k, v in _context(record).items())
        when = time.strftime("%H:%M:%S", time.localtime(record.created))
        text = f"{when} {record.levelname.lower():7} {record.name}: {record.getMessage()}" + (f"  [{fields}]" if fields else "")
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def default_format() -> str:
    return "text" if sys.stderr.isatty() else "json"


def config(fmt: str, level: str = "warning", access_log: bool = True) -> dict[str, Any]:
    """A logging.config dict for the node, given to uvicorn too (its worker processes apply it)."""
    formatter = "service.ops.logs.JsonFormatter" if fmt == "json" else "service.ops.logs.TextFormatter"
    lvl = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"line": {"()": formatter}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "line", "stream": "ext://sys.stderr"}},
        "root": {"handlers": ["stderr"], "level": lvl},
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": lvl, "propagate": False},
            "uvicorn.error": {"level": lvl},
            "uvicorn.access": {"handlers": [], "level": "CRITICAL", "propagate": False},  # ours: teahouse.access
            "teahouse": {"level": lvl},
            "teahouse.access": {"level": "INFO" if access_log else "CRITICAL"},
            "teahouse.serve": {"level": "INFO"},  # the line that says where the node listens
        },
    }
