"""Fast packing of `datetime` query parameters for the Neo4j driver.

The driver packs a Python `datetime` by converting it to its own pure-Python `neo4j.time.DateTime`
and back to epoch seconds: ~93 us per value, measured. The write path sends ~27 datetimes per turn
(created/updated/accessed times of each node and relationship, turn and event times), so packing them
took ~1.3 s of every 500-turn batch, a fifth of the ingest time. The same Bolt structures computed
with native `timedelta` arithmetic take ~0.5 us.

`install()` replaces the driver's datetime dehydration function with one that computes the same
structure itself for the common cases (no time zone, or a fixed UTC offset in whole minutes: what this project sends)
and hands every other value (named zones, the driver's own DateTime) to the driver's function.
The driver version is pinned (constraints.txt) and `tests/test_bolt_datetimes.py` checks the result
against the driver's own function, so a driver that changes these internals fails the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timezone
from typing import Any

from neo4j._codec.hydration.bolt.v2 import temporal as _temporal

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_driver_dehydrate: Callable[[Any], Any] = _temporal.dehydrate_datetime


def dehydrate_datetime(value: Any) -> Any:
    """The Bolt structure of `value`, as the driver's function builds it (see the module doc)."""
    if type(value) is datetime:
        tz = value.tzinfo
        if tz is None:  # the driver reads a naive datetime as UTC and sends it without a zone
            seconds, nanoseconds = _epoch_parts(value.replace(tzinfo=UTC))
            return _temporal.Structure(b"d", seconds, nanoseconds)
        if type(tz) is timezone:
            offset = tz.utcoffset(None)
            if not offset.microseconds and not offset.seconds % 60:  # else the driver refuses it
                seconds, nanoseconds = _epoch_parts(value)
                return _temporal.Structure(b"I", seconds, nanoseconds, offset.days * 86400 + offset.seconds)
    return _driver_dehydrate(value)


def _epoch_parts(value: datetime) -> tuple[int, int]:
    delta = value - _EPOCH  # exact: whole days, seconds in [0, 86400), microseconds in [0, 10**6)
    return delta.days * 86400 + delta.seconds, delta.microseconds * 1000


def install() -> None:
    """Use `dehydrate_datetime` for every driver connection made from now on (idempotent)."""
    _temporal.dehydrate_datetime = dehydrate_datetime
