"""The fast datetime packing builds exactly the driver's Bolt structures, and values round-trip."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
import pytz
from neo4j.time import DateTime

from app.stores import bolt_datetimes

VALUES = [
    datetime(2024, 5, 15, 10, 0, tzinfo=UTC),
    datetime(2024, 5, 15, 10, 0, 0, 123456, tzinfo=UTC),
    datetime(2024, 5, 15, 18, 0, tzinfo=timezone(timedelta(hours=8))),
    datetime(2024, 5, 15, 4, 30, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
    datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(1900, 1, 1, tzinfo=timezone(timedelta(hours=1))),
    datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC),
    datetime(2024, 5, 15, 10, 0, 0, 5),  # naive: read as UTC
    # A named zone goes the driver's own way (zoneinfo values are not used: with them the driver's
    # conversion recursed until it crashed the interpreter, in its own code).
    pytz.timezone("Europe/Berlin").localize(datetime(2024, 3, 31, 3, 30)),
]


@pytest.mark.parametrize("value", VALUES, ids=str)
def test_same_structure_as_the_driver(value: datetime) -> None:
    assert bolt_datetimes.dehydrate_datetime(value) == bolt_datetimes._driver_dehydrate(value)


def test_the_driver_own_datetime_is_left_to_the_driver() -> None:
    value = DateTime(2024, 5, 15, 10, 0, 0, tzinfo=UTC)
    assert bolt_datetimes.dehydrate_datetime(value) == bolt_datetimes._driver_dehydrate(value)


@pytest.mark.parametrize("offset", [timedelta(seconds=30), timedelta(minutes=1, microseconds=5)], ids=str)
def test_offsets_the_driver_refuses_are_refused(offset: timedelta) -> None:
    odd = datetime(2024, 5, 15, tzinfo=timezone(offset))
    with pytest.raises(ValueError):
        bolt_datetimes._driver_dehydrate(odd)
    with pytest.raises(ValueError):
        bolt_datetimes.dehydrate_datetime(odd)


def test_values_round_trip_through_neo4j(runtime) -> None:  # type: ignore[no-untyped-def]
    # Test-only Cypher; the product's queries live in cypher/.
    for value in VALUES[:-2]:
        records, _, _ = runtime.graph.driver.execute_query(
            "RETURN $value AS value, toString($value) AS text", {"value": value}
        )
        assert records[0]["value"].to_native() == value
        assert datetime.fromisoformat(records[0]["text"].replace("Z", "+00:00")) == value
