"""Update statements as slot facts (app/extract/updates.py): exact cases, and the bank's loading errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.extract.types import EntityKind
from app.extract.updates import ENDED, UpdatePatterns, extract_statements, extract_updates


def _facts(text: str) -> list[tuple[str, str, str]]:
    return [(f.subject, f.slot, f.value) for f in extract_statements(text, "Alice")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We use Postgres 15 for billing.", [("billing", "database", "Postgres 15")]),
        ("Update: we upgraded billing to Postgres 16 yesterday.", [("billing", "database", "Postgres 16")]),
        ("We switched from AWS to GCP last quarter.", [("Alice", "cloud", "GCP")]),
        ("Quick note: we moved the standup to 10am.", [("standup", "time", "10am")]),
        ("I traded in my Civic for a Tesla Model 3.", [("Alice", "car", "Tesla Model 3")]),
        ("I use VS Code for Python.", [("Alice", "editor", "VS Code")]),
        ("I no longer work at Google.", [("Alice", "works_at", ENDED)]),
        ("I moved to Denver last month.", [("Alice", "moved_to", "Denver"), ("Alice", "lives_in", "Denver")]),
        ("我们把数据库升级到了16。", [("Alice", "database", "16")]),
        ("计费系统用的是Postgres 15。", [("计费", "database", "Postgres 15")]),
        ("我妹妹现在不在那家公司了。", [("Alice's sister", "works_at", ENDED)]),
        ("周会改到了周四下午三点。", [("周会", "time", "周四下午三点")]),
        ("我换了个华为Mate 60。", [("Alice", "phone", "华为Mate 60")]),
    ],
)
def test_updates_and_values_in_force(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert _facts(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "If we upgrade to 16, billing will be faster.",  # a conditional
        "Should we upgrade billing to Postgres 16?",  # a question
        "We decided not to upgrade billing to Postgres 16.",  # a negated change
        "We might move to GCP next year.",  # a plan
        "She switched to Neovim.",  # a pronoun: no coreference
        "如果我们把数据库升级到16，报表会更快。",
        "我们没有迁到腾讯云。",
        "我们打算明年迁到腾讯云。",
    ],
)
def test_what_states_no_change_gives_nothing(text: str) -> None:
    assert extract_updates(text, "Alice") == []


def test_another_agent_gets_a_subject_of_its_own() -> None:
    assert _facts("My friend upgraded to Postgres 16.") == [("Alice's friend", "database", "Postgres 16")]
    assert _facts("我朋友把数据库升级到了16。") == [("Alice's friend", "database", "16")]


def test_a_thing_is_a_concept_subject_and_the_old_value_is_kept() -> None:
    [fact] = extract_updates("We migrated analytics from MySQL to ClickHouse.", "Alice")
    assert (fact.subject, fact.subject_kind, fact.replaces) == ("analytics", EntityKind.THING, "MySQL")
    [person] = extract_updates("I switched to Neovim.", "Alice")
    assert person.subject_kind == EntityKind.PERSON


def test_an_update_the_fact_extractor_already_states_is_not_repeated() -> None:
    # "我的手机是iPhone 12" is a `possession` fact (phone) and an update-bank value in force: one fact
    assert _facts("我的手机是iPhone 12。") == [("Alice", "phone", "iPhone 12")]


def test_a_blank_speaker_is_refused() -> None:
    with pytest.raises(ValueError, match="speaker"):
        extract_updates("I switched to Neovim.", " ")


def test_loading_names_the_bad_field(tmp_path: Path) -> None:
    path = tmp_path / "bank.yaml"
    path.write_text("rules:\n  - id: r\n    kind: maybe\n    patterns: {en: ['x']}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="rule 'r', field 'kind'"):
        UpdatePatterns.load(path)
    path.write_text("rules:\n  - id: r\n    kind: set\n    patterns: {en: ['{{nope}}']}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown macro"):
        UpdatePatterns.load(path)
    path.write_text("extra: 1\nrules: []\n", encoding="utf-8")
    with pytest.raises(ValueError, match="field 'extra'"):
        UpdatePatterns.load(path)
