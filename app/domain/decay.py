"""Ebbinghaus decay, computed from stored anchors so it never compounds.

A node stores `activation_base` (a0: its activation at the last access or reinforcement) and
`last_accessed` (when that was). Its activation at any time is a pure function of those two values,
so running the decay job twice, or late, gives the same result. `cypher/forgetting.cypher` computes
the same formula in the database; tests check the two agree.
"""

from __future__ import annotations

import math
from datetime import datetime

from app.domain.model import LN2, Importance

# Below this a node is soft-forgotten: it leaves the hot path but keeps its vector.
SOFT_FORGET_THRESHOLD = 0.05
# An access moves activation this share of the way to 1 (so a soft-forgotten node wakes up).
ACCESS_BOOST = 0.5
# Activation of a newly written memory.
INITIAL_ACTIVATION = 1.0
# Learned edges decay like nodes, with one half-life of their own (a week).
EDGE_HALF_LIFE_HOURS = 168.0
# Learned edges whose weight falls below this are removed by the prune job.
EDGE_WEIGHT_FLOOR = 0.05


def hours_between(earlier: datetime, later: datetime) -> float:
    """Hours from `earlier` to `later`, never negative (a clock behind the anchor means no decay)."""
    return max(0.0, (later - earlier).total_seconds() / 3600.0)


def decayed(a0: float, hours: float, half_life_hours: float | None) -> float:
    """a0 · exp(−Δh · ln 2 / half-life); no half-life means no decay."""
    if half_life_hours is None:
        return a0
    return a0 * math.exp(-max(0.0, hours) * LN2 / half_life_hours)


def node_activation(a0: float, anchor: datetime, now: datetime, importance: Importance) -> float:
    return decayed(a0, hours_between(anchor, now), importance.half_life_hours)


def accessed(current_activation: float) -> float:
    """The new anchor activation after an access."""
    return min(1.0, current_activation + ACCESS_BOOST * (1.0 - current_activation))


def soft_forgotten(activation: float, threshold: float = SOFT_FORGET_THRESHOLD) -> bool:
    return activation < threshold


def projected_activations(
    a0: float, anchor: datetime, now: datetime, importance: Importance, days: int, points_per_day: int = 4
) -> list[tuple[float, float]]:
    """(hours from now, activation) over the next `days` if nothing accesses the node: what the
    memory explorer draws against the soft-forget line."""
    steps = days * points_per_day
    since_anchor = hours_between(anchor, now)
    return [
        (h, decayed(a0, since_anchor + h, importance.half_life_hours))
        for h in (step * 24.0 / points_per_day for step in range(steps + 1))
    ]
