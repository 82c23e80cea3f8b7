"""`to_native`: what the Neo4j driver returns, as plain Python values (pure, no engine needed)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import neo4j.time

from app.stores.graph import to_native


def test_plain_values_and_containers_come_back_as_they_are() -> None:
    row = {"id": "n1", "score": 0.5, "count": 3, "ok": True, "none": None,
           "node": {"source_turn_ids": ["t1", "t2"], "summary": "x"}, "ids": [["a"], ["b"]]}  # fmt: skip
    assert to_native(row) is row
    assert to_native(row["ids"]) is row["ids"]


def test_neo4j_time_values_are_converted_wherever_they_are_and_the_input_is_not_changed() -> None:
    when = datetime(2024, 5, 6, 9, 30, tzinfo=UTC)
    day = date(2024, 5, 6)
    row = {
        "id": "n1",
        "times": {"valid_from": neo4j.time.DateTime.from_native(when), "label": "kept"},
        "days": ["plain", neo4j.time.Date.from_native(day)],
    }
    native = to_native(row)
    assert native == {"id": "n1", "times": {"valid_from": when, "label": "kept"}, "days": ["plain", day]}
    assert type(native["times"]["valid_from"]) is datetime and type(native["days"][1]) is date
    assert isinstance(row["times"]["valid_from"], neo4j.time.DateTime)  # copied, not changed in place
    assert isinstance(row["days"][1], neo4j.time.Date)
