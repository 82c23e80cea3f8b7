"""Time expressions in conversation turns: finding, resolving against the turn's timestamp, query windows."""

from __future__ import annotations

import contextlib
import io
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.extract.timeexpr import find_time_expressions, window_of
from app.extract.types import Granularity, TimeMention
from app.recall.question_time import QuestionTime, question_time

REF = datetime(2024, 5, 15, 10, 0, tzinfo=UTC)  # a Wednesday
CST = timezone(timedelta(hours=8))

DAY, WEEK, MONTH, YEAR, INSTANT = (
    Granularity.DAY,
    Granularity.WEEK,
    Granularity.MONTH,
    Granularity.YEAR,
    Granularity.INSTANT,
)


def at(value: str, tz: timezone | ZoneInfo = UTC) -> datetime:
    """'2024-05-10' or '2024-05-10T15:00' as an aware datetime in `tz`."""
    return datetime.fromisoformat(value).replace(tzinfo=tz)


def only_mention(sentence: str, reference: datetime = REF) -> TimeMention:
    mentions = find_time_expressions(sentence, reference)
    assert len(mentions) == 1, mentions
    return mentions[0]


def assert_row(sentence: str, expr: str, start: str, end: str, granularity: Granularity, ref: datetime = REF) -> None:
    mention = only_mention(sentence, ref)
    assert mention.text == expr
    assert mention.span == (sentence.index(expr), sentence.index(expr) + len(expr))
    assert sentence[mention.span[0] : mention.span[1]] == expr
    assert (mention.start, mention.end, mention.granularity) == (at(start), at(end), granularity)
    assert mention.event_time == mention.start


