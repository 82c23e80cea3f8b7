"""Statements that set or change the value of a subject's attribute, as slot facts: no LLM.

"We use Postgres 15 for billing" gives (billing, database) = Postgres 15; "Update: we upgraded billing
to Postgres 16 yesterday" gives (billing, database) = Postgres 16, which the fact track's supersession
(app/memory/ingest.py) puts in force, the old value kept in history. Besides the fixed slots of
app/data/fact_patterns.yaml (works_at, job, lives_in, car, phone), an attribute is open: a subject
and an attribute noun ("the billing database", "例会", "my phone"), or the kind of the value
("Postgres 16" -> database, "10am" -> time). "I no longer work at Acme", "我妹妹现在不在那家公司了"
end the value in force with the value `ENDED`.

The bank and its reading rules are in app/data/update_patterns.yaml (its header says how a clause is
read); clauses are those of the fact extractor. Conditionals, plans, questions and negated changes
give nothing ("if we upgrade to 16", "we decided not to switch"), nor do pronoun agents (no coreference),
and an agent other than the speaker gives its own subject ("my friend upgraded to Postgres 16" is
about the friend). `extract_statements` is what the write path stores: the fact extractor's facts
and these, without repeats.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from app.domain.datafile import read_yaml
from app.extract.facts import FactPatterns, default_patterns, extract_facts, fold_width, normalize_name
from app.extract.types import EntityKind, EntityMention, FactMention

DEFAULT_UPDATES_PATH = Path(__file__).resolve().parents[1] / "data" / "update_patterns.yaml"
ENDED = "none"  # the value of a statement that ends the value in force ("I no longer work at Acme")
CONFIDENCE = {"set": 0.8, "change": 0.85, "end": 0.8}

RuleKind = Literal["set", "change", "end"]
Patterns = tuple[tuple[str, re.Pattern[str]], ...]  # (language, pattern)
_MACRO = re.compile(r"\{\{(\w+)\}\}")
_RULE_FIELDS = frozenset({"id", "description", "kind", "slot", "fallback", "needs_kind", "patterns"})
_TOP_FIELDS = frozenset(
    {"skip", "generic_heads", "attributes", "kinds", "time_value", "value", "macros", "rules"}
)
_DETERMINERS_EN = ("the ", "our ", "my ", "a ", "an ", "all ", "whole ")
_OTHERS_POSSESSIVE_EN = ("his ", "her ", "their ", "your ", "its ")
_DETERMINERS_ZH = ("我们的", "咱们的", "我的", "公司的", "我们", "咱们")
_OTHERS_POSSESSIVE_ZH = ("他的", "她的", "他们的", "她们的", "你的", "你们的", "它的")
_NOTHING_NAMED = frozenset({"everything", "it", "things", "all", "stuff", "all of it", "一切", "全部", "所有"})
_ORGANISATION_AGENTS = frozenset({"公司", "团队"})  # "公司把数据库升级了": the speaker's side


@dataclass(frozen=True)
class UpdateRule:
    id: str
    description: str
    kind: RuleKind
    patterns: Patterns
    slot: str | None = None  # fixed slot (works_at, lives_in ...); else from the thing or the value
    fallback: str | None = None  # slot when a thing is named but neither it nor the value names one
    needs_kind: bool = False  # the value must have a kind (a bare "I got X" says nothing otherwise)


@dataclass(frozen=True)
class Kind:
    slot: str
    words: tuple[str, ...]  # casefolded, longest first
    owner_is_agent: bool  # personal things: the agent is the subject even when a thing is named


@dataclass(frozen=True)
class _Reading:
    """A clause as a rule read it: the groups' texts (None when absent) and the value's span."""

    rule: UpdateRule
    agent: str | None
    thing: str | None
    value: str | None
    old: str | None
    span: tuple[int, int]
    value_span: tuple[int, int] | None


class UpdatePatterns:
    def __init__(
        self,
        rules: tuple[UpdateRule, ...],
        hypothetical: Patterns,
        negation: Patterns,
        generic_heads: frozenset[str],
        attributes: Mapping[str, str],
        kinds: tuple[Kind, ...],
        time_value: Patterns,
        value_stops: Patterns,
        strip_leading: Patterns,
        trim_end: Patterns,
        max_length: int,
        facts: FactPatterns,
    ) -> None:
        self.rules = rules
        self.hypothetical = hypothetical
        self.negation = negation
        self.generic_heads = generic_heads
        self.attributes = attributes
        self.kinds = kinds
        self.time_value = time_value
        self.value_stops = value_stops
        self.strip_leading = strip_leading
        self.trim_end = trim_end
        self.max_length = max_length
        self.facts = facts

    @classmethod
    def load(cls, path: Path = DEFAULT_UPDATES_PATH, facts: FactPatterns | None = None) -> UpdatePatterns:
        return _parse(read_yaml(path, "update patterns"), str(path), facts or default_patterns())

    # --- reading ------------------------------------------------------------------------------

    def extract(self, text: str, speaker: str) -> list[FactMention]:
        """The update and value-in-force statements of `text` as slot facts, in text order."""
        if not speaker.strip():
            raise ValueError("speaker must not be blank")
        work = fold_width(text)
        found: list[FactMention] = []
        for sentence in self.facts.clauses(text):
            carried_agent: str | None = None
            for start, end in sentence:
                clause = work[start:end]
                languages = self._languages(clause)
                if _first(self.hypothetical, languages, clause) is not None:
                    continue
                # The first reading that gives a fact: "I moved to Denver" is no change of a
                # known kind (change_to) but a move (moved_home).
                for reading in self._readings(clause, languages):
                    agent = reading.agent or carried_agent
                    if reading.agent is None and carried_agent is None and "zh" in languages:
                        agent = "我"  # Chinese drops the subject: "换了个新手机" is the speaker's
                    fact = self._fact(reading, agent, speaker, text, start)
                    if fact is not None:
                        carried_agent = agent
                        found.append(fact)
                        break
        return found

    def _readings(self, clause: str, languages: frozenset[str]) -> Iterator[_Reading]:
        negated = _first(self.negation, languages, clause) is not None
        for rule in self.rules:
            if negated and rule.kind != "end":
                continue
            for lang, pattern in rule.patterns:
                if lang not in languages:
                    continue
                m = pattern.search(clause)
                if m is None:
                    continue
                groups = {name: _group(m, name) for name in ("agent", "thing", "value", "old")}
                value_span = m.span("value") if groups["value"] is not None else None
                yield _Reading(rule, groups["agent"], groups["thing"], groups["value"], groups["old"],
                               m.span(), value_span)  # fmt: skip

    def _fact(self, reading: _Reading, agent: str | None, speaker: str, text: str, offset: int) -> FactMention | None:
        rule = reading.rule
        agent_subject = self._agent(agent, speaker) if agent is not None else None
        if agent is not None and agent_subject is None:
            return None  # a pronoun or someone unknown: no coreference
        thing, attribute = self._thing(reading.thing)
        if thing is _REFUSED:
            return None
        value = self._clean(reading.value) if reading.value is not None else None
        old = self._clean(reading.old) if reading.old is not None else None
        if rule.kind != "end" and not value:
            return None
        kind = self._kind(value) or self._kind(old)
        if rule.slot is not None:
            slot: str | None = rule.slot
        elif attribute is not None:
            slot = attribute
        elif kind is not None:
            slot = kind.slot
        elif value and self._is_time(value):
            slot = "time"
        elif thing is not None:
            slot = rule.fallback
        else:
            slot = None
        if slot is None or (rule.needs_kind and kind is None and attribute is None):
            return None
        personal = kind is not None and kind.owner_is_agent and attribute is None
        if thing is None or personal or rule.slot in ("works_at", "job", "lives_in"):
            subject = agent_subject or (speaker if thing is None or personal else None)
            subject_kind = EntityKind.PERSON
        elif agent_subject is None or agent_subject == speaker:
            subject, subject_kind = str(thing), EntityKind.THING
        else:
            subject, subject_kind = f"{agent_subject}'s {thing}", EntityKind.THING
        if subject is None:
            return None
        span = (offset + reading.span[0], offset + reading.span[1])
        entities: tuple[EntityMention, ...] = ()
        if value and reading.value_span is not None and _names_something(value):
            entities = (EntityMention(value, normalize_name(value), EntityKind.THING, span),)
        shown = value if rule.kind != "end" else ENDED
        return FactMention(subject, slot, str(shown), CONFIDENCE[rule.kind], span, entities,
                           subject_kind=subject_kind, replaces=old)  # fmt: skip

    # --- parts --------------------------------------------------------------------------------

    def _agent(self, agent: str, speaker: str) -> str | None:
        """Who an agent is: the speaker, "<speaker>'s <relation>", a name, or None (refused)."""
        settings = self.facts.settings
        folded = " ".join(agent.casefold().split())
        if folded in settings.first_person or folded in _ORGANISATION_AGENTS:
            return speaker
        if folded in settings.others:
            return None
        for owner in ("my ", "我的", "我"):
            if folded.startswith(owner):
                relation = folded[len(owner) :].strip()
                if relation in settings.relations:
                    return f"{speaker}'s {settings.relations[relation]}"
        if agent[:1].isupper() and folded not in settings.not_names:
            return agent
        return None

    def _thing(self, raw: str | None) -> tuple[str | None | object, str | None]:
        """(subject thing or None or _REFUSED, attribute slot or None) of a thing as written."""
        if raw is None:
            return None, None
        text = " ".join(raw.split())
        folded = text.casefold()
        if folded.startswith(_OTHERS_POSSESSIVE_EN) or text.startswith(_OTHERS_POSSESSIVE_ZH):
            return _REFUSED, None
        settings = self.facts.settings
        changed = True
        while changed:
            changed = False
            for prefix in (*_DETERMINERS_EN, *_DETERMINERS_ZH):
                if folded.startswith(prefix) and len(folded) > len(prefix):
                    text, folded, changed = text[len(prefix) :].strip(), folded[len(prefix) :].strip(), True
        people = settings.relations.keys() | settings.others | settings.first_person
        if any(word in people for word in folded.split()[:3]) or folded.removeprefix("我") in settings.relations:
            return _REFUSED, None  # a person is an agent, not a thing (the agent patterns read it)
        if folded in _NOTHING_NAMED:
            return None, None  # "we moved everything to GCP": the agent's
        attribute: str | None = None
        owner, _, last = folded.rpartition("'s ")
        if not owner:
            owner, _, last = folded.rpartition("的")
        if owner and last in self.attributes:
            return self._strip_heads(owner), self.attributes[last]
        words = folded.split()
        for size in (2, 1):
            if len(words) >= size and " ".join(words[-size:]) in self.attributes:
                attribute = self.attributes[" ".join(words[-size:])]
                return self._strip_heads(" ".join(words[:-size])), attribute
        if not folded.isascii():  # Chinese: the attribute word ends the thing ("计费系统数据库")
            for word in sorted((w for w in self.attributes if not w.isascii()), key=len, reverse=True):
                if folded.endswith(word):
                    return self._strip_heads(folded[: -len(word)]), self.attributes[word]
        return self._strip_heads(folded), None

    def _strip_heads(self, thing: str) -> str | None:
        text = thing.strip().removesuffix("的").strip()
        changed = True
        while changed and text:
            changed = False
            for head in self.generic_heads:
                if text == head:
                    return None
                if text.endswith((" " + head) if head.isascii() else head):
                    text, changed = text[: -len(head)].strip(), True
        return text or None

    def _kind(self, value: str | None) -> Kind | None:
        if not value:
            return None
        folded = normalize_name(value)
        for kind in self.kinds:
            for word in kind.words:
                # a Latin word ends at a non-alphanumeric ASCII character or a CJK one ("Vim写代码")
                after = folded[len(word) : len(word) + 1]
                ends = not after or not word.isascii() or not (after.isascii() and after.isalnum())
                if folded.startswith(word) and ends:
                    return kind
        return None

    def _is_time(self, value: str) -> bool:
        return _first(self.time_value, self._languages(value), value) is not None

    def _clean(self, raw: str) -> str | None:
        languages = self._languages(raw)
        text = raw.strip()
        stop = _first(self.value_stops, languages, text, 1)
        if stop is not None:
            text = text[: stop.start()]
        text = text[: self.max_length]
        for _ in range(3):
            m = _first(self.strip_leading, languages, text)
            if m is not None and m.end() < len(text):
                text = text[m.end() :]
            m = _first(self.trim_end, languages, text)
            if m is not None and m.start() > 0:
                text = text[: m.start()]
            text = text.strip(" \t\"'“”‘’,.;:!?，。；：！？")
        return " ".join(text.split()) or None

    def _languages(self, text: str) -> frozenset[str]:
        scripts = self.facts.settings.scripts
        return frozenset(lang for lang, script in scripts.items() if script.search(text))


_REFUSED = object()


def _group(m: re.Match[str], name: str) -> str | None:
    if name not in m.re.groupindex:
        return None
    value = m.group(name)
    return value if value and value.strip() else None


def _names_something(value: str) -> bool:
    return any(ch.isupper() for ch in value) or re.search(r"[\u3400-\u9fff]", value) is not None


def _first(patterns: Patterns, languages: frozenset[str], text: str, pos: int = 0) -> re.Match[str] | None:
    best: re.Match[str] | None = None
    for lang, pattern in patterns:
        if lang in languages:
            m = pattern.search(text, pos)
            if m is not None and (best is None or m.start() < best.start()):
                best = m
    return best


# --- loading ---------------------------------------------------------------------------------------


def _parse(data: Any, source: str, facts: FactPatterns) -> UpdatePatterns:
    def error(where: str, problem: str) -> ValueError:
        return ValueError(f"update patterns {source}: {where}: {problem}")

    if not isinstance(data, Mapping):
        raise error("top level", "expected a mapping with a `rules` list")
    if unknown := sorted(set(map(str, data)) - _TOP_FIELDS):
        raise error(f"field '{unknown[0]}'", f"unknown field (expected {', '.join(sorted(_TOP_FIELDS))})")
    macros = {"relation": "|".join(re.escape(k) for k in sorted(facts.settings.relations, key=len, reverse=True))}
    for name, body in (data.get("macros") or {}).items():
        macros[str(name)] = _expand(str(body), macros, f"macros.{name}", error)

    def patterns(raw: Any, where: str) -> Patterns:
        if raw is None:
            return ()
        if not isinstance(raw, Mapping):
            raise error(f"field '{where}'", "expected a mapping of language to a list of regular expressions")
        out: list[tuple[str, re.Pattern[str]]] = []
        for lang, sources in raw.items():
            if not isinstance(sources, list) or not all(isinstance(s, str) and s for s in sources):
                raise error(f"field '{where}.{lang}'", "expected a list of regular expressions")
            for i, src in enumerate(sources):
                expanded = _expand(src, macros, f"{where}.{lang}[{i}]", error)
                try:
                    out.append((str(lang), re.compile(expanded, re.IGNORECASE)))
                except re.error as exc:
                    raise error(f"field '{where}.{lang}[{i}]'", f"bad regular expression: {exc}") from exc
        return tuple(out)

    skip = data.get("skip") or {}
    value = data.get("value") or {}
    rules_raw = data.get("rules")
    if not isinstance(rules_raw, list) or not rules_raw:
        raise error("field 'rules'", "expected a non-empty list of rules")
    rules = tuple(_rule(item, i, patterns, error) for i, item in enumerate(rules_raw))
    kinds = tuple(
        Kind(str(slot), tuple(sorted((normalize_name(w) for w in body["words"]), key=len, reverse=True)),
             body.get("owner") == "agent")  # fmt: skip
        for slot, body in (data.get("kinds") or {}).items()
    )
    heads = data.get("generic_heads") or {}
    return UpdatePatterns(
        rules=rules,
        hypothetical=patterns(skip.get("hypothetical"), "skip.hypothetical"),
        negation=patterns(skip.get("negation"), "skip.negation"),
        generic_heads=frozenset(str(w).casefold() for words in heads.values() for w in words),
        attributes={normalize_name(str(k)): str(v) for k, v in (data.get("attributes") or {}).items()},
        kinds=kinds,
        time_value=patterns(data.get("time_value"), "time_value"),
        value_stops=patterns(value.get("stops"), "value.stops"),
        strip_leading=patterns(value.get("strip_leading"), "value.strip_leading"),
        trim_end=patterns(value.get("trim_end"), "value.trim_end"),
        max_length=int(value.get("max_length", 60)),
        facts=facts,
    )


def _rule(item: Any, index: int, patterns: Any, error: Any) -> UpdateRule:
    if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
        raise error(f"rule {index}", "expected a mapping with an id")
    name = f"rule '{item['id']}'"
    if unknown := sorted(set(map(str, item)) - _RULE_FIELDS):
        raise error(f"{name}, field '{unknown[0]}'", f"unknown field (expected {', '.join(sorted(_RULE_FIELDS))})")
    kind = item.get("kind")
    if kind not in ("set", "change", "end"):
        raise error(f"{name}, field 'kind'", f"expected set, change or end, got {kind!r}")
    found = patterns(item.get("patterns"), f"{name}.patterns")
    if not found:
        raise error(f"{name}, field 'patterns'", "missing")
    return UpdateRule(
        id=item["id"],
        description=str(item.get("description", "")),
        kind=kind,
        patterns=found,
        slot=item.get("slot"),
        fallback=item.get("fallback"),
        needs_kind=bool(item.get("needs_kind", False)),
    )


def _expand(source: str, macros: Mapping[str, str], where: str, error: Any) -> str:
    def replace(m: re.Match[str]) -> str:
        if m.group(1) not in macros:
            raise error(f"field '{where}'", f"unknown macro {{{{{m.group(1)}}}}}")
        return f"(?:{macros[m.group(1)]})"

    return _MACRO.sub(replace, source)


@functools.cache
def default_updates() -> UpdatePatterns:
    """The bank in `app/data/update_patterns.yaml`, loaded on first use."""
    return UpdatePatterns.load()


def extract_updates(text: str, speaker: str) -> list[FactMention]:
    """The update and value-in-force statements of `text` (see the module docstring)."""
    return default_updates().extract(text, speaker)


def extract_statements(text: str, speaker: str) -> list[FactMention]:
    """What the write path stores of a turn: the fact extractor's facts, then the updates that say
    something they do not (a different subject or slot, in text order)."""
    facts = extract_facts(text, speaker)
    return merge_statements(facts, extract_updates(text, speaker))


def merge_statements(facts: Sequence[FactMention], updates: Sequence[FactMention]) -> list[FactMention]:
    """`facts` and the `updates` whose (subject, slot) no fact of the turn already states, in text order."""
    said = {(normalize_name(f.subject), f.slot) for f in facts}
    merged = list(facts) + [u for u in updates if (normalize_name(u.subject), u.slot) not in said]
    return sorted(merged, key=lambda fact: fact.span)
