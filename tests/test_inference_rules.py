"""Inference rules over stated facts (app/extract/inference.py, app/data/inference_rules.yaml)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import yaml

from app.extract.inference import DEFAULT_RULES_PATH, MAX_CONFIDENCE, InferenceRules
from app.extract.types import FactMention, Inference

BERLIN = ZoneInfo("Europe/Berlin")


def fact(slot: str, value: str, subject: str = "Bob", event_time: datetime | None = None) -> FactMention:
    return FactMention(subject=subject, slot=slot, value=value, confidence=0.9, span=(0, 1), event_time=event_time)


@pytest.fixture(scope="module")
def rules() -> InferenceRules:
    return InferenceRules.load()


def view(inferences: list[Inference]) -> list[tuple[str, str, str, str, float, tuple[int, ...]]]:
    return [(i.rule_id, i.subject, i.slot, i.value, i.confidence, i.premise_indexes) for i in inferences]


# --- the shipped rules ---


def test_shipped_rules_respect_the_cap_and_are_documented(rules: InferenceRules) -> None:
    assert DEFAULT_RULES_PATH.name == "inference_rules.yaml"
    assert 4 <= len(rules.rules) <= 6
    for rule in rules.rules:
        assert 0 < rule.conclusion.confidence <= MAX_CONFIDENCE, rule.id
        assert rule.description.strip(), rule.id


def test_moved_to_implies_lives_in(rules: InferenceRules) -> None:
    (inference,) = rules.infer([fact("moved_to", "Berlin")])
    assert view([inference]) == [("moved_to_lives_in", "Bob", "lives_in", "Berlin", 0.6, (0,))]
    assert (inference.valid_from, inference.valid_to) == (None, None)


def test_a_dated_move_makes_the_residence_valid_from_that_day(rules: InferenceRules) -> None:
    moved = datetime(2025, 5, 14, 18, 30, tzinfo=BERLIN)
    (inference,) = rules.infer([fact("moved_to", "Berlin", event_time=moved)])
    assert inference.valid_from == datetime(2025, 5, 14, tzinfo=BERLIN)
    assert inference.valid_to is None


def test_a_dated_trip_means_away_from_home_that_day(rules: InferenceRules) -> None:
    day = datetime(2026, 3, 12, 9, 15, tzinfo=UTC)
    (inference,) = rules.infer([fact("trip_to", "Paris", event_time=day)])
    assert view([inference]) == [("trip_away_from_home", "Bob", "away_from_home", "Paris", 0.5, (0,))]
    assert inference.valid_from == datetime(2026, 3, 12, tzinfo=UTC)
    assert inference.valid_to == datetime(2026, 3, 13, tzinfo=UTC)


def test_the_trip_day_is_the_local_day_even_across_a_clock_change(rules: InferenceRules) -> None:
    # 29 March 2026 has 23 hours in Berlin; the interval still ends at the next local midnight
    (inference,) = rules.infer([fact("trip_to", "Rome", event_time=datetime(2026, 3, 29, 23, 30, tzinfo=BERLIN))])
    assert inference.valid_from == datetime(2026, 3, 29, tzinfo=BERLIN)
    assert inference.valid_to == datetime(2026, 3, 30, tzinfo=BERLIN)
    assert inference.valid_to is not None and inference.valid_from is not None
    assert inference.valid_to.astimezone(UTC) - inference.valid_from.astimezone(UTC) == timedelta(hours=23)


def test_an_undated_trip_gives_no_interval(rules: InferenceRules) -> None:
    (inference,) = rules.infer([fact("trip_to", "巴黎")])
    assert (inference.slot, inference.value, inference.valid_from, inference.valid_to) == (
        "away_from_home",
        "巴黎",
        None,
        None,
    )


def test_a_job_means_employed_but_not_for_students_or_retirees(rules: InferenceRules) -> None:
    assert view(rules.infer([fact("job", "teacher")])) == [("job_employed", "Bob", "employed", "true", 0.5, (0,))]
    assert view(rules.infer([fact("job", "医生")])) == [("job_employed", "Bob", "employed", "true", 0.5, (0,))]
    for value in ("student", "Retired teacher", "学生", "退休工人"):
        assert rules.infer([fact("job", value)]) == [], value


def test_working_somewhere_means_employed(rules: InferenceRules) -> None:
    assert view(rules.infer([fact("works_at", "Acme")])) == [
        ("works_at_employed", "Bob", "employed", "true", 0.5, (0,))
    ]


def test_a_spouse_means_married(rules: InferenceRules) -> None:
    assert view(rules.infer([fact("spouse", "Mia")])) == [("spouse_married", "Bob", "married", "true", 0.6, (0,))]


def test_a_spouse_shares_the_subjects_home(rules: InferenceRules) -> None:
    facts = [fact("lives_in", "Berlin"), fact("likes", "cats"), fact("spouse", "Mia")]
    assert view(rules.infer(facts)) == [
        ("spouse_married", "Bob", "married", "true", 0.6, (2,)),
        ("spouse_shares_home", "Mia", "lives_in", "Berlin", 0.5, (2, 0)),
    ]


def test_premises_of_one_rule_must_share_a_subject(rules: InferenceRules) -> None:
    facts = [fact("spouse", "Mia"), fact("lives_in", "Paris", subject="Alice")]
    assert [i.rule_id for i in rules.infer(facts)] == ["spouse_married"]
    # subjects are compared by their normalized name
    facts = [fact("spouse", "Mia", subject="Bob"), fact("lives_in", "Paris", subject="ＢＯＢ ")]
    assert [i.rule_id for i in rules.infer(facts)] == ["spouse_married", "spouse_shares_home"]


def test_every_combination_of_premises_is_concluded(rules: InferenceRules) -> None:
    facts = [fact("spouse", "Mia"), fact("lives_in", "Berlin"), fact("lives_in", "Potsdam")]
    shared = [(i.value, i.premise_indexes) for i in rules.infer(facts) if i.rule_id == "spouse_shares_home"]
    assert shared == [("Berlin", (0, 1)), ("Potsdam", (0, 2))]


def test_no_match_gives_nothing(rules: InferenceRules) -> None:
    assert rules.infer([]) == []
    assert rules.infer([fact("likes", "cats"), fact("car", "Model Y"), fact("name", "Bob")]) == []


def test_identical_conclusions_are_kept_once(rules: InferenceRules) -> None:
    # job and works_at both conclude employed = true at 0.5: the first rule's inference stays
    facts = [fact("works_at", "Acme"), fact("job", "nurse")]
    assert view(rules.infer(facts)) == [("job_employed", "Bob", "employed", "true", 0.5, (1,))]


def test_a_conclusion_that_restates_a_stated_fact_is_dropped(rules: InferenceRules) -> None:
    facts = [fact("moved_to", "Berlin"), fact("lives_in", "berlin")]
    assert [i.rule_id for i in rules.infer(facts)] == []


def test_inferences_are_never_premises(rules: InferenceRules) -> None:
    inferred = Inference("moved_to_lives_in", "Bob", "moved_to", "Berlin", 0.6, (0,))
    with pytest.raises(TypeError, match=r"facts\[1\].*never premises"):
        rules.infer([fact("likes", "cats"), inferred])  # type: ignore[list-item]
    # one pass: "lives_in" inferred from moved_to does not feed spouse_shares_home
    facts = [fact("spouse", "Mia"), fact("moved_to", "Berlin")]
    assert [i.rule_id for i in rules.infer(facts)] == ["moved_to_lives_in", "spouse_married"]


# --- user-extended rule files ---


def write_rules(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


CUSTOM = [
    {
        "id": "tea_drinker",
        "description": "someone who likes green or black tea drinks tea",
        "premises": [{"slot": "likes", "value": r"^(green|black)\s+tea$"}],
        "conclusion": {"slot": "drinks", "value": "tea ({value})", "confidence": 0.4},
    },
    {
        "id": "expat",
        "description": "someone from X who lives in Y has X as a homeland and is abroad in Y",
        "premises": [{"slot": "from"}, {"slot": "lives_in"}],
        "conclusion": {
            "subject": "{subject}",
            "slot": "abroad_in",
            "value": "{value2} (from {value1})",
            "confidence": 0.3,
            "valid": "from_event_day",
        },
    },
]


def test_a_user_rule_file_adds_rules(tmp_path: Path) -> None:
    rules = InferenceRules.load(write_rules(tmp_path, CUSTOM))
    moved_in = datetime(2024, 9, 1, 12, tzinfo=UTC)
    facts = [
        fact("likes", "Green Tea"),
        fact("likes", "green tea with milk"),
        fact("from", "Spain", event_time=moved_in),
        fact("lives_in", "Berlin"),
    ]
    inferences = rules.infer(facts)
    assert view(inferences) == [
        ("tea_drinker", "Bob", "drinks", "tea (Green Tea)", 0.4, (0,)),
        ("expat", "Bob", "abroad_in", "Berlin (from Spain)", 0.3, (2, 3)),
    ]
    assert inferences[1].valid_from == datetime(2024, 9, 1, tzinfo=UTC)


def rule_with(**conclusion: object) -> list[dict[str, object]]:
    base = {"slot": "drinks", "value": "tea", "confidence": 0.4}
    return [{**CUSTOM[0], "conclusion": {**base, **conclusion}}]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (rule_with(confidence=0.61), r"rule 'tea_drinker', field 'conclusion\.confidence': must be at most 0\.6"),
        (rule_with(confidence=0.9), r"rule 'tea_drinker', field 'conclusion\.confidence': must be at most 0\.6"),
        (rule_with(confidence=0), r"field 'conclusion\.confidence': expected a number in \(0, 0\.6\]"),
        (rule_with(confidence="high"), r"field 'conclusion\.confidence': expected a number"),
        (rule_with(value="{value3}"), r"field 'conclusion\.value': unsupported placeholder \{value3\}"),
        (rule_with(value="{value!r}"), r"field 'conclusion\.value': unsupported placeholder"),
        (rule_with(subject="{}"), r"field 'conclusion\.subject': unsupported placeholder"),
        (rule_with(value="{value"), r"field 'conclusion\.value': bad template"),
        (rule_with(valid="all_week"), r"field 'conclusion\.valid': unknown time mapping 'all_week'"),
        (rule_with(slot="Drinks"), r"field 'conclusion\.slot': expected a snake_case slot name"),
        (rule_with(colour="green"), r"field 'conclusion\.colour': unknown field"),
        (
            [{**CUSTOM[0], "premises": [{"slot": "likes", "value": "(unclosed"}]}],
            r"field 'premises\[0\]\.value': bad regular expression",
        ),
        (
            [{**CUSTOM[0], "premises": [{"slot": "likes", "values": "x"}]}],
            r"field 'premises\[0\]\.values': unknown field",
        ),
        ([{**CUSTOM[0], "premises": []}], r"rule 'tea_drinker', field 'premises': expected a non-empty list"),
        ([{**CUSTOM[0], "weight": 2}], r"rule 'tea_drinker', field 'weight': unknown field"),
        ([{**CUSTOM[0], "description": ""}], r"rule 'tea_drinker', field 'description'"),
        ([{k: v for k, v in CUSTOM[0].items() if k != "conclusion"}], r"field 'conclusion': missing"),
        ([{**CUSTOM[0], "id": "Tea Drinker"}], r"rule 0, field 'id': expected a snake_case id"),
        ([CUSTOM[0], CUSTOM[0]], r"rule 'tea_drinker', field 'id': duplicate id"),
        ([], r"expected a non-empty list of rules"),
    ],
)
def test_loader_names_the_rule_and_field_of_an_error(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        InferenceRules.load(write_rules(tmp_path, data))


def test_loader_reports_invalid_yaml(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("- id: [unclosed", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid YAML"):
        InferenceRules.load(path)