# (sentence, expression as written, start, end, granularity); reference REF (Wednesday 2024-05-15 10:00 UTC)
EN_ROWS = [
    ("I saw her yesterday.", "yesterday", "2024-05-14", "2024-05-15", DAY),
    ("Today was long.", "Today", "2024-05-15", "2024-05-16", DAY),
    ("Let's talk tomorrow.", "tomorrow", "2024-05-16", "2024-05-17", DAY),
    ("I called the day before yesterday.", "the day before yesterday", "2024-05-13", "2024-05-14", DAY),
    ("We leave the day after tomorrow.", "the day after tomorrow", "2024-05-17", "2024-05-18", DAY),
    ("I slept badly last night.", "last night", "2024-05-14", "2024-05-15", DAY),
    ("Are you free tonight?", "tonight", "2024-05-15", "2024-05-16", DAY),
    ("I went to the dentist last Friday.", "last Friday", "2024-05-10", "2024-05-11", DAY),
    ("I met him last Monday.", "last Monday", "2024-05-06", "2024-05-07", DAY),
    ("The demo was last Wednesday.", "last Wednesday", "2024-05-08", "2024-05-09", DAY),
    ("See you next Wednesday.", "next Wednesday", "2024-05-22", "2024-05-23", DAY),
    ("The review is next Monday.", "next Monday", "2024-05-20", "2024-05-21", DAY),
    ("The party is this Friday.", "this Friday", "2024-05-17", "2024-05-18", DAY),
    ("We shipped it this Monday.", "this Monday", "2024-05-13", "2024-05-14", DAY),
    ("We talked on Monday.", "Monday", "2024-05-13", "2024-05-14", DAY),
    ("She called on friday.", "friday", "2024-05-10", "2024-05-11", DAY),
    ("I am busy on Wednesday.", "Wednesday", "2024-05-15", "2024-05-16", DAY),  # bare, same day
    ("I sold the car 3 days ago.", "3 days ago", "2024-05-12", "2024-05-13", DAY),
    ("He arrived two days ago.", "two days ago", "2024-05-13", "2024-05-14", DAY),
    ("It happened a couple of days ago.", "a couple of days ago", "2024-05-13", "2024-05-14", DAY),
    ("The parcel arrives in 3 days.", "in 3 days", "2024-05-18", "2024-05-19", DAY),
    ("We met a week ago.", "a week ago", "2024-05-08", "2024-05-09", DAY),
    ("I moved two weeks ago.", "two weeks ago", "2024-05-01", "2024-05-02", DAY),
    ("The trip starts in two weeks.", "in two weeks", "2024-05-29", "2024-05-30", DAY),
    ("It is due 5 days from now.", "5 days from now", "2024-05-20", "2024-05-21", DAY),
    # "march 3" is rejected (a verb); the search resumes inside it and finds the real expression
    ("The soldiers march 3 days from now.", "3 days from now", "2024-05-18", "2024-05-19", DAY),
    ("What did I do last week?", "last week", "2024-05-06", "2024-05-13", WEEK),
    ("I am tired this week.", "this week", "2024-05-13", "2024-05-20", WEEK),
    ("I travel next week.", "next week", "2024-05-20", "2024-05-27", WEEK),
    ("It was the week before last.", "the week before last", "2024-04-29", "2024-05-06", WEEK),
    ("We hiked last weekend.", "last weekend", "2024-05-11", "2024-05-13", DAY),
    ("Rent went up last month.", "last month", "2024-04-01", "2024-05-01", MONTH),
    ("Sales are up this month.", "this month", "2024-05-01", "2024-06-01", MONTH),
    ("I start next month.", "next month", "2024-06-01", "2024-07-01", MONTH),
    ("We moved in March.", "in March", "2024-03-01", "2024-04-01", MONTH),
    ("we moved in march", "in march", "2024-03-01", "2024-04-01", MONTH),
    ("March was exhausting.", "March", "2024-03-01", "2024-04-01", MONTH),
    ("I was in Tokyo in June.", "in June", "2023-06-01", "2023-07-01", MONTH),  # not after the reference month
    ("It rained all through May.", "May", "2024-05-01", "2024-06-01", MONTH),
    ("I started in early March.", "in early March", "2024-03-01", "2024-04-01", MONTH),
    ("We married in March 2023.", "in March 2023", "2023-03-01", "2023-04-01", MONTH),
    ("The lease ended last March.", "last March", "2024-03-01", "2024-04-01", MONTH),
    ("The lease ends next March.", "next March", "2025-03-01", "2025-04-01", MONTH),
    ("I got promoted three months ago.", "three months ago", "2024-02-01", "2024-03-01", MONTH),
    ("I graduated two years ago.", "two years ago", "2022-01-01", "2023-01-01", YEAR),
    ("I changed jobs last year.", "last year", "2023-01-01", "2024-01-01", YEAR),
    ("This year was good.", "This year", "2024-01-01", "2025-01-01", YEAR),
    ("Maybe next year.", "next year", "2025-01-01", "2026-01-01", YEAR),  # "Maybe" is not May
    ("I lived there in 2022.", "in 2022", "2022-01-01", "2023-01-01", YEAR),
    ("It was the year before last.", "the year before last", "2022-01-01", "2023-01-01", YEAR),
    ("My birthday is May 10.", "May 10", "2024-05-10", "2024-05-11", DAY),
    ("I signed on May 10, 2024.", "May 10, 2024", "2024-05-10", "2024-05-11", DAY),
    ("The invoice is dated 2024-05-10.", "2024-05-10", "2024-05-10", "2024-05-11", DAY),
    ("It opened on 10 May 2024.", "10 May 2024", "2024-05-10", "2024-05-11", DAY),
    ("It was the 3rd of May.", "the 3rd of May", "2024-05-03", "2024-05-04", DAY),
    ("See section 3 of March report.", "March", "2024-03-01", "2024-04-01", MONTH),  # "3 of" is a count, not a day
    ("We met on June 1.", "June 1", "2023-06-01", "2023-06-02", DAY),  # no year: not in the future
    ("We met on Dec 25.", "Dec 25", "2023-12-25", "2023-12-26", DAY),
    ("I called at 3pm yesterday.", "at 3pm yesterday", "2024-05-14T15:00", "2024-05-14T15:00", INSTANT),
    ("I called yesterday at 3:30 pm.", "yesterday at 3:30 pm", "2024-05-14T15:30", "2024-05-14T15:30", INSTANT),
    ("We met last Friday at 10:00.", "last Friday at 10:00", "2024-05-10T10:00", "2024-05-10T10:00", INSTANT),
    ("Lunch was yesterday at noon.", "yesterday at noon", "2024-05-14T12:00", "2024-05-14T12:00", INSTANT),
    ("I woke up 3 days ago at 6am.", "3 days ago at 6am", "2024-05-12T06:00", "2024-05-12T06:00", INSTANT),
    ("The call was at 9am on Tuesday.", "at 9am on Tuesday", "2024-05-14T09:00", "2024-05-14T09:00", INSTANT),
    ("I flew to LA on Valentine's Day.", "Valentine's Day", "2024-02-14", "2024-02-15", DAY),
    ("We met last Christmas.", "last Christmas", "2023-12-25", "2023-12-26", DAY),
    ("See you next Thanksgiving!", "next Thanksgiving", "2024-11-28", "2024-11-29", DAY),
    ("Easter 2024 was early.", "Easter 2024", "2024-03-31", "2024-04-01", DAY),
    ("We got engaged at Christmas 2022.", "Christmas 2022", "2022-12-25", "2022-12-26", DAY),
    ("We ate out on Mother’s Day.", "Mother’s Day", "2024-05-12", "2024-05-13", DAY),
    ("I drove home over Thanksgiving.", "Thanksgiving", "2023-11-23", "2023-11-24", DAY),
    ("Fireworks on the Fourth of July!", "the Fourth of July", "2023-07-04", "2023-07-05", DAY),
]

