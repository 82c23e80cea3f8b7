"""Clock times next to a single-day expression ("at 3pm yesterday", 昨天下午3点) for the
time-expression resolver (`app/extract/timeexpr.py`)."""

from __future__ import annotations

import re
from datetime import time

from app.extract.time_words import cn_int

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
    hour = cn_int(m["h"])
    if m["mc"]:
        minute: int | None = int(m["mc"])
    elif m["half"]:
        minute = 30
    elif m["q"]:
        minute = 15 if m["q"] == "一" else 45
    else:
        minute = cn_int(m["mi"]) if m["mi"] else 0
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


def attach_clock(text: str, start: int, end: int) -> tuple[int, int, time] | None:
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
