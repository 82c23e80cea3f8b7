"""Logs as JSON lines (one object per line: `ts`, `level`, `logger`, `message`, then the record's
fields), or plain text with `HIPPOGRAPH_LOG_FORMAT=text`.

Fields come from `extra=` only; callers pass ids, names, counts and timings, never texts, bodies or
keys. One line per request comes from `app/observability/middleware.py` (logger `hippograph.access`).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, Literal

LogFormat = Literal["json", "text"]
# Attributes every LogRecord has: anything else on a record came from `extra=`.
# uvicorn's `color_message` repeats the message with terminal colours.
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    "taskName",
    "color_message",
}
_MARK = "_hippograph_handler"  # the handler configure_logging installs (replaced, never duplicated)
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object per record; values JSON cannot hold are written as strings."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                line[key] = value
        if record.exc_info:
            line["exc_info"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack_info"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """The classic line, with the record's fields appended as key=value."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        fields = " ".join(
            f"{key}={value}"
            for key, value in record.__dict__.items()
            if key not in _STANDARD and not key.startswith("_") and value is not None
        )
        text = super().format(record)
        return f"{text} {fields}" if fields else text


def formatter(log_format: LogFormat) -> logging.Formatter:
    return JsonFormatter() if log_format == "json" else TextFormatter()


def configure_logging(log_format: LogFormat = "json", level: int | str = logging.INFO) -> None:
    """One stderr handler on the root logger (the API's and the worker's loggers propagate to it).
    Safe to call again: it replaces its own handler."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if getattr(h, _MARK, False)]:
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    setattr(handler, _MARK, True)
    root.addHandler(handler)
    root.setLevel(level)
