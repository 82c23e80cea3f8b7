"""Importance at write time (rules from a data file), promotion on access, and the raise-only policy.

A text gets the highest level of all rules that match it, NORMAL when none does. The rules live in
`app/data/importance_rules.yaml`, whose header documents the format.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.domain.datafile import read_yaml
from app.domain.model import Importance

DEFAULT_RULES_PATH = Path(__file__).resolve().parents[1] / "data" / "importance_rules.yaml"

PROMOTION_ACCESS_COUNT = 3
_PROMOTIONS = {Importance.TRIVIAL: Importance.NORMAL, Importance.NORMAL: Importance.IMPORTANT}

_RULE_FIELDS = frozenset({"level", "description", "patterns", "whole_text"})
# Unicode categories removed before whole-text matching: punctuation, symbols (emoji included),
# format characters (zero-width joiner) and enclosing marks (keycaps).
_STRIPPED_CATEGORIES = ("P", "S", "Cf", "Me")
_VARIATION_SELECTORS = range(0xFE00, 0xFE10)


@dataclass(frozen=True)
class ImportanceRule:
    level: Importance
    description: str
    patterns: tuple[re.Pattern[str], ...]
    whole_text: bool = False
    _token_sequence: re.Pattern[str] | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        if self.whole_text:
            # One or more tokens; a token may not run straight into a Latin letter or digit.
            tokens = "|".join(f"(?:{p.pattern})" for p in self.patterns)
            sequence = re.compile(rf"\s*(?:(?:{tokens})(?![a-z0-9])\s*)+", re.IGNORECASE)
            object.__setattr__(self, "_token_sequence", sequence)

    def matches(self, text: str) -> bool:
        """Whether the rule applies to `text` (raw text; whole-text rules normalize it themselves)."""
        if self._token_sequence is not None:
            return self._token_sequence.fullmatch(strip_for_whole_text(text)) is not None
        return any(p.search(text) for p in self.patterns)


class ImportanceRules:
    def __init__(self, rules: Iterable[ImportanceRule]) -> None:
        # Highest level first, so the first matching rule gives the answer.
        self.rules: tuple[ImportanceRule, ...] = tuple(sorted(rules, key=lambda r: -r.level.rank))

    @classmethod
    def load(cls, path: Path = DEFAULT_RULES_PATH) -> ImportanceRules:
        return cls.from_data(read_yaml(path, "importance rules"), source=str(path))

    @classmethod
    def from_data(cls, data: Any, source: str = "<data>") -> ImportanceRules:
        """Builds the rules from parsed YAML: a list of rule mappings."""
        if not isinstance(data, list) or not data:
            raise ValueError(f"importance rules {source}: expected a non-empty list of rules")
        return cls(_parse_rule(item, index, source) for index, item in enumerate(data))

    def detect(self, text: str) -> Importance:
        return next((rule.level for rule in self.rules if rule.matches(text)), Importance.NORMAL)


def strip_for_whole_text(text: str) -> str:
    """The text trimmed, with punctuation, symbols and emoji replaced by spaces."""
    kept = (" " if _is_stripped(ch) else ch for ch in unicodedata.normalize("NFC", text))
    return " ".join("".join(kept).split())


def _is_stripped(ch: str) -> bool:
    return ord(ch) in _VARIATION_SELECTORS or unicodedata.category(ch).startswith(_STRIPPED_CATEGORIES)


def promote_on_access(current: Importance, access_count: int) -> Importance:
    """Three or more recalls lift NORMAL to IMPORTANT and TRIVIAL to NORMAL; nothing else changes."""
    if access_count < 0:
        raise ValueError(f"access_count must not be negative, got {access_count}")
    if access_count < PROMOTION_ACCESS_COUNT:
        return current
    return current.raised_to(_PROMOTIONS.get(current, current))


def apply_raise_only(current: Importance, proposed: Importance) -> Importance:
    """Importance is never lowered automatically: a lower proposal leaves `current` as it is."""
    return current.raised_to(proposed)


_ErrorFactory = Callable[[str, str], ValueError]


def _parse_rule(item: Any, index: int, source: str) -> ImportanceRule:
    def error(name: str, problem: str) -> ValueError:
        return ValueError(f"importance rules {source}: rule {index}, field '{name}': {problem}")

    if not isinstance(item, Mapping):
        raise ValueError(f"importance rules {source}: rule {index}: expected a mapping, got {item!r}")
    if unknown := sorted(set(map(str, item)) - _RULE_FIELDS):
        raise error(unknown[0], f"unknown field (expected {', '.join(sorted(_RULE_FIELDS))})")
    for required in ("level", "description", "patterns"):
        if item.get(required) is None:
            raise error(required, "missing")

    level = item["level"]
    if not isinstance(level, str) or level.upper() not in Importance.__members__:
        raise error("level", f"unknown level {level!r} (expected one of {', '.join(Importance)})")
    if not isinstance(item["description"], str) or not item["description"].strip():
        raise error("description", "expected a non-empty string")
    whole_text = item.get("whole_text", False)
    if not isinstance(whole_text, bool):
        raise error("whole_text", f"expected true or false, got {whole_text!r}")
    patterns = _parse_patterns(item["patterns"], error)
    try:
        return ImportanceRule(Importance[level.upper()], item["description"], patterns, whole_text)
    except re.error as exc:  # the patterns joined into one token sequence
        raise error("patterns", f"the patterns do not combine into one token sequence: {exc}") from exc


def _parse_patterns(raw: Any, error: _ErrorFactory) -> tuple[re.Pattern[str], ...]:
    if not isinstance(raw, Mapping) or not raw:
        raise error("patterns", "expected a mapping of language to a list of regular expressions")
    patterns: list[re.Pattern[str]] = []
    for language, sources in raw.items():
        if not isinstance(sources, list) or not sources:
            raise error(f"patterns.{language}", "expected a non-empty list of regular expressions")
        for i, source in enumerate(sources):
            patterns.append(_compile(source, error, f"patterns.{language}[{i}]"))
    return tuple(patterns)


def _compile(source: Any, error: _ErrorFactory, where: str) -> re.Pattern[str]:
    if not isinstance(source, str):
        raise error(where, f"expected a string, got {source!r}")
    try:
        pattern = re.compile(source, re.IGNORECASE)
    except re.error as exc:
        raise error(where, f"bad regular expression {source!r}: {exc}") from exc
    if pattern.search("") is not None:
        raise error(where, f"regular expression {source!r} matches the empty string")
    return pattern
