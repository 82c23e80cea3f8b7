"""Derived tags: temperature from the activation, time scope from the creation time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from app.domain.decay import SOFT_FORGET_THRESHOLD, accessed, soft_forgotten
from app.domain.tags import (
    COLD_BELOW,
    HOT_ACTIVATION,
    Temperature,
    TimeScope,
    temperature,
    temperature_bounds,
    time_scope,
)

NOW = datetime(2026, 5, 20, 12, 0, 0, tzinfo=UTC)
TICK = timedelta(microseconds=1)
HOUR = timedelta(hours=1)
DAY = timedelta(hours=24)


@pytest.mark.parametrize(
    ("activation", "expected"),
    [
        (1.0, Temperature.HOT),
        (0.5, Temperature.HOT),  # what an access leaves the coldest node with
        (0.5 - 1e-12, Temperature.WARM),
        (0.05, Temperature.WARM),  # the soft-forget threshold itself is not forgotten
        (0.05 - 1e-12, Temperature.COLD),
        (0.0, Temperature.COLD),
        (None, Temperature.COLD),
    ],
)
def test_temperature_bands_of_the_activation(activation: float | None, expected: Temperature) -> None:
    assert temperature(activation) == expected


def test_temperature_bands_are_the_access_boost_and_the_soft_forget_line() -> None:
    assert (HOT_ACTIVATION, COLD_BELOW) == (accessed(0.0), SOFT_FORGET_THRESHOLD) == (0.5, 0.05)
    assert temperature_bounds() == {"hot": 0.5, "cold": 0.05}
    # A soft-forgotten node is COLD; one access makes it HOT.
    assert soft_forgotten(0.01) and temperature(0.01) == Temperature.COLD
    assert temperature(accessed(0.01)) == Temperature.HOT


@pytest.mark.parametrize(
    ("age", "expected"),
    [
        (-timedelta(minutes=5), TimeScope.RECENT),
        (timedelta(0), TimeScope.RECENT),
        (timedelta(minutes=30) - TICK, TimeScope.RECENT),
        (timedelta(minutes=30), TimeScope.RECENT),
        (timedelta(minutes=30) + TICK, TimeScope.NON_RECENT),
        (DAY, TimeScope.NON_RECENT),
    ],
)
def test_time_scope_default_window(age: timedelta, expected: TimeScope) -> None:
    assert time_scope(NOW - age, NOW) == expected


@pytest.mark.parametrize(
    ("age", "expected"),
    [
        (timedelta(minutes=5), TimeScope.RECENT),
        (timedelta(minutes=5) + TICK, TimeScope.NON_RECENT),
        (timedelta(minutes=31), TimeScope.NON_RECENT),
    ],
)
def test_time_scope_custom_window(age: timedelta, expected: TimeScope) -> None:
    assert time_scope(NOW - age, NOW, recent_window=timedelta(minutes=5)) == expected


def test_time_scope_wider_window_makes_older_nodes_recent() -> None:
    created = NOW - timedelta(minutes=45)
    assert time_scope(created, NOW) == TimeScope.NON_RECENT
    assert time_scope(created, NOW, recent_window=HOUR) == TimeScope.RECENT


NAIVE = datetime(2026, 5, 20, 12, 0, 0)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: time_scope(NAIVE, NOW), "created_at"),
        (lambda: time_scope(NOW, NAIVE), "now"),
    ],
)
def test_naive_datetimes_are_rejected_by_name(call: Callable[[], object], argument: str) -> None:
    with pytest.raises(ValueError, match=rf"^{argument} must be a timezone-aware datetime"):
        call()


def test_tag_values() -> None:
    assert [t.value for t in Temperature] == ["HOT", "WARM", "COLD"]
    assert [s.value for s in TimeScope] == ["RECENT", "NON_RECENT"]