ZH_ROWS = [
    ("我昨天去了北京。", "昨天", "2024-05-14", "2024-05-15", DAY),
    ("前天下雨了。", "前天", "2024-05-13", "2024-05-14", DAY),
    ("今天很忙。", "今天", "2024-05-15", "2024-05-16", DAY),
    ("明天见。", "明天", "2024-05-16", "2024-05-17", DAY),
    ("后天出发。", "后天", "2024-05-17", "2024-05-18", DAY),
    ("大前天我生病了。", "大前天", "2024-05-12", "2024-05-13", DAY),
    ("大后天放假。", "大后天", "2024-05-18", "2024-05-19", DAY),
    ("昨晚没睡好。", "昨晚", "2024-05-14", "2024-05-15", DAY),
    ("我上周五去看了牙医。", "上周五", "2024-05-10", "2024-05-11", DAY),
    ("下周三开会。", "下周三", "2024-05-22", "2024-05-23", DAY),
    ("这周五聚餐。", "这周五", "2024-05-17", "2024-05-18", DAY),
    ("本周五交报告。", "本周五", "2024-05-17", "2024-05-18", DAY),
    ("周一我去了公司。", "周一", "2024-05-13", "2024-05-14", DAY),
    ("星期一我去了公司。", "星期一", "2024-05-13", "2024-05-14", DAY),
    ("星期天我在家。", "星期天", "2024-05-12", "2024-05-13", DAY),
    ("星期天气温会下降。", "星期天", "2024-05-12", "2024-05-13", DAY),  # 气温 is temperature
    ("礼拜五我们见过。", "礼拜五", "2024-05-10", "2024-05-11", DAY),
    ("上个星期三我们吃了火锅。", "上个星期三", "2024-05-08", "2024-05-09", DAY),
    ("上上周五我们见过。", "上上周五", "2024-05-03", "2024-05-04", DAY),
    ("上个星期天我在家。", "上个星期天", "2024-05-12", "2024-05-13", DAY),
    ("三天前我卖了车。", "三天前", "2024-05-12", "2024-05-13", DAY),
    ("我3天前卖了车。", "3天前", "2024-05-12", "2024-05-13", DAY),
    ("两天后出发。", "两天后", "2024-05-17", "2024-05-18", DAY),
    ("十天前他来过。", "十天前", "2024-05-05", "2024-05-06", DAY),
    ("一个星期前我们见过。", "一个星期前", "2024-05-08", "2024-05-09", DAY),
    ("两周后交房。", "两周后", "2024-05-29", "2024-05-30", DAY),
    ("上周我很忙。", "上周", "2024-05-06", "2024-05-13", WEEK),
    ("下周出差。", "下周", "2024-05-20", "2024-05-27", WEEK),
    ("本周有雨。", "本周", "2024-05-13", "2024-05-20", WEEK),
    ("这周很累。", "这周", "2024-05-13", "2024-05-20", WEEK),
    ("上个星期我在上海。", "上个星期", "2024-05-06", "2024-05-13", WEEK),
    ("这个星期天气很好。", "这个星期", "2024-05-13", "2024-05-20", WEEK),  # not 星期天 (Sunday)
    ("这一周一直在下雨。", "这一周", "2024-05-13", "2024-05-20", WEEK),  # not 周一 (Monday)
    ("上周末我们去爬山了。", "上周末", "2024-05-11", "2024-05-13", DAY),
    ("上个月房租涨了。", "上个月", "2024-04-01", "2024-05-01", MONTH),
    ("上月工资发了。", "上月", "2024-04-01", "2024-05-01", MONTH),
    ("这个月很忙。", "这个月", "2024-05-01", "2024-06-01", MONTH),
    ("下个月搬家。", "下个月", "2024-06-01", "2024-07-01", MONTH),
    ("三月我们搬了家。", "三月", "2024-03-01", "2024-04-01", MONTH),
    ("3月我们搬了家。", "3月", "2024-03-01", "2024-04-01", MONTH),
    ("十二月很冷。", "十二月", "2023-12-01", "2024-01-01", MONTH),
    ("五月天气很热。", "五月", "2024-05-01", "2024-06-01", MONTH),  # 天气 is weather; 五月天 alone is a band
    ("去年三月我搬到了上海。", "去年三月", "2023-03-01", "2023-04-01", MONTH),
    ("今年五月我换了工作。", "今年五月", "2024-05-01", "2024-06-01", MONTH),
    ("三个月前我换了工作。", "三个月前", "2024-02-01", "2024-03-01", MONTH),
    ("2023年3月我们结婚了。", "2023年3月", "2023-03-01", "2023-04-01", MONTH),
    ("去年我在柏林。", "去年", "2023-01-01", "2024-01-01", YEAR),
    ("今年很顺利。", "今年", "2024-01-01", "2025-01-01", YEAR),
    ("明年再说。", "明年", "2025-01-01", "2026-01-01", YEAR),
    ("前年我结婚了。", "前年", "2022-01-01", "2023-01-01", YEAR),
    ("两年前我毕业了。", "两年前", "2022-01-01", "2023-01-01", YEAR),
    ("我2022年在柏林。", "2022年", "2022-01-01", "2023-01-01", YEAR),
    ("我5月10日到的。", "5月10日", "2024-05-10", "2024-05-11", DAY),
    ("2024年5月10日签的合同。", "2024年5月10日", "2024-05-10", "2024-05-11", DAY),
    ("五月十日是我的生日。", "五月十日", "2024-05-10", "2024-05-11", DAY),
    ("6月1号我们见过。", "6月1号", "2023-06-01", "2023-06-02", DAY),  # no year: not in the future
    ("去年5月10日我们结婚了。", "去年5月10日", "2023-05-10", "2023-05-11", DAY),
    ("昨天一点也不冷。", "昨天", "2024-05-14", "2024-05-15", DAY),  # 一点 = "a bit", not 1 o'clock
    ("昨天下午3点我打了电话。", "昨天下午3点", "2024-05-14T15:00", "2024-05-14T15:00", INSTANT),
    ("上周五晚上8点半我们吃饭。", "上周五晚上8点半", "2024-05-10T20:30", "2024-05-10T20:30", INSTANT),
    ("明天上午10:30开会。", "明天上午10:30", "2024-05-16T10:30", "2024-05-16T10:30", INSTANT),
    ("昨晚11点才睡。", "昨晚11点", "2024-05-14T23:00", "2024-05-14T23:00", INSTANT),
    ("去年圣诞节我们去了哈尔滨。", "去年圣诞节", "2023-12-25", "2023-12-26", DAY),
    ("情人节那天下雨了。", "情人节", "2024-02-14", "2024-02-15", DAY),
    ("2022年国庆节我们在西安。", "2022年国庆节", "2022-10-01", "2022-10-02", DAY),
    ("感恩节我们吃了火鸡。", "感恩节", "2023-11-23", "2023-11-24", DAY),  # the fourth Thursday of November
    ("复活节我们去了教堂。", "复活节", "2024-03-31", "2024-04-01", DAY),
    # lunar holidays, from the table of app/extract/lunar.py
    ("春节我回老家了。", "春节", "2024-02-10", "2024-02-11", DAY),
    ("去年春节我们去了三亚。", "去年春节", "2023-01-22", "2023-01-23", DAY),
    ("除夕那天包了饺子。", "除夕", "2024-02-09", "2024-02-10", DAY),
    ("元宵节吃了汤圆。", "元宵节", "2024-02-24", "2024-02-25", DAY),
    ("今年端午节打算去杭州。", "今年端午节", "2024-06-10", "2024-06-11", DAY),  # this year's: ahead
    ("2023年中秋节我们在上海。", "2023年中秋节", "2023-09-29", "2023-09-30", DAY),
    ("中秋回家看了爸妈。", "中秋", "2023-09-29", "2023-09-30", DAY),  # the latest one not after the turn
    ("2025年中秋节我们回了老家。", "2025年中秋节", "2025-10-06", "2025-10-07", DAY),
    ("七夕节我们去看了电影。", "七夕节", "2023-08-22", "2023-08-23", DAY),
    ("重阳节去爬山了。", "重阳节", "2023-10-23", "2023-10-24", DAY),
]


