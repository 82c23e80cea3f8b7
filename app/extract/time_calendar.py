"""Calendar windows for the time-expression resolver (`app/extract/timeexpr.py`): a resolved
expression as a half-open window of local dates, the arithmetic of days, ISO weeks, months and years,
and holidays (fixed, US floating, and the lunar ones of `app/extract/lunar.py`) by name."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from app.extract.lunar import LUNAR_HOLIDAYS
from app.extract.types import Granularity

ONE_DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Window:
    """A resolved expression as local dates: [start, end)."""

    start: date
    end: date
    granularity: Granularity


# --- calendar arithmetic --------------------------------------------------------------------------


def day_window(d: date) -> Window:
    return Window(d, d + ONE_DAY, Granularity.DAY)


def shift_month(year: int, month: int, n: int) -> tuple[int, int]:
    k = year * 12 + (month - 1) + n
    return k // 12, k % 12 + 1


def month_window(year: int, month: int) -> Window:
    ny, nm = shift_month(year, month, 1)
    return Window(date(year, month, 1), date(ny, nm, 1), Granularity.MONTH)


def year_window(year: int) -> Window:
    return Window(date(year, 1, 1), date(year + 1, 1, 1), Granularity.YEAR)


def _monday(d: date, week_offset: int = 0) -> date:
    return d - timedelta(days=d.weekday() - 7 * week_offset)


def week_window(today: date, week_offset: int) -> Window:
    monday = _monday(today, week_offset)
    return Window(monday, monday + timedelta(days=7), Granularity.WEEK)


def weekend_window(today: date, week_offset: int) -> Window:
    saturday = _monday(today, week_offset) + timedelta(days=5)
    return Window(saturday, saturday + timedelta(days=2), Granularity.DAY)


def weekday_window(today: date, weekday: int, week_offset: int | None) -> Window:
    if week_offset is None:  # bare weekday: the nearest one not after today
        return day_window(today - timedelta(days=(today.weekday() - weekday) % 7))
    return day_window(_monday(today, week_offset) + timedelta(days=weekday))


def bare_month_window(today: date, month: int) -> Window:
    return month_window(today.year if month <= today.month else today.year - 1, month)


def past_date_window(today: date, month: int, day: int) -> Window | None:
    """The nearest month/day not after today (Feb 29 looks back to the last leap year)."""
    for year in range(today.year, today.year - 9, -1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            continue
        if candidate <= today:
            return day_window(candidate)
    return None


def offset_window(today: date, n: int, unit: str) -> Window:
    """`n` units from today (negative: in the past); weeks count as 7 days."""
    if unit == "day":
        return day_window(today + timedelta(days=n))
    if unit == "week":
        return day_window(today + timedelta(days=7 * n))
    if unit == "month":
        return month_window(*shift_month(today.year, today.month, n))
    return year_window(today.year + n)


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The n-th `weekday` (Monday 0) of the month; n = -1 is the last one."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    ny, nm = shift_month(year, month, 1)
    last = date(ny, nm, 1) - ONE_DAY
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def _easter(year: int) -> date:
    """Western Easter Sunday (the anonymous Gregorian computus)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 19 * l_) // 433
    month, day = divmod(h + l_ - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _fixed(month: int, day: int) -> Callable[[int], date]:
    return lambda year: date(year, month, day)


def _floating(month: int, weekday: int, n: int) -> Callable[[int], date]:
    return lambda year: _nth_weekday(year, month, weekday, n)


_THANKSGIVING = _floating(11, 3, 4)
_MOTHERS_DAY = _floating(5, 6, 2)
_FATHERS_DAY = _floating(6, 6, 3)
_CHRISTMAS = _fixed(12, 25)
_NEW_YEAR = _fixed(1, 1)
_VALENTINES = _fixed(2, 14)
_HALLOWEEN = _fixed(10, 31)
_CHRISTMAS_EVE = _fixed(12, 24)
_ST_PATRICKS = _fixed(3, 17)
_INDEPENDENCE_DAY = _fixed(7, 4)
_LABOR_DAY = _floating(9, 0, 1)

# The holiday's date in a given year, by its name as written (English apostrophes optional).
EN_HOLIDAYS: dict[str, Callable[[int], date]] = {
    "new year's eve": _fixed(12, 31),
    "new year's day": _NEW_YEAR,
    "new year's": _NEW_YEAR,
    "valentine's day": _VALENTINES,
    "valentine's": _VALENTINES,
    "st. patrick's day": _ST_PATRICKS,
    "st patrick's day": _ST_PATRICKS,
    "saint patrick's day": _ST_PATRICKS,
    "easter sunday": _easter,
    "easter": _easter,
    "mother's day": _MOTHERS_DAY,
    "memorial day": _floating(5, 0, -1),
    "father's day": _FATHERS_DAY,
    "independence day": _INDEPENDENCE_DAY,
    "the fourth of july": _INDEPENDENCE_DAY,
    "the 4th of july": _INDEPENDENCE_DAY,
    "fourth of july": _INDEPENDENCE_DAY,
    "4th of july": _INDEPENDENCE_DAY,
    "labor day": _LABOR_DAY,
    "labour day": _LABOR_DAY,
    "halloween": _HALLOWEEN,
    "thanksgiving day": _THANKSGIVING,
    "thanksgiving": _THANKSGIVING,
    "christmas eve": _CHRISTMAS_EVE,
    "christmas day": _CHRISTMAS,
    "christmas": _CHRISTMAS,
    "xmas": _CHRISTMAS,
    "boxing day": _fixed(12, 26),
}
CN_HOLIDAYS: dict[str, Callable[[int], date]] = {
    "元旦": _NEW_YEAR,
    "情人节": _VALENTINES,
    "妇女节": _fixed(3, 8),
    "愚人节": _fixed(4, 1),
    "复活节": _easter,
    "劳动节": _fixed(5, 1),
    "母亲节": _MOTHERS_DAY,
    "儿童节": _fixed(6, 1),
    "父亲节": _FATHERS_DAY,
    "国庆节": _fixed(10, 1),
    "万圣节": _HALLOWEEN,
    "感恩节": _THANKSGIVING,
    "平安夜": _CHRISTMAS_EVE,
    "圣诞节": _CHRISTMAS,
    **LUNAR_HOLIDAYS,
}
# Words before an English holiday that make it a time ("on Valentine's Day", "over Thanksgiving").
EN_HOLIDAY_PREPOSITIONS = frozenset((
    "on", "at", "for", "over", "during", "since", "before", "after", "until", "till", "by", "around", "from",
))  # fmt: skip


def holiday_key(name: str) -> str:
    """A holiday's name as written, without case, apostrophes or extra spaces ("Valentines  day")."""
    return re.sub(r"\s+", " ", re.sub("['’]", "", name.lower()))


EN_HOLIDAY_KEYS = {holiday_key(name): day for name, day in EN_HOLIDAYS.items()}


def holiday_window(day_in: Callable[[int], date], today: date, year: int | None, mod: int | None) -> Window:
    """A holiday's day: in `year` if given; else by `mod` (-1 last, 0 this, 1 next) or, without
    one, the nearest not after `today`."""
    if year is not None:
        return day_window(day_in(year))
    if mod == 0:
        return day_window(day_in(today.year))
    if mod is not None and mod > 0:
        return day_window(next(d for y in range(today.year, today.year + 2) if (d := day_in(y)) > today))
    latest = next(d for y in range(today.year, today.year - 2, -1) if (d := day_in(y)) <= today)
    if mod is not None and latest == today:
        latest = day_in(today.year - 1)
    return day_window(latest)
