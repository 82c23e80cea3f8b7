"""The fact-pattern bank's file (`app/data/fact_patterns.yaml`, whose header documents the format):
what it holds (`PatternSettings`, `FactRule`, `SlotEntities`) and its parser, which checks every field
and names the place of an error. `app/extract/facts.py` matches the bank against turns."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from app.extract.names import normalize_name
from app.extract.types import EntityKind

EntityMode = Literal["whole", "names", "none"]
# (language, the alternation of that language's regexes): one search per language instead of one per regex
LanguagePatterns = tuple[tuple[str, re.Pattern[str]], ...]
_TOP_FIELDS = frozenset(
    {
        "scripts",
        "boundaries",
        "questions",
        "negation",
        "subjects",
        "relations",
        "slot_aliases",
        "slots",
        "value",
        "macros",
        "rules",
    }
)
_RULE_FIELDS = frozenset(
    {"id", "description", "slot", "confidence", "patterns", "polarity", "stops", "reject", "subject_carry", "keywords"}
)
_VALUE_FIELDS = frozenset({"max_length", "strip_leading", "trim_end", "stops", "reject"})
_SUBJECT_FIELDS = frozenset({"first_person", "others", "owner", "possessive", "not_names", "dropped", "persons"})
_SLOT_FIELDS = frozenset({"kind", "entities"})
_ENTITY_MODES = ("whole", "names", "none")
_SLOT_NAME = re.compile(r"[a-z][a-z0-9_]*")
_MACRO_REF = re.compile(r"\{\{(\w+)\}\}")
_DEFAULT_SENTENCE_END = r"[.!?]+(?=\s|$)|[。！？]+|\n+"
DEFAULT_MAX_LENGTH = 80


@dataclass(frozen=True)
class FactRule:
    id: str
    description: str
    slot: str  # snake_case, may contain "{key}"
    confidence: float
    patterns: tuple[tuple[str, re.Pattern[str]], ...]  # (language, pattern)
    negative: bool = False
    stops: LanguagePatterns = ()  # the default stops and the rule's stop sets
    reject: LanguagePatterns = ()  # the file's `value.reject` and the rule's own
    subject_carry: bool = True
    keywords: tuple[str, ...] = ()  # casefolded; a cheap first pass (empty: always search the patterns)


@dataclass(frozen=True)
class SlotEntities:
    kind: EntityKind
    mode: EntityMode


DEFAULT_SLOT = SlotEntities(EntityKind.THING, "names")


@dataclass(frozen=True)
class PatternSettings:
    """Everything in the data file but the rules."""

    sentence_end: re.Pattern[str]
    clause_separator: re.Pattern[str] | None
    scripts: Mapping[str, re.Pattern[str]] = field(default_factory=dict)
    questions: LanguagePatterns = ()
    negation_before_value: LanguagePatterns = ()
    negation_anywhere: LanguagePatterns = ()
    first_person: frozenset[str] = frozenset()
    others: frozenset[str] = frozenset()
    owner: re.Pattern[str] | None = None
    possessive: re.Pattern[str] | None = None
    not_names: frozenset[str] = frozenset()
    dropped: Mapping[str, str] = field(default_factory=dict)  # language -> the first person its clauses leave out
    persons: LanguagePatterns = ()  # words that name a person, to know whom a dropped subject is
    relations: Mapping[str, str] = field(default_factory=dict)
    slot_aliases: Mapping[str, str] = field(default_factory=dict)
    slots: Mapping[str, SlotEntities] = field(default_factory=dict)
    max_length: int = DEFAULT_MAX_LENGTH
    strip_leading: LanguagePatterns = ()
    trim_end: LanguagePatterns = ()


class RuleFileParser:
    """Builds the settings and rules of a fact-pattern bank from parsed YAML; every error names the place
    in the file."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.macros: dict[str, str] = {}

    def error(self, where: str, problem: str) -> ValueError:
        return ValueError(f"fact patterns {self.source}: {where}: {problem}")

    def parse(self, data: Any) -> tuple[PatternSettings, tuple[FactRule, ...]]:
        if not isinstance(data, Mapping):
            raise self.error("top level", "expected a mapping with a `rules` list")
        if unknown := sorted(set(map(str, data)) - _TOP_FIELDS):
            raise self.error(f"field '{unknown[0]}'", f"unknown field (expected {', '.join(sorted(_TOP_FIELDS))})")
        relations = self.string_map(data.get("relations"), "relations")
        if relations:
            self.macros["relation"] = "|".join(re.escape(k) for k in sorted(relations, key=lambda k: (-len(k), k)))
        self.parse_macros(data.get("macros"))
        value = self.mapping(data.get("value"), "value", _VALUE_FIELDS)
        stop_sets = self.parse_stop_sets(value.get("stops"))
        settings = self.parse_settings(data, relations, value)
        rules_raw = data.get("rules")
        if not isinstance(rules_raw, list) or not rules_raw:
            raise self.error("field 'rules'", "expected a non-empty list of rules")
        reject = self.regex_map(value.get("reject"), "value.reject")
        rules = tuple(self.parse_rule(item, index, stop_sets, reject) for index, item in enumerate(rules_raw))
        ids = [rule.id for rule in rules]
        if duplicate := next((i for i in ids if ids.count(i) > 1), None):
            raise self.error(f"rule '{duplicate}'", "duplicate id")
        return settings, rules

    def parse_settings(
        self, data: Mapping[str, Any], relations: dict[str, str], value: Mapping[str, Any]
    ) -> PatternSettings:
        boundaries = self.mapping(data.get("boundaries"), "boundaries", frozenset({"sentence", "clause"}))
        sentence = boundaries.get("sentence", _DEFAULT_SENTENCE_END)
        clauses = self.regex_map(boundaries.get("clause"), "boundaries.clause")
        separator = None
        if clauses:
            separator = self.compile("|".join(f"(?:{p.pattern})" for _, p in clauses), "boundaries.clause")
        negation = self.mapping(data.get("negation"), "negation", frozenset({"before_value", "anywhere"}))
        subjects = self.mapping(data.get("subjects"), "subjects", _SUBJECT_FIELDS)
        owner = subjects.get("owner")
        possessive = subjects.get("possessive")
        max_length = value.get("max_length", DEFAULT_MAX_LENGTH)
        if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 8:
            raise self.error("field 'value.max_length'", f"expected an integer of at least 8, got {max_length!r}")
        scripts = self.string_map(data.get("scripts"), "scripts")
        dropped = self.string_map(subjects.get("dropped"), "subjects.dropped")
        persons = self.by_language(subjects.get("persons"), "subjects.persons")
        if missing := sorted(set(dropped) - {lang for lang, _ in persons}):
            # whom a left-out subject is depends on the persons named before it
            raise self.error(f"field 'subjects.dropped.{missing[0]}'", "a language here needs its subjects.persons")
        return PatternSettings(
            sentence_end=self.compile(sentence, "boundaries.sentence"),
            clause_separator=separator,
            scripts={lang: self.compile(p, f"scripts.{lang}") for lang, p in scripts.items()},
            questions=self.by_language(data.get("questions"), "questions"),
            negation_before_value=self.by_language(negation.get("before_value"), "negation.before_value"),
            negation_anywhere=self.by_language(negation.get("anywhere"), "negation.anywhere"),
            first_person=self.word_set(subjects.get("first_person"), "subjects.first_person"),
            others=self.word_set(subjects.get("others"), "subjects.others"),
            owner=None if owner is None else self.compile(owner, "subjects.owner"),
            possessive=None if possessive is None else self.compile(possessive, "subjects.possessive"),
            not_names=self.word_set(subjects.get("not_names"), "subjects.not_names"),
            dropped=dropped,
            persons=persons,
            relations={normalize_name(k): v for k, v in relations.items()},
            slot_aliases=self.parse_aliases(data.get("slot_aliases")),
            slots=self.parse_slots(data.get("slots")),
            max_length=max_length,
            strip_leading=self.by_language(value.get("strip_leading"), "value.strip_leading"),
            trim_end=self.by_language(value.get("trim_end"), "value.trim_end"),
        )

    def parse_macros(self, raw: Any) -> None:
        for name, body in self.string_map(raw, "macros").items():
            if name in self.macros:
                raise self.error(f"field 'macros.{name}'", "duplicate macro name")
            expanded = self.expand(body, f"macros.{name}")
            self.compile(expanded, f"macros.{name}", allow_empty=True)
            self.macros[name] = expanded

    def parse_stop_sets(self, raw: Any) -> dict[str, list[tuple[str, re.Pattern[str]]]]:
        if raw is None:
            return {"default": []}
        if not isinstance(raw, Mapping):
            raise self.error("field 'value.stops'", "expected a mapping of stop-set name to language -> regexes")
        sets = {str(name): self.regex_map(body, f"value.stops.{name}") for name, body in raw.items()}
        sets.setdefault("default", [])
        return sets

    def parse_aliases(self, raw: Any) -> dict[str, str]:
        aliases: dict[str, str] = {}
        for key, slot in self.string_map(raw, "slot_aliases").items():
            if not _SLOT_NAME.fullmatch(slot):
                raise self.error(f"field 'slot_aliases.{key}'", f"expected a snake_case slot name, got {slot!r}")
            aliases[normalize_name(key)] = slot
        return aliases

    def parse_slots(self, raw: Any) -> dict[str, SlotEntities]:
        slots: dict[str, SlotEntities] = {}
        if raw is None:
            return slots
        if not isinstance(raw, Mapping):
            raise self.error("field 'slots'", "expected a mapping of slot name to {kind, entities}")
        for slot, body in raw.items():
            where = f"slots.{slot}"
            item = self.mapping(body, where, _SLOT_FIELDS)
            kind = item.get("kind", "thing")
            if kind not in {k.value for k in EntityKind}:
                raise self.error(
                    f"field '{where}.kind'", f"unknown kind {kind!r} (expected one of {', '.join(EntityKind)})"
                )
            mode = item.get("entities", "names")
            if mode not in _ENTITY_MODES:
                raise self.error(
                    f"field '{where}.entities'", f"unknown mode {mode!r} (expected one of {', '.join(_ENTITY_MODES)})"
                )
            slots[str(slot)] = SlotEntities(EntityKind(kind), cast(EntityMode, mode))
        return slots

    def parse_rule(
        self,
        item: Any,
        index: int,
        stop_sets: dict[str, list[tuple[str, re.Pattern[str]]]],
        reject: list[tuple[str, re.Pattern[str]]],
    ) -> FactRule:
        if not isinstance(item, Mapping):
            raise self.error(f"rule {index}", f"expected a mapping, got {item!r}")
        rule_id = item.get("id")
        if not isinstance(rule_id, str) or not rule_id.strip():
            raise self.error(f"rule {index}, field 'id'", "expected a non-empty string")
        name = f"rule '{rule_id}'"

        def error(field_name: str, problem: str) -> ValueError:
            return self.error(f"{name}, field '{field_name}'", problem)

        if unknown := sorted(set(map(str, item)) - _RULE_FIELDS):
            raise error(unknown[0], f"unknown field (expected {', '.join(sorted(_RULE_FIELDS))})")
        for required in ("description", "slot", "confidence", "patterns"):
            if item.get(required) is None:
                raise error(required, "missing")
        if not isinstance(item["description"], str) or not item["description"].strip():
            raise error("description", "expected a non-empty string")
        slot = item["slot"]
        if not isinstance(slot, str) or not _SLOT_NAME.fullmatch(slot.replace("{key}", "key")):
            raise error("slot", f"expected a snake_case name, optionally with {{key}}, got {slot!r}")
        confidence = item["confidence"]
        if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 < confidence <= 1:
            raise error("confidence", f"expected a number in (0, 1], got {confidence!r}")
        polarity = item.get("polarity", "positive")
        if polarity not in ("positive", "negative"):
            raise error("polarity", f"expected positive or negative, got {polarity!r}")
        carry = item.get("subject_carry", True)
        if not isinstance(carry, bool):
            raise error("subject_carry", f"expected true or false, got {carry!r}")
        stops = list(stop_sets["default"])
        for stop_name in self.string_list(item.get("stops"), f"{name}, field 'stops'"):
            if stop_name not in stop_sets:
                raise error("stops", f"unknown stop set {stop_name!r} (expected one of {', '.join(sorted(stop_sets))})")
            stops.extend(stop_sets[stop_name])
        patterns = self.regex_map(item["patterns"], "patterns", where_prefix=f"{name}, ")
        if not patterns:
            raise error("patterns", "expected a mapping of language to a non-empty list of regular expressions")
        self.check_groups(patterns, "{key}" in slot, error)
        keywords = self.keywords(item.get("keywords"), f"{name}, field 'keywords'")
        return FactRule(
            id=rule_id,
            description=item["description"],
            slot=slot,
            confidence=float(confidence),
            patterns=tuple(patterns),
            negative=polarity == "negative",
            stops=self.combine(stops, "stops", f"{name}, "),
            reject=self.combine(
                reject + self.regex_map(item.get("reject"), "reject", f"{name}, "), "reject", f"{name}, "
            ),
            subject_carry=carry,
            keywords=keywords,
        )

    def check_groups(
        self, patterns: list[tuple[str, re.Pattern[str]]], needs_key: bool, error: Callable[[str, str], ValueError]
    ) -> None:
        needed = ("subject", "value", "key") if needs_key else ("subject", "value")
        counters: dict[str, int] = {}
        for lang, pattern in patterns:
            position = counters.get(lang, 0)
            counters[lang] = position + 1
            if missing := [g for g in needed if g not in pattern.groupindex]:
                raise error(f"patterns.{lang}[{position}]", f"the pattern has no (?P<{missing[0]}>...) group")

    # --- small parsers ---

    def mapping(self, raw: Any, where: str, fields: frozenset[str]) -> Mapping[str, Any]:
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            raise self.error(f"field '{where}'", "expected a mapping")
        if unknown := sorted(set(map(str, raw)) - fields):
            raise self.error(f"field '{where}.{unknown[0]}'", f"unknown field (expected {', '.join(sorted(fields))})")
        return raw

    def string_map(self, raw: Any, where: str) -> dict[str, str]:
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            raise self.error(f"field '{where}'", "expected a mapping of strings")
        for key, value in raw.items():
            if not isinstance(value, str) or not value:
                raise self.error(f"field '{where}.{key}'", f"expected a non-empty string, got {value!r}")
        return {str(k): v for k, v in raw.items()}

    def string_list(self, raw: Any, where: str) -> list[str]:
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise self.error(where, f"expected a list of strings, got {raw!r}")
        if bad := [x for x in raw if not isinstance(x, str)]:
            raise self.error(where, f"expected a list of strings, got {bad[0]!r} (quote it)")
        return raw

    def keywords(self, raw: Any, where: str) -> tuple[str, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, Mapping):
            raise self.error(where, "expected a mapping of language to a list of strings")
        words: list[str] = []
        for lang, items in raw.items():
            for word in self.string_list(items, f"{where[:-1]}.{lang}'"):
                if not word:
                    raise self.error(f"{where[:-1]}.{lang}'", "keywords must not be empty")
                words.append(word.casefold())
        return tuple(words)

    def word_set(self, raw: Any, where: str) -> frozenset[str]:
        return frozenset(" ".join(w.casefold().split()) for w in self.string_list(raw, f"field '{where}'"))

    def regex_map(self, raw: Any, where: str, where_prefix: str = "") -> list[tuple[str, re.Pattern[str]]]:
        if raw is None:
            return []
        if not isinstance(raw, Mapping):
            raise self.error(f"{where_prefix}field '{where}'", "expected a mapping of language to a list of regexes")
        compiled: list[tuple[str, re.Pattern[str]]] = []
        for lang, sources in raw.items():
            if not isinstance(sources, list):
                raise self.error(f"{where_prefix}field '{where}.{lang}'", "expected a list of regular expressions")
            for i, source in enumerate(sources):
                place = f"{where}.{lang}[{i}]"
                if not isinstance(source, str):
                    raise self.error(f"{where_prefix}field '{place}'", f"expected a string, got {source!r}")
                compiled.append((str(lang), self.compile(source, place, where_prefix=where_prefix)))
        return compiled

    def by_language(self, raw: Any, where: str) -> LanguagePatterns:
        return self.combine(self.regex_map(raw, where), where)

    def combine(
        self, patterns: list[tuple[str, re.Pattern[str]]], where: str, where_prefix: str = ""
    ) -> LanguagePatterns:
        """One alternation per language; each regex was compiled and checked on its own before."""
        grouped: dict[str, list[str]] = {}
        for lang, pattern in patterns:
            grouped.setdefault(lang, []).append(f"(?:{pattern.pattern})")
        return tuple((lang, self.compile("|".join(sources), where, where_prefix)) for lang, sources in grouped.items())

    def expand(self, source: str, where: str, where_prefix: str = "") -> str:
        def replace(m: re.Match[str]) -> str:
            if m.group(1) not in self.macros:
                raise self.error(f"{where_prefix}field '{where}'", f"unknown macro {{{{{m.group(1)}}}}}")
            return f"(?:{self.macros[m.group(1)]})"

        return _MACRO_REF.sub(replace, source)

    def compile(self, source: str, where: str, where_prefix: str = "", allow_empty: bool = False) -> re.Pattern[str]:
        if not isinstance(source, str):
            raise self.error(f"{where_prefix}field '{where}'", f"expected a string, got {source!r}")
        expanded = self.expand(source, where, where_prefix)
        try:
            pattern = re.compile(expanded, re.IGNORECASE)
        except re.error as exc:
            raise self.error(f"{where_prefix}field '{where}'", f"bad regular expression {source!r}: {exc}") from exc
        if not allow_empty and pattern.search("") is not None:
            raise self.error(
                f"{where_prefix}field '{where}'", f"regular expression {source!r} matches the empty string"
            )
        return pattern
