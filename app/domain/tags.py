"""Derived tags: computed when a node is read, never stored.

Both functions take timezone-aware datetimes only; a naive one raises ValueError naming the argument.
A timestamp later than `now` (clock skew between writers) counts as age zero: HOT, RECENT.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

HOT_WITHIN = timedelta(hours=1)
WARM_WITHIN = timedelta(hours=24)
RECENT_WINDOW = timedelta(minutes=30)


class Temperature(StrEnum):
    HOT = "HOT"
    WARM = "WARM"
    COLD = "COLD"


class TimeScope(StrEnum):
    RECENT = "RECENT"
    NON_RECENT = "NON_RECENT"


def temperature(last_accessed: datetime | None, now: datetime) -> Temperature:
    """HOT when last accessed within 1 h (inclusive), WARM within 24 h (inclusive), else COLD."""
    _require_aware(now, "now")
    if last_accessed is None:
        return Temperature.COLD
    _require_aware(last_accessed, "last_accessed")
    age = now - last_accessed
    if age <= HOT_WITHIN:
        return Temperature.HOT
    if age <= WARM_WITHIN:
        return Temperature.WARM
    return Temperature.COLD


def temperature_bounds(now: datetime) -> dict[str, datetime]:
    """`temperature`'s bands as the parameters (`$hot_since`, `$warm_since`) of the Cypher that counts
    them for the namespace overview (`namespace.counts_by_type`): one definition for both."""
    _require_aware(now, "now")
    return {"hot_since": now - HOT_WITHIN, "warm_since": now - WARM_WITHIN}


def time_scope(created_at: datetime, now: datetime, recent_window: timedelta = RECENT_WINDOW) -> TimeScope:
    """RECENT when created within `recent_window` of `now` (inclusive), else NON_RECENT."""
    _require_aware(created_at, "created_at")
    _require_aware(now, "now")
    return TimeScope.RECENT if now - created_at <= recent_window else TimeScope.NON_RECENT


def _require_aware(value: datetime, name: str) -> None:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be a timezone-aware datetime, got naive {value.isoformat()}")
