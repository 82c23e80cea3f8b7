"""The time a recall query asks about, as a question reads it: its time expressions
(`app/extract/timeexpr.find_time_expressions`) with two readings that a turn's dating does not need.
Pure functions (tests/test_time_expressions.py).

- Seasons with a year ("去年夏天", "2023年冬天", "今年春季", "last summer", "this winter", "in the summer
  of 2022", "spring 2023"): the meteorological season of the northern hemisphere (spring March-May,
  summer June-August, autumn September-November, winter December-February) of that year, narrower
  than the year alone; "last" the latest one that ended before the reference day, "next" the first
  one that starts after it, "this" the one of the reference's year. A season without a year is no
  window ("夏天", "这个夏天", "during the summer", "summer camp"): three months of events seeded by time
  outranked the answer (LoCoMo dev in Chinese lost "Caroline夏天什么时候参加过骄傲游行？" and
  "Caroline这个夏天有什么计划？" with them).
- Before and after: an expression followed by 前, 之前, 以前 (后, 之后, 以后) or preceded by "before"
  ("after") asks about the time just before (after) it, not the time itself: "春节前他买了什么" is
  answered by what was said in the weeks before the Spring Festival, which its day alone put last.
  The window is as long as the expression's own, at least 30 days, and ends where the expression
  starts (starts where it ends).

The spans returned cover what the window's words are (a season, a qualifier), so that the query's
full-text terms leave them out as they leave out the other time words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from app.extract.timeexpr import find_time_expressions, window_of
from app.extract.types import Granularity, TimeMention

# the first month of each season
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "winter": 12}
_ZH_SEASONS = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
_EN_SEASONS = {"spring": "spring", "summer": "summer", "autumn": "autumn", "fall": "autumn", "winter": "winter"}
_MODIFIERS = {"last": -1, "this": 0, "next": 1}
_ZH_SEASON = re.compile(r"(?P<season>[春夏秋冬])(?:天|季)(?![气])")
_EN_SEASON = re.compile(
    r"\b(?:(?P<mod>last|this|next)\s+|(?:in|during|over)\s+the\s+|(?:in|during|over)\s+)?"
    r"(?P<season>spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?(?P<year>(?:19|20)\d\d))?\b",
    re.IGNORECASE,
)
# not 前后 (around), 后来 (later), 后面
_ZH_BEFORE = re.compile(r"\s*(?:之前|以前|前(?!后))")
_ZH_AFTER = re.compile(r"\s*(?:之后|以后|后(?![来面边天]))")
_EN_QUALIFIER = re.compile(r"\b(?P<word>before|after)\s+$", re.IGNORECASE)
MIN_SPAN = timedelta(days=30)


@dataclass(frozen=True)
class QuestionTime:
    window: tuple[datetime, datetime] | None  # [start, end), the union of what the query names
    spans: tuple[tuple[int, int], ...]  # where the query says it (time words, seasons, qualifiers)


def question_time(text: str, now: datetime) -> QuestionTime:
    """The window a query asks about and the spans of its time words (see the module's doc)."""
    mentions = find_time_expressions(text, now)
    windows: list[tuple[datetime, datetime]] = []
    spans: list[tuple[int, int]] = []
    used: set[int] = set()  # mentions a season took as its year
    for season, (start, end), year_mention in _seasons(text, now, mentions):
        if year_mention is not None:
            used.add(year_mention)
        windows.append(season)
        spans.append((start, end))
    for index, mention in enumerate(mentions):
        if index in used:
            continue
        window = _as_day_window(mention)
        windows.append(window)
        spans.append(mention.span)
    qualified = [_qualified(text, window, span) for window, span in zip(windows, spans, strict=True)]
    if not qualified:
        return QuestionTime(None, ())
    return QuestionTime(
        (min(window[0] for window, _ in qualified), max(window[1] for window, _ in qualified)),
        tuple(sorted(span for _, span in qualified)),
    )


def _as_day_window(mention: TimeMention) -> tuple[datetime, datetime]:
    """A mention's window; an instant counts as its whole day (`window_of`)."""
    window = window_of([mention])
    assert window is not None
    return window


def _seasons(
    text: str, now: datetime, mentions: list[TimeMention]
) -> list[tuple[tuple[datetime, datetime], tuple[int, int], int | None]]:
    """Each season the text names: its window, its span (with its year when a year mention stands
    right before it) and the index of that year mention."""
    found: list[tuple[tuple[datetime, datetime], tuple[int, int], int | None]] = []
    today = now.date()
    for m in _ZH_SEASON.finditer(text):
        season = _ZH_SEASONS[m["season"]]
        start = m.start()
        year_index = next(
            (i for i, t in enumerate(mentions) if t.span[1] == start and t.granularity is Granularity.YEAR), None
        )
        if year_index is None:
            continue
        year = mentions[year_index].start.year
        start = mentions[year_index].span[0]
        found.append((_window(_season_start(year, season), now), (start, m.end()), year_index))
    for m in _EN_SEASON.finditer(text):
        word = m["season"]
        season = _EN_SEASONS[word.lower()]
        if m["year"]:
            first = _season_start(int(m["year"]), season)
        elif m["mod"]:
            first = _modified(today, season, _MODIFIERS[m["mod"].lower()])
        else:
            continue
        found.append((_window(first, now), m.span(), None))
    return found


def _season_start(year: int, season: str) -> date:
    return date(year, _SEASON_START[season], 1)


def _season_end(first: date) -> date:
    month = first.month + 3
    return date(first.year + (month > 12), (month - 1) % 12 + 1, 1)


def _modified(today: date, season: str, offset: int) -> date:
    if offset == 0:
        return _season_start(today.year, season)
    if offset < 0:  # the latest one that ended before today
        first = _season_start(today.year, season)
        return first if _season_end(first) <= today else _season_start(today.year - 1, season)
    first = _season_start(today.year, season)  # the first one that starts after today
    return first if first > today else _season_start(today.year + 1, season)


def _window(first: date, now: datetime) -> tuple[datetime, datetime]:
    tz = now.tzinfo
    return datetime.combine(first, time(), tzinfo=tz), datetime.combine(_season_end(first), time(), tzinfo=tz)


def _qualified(
    text: str, window: tuple[datetime, datetime], span: tuple[int, int]
) -> tuple[tuple[datetime, datetime], tuple[int, int]]:
    """The window just before or after the expression when a qualifier says so, with the span
    widened over the qualifier; else both as they are."""
    start, end = window
    length = max(end - start, MIN_SPAN)
    before = _ZH_BEFORE.match(text, span[1])
    after = _ZH_AFTER.match(text, span[1])
    english = _EN_QUALIFIER.search(text, 0, span[0])
    if before:
        return (start - length, start), (span[0], before.end())
    if after:
        return (end, end + length), (span[0], after.end())
    if english and english["word"].lower() == "before":
        return (start - length, start), (english.start(), span[1])
    if english:
        return (end, end + length), (english.start(), span[1])
    return window, span
