"""Derived tags: computed when a node is read, never stored.

Temperature is the node's stored activation put in three bands, the one definition the node view,
the namespace overview's counts (`cypher/namespace.cypher` counts_by_type, given `temperature_bounds()`)
and the memory explorer's colours share. The stored activation is what the decay job (every 15 min)
and each access last wrote: `app/domain/decay.py`.

`time_scope` takes timezone-aware datetimes only; a naive one raises ValueError naming the argument.
A timestamp later than `now` (clock skew between writers) counts as age zero: RECENT.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from app.domain.decay import SOFT_FORGET_THRESHOLD, accessed

# HOT from what an access leaves even the coldest node with (halfway to 1): a node at or above it
# was recalled or written within about one half-life of its importance.
HOT_ACTIVATION = accessed(0.0)
# COLD below the soft-forget line: the decay job has taken it off recall's graph paths.
COLD_BELOW = SOFT_FORGET_THRESHOLD
RECENT_WINDOW = timedelta(minutes=30)


class Temperature(StrEnum):
    HOT = "HOT"
    WARM = "WARM"
    COLD = "COLD"


class TimeScope(StrEnum):
    RECENT = "RECENT"
    NON_RECENT = "NON_RECENT"


def temperature(activation: float | None) -> Temperature:
    """HOT at or above HOT_ACTIVATION (0.5), COLD below COLD_BELOW (the soft-forget threshold, 0.05)
    or without an activation, else WARM."""
    if activation is None or activation < COLD_BELOW:
        return Temperature.COLD
    return Temperature.HOT if activation >= HOT_ACTIVATION else Temperature.WARM


def temperature_bounds() -> dict[str, float]:
    """The bands as query parameters (`$hot`, `$cold`) of the Cypher that counts them."""
    return {"hot": HOT_ACTIVATION, "cold": COLD_BELOW}


def time_scope(created_at: datetime, now: datetime, recent_window: timedelta = RECENT_WINDOW) -> TimeScope:
    """RECENT when created within `recent_window` of `now` (inclusive), else NON_RECENT."""
    _require_aware(created_at, "created_at")
    _require_aware(now, "now")
    return TimeScope.RECENT if now - created_at <= recent_window else TimeScope.NON_RECENT


def _require_aware(value: datetime, name: str) -> None:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be a timezone-aware datetime, got naive {value.isoformat()}")