@pytest.mark.parametrize(("sentence", "expr", "start", "end", "granularity"), EN_ROWS)
def test_english_expressions(sentence: str, expr: str, start: str, end: str, granularity: Granularity) -> None:
    assert_row(sentence, expr, start, end, granularity)


@pytest.mark.parametrize(("sentence", "expr", "start", "end", "granularity"), ZH_ROWS)
def test_chinese_expressions(sentence: str, expr: str, start: str, end: str, granularity: Granularity) -> None:
    assert_row(sentence, expr, start, end, granularity)


def test_tables_are_large_enough() -> None:
    assert len(EN_ROWS) >= 35 and len(ZH_ROWS) >= 35


# Rows whose answer depends on the reference date: year wrap, past bias, weekday of the reference.
@pytest.mark.parametrize(
    ("sentence", "expr", "ref", "start", "end", "granularity"),
    [
        ("We moved in March.", "in March", "2024-02-10", "2023-03-01", "2023-04-01", MONTH),
        ("三月我们搬了家。", "三月", "2024-02-10", "2023-03-01", "2023-04-01", MONTH),
        ("My birthday is May 10.", "May 10", "2024-05-09", "2023-05-10", "2023-05-11", DAY),
        ("It was on Feb 29.", "Feb 29", "2025-03-01", "2024-02-29", "2024-03-01", DAY),
        ("The lease ended last March.", "last March", "2024-03-20", "2023-03-01", "2023-04-01", MONTH),
        ("I came last Sunday.", "last Sunday", "2024-05-19", "2024-05-12", "2024-05-13", DAY),
        ("I came on Sunday.", "Sunday", "2024-05-19", "2024-05-19", "2024-05-20", DAY),
        ("上月工资发了。", "上月", "2024-01-15", "2023-12-01", "2024-01-01", MONTH),
        ("下个月搬家。", "下个月", "2024-12-15", "2025-01-01", "2025-02-01", MONTH),
        ("The parcel arrives in 3 days.", "in 3 days", "2024-12-30", "2025-01-02", "2025-01-03", DAY),
        ("What did I do last week?", "last week", "2024-01-01", "2023-12-25", "2024-01-01", WEEK),
        ("周日我在家。", "周日", "2024-05-13", "2024-05-12", "2024-05-13", DAY),
        ("We met last Christmas.", "last Christmas", "2024-12-25", "2023-12-25", "2023-12-26", DAY),
        ("We met on Christmas.", "Christmas", "2024-12-25", "2024-12-25", "2024-12-26", DAY),
        ("See you next Christmas.", "next Christmas", "2024-12-25", "2025-12-25", "2025-12-26", DAY),
        ("Are you home for Christmas?", "Christmas", "2024-12-03", "2024-12-25", "2024-12-26", DAY),
        ("Are you home for Christmas?", "Christmas", "2024-12-25", "2024-12-25", "2024-12-26", DAY),
        ("Call me on Memorial Day.", "Memorial Day", "2024-06-10", "2024-05-27", "2024-05-28", DAY),
        ("I rested on Labor Day.", "Labor Day", "2024-09-30", "2024-09-02", "2024-09-03", DAY),
        ("On Father's Day we hiked.", "Father's Day", "2024-06-30", "2024-06-16", "2024-06-17", DAY),
    ],
)
def test_resolution_depends_on_reference(
    sentence: str, expr: str, ref: str, start: str, end: str, granularity: Granularity
) -> None:
    assert_row(sentence, expr, start, end, granularity, ref=at(ref + "T10:00"))


