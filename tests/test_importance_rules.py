"""Write-time importance rules (app/data/importance_rules.yaml), promotion on access, raise-only."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.domain.importance import (
    DEFAULT_RULES_PATH,
    PROMOTION_ACCESS_COUNT,
    ImportanceRules,
    apply_raise_only,
    promote_on_access,
    strip_for_whole_text,
)
from app.domain.model import Importance

TRIVIAL = Importance.TRIVIAL
NORMAL = Importance.NORMAL
IMPORTANT = Importance.IMPORTANT
FACT = Importance.FACT
IDENTITY = Importance.IDENTITY
MUST = Importance.MUST_REMEMBER

ENGLISH = [
    ("Remember this: I take my coffee black", MUST),
    ("Always reply in English", MUST),
    ("Never call me before 9am", MUST),
    ("You must use the staging server", MUST),
    ("Don't forget the keys", MUST),
    ("Make sure the backup runs nightly", MUST),
    ("ok, my name is Bob", IDENTITY),
    ("I'm a software engineer", IDENTITY),
    ("I am an architect", IDENTITY),
    ("Call me Liz", IDENTITY),
    ("I'm from Lyon", IDENTITY),
    ("I was born in 1990", IDENTITY),
    ("My phone number is 555-1234", FACT),
    ("I live in Berlin", FACT),
    ("I moved to Tokyo last year", FACT),
    ("I work at Acme", FACT),
    ("The office is located in Shenzhen", FACT),
    ("The ticket costs $40", FACT),
    ("I prefer tea over coffee", IMPORTANT),
    ("I really love hiking", IMPORTANT),
    ("I hate cilantro", IMPORTANT),
    ("My favorite color is blue", IMPORTANT),
    ("We decided to use Postgres", IMPORTANT),
    ("We agreed on Friday", IMPORTANT),
    ("Let's go with option B", IMPORTANT),
    ("The deadline is next week", IMPORTANT),
    ("ok", TRIVIAL),
    ("thanks!!", TRIVIAL),
    ("  Thank you so much! 🙏 ", TRIVIAL),
    ("ok cool 👍", TRIVIAL),
    ("no problem", TRIVIAL),
    ("Hi", TRIVIAL),
    ("The meeting went fine", NORMAL),
    ("hello there", NORMAL),
    # near misses of the rules above
    ("I'm a bit tired today", NORMAL),
    ("Call me back tomorrow", NORMAL),
    ("I would like a glass of water", NORMAL),
    ("I feel like going out", NORMAL),
    ("hik", NORMAL),
    ("", NORMAL),
]

CHINESE = [
    ("哈哈，记住我不吃香菜", MUST),
    ("务必在周五前提交", MUST),
    ("你一定要来", MUST),
    ("千万别迟到", MUST),
    ("别忘了带伞", MUST),
    ("永远不要删除生产数据", MUST),
    ("我叫小明", IDENTITY),
    ("我的名字是李华", IDENTITY),
    ("我是一名医生", IDENTITY),
    ("我是程序员", IDENTITY),
    ("我来自成都", IDENTITY),
    ("我出生在1995年", IDENTITY),
    ("我的猫是橘猫", FACT),
    ("我住在上海", FACT),
    ("我搬到了深圳", FACT),
    ("我在腾讯工作", FACT),
    ("公司位于杭州", FACT),
    ("这件衣服花了200元", FACT),
    ("我喜欢喝咖啡", IMPORTANT),
    ("我更喜欢绿茶", IMPORTANT),
    ("我讨厌下雨", IMPORTANT),
    ("我最喜欢的水果是芒果", IMPORTANT),
    ("我们决定用Python", IMPORTANT),
    ("我们约定每周一开会", IMPORTANT),
    ("截止日期是周五", IMPORTANT),
    ("嗯", TRIVIAL),
    ("嗯嗯", TRIVIAL),
    ("好的", TRIVIAL),
    ("哈哈哈", TRIVIAL),
    ("谢谢！", TRIVIAL),
    ("你好", TRIVIAL),
    ("再见", TRIVIAL),
    ("收到", TRIVIAL),
    ("嗯，好的，谢谢", TRIVIAL),
    ("今天天气不错", NORMAL),
    # near misses of the rules above
    ("这个项目花了三千万", NORMAL),
    ("你还记得我吗", NORMAL),
    ("我叫了外卖", NORMAL),
    ("我是说我们可以晚点", NORMAL),
    ("好的，我住在上海", FACT),
]

MIXED = [
    ("ok 谢谢", TRIVIAL),
    ("ok, 我叫Bob", IDENTITY),
    ("thanks, 记住我的生日", MUST),
]


@pytest.fixture(scope="module")
def rules() -> ImportanceRules:
    return ImportanceRules.load()


@pytest.mark.parametrize(("text", "expected"), ENGLISH + CHINESE + MIXED)
def test_detect(rules: ImportanceRules, text: str, expected: Importance) -> None:
    assert rules.detect(text) == expected


def test_table_size_and_coverage() -> None:
    assert len(ENGLISH) >= 15 and len(CHINESE) >= 15
    for table in (ENGLISH, CHINESE):
        assert {level for _, level in table} == set(Importance)


def test_default_file_has_a_rule_for_every_level_but_normal(rules: ImportanceRules) -> None:
    assert DEFAULT_RULES_PATH.name == "importance_rules.yaml"
    assert {r.level for r in rules.rules} == set(Importance) - {NORMAL}
    assert [r.level for r in rules.rules if r.whole_text] == [TRIVIAL]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  thanks!! ", "thanks"),
        ("ok,cool👍🏽", "ok cool"),
        ("❤️ 好的。。。", "好的"),
        ("嗯，好的！谢谢", "嗯 好的 谢谢"),
        ("don't", "don t"),
    ],
)
def test_strip_for_whole_text(text: str, expected: str) -> None:
    assert strip_for_whole_text(text) == expected


# --- user rules files -------------------------------------------------------------------------------

GOOD_RULE = """
- level: IMPORTANT
  description: a project word
  patterns:
    en: ['\\bproject\\b']
