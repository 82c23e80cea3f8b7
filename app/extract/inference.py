"""Inferences from stated facts, by rules kept in a data file that users may extend.

The rules live in `app/data/inference_rules.yaml`, whose header documents the format; `InferenceRules.load`
validates them and names the rule and field of any error. An inference's confidence is at most 0.6
(`MAX_CONFIDENCE`): the loader refuses a rule that claims more.

`InferenceRules.infer(facts)` is pure: it looks at the given stated facts only (an `Inference` given as
a premise is a TypeError), makes one pass, and never chains inferences. A rule with several premises
needs distinct facts about one subject. Identical conclusions (same subject, slot, value and
interval, compared by normalized name) are kept once, with the highest confidence and that
inference's premises; a conclusion that only restates one of the given facts is dropped.

Note for the caller (the write path): each `Inference` carries its `rule_id` and `premise_indexes`
(indexes into the `facts` passed to `infer`). Store them as CAUSAL edges premise -> inference; when a
premise is superseded later, withdraw the inferences whose premises include it. Which facts to pass
is the caller's choice: a turn's facts, or those plus the subject's current stated facts, so that a
two-premise rule can join a new fact with an older one.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any

from app.domain.datafile import read_yaml
from app.extract.names import normalize_name
from app.extract.types import FactMention, Inference

DEFAULT_RULES_PATH = Path(__file__).resolve().parents[1] / "data" / "inference_rules.yaml"

MAX_CONFIDENCE = 0.6

_RULE_FIELDS = frozenset({"id", "description", "premises", "conclusion"})
_PREMISE_FIELDS = frozenset({"slot", "value"})
_CONCLUSION_FIELDS = frozenset({"slot", "value", "subject", "confidence", "valid"})
_SNAKE_CASE = re.compile(r"[a-z][a-z0-9_]*")


class TimeMapping(StrEnum):
    """How a conclusion's interval follows from the first premise's `event_time`."""

    EVENT_DAY = "event_day"  # [that day 00:00, the next day 00:00)
    FROM_EVENT_DAY = "from_event_day"  # [that day 00:00, open)

    def interval(self, event_time: datetime | None) -> tuple[datetime | None, datetime | None]:
        if event_time is None:
            return None, None
        day = event_time.date()
        start = datetime.combine(day, time(), tzinfo=event_time.tzinfo)
        if self is TimeMapping.FROM_EVENT_DAY:
            return start, None
        # combine() again rather than start + 1 day: the next midnight even across a DST change
        return start, datetime.combine(day + timedelta(days=1), time(), tzinfo=event_time.tzinfo)


@dataclass(frozen=True)
class Premise:
    slot: str
    value: re.Pattern[str] | None = None

    def matches(self, fact: FactMention) -> bool:
        return fact.slot == self.slot and (self.value is None or self.value.search(fact.value) is not None)


@dataclass(frozen=True)
class Conclusion:
    slot: str
    value: str  # template
    confidence: float
    subject: str = "{subject}"  # template
    valid: TimeMapping | None = None


@dataclass(frozen=True)
class InferenceRule:
    id: str
    description: str
    premises: tuple[Premise, ...]
    conclusion: Conclusion

    def apply(self, facts: Sequence[FactMention]) -> Iterator[Inference]:
        """The conclusions of every combination of distinct facts about one subject that meets the premises."""
        by_subject: dict[str, list[int]] = {}
        for index, fact in enumerate(facts):
            by_subject.setdefault(normalize_name(fact.subject), []).append(index)
        for indexes in by_subject.values():
            choices = [[i for i in indexes if premise.matches(facts[i])] for premise in self.premises]
            for combination in itertools.product(*choices):
                if len(set(combination)) == len(combination):
                    inference = self._conclude(facts, combination)
                    if inference is not None:
                        yield inference

    def _conclude(self, facts: Sequence[FactMention], indexes: tuple[int, ...]) -> Inference | None:
        first = facts[indexes[0]]
        fields = {"subject": first.subject, "value": first.value}
        fields.update({f"value{n}": facts[i].value for n, i in enumerate(indexes, start=1)})
        subject = self.conclusion.subject.format_map(fields).strip()
        value = self.conclusion.value.format_map(fields).strip()
        if not subject or not value:
            return None
        valid = self.conclusion.valid
        valid_from, valid_to = valid.interval(first.event_time) if valid is not None else (None, None)
        return Inference(
            rule_id=self.id,
            subject=subject,
            slot=self.conclusion.slot,
            value=value,
            confidence=self.conclusion.confidence,
            premise_indexes=indexes,
            valid_from=valid_from,
            valid_to=valid_to,
        )


class InferenceRules:
    def __init__(self, rules: Iterable[InferenceRule]) -> None:
        self.rules: tuple[InferenceRule, ...] = tuple(rules)

    @classmethod
    def load(cls, path: Path = DEFAULT_RULES_PATH) -> InferenceRules:
        return cls.from_data(read_yaml(path, "inference rules"), source=str(path))

    @classmethod
    def from_data(cls, data: Any, source: str = "<data>") -> InferenceRules:
        """Builds the rules from parsed YAML: a list of rule mappings."""
        if not isinstance(data, list) or not data:
            raise ValueError(f"inference rules {source}: expected a non-empty list of rules")
        rules = [_parse_rule(item, index, source) for index, item in enumerate(data)]
        seen: set[str] = set()
        for rule in rules:
            if rule.id in seen:
                raise ValueError(f"inference rules {source}: rule '{rule.id}', field 'id': duplicate id")
            seen.add(rule.id)
        return cls(rules)

    def infer(self, facts: Sequence[FactMention]) -> list[Inference]:
        """The inferences from `facts` (stated facts only), in rule order, without duplicates."""
        for index, fact in enumerate(facts):
            if not isinstance(fact, FactMention):
                raise TypeError(
                    f"facts[{index}]: expected a stated FactMention, got {type(fact).__name__} "
                    "(inferences are never premises)"
                )
        stated = {_fact_key(f.subject, f.slot, f.value) for f in facts}
        best: dict[tuple[Any, ...], Inference] = {}
        for rule in self.rules:
            for inference in rule.apply(facts):
                fact_key = _fact_key(inference.subject, inference.slot, inference.value)
                if fact_key in stated:
                    continue
                key = (*fact_key, inference.valid_from, inference.valid_to)
                kept = best.get(key)
                if kept is None or inference.confidence > kept.confidence:
                    best[key] = inference
        return list(best.values())


def _fact_key(subject: str, slot: str, value: str) -> tuple[str, str, str]:
    return normalize_name(subject), slot, normalize_name(value)


# --- loading -------------------------------------------------------------------------------------------


class _RuleErrors:
    def __init__(self, source: str, rule: str) -> None:
        self.prefix = f"inference rules {source}: {rule}"

    def __call__(self, field_name: str, problem: str) -> ValueError:
        return ValueError(f"{self.prefix}, field '{field_name}': {problem}")


def _parse_rule(item: Any, index: int, source: str) -> InferenceRule:
    if not isinstance(item, Mapping):
        raise ValueError(f"inference rules {source}: rule {index}: expected a mapping, got {item!r}")
    rule_id = item.get("id")
    if not isinstance(rule_id, str) or not _SNAKE_CASE.fullmatch(rule_id):
        raise ValueError(
            f"inference rules {source}: rule {index}, field 'id': expected a snake_case id, got {rule_id!r}"
        )
    error = _RuleErrors(source, f"rule '{rule_id}'")
    _check_fields(item, _RULE_FIELDS, "", error)
    for required in ("description", "premises", "conclusion"):
        if item.get(required) is None:
            raise error(required, "missing")
    if not isinstance(item["description"], str) or not item["description"].strip():
        raise error("description", "expected a non-empty string")
    premises = _parse_premises(item["premises"], error)
    conclusion = _parse_conclusion(item["conclusion"], len(premises), error)
    return InferenceRule(rule_id, item["description"], premises, conclusion)


def _parse_premises(raw: Any, error: _RuleErrors) -> tuple[Premise, ...]:
    if not isinstance(raw, list) or not raw:
        raise error("premises", "expected a non-empty list of {slot, value} conditions")
    premises: list[Premise] = []
    for i, premise in enumerate(raw):
        where = f"premises[{i}]"
        if not isinstance(premise, Mapping):
            raise error(where, f"expected a mapping with a slot, got {premise!r}")
        _check_fields(premise, _PREMISE_FIELDS, f"{where}.", error)
        slot = _slot(premise.get("slot"), f"{where}.slot", error)
        value = premise.get("value")
        premises.append(Premise(slot, None if value is None else _compile(value, f"{where}.value", error)))
    return tuple(premises)


def _parse_conclusion(raw: Any, premise_count: int, error: _RuleErrors) -> Conclusion:
    if not isinstance(raw, Mapping):
        raise error("conclusion", "expected a mapping with slot, value and confidence")
    _check_fields(raw, _CONCLUSION_FIELDS, "conclusion.", error)
    for required in ("slot", "value", "confidence"):
        if raw.get(required) is None:
            raise error(f"conclusion.{required}", "missing")
    names = {"subject", "value", *(f"value{n}" for n in range(1, premise_count + 1))}
    confidence = raw["confidence"]
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or confidence <= 0:
        raise error("conclusion.confidence", f"expected a number in (0, {MAX_CONFIDENCE}], got {confidence!r}")
    if confidence > MAX_CONFIDENCE:
        raise error("conclusion.confidence", f"must be at most {MAX_CONFIDENCE} for an inference, got {confidence}")
    valid = raw.get("valid")
    if valid is not None and valid not in {m.value for m in TimeMapping}:
        raise error("conclusion.valid", f"unknown time mapping {valid!r} (expected one of {', '.join(TimeMapping)})")
    return Conclusion(
        slot=_slot(raw["slot"], "conclusion.slot", error),
        value=_template(raw["value"], names, "conclusion.value", error),
        confidence=float(confidence),
        subject=_template(raw.get("subject", "{subject}"), names, "conclusion.subject", error),
        valid=None if valid is None else TimeMapping(valid),
    )


def _check_fields(raw: Mapping[Any, Any], allowed: frozenset[str], prefix: str, error: _RuleErrors) -> None:
    if unknown := sorted(set(map(str, raw)) - allowed):
        raise error(f"{prefix}{unknown[0]}", f"unknown field (expected {', '.join(sorted(allowed))})")


def _slot(raw: Any, where: str, error: _RuleErrors) -> str:
    if not isinstance(raw, str) or not _SNAKE_CASE.fullmatch(raw):
        raise error(where, f"expected a snake_case slot name, got {raw!r}")
    return raw


def _template(raw: Any, names: set[str], where: str, error: _RuleErrors) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise error(where, f"expected a non-empty template string, got {raw!r}")
    try:
        parts = list(string.Formatter().parse(raw))
    except ValueError as exc:
        raise error(where, f"bad template {raw!r}: {exc}") from exc
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        if name not in names or spec or conversion:
            raise error(where, f"unsupported placeholder {{{name}}} in {raw!r} (expected {', '.join(sorted(names))})")
    return raw


def _compile(raw: Any, where: str, error: _RuleErrors) -> re.Pattern[str]:
    if not isinstance(raw, str):
        raise error(where, f"expected a regular expression string, got {raw!r}")
    try:
        return re.compile(raw, re.IGNORECASE)
    except re.error as exc:
        raise error(where, f"bad regular expression {raw!r}: {exc}") from exc