@pytest.mark.parametrize(
    "sentence",
    [
        "I may go to the store.",
        "March on, soldiers!",
        "Will said the second option is better.",
        "I bought 3 apples.",
        "May I ask a question?",
        "This may be true.",
        "He will march to the city hall.",
        "I finished in 5 minutes.",
        "We spent many days on it.",
        "I see her every Monday.",
        "The weekly report is ready.",
        "june is a nice name",
        "It was February 30.",
        "Write it in 2000 words or less.",
        "Please summarise our conversation.",
        "我们天天见面。",
        "一天很长。",
        "星期天气",
        "之前天气很好。",
        "目前天气不错。",
        "然后天就黑了。",
        "马上周末了。",
        "看一下周报。",
        "人类登上月球。",
        "这个项目做了三个月。",
        "她是一代天后。",
        "每周一开会。",
        "一周一次。",
        "失去年轻的心。",
        "他聪明天才一样。",
        "第一天后来下雨了。",
        "我们去听五月天的演唱会。",
        "I bought a Christmas tree.",
        "The Halloween party was loud.",
        "我买了圣诞节礼物。",
        "中文课很有意思。",
        "这件事很重要。",
        "端正态度。",
    ],
)
def test_no_expression(sentence: str) -> None:
    assert find_time_expressions(sentence, REF) == []


