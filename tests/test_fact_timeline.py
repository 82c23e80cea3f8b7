"""Where a statement falls in a fact key's timeline (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.memory.fact_plan import Version, version_at

VERSIONS = [
    Version("a", "model y", datetime(2024, 5, 1, tzinfo=UTC)),
    Version("b", "tesla", datetime(2024, 6, 1, tzinfo=UTC)),
    Version("c", "rivian", datetime(2024, 8, 1, tzinfo=UTC)),
]


@pytest.mark.parametrize(
    ("at", "index"),
    [
        (datetime(2024, 4, 30, tzinfo=UTC), -1),  # before every version
        (datetime(2024, 5, 1, tzinfo=UTC), 0),  # a version begins at its own time
        (datetime(2024, 7, 1, tzinfo=UTC), 1),
        (datetime(2024, 8, 1, tzinfo=UTC), 2),
        (datetime(2025, 1, 1, tzinfo=UTC), 2),  # the one in force
    ],
)
def test_the_version_in_force_at_a_time(at: datetime, index: int) -> None:
    assert version_at(VERSIONS, at) == index


def test_no_versions() -> None:
    assert version_at([], datetime(2024, 1, 1, tzinfo=UTC)) == -1