"""


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "rules.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def test_user_file_highest_level_wins_whatever_the_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        GOOD_RULE
        + """
- level: FACT
  description: a budget
  patterns:
    en: ['budget']
    fr: ['\\bbudget\\b']
- level: TRIVIAL
  description: one word
  whole_text: true
  patterns:
    en: ['meh']
""",
    )
    rules = ImportanceRules.load(path)
    assert [r.level for r in rules.rules] == [FACT, IMPORTANT, TRIVIAL]
    assert rules.rules[0].description == "a budget"
    assert len(rules.rules[0].patterns) == 2
    assert rules.detect("the project budget") == FACT
    assert rules.detect("the PROJECT") == IMPORTANT
    assert rules.detect("meh!") == TRIVIAL
    assert rules.detect("meh project") == IMPORTANT
    assert rules.detect("meh meh") == TRIVIAL
    assert rules.detect("mehh") == NORMAL
    assert rules.detect("nothing here") == NORMAL


@pytest.mark.parametrize(
    ("bad_rule", "fragments"),
    [
        (
            "- level: HUGE\n  description: x\n  patterns: {en: ['a']}\n",
            ["rule 1", "'level'", "HUGE", "MUST_REMEMBER"],
        ),
        ("- description: x\n  patterns: {en: ['a']}\n", ["rule 1", "'level'", "missing"]),
        (
            "- level: FACT\n  description: x\n  patterns: {en: ['ok', '(unclosed']}\n",
            ["rule 1", "'patterns.en[1]'", "bad regular expression", "(unclosed"],
        ),
        ("- level: FACT\n  description: x\n", ["rule 1", "'patterns'", "missing"]),
        ("- level: FACT\n  description: x\n  patterns: {}\n", ["rule 1", "'patterns'"]),
        ("- level: FACT\n  description: x\n  patterns: ['a']\n", ["rule 1", "'patterns'", "mapping"]),
        ("- level: FACT\n  description: x\n  patterns: {zh: []}\n", ["rule 1", "'patterns.zh'", "non-empty"]),
        (
            "- level: FACT\n  description: x\n  patterns: {en: [3]}\n",
            ["rule 1", "'patterns.en[0]'", "string"],
        ),
        (
            "- level: FACT\n  description: x\n  patterns: {en: ['a', 'b*']}\n",
            ["rule 1", "'patterns.en[1]'", "empty string"],
        ),
        ("- level: FACT\n  patterns: {en: ['a']}\n", ["rule 1", "'description'", "missing"]),
        (
            "- level: FACT\n  description: x\n  whole_text: 'yes'\n  patterns: {en: ['a']}\n",
            ["rule 1", "'whole_text'", "true or false"],
        ),
        (
            "- level: FACT\n  description: x\n  pattern: {en: ['a']}\n  patterns: {en: ['a']}\n",
            ["rule 1", "'pattern'", "unknown field"],
        ),
        ("- just a string\n", ["rule 1", "expected a mapping"]),
    ],
)
def test_load_rejects_a_bad_rule_naming_index_and_field(tmp_path: Path, bad_rule: str, fragments: list[str]) -> None:
    path = write(tmp_path, GOOD_RULE + bad_rule)
    with pytest.raises(ValueError) as raised:
        ImportanceRules.load(path)
    message = str(raised.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message


@pytest.mark.parametrize(("body", "fragment"), [("", "non-empty list"), ("level: FACT\n", "list"), ("- [", "YAML")])
def test_load_rejects_a_bad_file(tmp_path: Path, body: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        ImportanceRules.load(write(tmp_path, body))


def test_load_accepts_a_lowercase_level(tmp_path: Path) -> None:
    rules = ImportanceRules.load(write(tmp_path, GOOD_RULE.replace("IMPORTANT", "important")))
    assert rules.detect("a project") == IMPORTANT


# --- promotion on access and raise-only ------------------------------------------------------------


def test_promotion_threshold_is_three() -> None:
    assert PROMOTION_ACCESS_COUNT == 3


@pytest.mark.parametrize(
    ("current", "access_count", "expected"),
    [
        (NORMAL, 0, NORMAL),
        (NORMAL, 2, NORMAL),
        (NORMAL, 3, IMPORTANT),
        (NORMAL, 50, IMPORTANT),
        (TRIVIAL, 2, TRIVIAL),
        (TRIVIAL, 3, NORMAL),
        (TRIVIAL, 50, NORMAL),
        (IMPORTANT, 3, IMPORTANT),
        (IMPORTANT, 50, IMPORTANT),
        (FACT, 3, FACT),
        (IDENTITY, 50, IDENTITY),
        (MUST, 0, MUST),
        (MUST, 50, MUST),
    ],
)
def test_promote_on_access(current: Importance, access_count: int, expected: Importance) -> None:
    assert promote_on_access(current, access_count) == expected


@pytest.mark.parametrize("level", list(Importance))
@pytest.mark.parametrize("access_count", [0, 1, 2, 3, 4, 100])
def test_promotion_never_lowers_and_moves_at_most_one_step(level: Importance, access_count: int) -> None:
    promoted = promote_on_access(level, access_count)
    assert promoted.rank - level.rank in (0, 1)


def test_promotion_rejects_a_negative_count() -> None:
    with pytest.raises(ValueError, match="access_count"):
        promote_on_access(NORMAL, -1)


@pytest.mark.parametrize(
    ("current", "proposed", "expected"),
    [
        (NORMAL, IMPORTANT, IMPORTANT),
        (IMPORTANT, NORMAL, IMPORTANT),
        (TRIVIAL, MUST, MUST),
        (MUST, TRIVIAL, MUST),
        (IDENTITY, FACT, IDENTITY),
        (FACT, IDENTITY, IDENTITY),
        (FACT, FACT, FACT),
    ],
)
def test_apply_raise_only(current: Importance, proposed: Importance, expected: Importance) -> None:
    assert apply_raise_only(current, proposed) == expected


@pytest.mark.parametrize("current", list(Importance))
@pytest.mark.parametrize("proposed", list(Importance))
def test_raise_only_is_the_higher_of_the_two(current: Importance, proposed: Importance) -> None:
    result = apply_raise_only(current, proposed)
    assert result in (current, proposed)
    assert result.rank == max(current.rank, proposed.rank)