def test_a_lunar_holiday_outside_the_table_is_not_resolved() -> None:
    assert find_time_expressions("春节我回老家了。", datetime(2045, 3, 1, tzinfo=UTC)) == []
    assert [m.text for m in find_time_expressions("2040年春节", REF)] == ["2040年春节"]


def test_mixed_language_sentence_keeps_text_order_and_spans() -> None:
    sentence = "我last week去了北京，昨天回来, and tomorrow at 3pm I meet Alice."
    found = [(m.text, m.span, m.start, m.end, m.granularity) for m in find_time_expressions(sentence, REF)]
    assert found == [
        ("last week", (1, 10), at("2024-05-06"), at("2024-05-13"), WEEK),
        ("昨天", (15, 17), at("2024-05-14"), at("2024-05-15"), DAY),
        ("tomorrow at 3pm", (25, 40), at("2024-05-16T15:00"), at("2024-05-16T15:00"), INSTANT),
    ]


def test_several_expressions_in_one_english_sentence() -> None:
    sentence = "I moved in March and sold the car two weeks ago, before the 3rd of May."
    found = [(m.text, m.span, m.start, m.granularity) for m in find_time_expressions(sentence, REF)]
    assert found == [
        ("in March", (8, 16), at("2024-03-01"), MONTH),
        ("two weeks ago", (34, 47), at("2024-05-01"), DAY),
        ("the 3rd of May", (56, 70), at("2024-05-03"), DAY),
    ]


def test_several_expressions_in_one_chinese_sentence() -> None:
    sentence = "去年三月我搬到了上海，上周五又回了北京，下个月再去。"
    found = [(m.text, m.span, m.start, m.end) for m in find_time_expressions(sentence, REF)]
    assert found == [
        ("去年三月", (0, 4), at("2023-03-01"), at("2023-04-01")),
        ("上周五", (11, 14), at("2024-05-10"), at("2024-05-11")),
        ("下个月", (20, 23), at("2024-06-01"), at("2024-07-01")),
    ]


