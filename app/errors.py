"""The one base of the app's own exceptions, and the one "an engine is down" error.

Imports nothing from `app`, so every layer (the pure domain included) may derive from it. The API maps
each kind to one HTTP status (`app/api/errors.py`): `EngineUnavailable` answers 503 with
`Retry-After`, and the Celery tasks retry on it (`jobs/celery_tasks.py`).

Layers of one concept (one file name): `app/errors.py` (engine errors any layer raises);
`app/memory/errors.py` (the memory operations' errors); `app/operations/errors.py` (`ApiError` and
the one error body); `app/api/errors.py` (the handlers answering every error in that shape)."""

from __future__ import annotations

from typing import Literal

Engine = Literal["neo4j", "redis", "vectors"]


class HippographError(Exception):
    """Base of every exception the app raises on purpose (bad input, missing node, engine down...)."""


class EngineUnavailable(HippographError):
    """An engine cannot be reached or cannot serve right now (down, restarting, connection lost or
    timed out). Raised by the stores as `raise EngineUnavailable(...) from driver_error`; the same
    request can succeed once the engine is back."""

    def __init__(self, engine: Engine, reason: str) -> None:
        # args = (engine, reason): pickle and Celery's exception serializer rebuild it with cls(*args).
        super().__init__(engine, reason)
        self.engine: Engine = engine
        self.reason = reason

    @classmethod
    def wrapping(cls, engine: Engine, error: BaseException) -> EngineUnavailable:
        """For `raise EngineUnavailable.wrapping("neo4j", exc) from exc`: the reason names the driver's
        error class and the first line of its message."""
        return cls(engine, short_reason(error))

    def __str__(self) -> str:
        return f"{self.engine} unavailable: {self.reason}"


def short_reason(error: BaseException) -> str:
    """`ErrorClass: first line of the message`, at most 200 characters."""
    lines = str(error).strip().splitlines()
    text = lines[0] if lines else ""
    return f"{type(error).__name__}: {text}"[:200] if text else type(error).__name__
