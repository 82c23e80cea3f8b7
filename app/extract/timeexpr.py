"""Find relative and absolute time expressions in a conversation turn and resolve them to windows.

`find_time_expressions(text, reference)` returns a `TimeMention` per expression, in text order, for
English and Chinese (also mixed in one text). `window_of(mentions)` gives the read path the union
window of the expressions found in a recall query.

How it works: one precompiled regex over a closed vocabulary finds candidate phrases, and small
deterministic calendar code resolves each one. dateparser and jionlp were measured for this and
are not used: their search functions cost 1-3 ms per turn once warm (150-220 ms on the first call)
and fire on non-time text ("We", "may", 一天, 星期天 in 星期天气); their parsers return points
where a window is meant ("in March" -> 2024-03-15), fail on common forms (dateparser: 上周五, 三天前;
jionlp: 上月, 十二月), and disagree with the week semantics below (dateparser: "last Monday" on a
Wednesday is two days ago, "next Thursday" is tomorrow).

Semantics (all windows half-open, in the reference's time zone; weeks are ISO weeks, Monday first):

- Days (DAY, [00:00, next 00:00)): yesterday/today/tomorrow/tonight/last night/this morning, the
  day before yesterday, 大前天 ... 大后天, 昨晚/今晚/明早.
- Weekdays (DAY): "last X" / 上(个)周X is X of the previous calendar week, "next X" / 下周X of the
  next one, "this X" / 这周X / 本周X of the current one (so on Wednesday 2024-05-15: last Friday =
  05-10, next Wednesday = 05-22, this Monday = 05-13); 上上周X / 下下周X two weeks away. A bare
  weekday ("Monday", "on Monday", 周一, 星期一, 礼拜一) is the nearest one not after the reference
  day: the same day if it is that weekday, otherwise the most recent past one. Tense is not read.
- Day offsets (DAY): "N days ago", "in N days", "N days from now", N天前/后; week offsets are days
  too ("two weeks ago" = reference - 14 days, 两周后 = + 14 days, "a week ago" = - 7 days), because
  what a person means by them is a day. Month and year offsets keep their own granularity:
  "three months ago" / 三个月前 = the calendar month 3 months back (MONTH), "two years ago" (YEAR).
- Weeks (WEEK, [Monday, next Monday)): last/this/next week, the week before last / after next,
  上周 上个星期 上礼拜, 本周 这周 这个星期, 下周, 上上周, 下下周.
- Weekends (DAY granularity, a 2-day window [Saturday, Monday)): last/this/next weekend, 上周末,
  这周末, 本周末, 下周末. Bare "weekend"/周末 is not resolved (past or future is a guess).
- Months (MONTH, [1st, next 1st)): last/this/next month, 上(个)月, 这个月, 本月, 下(个)月.
  A month name without a year ("in March", "March", 三月, 3月) is the most recent such month not
  after the reference month (from May 2024: 2024-03; from Feb 2024: 2023-03). "last March" is the
  most recent March strictly before the reference month, "next March" the first one strictly after,
  "this March" the one in the reference year. 去年三月 / 今年三月 / 明年三月 use that year.
- Years (YEAR): last/this/next year, the year before last, "in 2022", 去年 今年 明年 前年 后年
  大前年 大后年, 2022年.
- Absolute dates (DAY): "May 10", "May 10, 2024", "10 May 2024", "the 3rd of May", "2024-05-10",
  5月10日 / 5月10号 / 五月十日, 2024年5月10日, 去年5月10日. Without a year, a date is the nearest
  one not after the reference day (past bias: turns mostly talk about the past; explicit future
  wording like "next"/"in N days"/明天 is future). "March 2023", 2023年3月, "2024-05" are MONTH.
- Holidays (DAY): fixed ones (New Year's Day and Eve, Valentine's Day, St. Patrick's Day,
  Independence Day / the Fourth of July, Halloween, Christmas Eve, Christmas, Boxing Day; 元旦,
  情人节, 妇女节, 愚人节, 劳动节, 儿童节, 国庆节, 万圣节, 平安夜, 圣诞节) and the US floating ones
  (Easter, Mother's Day, Memorial Day, Father's Day, Labor Day, Thanksgiving; 复活节, 母亲节, 父亲节,
  感恩节). With a year ("Christmas 2022", 2022年圣诞节, 去年圣诞节) that year's; "last X" the most
  recent one strictly before the reference day, "next X" the first one strictly after, "this X" the
  one in the reference year; after "for" ("home for Christmas") the nearest one not before the
  reference day; otherwise the nearest one not after it (past bias, as for dates). An English
  holiday needs one of those words, a year, or a preposition before it ("on Valentine's Day", "over
  Thanksgiving"): "a Christmas tree" and "the Halloween party" are things.
  Holidays of the lunar calendar (春节, 除夕, 元宵节, 端午节, 七夕, 中秋节, 重阳节; `app/extract/lunar.py`)
  the same way, from a table of their dates in 2000-2040 (a year outside it leaves them unresolved).
- Times of day (INSTANT, start == end): a clock time next to a single-day expression, e.g.
  "at 3pm yesterday", "yesterday at 15:30", "last Friday at noon", 昨天下午3点, 上周五晚上8点半.
  A clock time alone is not an expression.

Spans: a leading "in"/"during" is part of a month or year expression ("in March", "in 2022", needed
to accept "in march" and bare years); "on" is not ("on Monday" -> "Monday"). A rejected candidate
does not hide a shorter expression inside it: the search resumes one character later.

Guarding against false positives: "may"/"march" need a capital letter, a preposition ("in may",
"since march") or a day/year next to them, and a bare capitalised May/March is rejected next to
words that make it a verb or modal ("March on", "May I"); other bare month names need a capital
("June", not "june"). Years need "in"/"during" ("in 2022"), not a bare number, and not a count
("in 2000 words"). "every Monday" is recurring, not a day. Chinese words are guarded against the
compounds they hide in: 天天, 一天 (no 前/后), 星期天气 (weather), 这一周一直, 每周一 (recurring),
之前天气, 目前天气, 然后天, 聪明天才, 失去年轻, 登上月球, 看一下周报, 马上周末, 五月天 (a band).
Known limits: names that are month or weekday words ("June said", "Sunday school") fire; "in a
week" as a duration ("built it in a week") is read as a future day; ordinal words ("the first of
May"), vague amounts ("a few days ago", 几天前, 半年前) and ranges (周一到周五) are not resolved.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from app.extract.lunar import LUNAR_HOLIDAYS
from app.extract.types import Granularity, TimeMention

__all__ = ["find_time_expressions", "window_of"]

_ONE_DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class _Window:
    """A resolved expression as local dates: [start, end)."""

    start: date
    end: date
    granularity: Granularity


@dataclass(frozen=True, slots=True)
class _Ctx:
    text: str
    today: date  # the reference's local date


# --- calendar arithmetic --------------------------------------------------------------------------


def _day(d: date) -> _Window:
    return _Window(d, d + _ONE_DAY, Granularity.DAY)


def _shift_month(year: int, month: int, n: int) -> tuple[int, int]:
    k = year * 12 + (month - 1) + n
    return k // 12, k % 12 + 1


def _month(year: int, month: int) -> _Window:
    ny, nm = _shift_month(year, month, 1)
    return _Window(date(year, month, 1), date(ny, nm, 1), Granularity.MONTH)


def _year(year: int) -> _Window:
    return _Window(date(year, 1, 1), date(year + 1, 1, 1), Granularity.YEAR)


def _monday(d: date, week_offset: int = 0) -> date:
    return d - timedelta(days=d.weekday() - 7 * week_offset)


def _week(today: date, week_offset: int) -> _Window:
    monday = _monday(today, week_offset)
    return _Window(monday, monday + timedelta(days=7), Granularity.WEEK)


def _weekend(today: date, week_offset: int) -> _Window:
    saturday = _monday(today, week_offset) + timedelta(days=5)
    return _Window(saturday, saturday + timedelta(days=2), Granularity.DAY)


def _weekday(today: date, weekday: int, week_offset: int | None) -> _Window:
    if week_offset is None:  # bare weekday: the nearest one not after today
        return _day(today - timedelta(days=(today.weekday() - weekday) % 7))
    return _day(_monday(today, week_offset) + timedelta(days=weekday))


def _bare_month(today: date, month: int) -> _Window:
    return _month(today.year if month <= today.month else today.year - 1, month)


def _past_date(today: date, month: int, day: int) -> _Window | None:
    """The nearest month/day not after today (Feb 29 looks back to the last leap year)."""
    for year in range(today.year, today.year - 9, -1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            continue
        if candidate <= today:
            return _day(candidate)
    return None


def _offset(today: date, n: int, unit: str) -> _Window:
    """`n` units from today (negative: in the past); weeks count as 7 days."""
    if unit == "day":
        return _day(today + timedelta(days=n))
    if unit == "week":
        return _day(today + timedelta(days=7 * n))
    if unit == "month":
        return _month(*_shift_month(today.year, today.month, n))
    return _year(today.year + n)


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The n-th `weekday` (Monday 0) of the month; n = -1 is the last one."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    ny, nm = _shift_month(year, month, 1)
    last = date(ny, nm, 1) - _ONE_DAY
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
_EN_HOLIDAYS: dict[str, Callable[[int], date]] = {
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
_CN_HOLIDAYS: dict[str, Callable[[int], date]] = {
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
_EN_HOLIDAY_PREPOSITIONS = frozenset((
    "on", "at", "for", "over", "during", "since", "before", "after", "until", "till", "by", "around", "from",
))  # fmt: skip


def _holiday_key(name: str) -> str:
    """A holiday's name as written, without case, apostrophes or extra spaces ("Valentines  day")."""
    return re.sub(r"\s+", " ", re.sub("['’]", "", name.lower()))