def test_days_follow_the_reference_time_zone() -> None:
    # 2024-05-15 20:00 UTC is already 2024-05-16 04:00 in Beijing: "yesterday" differs by a day.
    in_beijing = only_mention("I saw her yesterday.", datetime(2024, 5, 16, 4, 0, tzinfo=CST))
    in_utc = only_mention("I saw her yesterday.", datetime(2024, 5, 15, 20, 0, tzinfo=UTC))
    assert (in_beijing.start, in_beijing.end) == (at("2024-05-15", CST), at("2024-05-16", CST))
    assert in_beijing.start.utcoffset() == timedelta(hours=8)
    assert (in_utc.start, in_utc.end) == (at("2024-05-14", UTC), at("2024-05-15", UTC))


def test_weeks_follow_the_reference_time_zone() -> None:
    # Monday 01:00 in Beijing is still Sunday in UTC: 上周 is a different ISO week.
    beijing = only_mention("上周我很忙。", datetime(2024, 5, 20, 1, 0, tzinfo=CST))
    utc = only_mention("上周我很忙。", datetime(2024, 5, 19, 17, 0, tzinfo=UTC))
    assert (beijing.start, beijing.end) == (at("2024-05-13", CST), at("2024-05-20", CST))
    assert (utc.start, utc.end) == (at("2024-05-06", UTC), at("2024-05-13", UTC))


def test_day_windows_use_local_midnights_across_a_dst_change() -> None:
    new_york = ZoneInfo("America/New_York")
    mention = only_mention("I saw her yesterday.", datetime(2024, 3, 11, 12, 0, tzinfo=new_york))
    assert mention.start == datetime(2024, 3, 10, tzinfo=new_york)
    assert mention.start.utcoffset() == timedelta(hours=-5)
    assert mention.end.utcoffset() == timedelta(hours=-4)
    assert mention.end.astimezone(UTC) - mention.start.astimezone(UTC) == timedelta(
        hours=23
    )  # the clocks sprang forward that day


def test_instant_keeps_the_reference_time_zone() -> None:
    mention = only_mention("昨天下午3点我打了电话。", datetime(2024, 5, 15, 9, 0, tzinfo=CST))
    assert mention.start == mention.end == datetime(2024, 5, 14, 15, 0, tzinfo=CST)
    assert mention.granularity is INSTANT


def test_naive_reference_raises() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        find_time_expressions("yesterday", datetime(2024, 5, 15, 10, 0))
    with pytest.raises(ValueError, match="timezone-aware"):
        window_of(find_time_expressions("yesterday", datetime(2024, 5, 15, 10, 0)))


@pytest.mark.parametrize(
    ("query", "window"),
    [
        ("what did I do last week", ("2024-05-06", "2024-05-13")),
        ("上周我做了什么", ("2024-05-06", "2024-05-13")),
        ("what happened between last Monday and yesterday", ("2024-05-06", "2024-05-15")),
        ("what did I eat yesterday at noon", ("2024-05-14", "2024-05-15")),  # an instant counts as its day
        ("去年三月和上个月我去了哪里", ("2023-03-01", "2024-05-01")),
        ("what are my plans for next month", ("2024-06-01", "2024-07-01")),
        ("What was the airline that I flew with on Valentine's day?", ("2024-02-14", "2024-02-15")),
        ("tell me a joke", None),
        ("我们天天见面吗", None),
    ],
)
def test_query_window(query: str, window: tuple[str, str] | None) -> None:
    expected = None if window is None else (at(window[0]), at(window[1]))
    assert window_of(find_time_expressions(query, REF)) == expected


# Independent check against the maintained libraries where their semantics match ours.
@pytest.mark.parametrize(
    "expr",
    [
        "昨天",
        "前天",
        "今天",
        "明天",
        "后天",
        "大前天",
        "上周五",
        "下周三",
        "这周五",
        "上上周五",
        "周一",
        "三天前",
        "两天后",
    ]
    + ["5月10日", "2024年5月10日", "上周", "本周", "去年三月", "前年"],
)
def test_chinese_agrees_with_jionlp(expr: str) -> None:
    jionlp = _import_jionlp()
    theirs = jionlp.parse_time(expr, time_base=datetime(2024, 5, 15, 10, 0).timestamp())["time"]
    ours = only_mention(expr)
    assert (ours.start.date(), (ours.end - timedelta(seconds=1)).date()) == (
        date.fromisoformat(theirs[0][:10]),
        date.fromisoformat(theirs[1][:10]),
    )


