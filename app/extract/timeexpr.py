"""Find relative and absolute time expressions in a conversation turn and resolve them to windows.

`find_time_expressions(text, reference)` returns a `TimeMention` per expression, in text order, for
English and Chinese (also mixed in one text). `window_of(mentions)` gives the read path the union
window of the expressions found in a recall query.

How it works: one precompiled regex over a closed vocabulary finds candidate phrases, and small
deterministic calendar code resolves each one (the vocabulary and regex atoms are in `time_words.py`,
the calendar windows and holidays in `time_calendar.py`, clock times in `time_clock.py`).
dateparser and jionlp were measured for this and are not used: their search functions cost 1-3 ms
per turn once warm (150-220 ms on the first call) and fire on non-time text ("We", "may", 一天,
星期天 in 星期天气); their parsers return points where a window is meant ("in March" -> 2024-03-15),
fail on common forms (dateparser: 上周五, 三天前; jionlp: 上月, 十二月), and disagree with the
week semantics below (dateparser: "last Monday" on a Wednesday is two days ago, "next Thursday"
is tomorrow).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from app.extract.time_calendar import (
    CN_HOLIDAYS,
    EN_HOLIDAY_KEYS,
    EN_HOLIDAY_PREPOSITIONS,
    EN_HOLIDAYS,
    ONE_DAY,
    Window,
    bare_month_window,
    day_window,
    holiday_key,
    holiday_window,
    month_window,
    offset_window,
    past_date_window,
    shift_month,
    week_window,
    weekday_window,
    weekend_window,
    year_window,
)
from app.extract.time_clock import attach_clock
from app.extract.time_words import (
    CN_AFTER_WEEK,
    CN_DAY,
    CN_DAY_WORDS,
    CN_MOD_GUARD,
    CN_MONTH,
    CN_MONTH_WORDS,
    CN_N,
    CN_UNITS,
    CN_WEEK_MODIFIERS,
    CN_WEEKDAYS,
    CN_YEAR,
    CN_YEAR_WORDS,
    COUNTED,
    EN_DAY_WORDS,
    EN_END,
    EN_MODIFIERS,
    EN_MONTH_ABBR,
    EN_MONTH_PREPOSITIONS,
    EN_MONTHS,
    EN_NUMBERS,
    EN_VERB_CONTEXT,
    EN_WEEKDAYS,
    MON,
    MON_FULL,
    NEXT_WORD,
    NUM,
    ORD,
    PREV_WORD,
    UNIT,
    WD,
    alternation,
    cn_int,
)
from app.extract.types import Granularity, TimeMention

__all__ = ["find_time_expressions", "window_of"]


@dataclass(frozen=True, slots=True)
class _Ctx:
    text: str
    today: date  # the reference's local date


# --- resolvers (return None to reject a candidate) ------------------------------------------------


def _norm(s: str) -> str:
    return " ".join(s.lower().split())


def _en_num(s: str) -> int:
    return int(s) if s.isdigit() else EN_NUMBERS[_norm(s)]


def _unit(s: str) -> str:
    return s.lower().removesuffix("s")


def _previous_word(text: str, pos: int) -> str:
    """The lower-cased English word right before `pos` (only spaces or a comma between), or ""."""
    m = PREV_WORD.search(text, max(0, pos - 24), pos)
    return m.group(1).lower() if m else ""


def _month_word_ok(m: re.Match[str], group: str, ctx: _Ctx, *, anchored: bool, prep: bool = False) -> bool:
    """Whether a month word is a month here.

    `anchored`: a day or year is attached to it; `prep`: the match itself starts with in/during.
    """
    word = m.group(group)
    key = word.lower().rstrip(".")
    prev = _previous_word(ctx.text, m.start(group))
    prep = prep or prev in EN_MONTH_PREPOSITIONS
    capital = word[0].isupper()
    if key in EN_MONTH_ABBR:
        return capital and (anchored or prep)
    if prep:
        return True
    if key not in ("may", "march"):
        return capital or anchored
    if not capital:
        return False
    if anchored:
        return True
    nxt = NEXT_WORD.match(ctx.text, m.end(group))
    return (nxt is None or nxt.group(1).lower() not in EN_VERB_CONTEXT) and prev not in EN_VERB_CONTEXT


def _explicit_or_past(ctx: _Ctx, year: str | None, month: int, day: int) -> Window | None:
    if year is not None:
        return day_window(date(int(year), month, day))
    return past_date_window(ctx.today, month, day)


def _en_iso(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return day_window(date(int(m["iso_y"]), int(m["iso_m"]), int(m["iso_d"])))


def _en_iso_month(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return month_window(int(m["isom_y"]), int(m["isom_m"]))


def _en_month_first(m: re.Match[str], ctx: _Ctx) -> Window | None:
    """ "May 10", "May 10, 2024", "March 2023", "in (early) March", "March"."""
    anchored = bool(m["mf_d"] or m["mf_y"])
    if not _month_word_ok(m, "mf_mon", ctx, anchored=anchored, prep=bool(m["mf_prep"])):
        return None
    month = EN_MONTHS[m["mf_mon"].lower().rstrip(".")]
    if m["mf_d"]:
        return _explicit_or_past(ctx, m["mf_y"], month, int(m["mf_d"]))
    if m["mf_y"]:
        return month_window(int(m["mf_y"]), month)
    return bare_month_window(ctx.today, month)


def _en_dm(m: re.Match[str], ctx: _Ctx) -> Window | None:
    if not _month_word_ok(m, "dm_mon", ctx, anchored=True):
        return None
    return _explicit_or_past(ctx, m["dm_y"], EN_MONTHS[m["dm_mon"].lower().rstrip(".")], int(m["dm_d"]))


def _en_ago(m: re.Match[str], ctx: _Ctx) -> Window | None:
    n = _en_num(m["ago_n"])
    return offset_window(ctx.today, -n if m["ago_dir"].lower() == "ago" else n, _unit(m["ago_u"]))


def _en_in(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return offset_window(ctx.today, _en_num(m["in_n"]), _unit(m["in_u"]))


def _en_dayword(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return day_window(ctx.today + timedelta(days=EN_DAY_WORDS[_norm(m["dw"])]))


def _en_mod(m: re.Match[str], ctx: _Ctx) -> Window | None:
    """last/this/next + weekday, week, weekend, month, year or month name."""
    mod, today = EN_MODIFIERS[m["mod"].lower()], ctx.today
    if m["mod_wd"]:
        return weekday_window(today, EN_WEEKDAYS[m["mod_wd"].lower()], mod)
    unit = (m["mod_u"] or "").lower()
    if unit == "week":
        return week_window(today, mod)
    if unit == "weekend":
        return weekend_window(today, mod)
    if unit == "month":
        return month_window(*shift_month(today.year, today.month, mod))
    if unit == "year":
        return year_window(today.year + mod)
    word = m["mod_mon"]
    if word.lower() in ("may", "march") and not word[0].isupper():  # "this may be", "next march"
        return None
    month = EN_MONTHS[word.lower()]
    if mod < 0:
        return month_window(today.year if month < today.month else today.year - 1, month)
    if mod > 0:
        return month_window(today.year if month > today.month else today.year + 1, month)
    return month_window(today.year, month)


def _en_far(m: re.Match[str], ctx: _Ctx) -> Window | None:
    """ "the week before last", "the year after next"."""
    n = -2 if m["far_dir"].lower().startswith("before") else 2
    return week_window(ctx.today, n) if m["far_u"].lower() == "week" else year_window(ctx.today.year + n)


def _en_prep_year(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return year_window(int(m["py_y"]))


def _en_wd(m: re.Match[str], ctx: _Ctx) -> Window | None:
    if _previous_word(ctx.text, m.start()) in ("every", "each"):  # recurring, not a day
        return None
    return weekday_window(ctx.today, EN_WEEKDAYS[m["wd_d"].lower()], None)


def _en_holiday(m: re.Match[str], ctx: _Ctx) -> Window | None:
    mod = EN_MODIFIERS[m["hol_mod"].lower()] if m["hol_mod"] else None
    year = int(m["hol_y"]) if m["hol_y"] else None
    day_in = EN_HOLIDAY_KEYS[holiday_key(m["hol"])]
    if mod is not None or year is not None:
        return holiday_window(day_in, ctx.today, year, mod)
    previous = _previous_word(ctx.text, m.start())
    if previous == "for":  # "home for Christmas", "plans for Thanksgiving": the coming one
        return holiday_window(day_in, ctx.today - ONE_DAY, None, 1)
    if previous not in EN_HOLIDAY_PREPOSITIONS:
        return None  # "a Christmas tree", "the Halloween party": a thing, not a day
    return holiday_window(day_in, ctx.today, None, None)


def _cn_holiday(m: re.Match[str], ctx: _Ctx) -> Window | None:
    if m["chy_y"]:
        year: int | None = _cn_number(m["chy_y"])
    else:
        year = ctx.today.year + CN_YEAR_WORDS[m["chy_w"]] if m["chy_w"] else None
    return holiday_window(CN_HOLIDAYS[m["ch"]], ctx.today, year, None)


def _cn_number(s: str) -> int:
    n = cn_int(s)
    if n is None:
        raise ValueError(f"not a number: {s}")
    return n


def _cn_full(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return day_window(date(_cn_number(m["cf_y"]), _cn_number(m["cf_m"]), _cn_number(m["cf_d"])))


def _cn_year_month(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return month_window(_cn_number(m["cym_y"]), _cn_number(m["cym_m"]))


def _cn_year(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return year_window(_cn_number(m["cy_y"]))


def _cn_rel_year_month(m: re.Match[str], ctx: _Ctx) -> Window | None:
    year = ctx.today.year + CN_YEAR_WORDS[m["cry"]]
    if m["cry_d"]:
        return day_window(date(year, _cn_number(m["cry_m"]), _cn_number(m["cry_d"])))
    return month_window(year, _cn_number(m["cry_m"]))


def _cn_md(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return past_date_window(ctx.today, _cn_number(m["cmd_m"]), _cn_number(m["cmd_d"]))


def _cn_offset(m: re.Match[str], ctx: _Ctx) -> Window | None:
    n = _cn_number(m["co_n"])
    return offset_window(ctx.today, -n if m["co_dir"].endswith("前") else n, CN_UNITS[m["co_u"]])


def _cn_week_offset(mod: str | None) -> int | None:
    return None if mod is None else CN_WEEK_MODIFIERS[mod]


def _cn_weekday(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return weekday_window(ctx.today, CN_WEEKDAYS[m["cw_d"]], _cn_week_offset(m["cw_mod"]))


def _cn_weekend(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return weekend_window(ctx.today, CN_WEEK_MODIFIERS[m["cwe_mod"]])


def _cn_week(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return week_window(ctx.today, CN_WEEK_MODIFIERS[m["ck_mod"]])


def _cn_month_rel(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return month_window(*shift_month(ctx.today.year, ctx.today.month, CN_MONTH_WORDS[m["cm"]]))


def _cn_year_rel(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return year_window(ctx.today.year + CN_YEAR_WORDS[m["cyw"]])


def _cn_dayword(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return day_window(ctx.today + timedelta(days=CN_DAY_WORDS[m["cdw"]]))


def _cn_month(m: re.Match[str], ctx: _Ctx) -> Window | None:
    return bare_month_window(ctx.today, _cn_number(m["cbm_m"]))


# --- rules: name (also the regex group), pattern, resolver -----------------------------------------

_Resolver = Callable[[re.Match[str], _Ctx], Window | None]

# English rules share a "no letter or digit on either side" guard. Where two rules can match at the
# same position the first one listed wins, so longer forms come first.
_EN_HOLIDAY_NAMES = "|".join(
    r"\s+".join(re.escape(word).replace("'", "['’]?") for word in name.split())
    for name in sorted(EN_HOLIDAYS, key=len, reverse=True)
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
        rf"(?:(?P<mf_prep>in|during)\s+(?:(?:early|late|mid)(?:-|\s+))?)?(?P<mf_mon>{MON})"
        rf"(?:\s+(?P<mf_d>\d{{1,2}}){ORD})?(?:,?\s+(?P<mf_y>\d{{4}}))?",
        _en_month_first,
    ),
    (
        "en_dm",
        rf"(?:the\s+)?(?P<dm_d>\d{{1,2}})(?:(?:st|nd|rd|th)\s+(?:of\s+)?|\s+)(?P<dm_mon>{MON})(?:,?\s+(?P<dm_y>\d{{4}}))?",
        _en_dm,
    ),
    ("en_ago", rf"(?P<ago_n>{NUM})\s+(?P<ago_u>{UNIT})\s+(?P<ago_dir>ago|from\s+now|from\s+today)", _en_ago),
    ("en_in", rf"in\s+(?P<in_n>{NUM})\s+(?P<in_u>{UNIT})", _en_in),
    ("en_dayword", f"(?P<dw>{alternation(EN_DAY_WORDS)})", _en_dayword),
    (
        "en_mod",
        rf"(?P<mod>last|this|next)\s+(?:(?P<mod_wd>{WD})|(?P<mod_u>weekend|week|month|year)|(?P<mod_mon>{MON_FULL}))",
        _en_mod,
    ),
    ("en_far", r"the\s+(?P<far_u>week|year)\s+(?P<far_dir>before\s+last|after\s+next)", _en_far),
    # "in 2000 words" is a count, not a year
    ("en_prep_year", rf"(?:in|during)\s+(?P<py_y>(?:19|20)\d\d)(?!\s+(?:{COUNTED}))", _en_prep_year),
    ("en_wd", f"(?P<wd_d>{WD})", _en_wd),
]

_CN_RULES: list[tuple[str, str, _Resolver]] = [
    (
        "cn_holiday",
        # 圣诞节礼物 (a Christmas present) and 圣诞节树 are things
        rf"(?:(?P<chy_y>{CN_YEAR})年|(?P<chy_w>{alternation(CN_YEAR_WORDS)}))?"
        rf"(?P<ch>{alternation(CN_HOLIDAYS)})(?!礼物|树|贺卡|装饰)",
        _cn_holiday,
    ),
    ("cn_full", rf"(?P<cf_y>{CN_YEAR})年(?P<cf_m>{CN_MONTH})月(?P<cf_d>{CN_DAY})[日号]", _cn_full),
    ("cn_year_month", rf"(?P<cym_y>{CN_YEAR})年(?P<cym_m>{CN_MONTH})月份?", _cn_year_month),
    ("cn_year", rf"(?P<cy_y>{CN_YEAR})年(?![代级])", _cn_year),
    (
        "cn_rel_year_month",
        rf"(?P<cry>{alternation(CN_YEAR_WORDS)})(?P<cry_m>{CN_MONTH})月份?(?:(?P<cry_d>{CN_DAY})[日号])?",
        _cn_rel_year_month,
    ),
    ("cn_md", rf"(?<![\d年])(?P<cmd_m>{CN_MONTH})月(?P<cmd_d>{CN_DAY})[日号]", _cn_md),
    (
        "cn_offset",
        # 三月前 is "before March": a month count needs 个 (三个月前)
        rf"(?<![\d第])(?P<co_n>{CN_N})个?(?P<co_u>天|日|周|星期|礼拜|(?<=个)月|年)(?P<co_dir>以前|之前|以后|之后|前|后)",
        _cn_offset,
    ),
    (
        "cn_weekday",
        rf"(?:{CN_MOD_GUARD}(?P<cw_mod>上上|下下|上|下|这|本)[个一]?|(?<![一二两三四五六七八九十几每个]))"
        r"(?:周|星期|礼拜)(?P<cw_d>[一二三四五六日天])"
        # 星期一直 (kept on) and 星期天气 (weather) are not weekdays; 星期天气温 (temperature) is one.
        r"(?!(?<=一)[直起样定下般些点次切共边向致同块])(?!(?<=天)气(?!温))",
        _cn_weekday,
    ),
    ("cn_weekend", rf"{CN_MOD_GUARD}(?P<cwe_mod>上上|下下|上|下|这|本)[个一]?周末", _cn_weekend),
    ("cn_week", rf"{CN_MOD_GUARD}(?P<ck_mod>上上|下下|上|下|这|本)[个一]?(?:周|星期|礼拜){CN_AFTER_WEEK}", _cn_week),
    (
        "cn_month_rel",
        rf"(?<![一马以登爬走奔飞跳])(?P<cm>{alternation(CN_MONTH_WORDS)})(?![球亮光饼台])",
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
    ("cn_month", rf"(?<![\d一二三四五六七八九十两几个年上下这本每])(?P<cbm_m>{CN_MONTH})月份?(?!天(?!气))", _cn_month),
]

_RESOLVERS: dict[str, _Resolver] = {name: resolver for name, _, resolver in _EN_RULES + _CN_RULES}
# The lookaheads on the first character let most positions skip all the rules of the other language
# after one character-class test (about 3x faster on text without an expression).
_PATTERN = re.compile(
    r"(?<![A-Za-z0-9])(?=[A-Za-z0-9])(?:"
    + "|".join(f"(?P<{name}>{pattern}){EN_END}" for name, pattern, _ in _EN_RULES)
    + r")|(?=[\d〇零一二两三四五六七八九十上下这本大前后昨今明去周星礼元情妇愚复劳母儿父国万感平圣春除端中重])(?:"
    + "|".join(f"(?P<{name}>{pattern})" for name, pattern, _ in _CN_RULES)
    + ")",
    re.IGNORECASE,
)

# --- public API -------------------------------------------------------------------------------


def _at(d: date, tz: tzinfo, clock: time = time()) -> datetime:
    return datetime.combine(d, clock, tzinfo=tz)


def _resolve(m: re.Match[str], ctx: _Ctx) -> Window | None:
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
        timed = attach_clock(text, start, end) if window.end - window.start == ONE_DAY else None
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
            ends.append(_at(day + ONE_DAY, tz))
        else:
            starts.append(mention.start)
            ends.append(mention.end)
    return min(starts), max(ends)
