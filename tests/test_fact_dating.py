"""Dating a stated fact by the time expression of its own clause (app/extract/dating.py): pure, exact."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from app.extract.dating import date_facts
from app.extract.facts import extract_facts
from app.extract.timeexpr import find_time_expressions
from app.extract.types import FactMention, Granularity, TimeMention

UTC = UTC
BEIJING = timezone(timedelta(hours=8))
README_TURN_AT = datetime(2024, 5, 15, 10, 0, tzinfo=UTC)  # a Wednesday: last Friday is 2024-05-10


Row = tuple[str, str, str | None]  # slot, value, the day of event_time or None


def dated(text: str, speaker: str, at: datetime) -> list[Row]:
    """(slot, value, day of event_time or None) for each fact of `text`, as the write path dates them."""
    facts = date_facts(text, extract_facts(text, speaker), find_time_expressions(text, at))
    return [(f.slot, f.value, f.event_time.date().isoformat() if f.event_time else None) for f in facts]


def test_the_readme_turn_dates_the_trip_and_not_the_car() -> None:
    assert dated("My car is a Model Y. I went to Paris last Friday.", "Alice", README_TURN_AT) == [
        ("car", "Model Y", None),
        ("trip_to", "Paris", "2024-05-10"),
    ]


def test_the_readme_chinese_turn_dates_only_its_clause_with_a_time() -> None:
    at = datetime(2024, 5, 15, 10, 1, tzinfo=UTC)
    assert dated("我住在北京，下周三去上海。", "王伟", at) == [
        ("lives_in", "北京", None),
        ("trip_to", "上海", "2024-05-22"),
    ]


def test_a_chinese_sentence_without_a_time_is_not_dated_by_the_next_one() -> None:
    at = datetime(2024, 5, 15, 18, 0, tzinfo=BEIJING)
    assert dated("我住在北京。我上周五去了上海。", "小林", at) == [
        ("lives_in", "北京", None),
        ("trip_to", "上海", "2024-05-10"),
    ]
    text = "我上周五去了上海。"
    (trip,) = date_facts(text, extract_facts(text, "小林"), find_time_expressions(text, at))
    assert trip.event_time == datetime(2024, 5, 10, tzinfo=BEIJING)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I moved to Berlin last May.", [("moved_to", "Berlin", "2023-05-01")]),
        ("I live in Berlin and I went to Paris last Friday.",
         [("lives_in", "Berlin", None), ("trip_to", "Paris", "2024-05-10")]),
        ("I went to Paris last Friday. My car is a Model Y.",
         [("trip_to", "Paris", "2024-05-10"), ("car", "Model Y", None)]),
        ("我去年搬到了上海，现在在腾讯工作。", [("moved_to", "上海", "2023-01-01"), ("works_at", "腾讯", None)]),
    ],
)  # fmt: skip
def test_a_time_expression_dates_the_clause_it_belongs_to(text: str, expected: list[Row]) -> None:
    assert dated(text, "Alice", README_TURN_AT) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Last May, I moved to Berlin.", [("moved_to", "Berlin", "2023-05-01")]),
        ("On May 5, 2024 I moved to Berlin.", [("moved_to", "Berlin", "2024-05-05")]),  # the comma cuts the date
        ("上周五，我去了上海。", [("trip_to", "上海", "2024-05-10")]),
        ("Yesterday, I moved to Lyon. I work at Acme.",
         [("moved_to", "Lyon", "2024-05-14"), ("works_at", "Acme", None)]),
    ],
)  # fmt: skip
def test_a_clause_that_is_only_a_time_dates_its_sentence(text: str, expected: list[Row]) -> None:
    assert dated(text, "Alice", README_TURN_AT) == expected


def test_a_clause_with_more_than_a_time_lends_it_to_no_other_clause() -> None:
    # "He proposed last weekend" is a statement of its own, not a time for the next clause.
    at = datetime(2025, 2, 9, 13, 0, tzinfo=UTC)
    assert dated("He proposed last weekend, so I guess my fiancé is Noah now!", "Hannah", at) == [
        ("partner", "Noah", None)
    ]
    assert dated("Yes, sold it two weeks ago. I'm driving a Tesla Model 3 now.", "Maya", at) == [
        ("car", "Tesla Model 3", None)
    ]


def test_a_time_that_is_the_value_dates_nothing() -> None:
    assert dated("My birthday is March 3rd.", "Ben", README_TURN_AT) == [("birthday", "March 3rd", None)]


def fact(span: tuple[int, int], value: str = "x", event_time: datetime | None = None) -> FactMention:
    return FactMention("Ann", "lives_in", value, 0.9, span, event_time=event_time)


def time_at(span: tuple[int, int], day: int) -> TimeMention:
    start = datetime(2024, 5, day, tzinfo=UTC)
    return TimeMention(f"day {day}", span, start, start + timedelta(days=1), Granularity.DAY)


def test_the_first_time_of_the_clause_wins_and_a_given_date_is_kept() -> None:
    text = "I lived in Rome from May 1 to May 3."  # one clause, two expressions
    kept = datetime(2020, 1, 1, tzinfo=UTC)
    facts = [fact((0, 20)), fact((0, 20), event_time=kept)]
    first, second = date_facts(text, facts, [time_at((29, 34), 3), time_at((20, 25), 1)])
    assert first.event_time == datetime(2024, 5, 1, tzinfo=UTC)
    assert second.event_time == kept


def test_two_time_clauses_in_a_sentence_date_nothing_else() -> None:
    text = "Monday, Tuesday, I live in Rome."
    (undated,) = date_facts(text, [fact((17, 31))], [time_at((0, 6), 6), time_at((8, 15), 7)])
    assert undated.event_time is None
    assert date_facts(text, [], [time_at((0, 6), 6)]) == []
    assert date_facts(text, [fact((17, 31))], []) == [fact((17, 31))]
    assert date_facts(text, [replace(fact((17, 31)), span=(99, 100))], [time_at((0, 6), 6)])[0].event_time is None