_EN_HOLIDAY_KEYS = {_holiday_key(name): day for name, day in _EN_HOLIDAYS.items()}


def _holiday(day_in: Callable[[int], date], today: date, year: int | None, mod: int | None) -> _Window:
    """A holiday's day: in `year` if given; else by `mod` (-1 last, 0 this, 1 next) or, without
    one, the nearest not after `today`."""
    if year is not None:
        return _day(day_in(year))
    if mod == 0:
        return _day(day_in(today.year))
    if mod is not None and mod > 0:
        return _day(next(d for y in range(today.year, today.year + 2) if (d := day_in(y)) > today))
    latest = next(d for y in range(today.year, today.year - 2, -1) if (d := day_in(y)) <= today)
    if mod is not None and latest == today:
        latest = day_in(today.year - 1)
    return _day(latest)


# --- vocabularies ---------------------------------------------------------------------------------

# fmt: off
_EN_WEEKDAYS = {
    d: i for i, d in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
}
_EN_MONTHS_FULL = {
    m: i + 1
    for i, m in enumerate((
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
        "december",
    ))
}
_EN_MONTH_ABBR = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11,
    "dec": 12,
}
_EN_MONTHS = _EN_MONTHS_FULL | _EN_MONTH_ABBR
_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "a couple of": 2, "a couple": 2, "couple of": 2,
}
_EN_DAY_WORDS = {
    "the day before yesterday": -2, "day before yesterday": -2, "yesterday": -1, "last night": -1,
    "today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
    "tomorrow": 1, "the day after tomorrow": 2, "day after tomorrow": 2,
}
_EN_MODIFIERS = {"last": -1, "this": 0, "next": 1}
# Words that make a month name usable in lower case ("since march", "the 3rd of may").
_EN_MONTH_PREPOSITIONS = frozenset((
    "in", "on", "during", "since", "until", "till", "by", "from", "before", "after", "of", "through", "throughout",
    "early", "late", "mid", "around",
))
# A bare, capitalised May/March followed or preceded by these is a verb or a modal ("March on", "May I").
_EN_VERB_CONTEXT = frozenset((
    "on", "in", "to", "into", "forward", "forth", "past", "through", "off", "along", "out", "up", "down", "away",
    "across", "around", "onward", "onwards", "back", "against", "with", "over", "toward", "towards", "ahead",
    "i", "we", "you", "he", "she", "it", "they", "be", "have", "the", "god", "this", "that", "not", "all", "your",
    "his", "her", "our", "their", "also", "well", "who", "which",
))

