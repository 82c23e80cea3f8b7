"""Derived tags: temperature from the last access, time scope from the creation time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest

from app.domain.tags import Temperature, TimeScope, temperature, temperature_bounds, time_scope

NOW = datetime(2026, 5, 20, 12, 0, 0, tzinfo=UTC)
TICK = timedelta(microseconds=1)
HOUR = timedelta(hours=1)
DAY = timedelta(hours=24)


@pytest.mark.parametrize(
    ("age", "expected"),
    [
        (-HOUR, Temperature.HOT),  # clock skew: accessed "after" now
        (timedelta(0), Temperature.HOT),
        (HOUR - TICK, Temperature.HOT),
        (HOUR, Temperature.HOT),
        (HOUR + TICK, Temperature.WARM),
        (DAY - TICK, Temperature.WARM),
        (DAY, Temperature.WARM),
        (DAY + TICK, Temperature.COLD),
        (timedelta(days=400), Temperature.COLD),
    ],
)
def test_temperature_boundaries(age: timedelta, expected: Temperature) -> None:
    assert temperature(NOW - age, NOW) == expected


def test_temperature_never_accessed_is_cold() -> None:
    assert temperature(None, NOW) == Temperature.COLD


def test_temperature_compares_instants_across_time_zones() -> None:
    # 12:30 at UTC+8 is 04:30 UTC: 7.5 h before NOW, so WARM, though the wall clock reads later.
    beijing = datetime(2026, 5, 20, 12, 30, tzinfo=timezone(timedelta(hours=8)))
    assert temperature(beijing, NOW) == Temperature.WARM
    assert temperature(NOW.astimezone(timezone(timedelta(hours=-5))), NOW) == Temperature.HOT


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
        (lambda: temperature(NAIVE, NOW), "last_accessed"),
        (lambda: temperature(NOW, NAIVE), "now"),
        (lambda: temperature(None, NAIVE), "now"),
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


def test_temperature_bounds_are_the_bands_as_query_parameters() -> None:
    bounds = temperature_bounds(NOW)
    assert bounds == {"hot_since": NOW - HOUR, "warm_since": NOW - DAY}
    # The Cypher counts HOT from `hot_since` inclusive, as `temperature` does at an age of exactly 1 h.
    assert temperature(bounds["hot_since"], NOW) == Temperature.HOT
    assert temperature(bounds["warm_since"], NOW) == Temperature.WARM
    assert temperature(bounds["warm_since"] - TICK, NOW) == Temperature.COLD