@pytest.mark.parametrize(
    "expr",
    ["yesterday", "tomorrow", "last Friday", "next Wednesday", "3 days ago", "two weeks ago", "Friday", "Monday"]
    + ["May 10", "10 May 2024", "2024-05-10", "June 1"],
)
def test_english_agrees_with_dateparser(expr: str) -> None:
    import dateparser  # a dev dependency: the maintained library the resolver is checked against

    settings = {"RELATIVE_BASE": datetime(2024, 5, 15, 10, 0), "PREFER_DATES_FROM": "past"}
    theirs = dateparser.parse(expr, languages=["en"], settings=settings)
    assert only_mention(expr).start.date() == theirs.date()


def _import_jionlp() -> Any:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):  # its import banner
        import jionlp  # a dev dependency, like dateparser

        return jionlp


# --- the window a recall query asks about (app/recall/question_time.py) -----------------------------

QUESTION_NOW = datetime(2025, 9, 10, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "start", "end", "words"),
    [
        # seasons with a year, or last/this/next
        ("去年夏天我们去了哪里？", "2024-06-01", "2024-09-01", ["去年夏天"]),
        ("她2023年冬天去了哪里", "2023-12-01", "2024-03-01", ["2023年冬天"]),
        ("今年春天他在忙什么？", "2025-03-01", "2025-06-01", ["今年春天"]),
        ("Where did they go last summer?", "2025-06-01", "2025-09-01", ["last summer"]),
        ("What did she do last winter?", "2024-12-01", "2025-03-01", ["last winter"]),
        (
            "What new hobby did Olivia pick up in the summer of 2023?",
            "2023-06-01",
            "2023-09-01",
            ["in the summer of 2023"],
        ),
        ("Which club was James covering in spring 2023?", "2023-03-01", "2023-06-01", ["in spring 2023"]),
        ("What do we do next winter?", "2025-12-01", "2026-03-01", ["next winter"]),
        # before and after: the 30 days (or the expression's length) beside it
        ("春节前他买了什么？", "2024-12-30", "2025-01-29", ["春节前"]),
        ("春节后他去了哪里？", "2025-01-30", "2025-03-01", ["春节后"]),
        ("国庆节之后呢", "2024-10-02", "2024-11-01", ["国庆节之后"]),
        ("在6月份以前", "2025-05-02", "2025-06-01", ["6月份以前"]),
        ("What did he buy before Christmas?", "2024-11-25", "2024-12-25", ["before Christmas"]),
        # as before: the expression itself
        ("王磊2025年8月去了哪里？", "2025-08-01", "2025-09-01", ["2025年8月"]),
        ("上周谁来了", "2025-09-01", "2025-09-08", ["上周"]),
        ("三天前他说了什么", "2025-09-07", "2025-09-08", ["三天前"]),
        ("春节前后他在哪", "2025-01-29", "2025-01-30", ["春节"]),  # 前后 is "around"
    ],
)
def test_a_question_asks_about_seasons_and_the_time_before_or_after_a_date(
    question: str, start: str, end: str, words: list[str]
) -> None:
    asked = question_time(question, QUESTION_NOW)
    assert asked.window == (at(start), at(end))
    assert [question[a:b] for a, b in asked.spans] == words


@pytest.mark.parametrize(
    "question",
    [
        "What did they do at summer camp?",
        "I had a fall",
        "When did Caroline go to a pride parade during the summer?",
        "Caroline夏天什么时候参加过骄傲游行？",
        "这个冬天有什么计划",
        "冬天气温多少",
        "后来呢？",
    ],
)
def test_a_season_without_a_year_is_no_time(question: str) -> None:
    assert question_time(question, QUESTION_NOW) == QuestionTime(None, ())