_CN_DIGITS = {
    "〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}
_CN_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_CN_WEEK_MODIFIERS = {"上": -1, "上上": -2, "下": 1, "下下": 2, "这": 0, "本": 0}
_CN_DAY_WORDS = {
    "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "昨夜": -1,
    "今天": 0, "今日": 0, "今晚": 0, "今早": 0, "明天": 1, "明日": 1, "明晚": 1, "明早": 1, "后天": 2, "大后天": 3,
}
_CN_YEAR_WORDS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2, "大后年": 3}
_CN_MONTH_WORDS = {
    "上上个月": -2, "上个月": -1, "上月": -1, "这个月": 0, "这月": 0, "本月": 0, "下个月": 1, "下月": 1, "下下个月": 2,
}
_CN_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}
# fmt: on


def _alternation(words: Iterable[str]) -> str:
    """Longest first, so that "sept" wins over "sep" and "a couple of" over "a"."""
    items = sorted(words, key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in items)


def _cn_int(s: str) -> int | None:
    """Digits (also full-width) or Chinese numerals up to 99; four Chinese digits read as a year."""
    if s.isdigit():
        return int(s)
    if len(s) == 4 and all(c in _CN_DIGITS for c in s):
        return int("".join(str(_CN_DIGITS[c]) for c in s))
    if "十" not in s:
        return _CN_DIGITS.get(s) if len(s) == 1 else None
    tens, _, ones = s.partition("十")
    t = _CN_DIGITS.get(tens, -1) if tens else 1
    o = _CN_DIGITS.get(ones, -1) if ones else 0
    return None if t < 0 or o < 0 or "十" in ones else t * 10 + o


# --- patterns -------------------------------------------------------------------------------------

