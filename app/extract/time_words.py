"""The closed vocabularies (English and Chinese) and regex atoms the time-expression resolver
(`app/extract/timeexpr.py`) matches against."""

from __future__ import annotations

import re
from collections.abc import Iterable

# --- vocabularies ---------------------------------------------------------------------------------

# fmt: off
EN_WEEKDAYS = {
    d: i for i, d in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
}
_EN_MONTHS_FULL = {
    m: i + 1
    for i, m in enumerate((
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
        "december",
    ))
}
EN_MONTH_ABBR = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11,
    "dec": 12,
}
EN_MONTHS = _EN_MONTHS_FULL | EN_MONTH_ABBR
EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "a couple of": 2, "a couple": 2, "couple of": 2,
}
EN_DAY_WORDS = {
    "the day before yesterday": -2, "day before yesterday": -2, "yesterday": -1, "last night": -1,
    "today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
    "tomorrow": 1, "the day after tomorrow": 2, "day after tomorrow": 2,
}
EN_MODIFIERS = {"last": -1, "this": 0, "next": 1}
# Words that make a month name usable in lower case ("since march", "the 3rd of may").
EN_MONTH_PREPOSITIONS = frozenset((
    "in", "on", "during", "since", "until", "till", "by", "from", "before", "after", "of", "through", "throughout",
    "early", "late", "mid", "around",
))
# A bare, capitalised May/March followed or preceded by these is a verb or a modal ("March on", "May I").
EN_VERB_CONTEXT = frozenset((
    "on", "in", "to", "into", "forward", "forth", "past", "through", "off", "along", "out", "up", "down", "away",
    "across", "around", "onward", "onwards", "back", "against", "with", "over", "toward", "towards", "ahead",
    "i", "we", "you", "he", "she", "it", "they", "be", "have", "the", "god", "this", "that", "not", "all", "your",
    "his", "her", "our", "their", "also", "well", "who", "which",
))

_CN_DIGITS = {
    "〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}
CN_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
CN_WEEK_MODIFIERS = {"上": -1, "上上": -2, "下": 1, "下下": 2, "这": 0, "本": 0}
CN_DAY_WORDS = {
    "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "昨夜": -1,
    "今天": 0, "今日": 0, "今晚": 0, "今早": 0, "明天": 1, "明日": 1, "明晚": 1, "明早": 1, "后天": 2, "大后天": 3,
}
CN_YEAR_WORDS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2, "大后年": 3}
CN_MONTH_WORDS = {
    "上上个月": -2, "上个月": -1, "上月": -1, "这个月": 0, "这月": 0, "本月": 0, "下个月": 1, "下月": 1, "下下个月": 2,
}
CN_UNITS = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}
# fmt: on


def alternation(words: Iterable[str]) -> str:
    """Longest first, so that "sept" wins over "sep" and "a couple of" over "a"."""
    items = sorted(words, key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in items)


def cn_int(s: str) -> int | None:
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

EN_END = r"(?![A-Za-z0-9])"
WD = f"(?:{alternation(EN_WEEKDAYS)})"
# An abbreviation may carry a dot before a day or year ("Jan. 5"); a sentence's full stop is not part of it.
MON = f"(?:{alternation(_EN_MONTHS_FULL)}|(?:{alternation(EN_MONTH_ABBR)})(?:\\.(?=\\s*\\d))?)"
MON_FULL = f"(?:{alternation(_EN_MONTHS_FULL)})"
NUM = rf"(?:\d{{1,3}}|{alternation(EN_NUMBERS)})"
UNIT = r"(?:day|week|month|year)s?"
ORD = r"(?:st|nd|rd|th)?"
COUNTED = "words|characters|pages|lines|people|persons|users|items|units|steps|points|dollars|euros|yuan|miles|km"

CN_N = r"(?:\d{1,3}|[一二两三四五六七八九十]{1,3})"
CN_YEAR = r"(?<!\d)(?:\d{4}|[〇零一二三四五六七八九]{4})"
CN_MONTH = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
CN_DAY = r"(?:3[01]|[12]\d|0?[1-9]|三十一?|二十[一二三四五六七八九]?|十[一二三四五六七八九]?|[一二三四五六七八九])"
CN_AFTER_WEEK = r"(?![报刊年期边围到转岁身全密游长末])"  # 周报, 周年, 周期, 周边 ... are not weeks
CN_MOD_GUARD = r"(?<![一马以])"  # 看一下周报, 马上周末, 以上

PREV_WORD = re.compile(r"([A-Za-z]+)[\s,]+\Z")
NEXT_WORD = re.compile(r"\s+([A-Za-z]+)")