_EN_END = r"(?![A-Za-z0-9])"
_WD = f"(?:{_alternation(_EN_WEEKDAYS)})"
# An abbreviation may carry a dot before a day or year ("Jan. 5"); a sentence's full stop is not part of it.
_MON = f"(?:{_alternation(_EN_MONTHS_FULL)}|(?:{_alternation(_EN_MONTH_ABBR)})(?:\\.(?=\\s*\\d))?)"
_MON_FULL = f"(?:{_alternation(_EN_MONTHS_FULL)})"
_NUM = rf"(?:\d{{1,3}}|{_alternation(_EN_NUMBERS)})"
_UNIT = r"(?:day|week|month|year)s?"
_ORD = r"(?:st|nd|rd|th)?"
_COUNTED = "words|characters|pages|lines|people|persons|users|items|units|steps|points|dollars|euros|yuan|miles|km"

_CN_N = r"(?:\d{1,3}|[一二两三四五六七八九十]{1,3})"
_CN_YEAR = r"(?<!\d)(?:\d{4}|[〇零一二三四五六七八九]{4})"
_CN_MONTH = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
_CN_DAY = r"(?:3[01]|[12]\d|0?[1-9]|三十一?|二十[一二三四五六七八九]?|十[一二三四五六七八九]?|[一二三四五六七八九])"
_CN_AFTER_WEEK = r"(?![报刊年期边围到转岁身全密游长末])"  # 周报, 周年, 周期, 周边 ... are not weeks
_CN_MOD_GUARD = r"(?<![一马以])"  # 看一下周报, 马上周末, 以上

_PREV_WORD = re.compile(r"([A-Za-z]+)[\s,]+\Z")
_NEXT_WORD = re.compile(r"\s+([A-Za-z]+)")


# --- resolvers (return None to reject a candidate) ------------------------------------------------


def _norm(s: str) -> str:
    return " ".join(s.lower().split())


def _en_num(s: str) -> int:
    return int(s) if s.isdigit() else _EN_NUMBERS[_norm(s)]


def _unit(s: str) -> str:
    return s.lower().removesuffix("s")


def _previous_word(text: str, pos: int) -> str:
    """The lower-cased English word right before `pos` (only spaces or a comma between), or ""."""
    m = _PREV_WORD.search(text, max(0, pos - 24), pos)
    return m.group(1).lower() if m else ""


def _month_word_ok(m: re.Match[str], group: str, ctx: _Ctx, *, anchored: bool, prep: bool = False) -> bool:
    """Whether a month word is a month here.

    `anchored`: a day or year is attached to it; `prep`: the match itself starts with in/during.
    """
    word = m.group(group)
    key = word.lower().rstrip(".")
    prev = _previous_word(ctx.text, m.start(group))
    prep = prep or prev in _EN_MONTH_PREPOSITIONS
    capital = word[0].isupper()
    if key in _EN_MONTH_ABBR:
        return capital and (anchored or prep)
    if prep:
        return True
    if key not in ("may", "march"):
        return capital or anchored
    if not capital:
        return False
    if anchored:
        return True
    nxt = _NEXT_WORD.match(ctx.text, m.end(group))
    return (nxt is None or nxt.group(1).lower() not in _EN_VERB_CONTEXT) and prev not in _EN_VERB_CONTEXT


def _explicit_or_past(ctx: _Ctx, year: str | None, month: int, day: int) -> _Window | None:
    if year is not None:
        return _day(date(int(year), month, day))
    return _past_date(ctx.today, month, day)


def _en_iso(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _day(date(int(m["iso_y"]), int(m["iso_m"]), int(m["iso_d"])))


def _en_iso_month(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _month(int(m["isom_y"]), int(m["isom_m"]))


def _en_month_first(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    """ "May 10", "May 10, 2024", "March 2023", "in (early) March", "March"."""
    anchored = bool(m["mf_d"] or m["mf_y"])
    if not _month_word_ok(m, "mf_mon", ctx, anchored=anchored, prep=bool(m["mf_prep"])):
        return None
    month = _EN_MONTHS[m["mf_mon"].lower().rstrip(".")]
    if m["mf_d"]:
        return _explicit_or_past(ctx, m["mf_y"], month, int(m["mf_d"]))
    if m["mf_y"]:
        return _month(int(m["mf_y"]), month)
    return _bare_month(ctx.today, month)


def _en_dm(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    if not _month_word_ok(m, "dm_mon", ctx, anchored=True):
        return None
    return _explicit_or_past(ctx, m["dm_y"], _EN_MONTHS[m["dm_mon"].lower().rstrip(".")], int(m["dm_d"]))


def _en_ago(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    n = _en_num(m["ago_n"])
    return _offset(ctx.today, -n if m["ago_dir"].lower() == "ago" else n, _unit(m["ago_u"]))


def _en_in(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _offset(ctx.today, _en_num(m["in_n"]), _unit(m["in_u"]))


def _en_dayword(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _day(ctx.today + timedelta(days=_EN_DAY_WORDS[_norm(m["dw"])]))


def _en_mod(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    """last/this/next + weekday, week, weekend, month, year or month name."""
    mod, today = _EN_MODIFIERS[m["mod"].lower()], ctx.today
    if m["mod_wd"]:
        return _weekday(today, _EN_WEEKDAYS[m["mod_wd"].lower()], mod)
    unit = (m["mod_u"] or "").lower()
    if unit == "week":
        return _week(today, mod)
    if unit == "weekend":
        return _weekend(today, mod)
    if unit == "month":
        return _month(*_shift_month(today.year, today.month, mod))
    if unit == "year":
        return _year(today.year + mod)
    word = m["mod_mon"]
    if word.lower() in ("may", "march") and not word[0].isupper():  # "this may be", "next march"
        return None
    month = _EN_MONTHS[word.lower()]
    if mod < 0:
        return _month(today.year if month < today.month else today.year - 1, month)
    if mod > 0:
        return _month(today.year if month > today.month else today.year + 1, month)
    return _month(today.year, month)


def _en_far(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    """ "the week before last", "the year after next"."""
    n = -2 if m["far_dir"].lower().startswith("before") else 2
    return _week(ctx.today, n) if m["far_u"].lower() == "week" else _year(ctx.today.year + n)


def _en_prep_year(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _year(int(m["py_y"]))


def _en_wd(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    if _previous_word(ctx.text, m.start()) in ("every", "each"):  # recurring, not a day
        return None
    return _weekday(ctx.today, _EN_WEEKDAYS[m["wd_d"].lower()], None)


def _en_holiday(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    mod = _EN_MODIFIERS[m["hol_mod"].lower()] if m["hol_mod"] else None
    year = int(m["hol_y"]) if m["hol_y"] else None
    day_in = _EN_HOLIDAY_KEYS[_holiday_key(m["hol"])]
    if mod is not None or year is not None:
        return _holiday(day_in, ctx.today, year, mod)
    previous = _previous_word(ctx.text, m.start())
    if previous == "for":  # "home for Christmas", "plans for Thanksgiving": the coming one
        return _holiday(day_in, ctx.today - _ONE_DAY, None, 1)
    if previous not in _EN_HOLIDAY_PREPOSITIONS:
        return None  # "a Christmas tree", "the Halloween party": a thing, not a day
    return _holiday(day_in, ctx.today, None, None)


def _cn_holiday(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    if m["chy_y"]:
        year: int | None = _cn_number(m["chy_y"])
    else:
        year = ctx.today.year + _CN_YEAR_WORDS[m["chy_w"]] if m["chy_w"] else None
    return _holiday(_CN_HOLIDAYS[m["ch"]], ctx.today, year, None)


def _cn_number(s: str) -> int:
    n = _cn_int(s)
    if n is None:
        raise ValueError(f"not a number: {s}")
    return n


def _cn_full(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _day(date(_cn_number(m["cf_y"]), _cn_number(m["cf_m"]), _cn_number(m["cf_d"])))


def _cn_year_month(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _month(_cn_number(m["cym_y"]), _cn_number(m["cym_m"]))


def _cn_year(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _year(_cn_number(m["cy_y"]))


def _cn_rel_year_month(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    year = ctx.today.year + _CN_YEAR_WORDS[m["cry"]]
    if m["cry_d"]:
        return _day(date(year, _cn_number(m["cry_m"]), _cn_number(m["cry_d"])))
    return _month(year, _cn_number(m["cry_m"]))


def _cn_md(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _past_date(ctx.today, _cn_number(m["cmd_m"]), _cn_number(m["cmd_d"]))


def _cn_offset(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    n = _cn_number(m["co_n"])
    return _offset(ctx.today, -n if m["co_dir"].endswith("前") else n, _CN_UNITS[m["co_u"]])


def _cn_week_offset(mod: str | None) -> int | None:
    return None if mod is None else _CN_WEEK_MODIFIERS[mod]


def _cn_weekday(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _weekday(ctx.today, _CN_WEEKDAYS[m["cw_d"]], _cn_week_offset(m["cw_mod"]))


def _cn_weekend(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _weekend(ctx.today, _CN_WEEK_MODIFIERS[m["cwe_mod"]])


def _cn_week(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _week(ctx.today, _CN_WEEK_MODIFIERS[m["ck_mod"]])


def _cn_month_rel(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _month(*_shift_month(ctx.today.year, ctx.today.month, _CN_MONTH_WORDS[m["cm"]]))


def _cn_year_rel(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _year(ctx.today.year + _CN_YEAR_WORDS[m["cyw"]])


def _cn_dayword(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _day(ctx.today + timedelta(days=_CN_DAY_WORDS[m["cdw"]]))


def _cn_month(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    return _bare_month(ctx.today, _cn_number(m["cbm_m"]))


# --- rules: name (also the regex group), pattern, resolver -----------------------------------------

_Resolver = Callable[[re.Match[str], _Ctx], _Window | None]

# English rules share a "no letter or digit on either side" guard. Where two rules can match at the
# same position the first one listed wins, so longer forms come first.
_EN_HOLIDAY_NAMES = "|".join(
    r"\s+".join(re.escape(word).replace("'", "['’]?") for word in name.split())
    for name in sorted(_EN_HOLIDAYS, key=len, reverse=True)
)
_EN_RULES: list[tuple[str, str, _Resolver]] = [
    (
        "en_holiday",
        rf"(?:(?P<hol_mod>last|this|next)\s+)?(?P<hol>{_EN_HOLIDAY_NAMES})(?:,?\s+(?P<hol_y>(?:19|20)\d\d))?",
        _en_holiday,
    ),
    (
        "en_iso",
        r"(?P<iso_y>\d{4})(?P<iso_sep>[-/.])(?P<iso_m>\d{1,2})(?P=iso_sep)(?P<iso_d>\d{1,2})(?!\d|[.:/-]\d)",
        _en_iso,
    ),
    ("en_iso_month", r"(?P<isom_y>\d{4})-(?P<isom_m>\d{2})(?!\d|[.:/-]\d)", _en_iso_month),
    (
        "en_month_first",
        rf"(?:(?P<mf_prep>in|during)\s+(?:(?:early|late|mid)(?:-|\s+))?)?(?P<mf_mon>{_MON})"
        rf"(?:\s+(?P<mf_d>\d{{1,2}}){_ORD})?(?:,?\s+(?P<mf_y>\d{{4}}))?",
        _en_month_first,
    ),
    (
        "en_dm",
        rf"(?:the\s+)?(?P<dm_d>\d{{1,2}})(?:(?:st|nd|rd|th)\s+(?:of\s+)?|\s+)(?P<dm_mon>{_MON})(?:,?\s+(?P<dm_y>\d{{4}}))?",
        _en_dm,
    ),
    ("en_ago", rf"(?P<ago_n>{_NUM})\s+(?P<ago_u>{_UNIT})\s+(?P<ago_dir>ago|from\s+now|from\s+today)", _en_ago),
    ("en_in", rf"in\s+(?P<in_n>{_NUM})\s+(?P<in_u>{_UNIT})", _en_in),
    ("en_dayword", f"(?P<dw>{_alternation(_EN_DAY_WORDS)})", _en_dayword),
    (
        "en_mod",
        rf"(?P<mod>last|this|next)\s+(?:(?P<mod_wd>{_WD})|(?P<mod_u>weekend|week|month|year)|(?P<mod_mon>{_MON_FULL}))",
        _en_mod,
    ),
    ("en_far", r"the\s+(?P<far_u>week|year)\s+(?P<far_dir>before\s+last|after\s+next)", _en_far),
    # "in 2000 words" is a count, not a year
    ("en_prep_year", rf"(?:in|during)\s+(?P<py_y>(?:19|20)\d\d)(?!\s+(?:{_COUNTED}))", _en_prep_year),
    ("en_wd", f"(?P<wd_d>{_WD})", _en_wd),
]

_CN_RULES: list[tuple[str, str, _Resolver]] = [
    (
        "cn_holiday",
        # 圣诞节礼物 (a Christmas present) and 圣诞节树 are things
        rf"(?:(?P<chy_y>{_CN_YEAR})年|(?P<chy_w>{_alternation(_CN_YEAR_WORDS)}))?"
        rf"(?P<ch>{_alternation(_CN_HOLIDAYS)})(?!礼物|树|贺卡|装饰)",
        _cn_holiday,
    ),
    ("cn_full", rf"(?P<cf_y>{_CN_YEAR})年(?P<cf_m>{_CN_MONTH})月(?P<cf_d>{_CN_DAY})[日号]", _cn_full),
    ("cn_year_month", rf"(?P<cym_y>{_CN_YEAR})年(?P<cym_m>{_CN_MONTH})月份?", _cn_year_month),
    ("cn_year", rf"(?P<cy_y>{_CN_YEAR})年(?![代级])", _cn_year),
    (
        "cn_rel_year_month",
        rf"(?P<cry>{_alternation(_CN_YEAR_WORDS)})(?P<cry_m>{_CN_MONTH})月份?(?:(?P<cry_d>{_CN_DAY})[日号])?",
        _cn_rel_year_month,
    ),
    ("cn_md", rf"(?<![\d年])(?P<cmd_m>{_CN_MONTH})月(?P<cmd_d>{_CN_DAY})[日号]", _cn_md),
    (
        "cn_offset",
        # 三月前 is "before March": a month count needs 个 (三个月前)
        rf"(?<![\d第])(?P<co_n>{_CN_N})个?(?P<co_u>天|日|周|星期|礼拜|(?<=个)月|年)(?P<co_dir>以前|之前|以后|之后|前|后)",
        _cn_offset,
    ),
    (
        "cn_weekday",
        rf"(?:{_CN_MOD_GUARD}(?P<cw_mod>上上|下下|上|下|这|本)[个一]?|(?<![一二两三四五六七八九十几每个]))"
        r"(?:周|星期|礼拜)(?P<cw_d>[一二三四五六日天])"
        # 星期一直 (kept on) and 星期天气 (weather) are not weekdays; 星期天气温 (temperature) is one.
        r"(?!(?<=一)[直起样定下般些点次切共边向致同块])(?!(?<=天)气(?!温))",
        _cn_weekday,
    ),
    ("cn_weekend", rf"{_CN_MOD_GUARD}(?P<cwe_mod>上上|下下|上|下|这|本)[个一]?周末", _cn_weekend),
    ("cn_week", rf"{_CN_MOD_GUARD}(?P<ck_mod>上上|下下|上|下|这|本)[个一]?(?:周|星期|礼拜){_CN_AFTER_WEEK}", _cn_week),
    (
        "cn_month_rel",
        rf"(?<![一马以登爬走奔飞跳])(?P<cm>{_alternation(_CN_MONTH_WORDS)})(?![球亮光饼台])",
        _cn_month_rel,
    ),
    (
        "cn_year_rel",
        r"(?P<cyw>大前年|大后年|(?<![之以从提目当先空])前年|(?<![失回出进离死除过])去年|(?<![如现至])今年"
        r"|(?<![聪光文透证鲜分清发表])明年|(?<![之以然最背落今午])后年)(?![轻纪龄华代])",
        _cn_year_rel,
    ),
    (
        "cn_dayword",
        r"(?P<cdw>大前天|大后天|(?<![之以从提目当先空])前天|(?<![之以然最背落今午])后天(?![性生])"
        r"|昨[天日晚夜]|(?<![如现至])今[天日晚早]|(?<![聪光文透证鲜分清发表])明[天日晚早])",
        _cn_dayword,
    ),
    # 五月天 (a band, "May days") is not a month; 五月天气 (May weather) is
    ("cn_month", rf"(?<![\d一二三四五六七八九十两几个年上下这本每])(?P<cbm_m>{_CN_MONTH})月份?(?!天(?!气))", _cn_month),
]

_RESOLVERS: dict[str, _Resolver] = {name: resolver for name, _, resolver in _EN_RULES + _CN_RULES}
# The lookaheads on the first character let most positions skip all the rules of the other language
# after one character-class test (about 3x faster on text without an expression).
_PATTERN = re.compile(
    r"(?<![A-Za-z0-9])(?=[A-Za-z0-9])(?:"
    + "|".join(f"(?P<{name}>{pattern}){_EN_END}" for name, pattern, _ in _EN_RULES)
    + r")|(?=[\d〇零一二两三四五六七八九十上下这本大前后昨今明去周星礼元情妇愚复劳母儿父国万感平圣春除端中重])(?:"
    + "|".join(f"(?P<{name}>{pattern})" for name, pattern, _ in _CN_RULES)
    + ")",
    re.IGNORECASE,
)

# --- times of day -----------------------------------------------------------------------------

_EN_CLOCK = (
    r"(?:(?P<h>\d{1,2})(?::(?P<mi>[0-5]\d))?\s*(?P<ap>[ap])(?:\.m\.|m\b)"
    r"|(?P<h24>\d{1,2}):(?P<m24>[0-5]\d)(?!\d)|(?P<noon>noon|midnight)\b)"
)
_EN_TIME_AFTER = re.compile(rf"\s*,?\s*(?:at\s+|@\s*)?{_EN_CLOCK}", re.IGNORECASE)
_EN_TIME_BEFORE = re.compile(rf"(?<![A-Za-z0-9])(?:at\s+|@\s*)?(?<!\d){_EN_CLOCK}\s*,?\s+(?:on\s+)?\Z", re.IGNORECASE)
_CN_TIME_AFTER = re.compile(
    r"\s*(?P<per>凌晨|半夜|早上|早晨|上午|中午|下午|傍晚|晚上|夜里)?\s*"
    r"(?P<h>\d{1,2}|[零〇一二两三四五六七八九十]{1,3})"
    r"(?:[点时](?:(?P<mi>\d{1,2}|[零〇一二三四五六七八九十]{1,3})分?|(?P<half>半)|(?P<q>[一三])刻)?"
    r"|[:：](?P<mc>[0-5]\d))"
)
_CN_PM = frozenset(("下午", "傍晚", "晚上", "夜里"))


def _en_clock(m: re.Match[str]) -> time | None:
    if m["noon"]:
        return time(12) if m["noon"].lower() == "noon" else time(0)
    if m["h24"]:
        hour, minute = int(m["h24"]), int(m["m24"])
        return time(hour, minute) if hour < 24 else None
    hour, minute = int(m["h"]), int(m["mi"] or 0)
    if not 1 <= hour <= 12:
        return None
    return time(hour % 12 + (12 if m["ap"].lower() == "p" else 0), minute)


def _cn_clock(m: re.Match[str], day_word: str) -> time | None:
    hour = _cn_int(m["h"])
    if m["mc"]:
        minute: int | None = int(m["mc"])
    elif m["half"]:
        minute = 30
    elif m["q"]:
        minute = 15 if m["q"] == "一" else 45
    else:
        minute = _cn_int(m["mi"]) if m["mi"] else 0
    if hour is None or minute is None or hour > 23 or minute > 59:
        return None
    if m["h"] == "一" and not (m["per"] or m["mi"] or m["half"] or m["q"]):
        return None  # 一点 is usually "a bit" (昨天一点也不冷)
    period = m["per"] or ("晚上" if ("晚" in day_word or "夜" in day_word) else "")
    if period in _CN_PM and hour < 12 or period == "中午" and hour < 11:
        hour += 12
    elif period in ("凌晨", "半夜") and hour == 12:
        hour = 0
    return time(hour, minute)


def _attach_clock(text: str, start: int, end: int) -> tuple[int, int, time] | None:
    """A clock time right after or before a day expression: the widened span and the time."""
    after = _EN_TIME_AFTER.match(text, end)
    if after and (clock := _en_clock(after)) is not None:
        return start, after.end(), clock
    after = _CN_TIME_AFTER.match(text, end)
    if after and (clock := _cn_clock(after, text[start:end])) is not None:
        return start, after.end(), clock
    before = _EN_TIME_BEFORE.search(text, max(0, start - 24), start)
    if before and (clock := _en_clock(before)) is not None:
        return before.start(), end, clock
    return None


# --- public API -------------------------------------------------------------------------------


def _at(d: date, tz: tzinfo, clock: time = time()) -> datetime:
    return datetime.combine(d, clock, tzinfo=tz)


def _resolve(m: re.Match[str], ctx: _Ctx) -> _Window | None:
    assert m.lastgroup is not None
    try:
        return _RESOLVERS[m.lastgroup](m, ctx)
    except (ValueError, OverflowError):  # impossible dates (February 30) or out of range
        return None


def find_time_expressions(text: str, reference: datetime) -> list[TimeMention]:
    """Time expressions in `text`, in text order, resolved against `reference` (timezone-aware)."""
    tz = reference.tzinfo
    if tz is None or reference.utcoffset() is None:
        raise ValueError("reference must be timezone-aware")
    ctx = _Ctx(text, reference.date())
    mentions: list[TimeMention] = []
    pos = 0
    while (m := _PATTERN.search(text, pos)) is not None:
        window = _resolve(m, ctx)
        if window is None:
            pos = m.start() + 1  # rejected: a shorter expression may still start inside it
            continue
        start, end = m.span()
        timed = _attach_clock(text, start, end) if window.end - window.start == _ONE_DAY else None
        if timed is not None:
            start, end, clock = timed
            instant = _at(window.start, tz, clock)
            mentions.append(TimeMention(text[start:end], (start, end), instant, instant, Granularity.INSTANT))
        else:
            mentions.append(
                TimeMention(
                    text[start:end], (start, end), _at(window.start, tz), _at(window.end, tz), window.granularity
                )
            )
        pos = end
    return mentions


def window_of(mentions: Sequence[TimeMention]) -> tuple[datetime, datetime] | None:
    """The union window [min start, max end) of the expressions found in a recall query, or None.

    An instant ("yesterday at 3pm") counts as its whole day, so the window is never empty.
    """
    if not mentions:
        return None
    starts: list[datetime] = []
    ends: list[datetime] = []
    for mention in mentions:
        if mention.granularity is Granularity.INSTANT:
            day, tz = mention.start.date(), mention.start.tzinfo
            assert tz is not None
            starts.append(_at(day, tz))
            ends.append(_at(day + _ONE_DAY, tz))
        else:
            starts.append(mention.start)
            ends.append(mention.end)
    return min(starts), max(ends)
