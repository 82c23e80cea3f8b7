"""Slot facts and named entities from one conversation turn: a bank of regular expressions, no LLM.

The bank lives in `app/data/fact_patterns.yaml`, whose header documents the format; `FactPatterns.load`
validates it and names the rule and field of any error. `extract_facts`, `extract_entities` and
`normalize_name` use the default bank, loaded once.

What the extractor does and does not do (the data file has the Chinese forms of each example):

- Subjects. First person (I, me, my, and we / us / our, which include the speaker, and their
  Chinese forms) is the speaker. "my friend's car", "my
  wife's name", "my mom lives" get the subject "<speaker>'s <relation>", with the relation in English
  (`relations` in the data file, which maps the Chinese kin terms too). "my friend Alice works at",
  "Alice's car" and "Alice lives in" get "Alice". Third-person pronouns (he, she, they ...) give no
  fact: there is no coreference. Second person ("your car is ...") gives no fact: the speaker describing the
  listener is out of scope. Chinese third persons are only reached through the first person and a
  relation word ("my mother"): there is no Chinese name recognition.
- A clause without a subject of its own borrows the previous clause's ("I live in Berlin and work at
  Acme"); `name` rules never borrow, since a bare "called X" after a comma usually names what was just
  mentioned ("I have a dog, called Rex" is not the speaker's name). A Chinese clause that leaves its
  subject out and borrows none is the speaker's ("还住在高新区，离公司近"), unless the last person the
  turn names before it is someone else ("他是程序员，在阿里巴巴工作"): `subjects.dropped` and `persons`.
- Negation: a negation cue between the clause start and the value ("don't", "never", "no longer") or
  "anymore" anywhere in the clause drops the fact; nothing negative is stored for a positive slot ("I
  don't live in Berlin anymore" gives nothing). Negative rules (`dislikes`) state the negation
  themselves. Questions (a question mark, "do you ...", question particles and words) give nothing;
  a question is told clause by clause, so a statement with a question tag keeps its statement.
- Pets: "I have a dog named Rex" gives `pet` = "dog" and "<speaker>'s dog" `name` = "Rex", so the name
  lands where "my dog's name is Rex" puts it, and several pets do not overwrite one another's names.
- A workplace with a role ("我在腾讯做产品经理", "我是腾讯的产品经理", "I work at Acme as an engineer",
  "I'm a nurse at St Mary's") gives `works_at` and, from the pattern's `role` group, `job`: one
  match, two facts (overlapping matches keep one).
- Values are cut at clause boundaries and stops (time words, prepositions after places), stripped of
  lowercase articles, punctuation and fillers, NFKC-normalized, and capped at 80 characters.
- Confidence comes from the rule: 0.9 for explicit copulas and verbs ("my X is Y", "I live in"), 0.8
  for looser ones ("I am a teacher", "I was born in", "I'm a big fan of"), 0.7 for the loosest ("I'm
  Alice", "I've been to Japan"). When two matches overlap in a clause the more confident wins (ties: the
  earlier rule in the file).
- `event_time` is left empty: `app/extract/dating.py` dates a statement by the time expressions of
  its own clause (or of a sentence's clause that is only a time), using `FactPatterns.clauses`.
- Slots from the text ("my X is Y") go through `slot_aliases`, so both languages give one slot name;
  a Chinese key missing from it is kept as written.
- Full-width forms are folded before matching (offsets unchanged), so full-width Latin text matches too.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.domain.datafile import read_yaml
from app.extract.fact_rules_file import DEFAULT_SLOT, FactRule, LanguagePatterns, PatternSettings, RuleFileParser
from app.extract.names import KEPT_EDGE_CHARS, fold_width, normalize_name
from app.extract.types import EntityKind, EntityMention, FactMention

DEFAULT_PATTERNS_PATH = Path(__file__).resolve().parents[1] / "data" / "fact_patterns.yaml"

_BRACKETS = {")": "(", "）": "（", "]": "[", "」": "「", "』": "『", "》": "《"}
_OPENERS = {opener: closer for closer, opener in _BRACKETS.items()}
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_LETTER = r"A-Za-z0-9\u00C0-\u024F"
_NAME_TOKEN = rf"[A-Z][{_LATIN_LETTER}]*(?:-[{_LATIN_LETTER}]+)*"
_NAME_CONNECTORS = frozenset({"of", "de", "da", "del", "di", "du", "van", "von", "der", "den", "la", "le"})
# Capitalized words in a row ("Model Y", "Bank of America", "Windows 11"); case-sensitive on purpose.
_CAPITALIZED_RUN = re.compile(
    rf"(?<![{_LATIN_LETTER}'’-]){_NAME_TOKEN}"
    rf"(?:(?:\s+(?:{'|'.join(sorted(_NAME_CONNECTORS))}))?\s+(?:{_NAME_TOKEN}|\d+[A-Za-z]*)(?![{_LATIN_LETTER}]))*"
)
_OPENING_MARKS = frozenset("\"'“‘([（「『《")


def _is_edge_char(ch: str) -> bool:
    """Whitespace, punctuation, symbols and emoji parts, removed from the edges of a value."""
    if ch.isspace():
        return True
    if ch in KEPT_EDGE_CHARS:
        return False
    category = unicodedata.category(ch)
    return category[0] in "PS" or category in ("Cf", "Me") or 0xFE00 <= ord(ch) <= 0xFE0F


def _contains_any(text: str, words: tuple[str, ...]) -> bool:
    # a plain loop: measurably faster than any() over a generator, and this runs for every rule and clause
    for word in words:  # noqa: SIM110
        if word in text:
            return True
    return False


def _has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


@dataclass(frozen=True)
class _Found:
    fact: FactMention
    subject_text: str  # the subject as written, lent to a following clause without one
    subject_span: tuple[int, int]


@dataclass(frozen=True)
class _Lent:
    """A subject a clause without one is read behind: the previous clause's, or the speaker's own
    where the language leaves it out (`subjects.dropped`; an empty span: nothing in the turn says it)."""

    subject_text: str
    subject_span: tuple[int, int]


@dataclass(frozen=True)
class _Candidate:
    confidence: float
    order: int  # the rule's position in the bank, for ties
    span: tuple[int, int]
    found: tuple[_Found, ...]


class FactPatterns:
    def __init__(self, settings: PatternSettings, rules: tuple[FactRule, ...]) -> None:
        self.settings = settings
        self.rules = rules
        self._key_slots: dict[str, str] = {}  # cache: keys repeat across turns

    @classmethod
    def load(cls, path: Path = DEFAULT_PATTERNS_PATH) -> FactPatterns:
        return cls.from_data(read_yaml(path, "fact patterns"), source=str(path))

    @classmethod
    def from_data(cls, data: Any, source: str = "<data>") -> FactPatterns:
        return cls(*RuleFileParser(source).parse(data))

    # --- facts -------------------------------------------------------------------------------------

    def extract_facts(self, text: str, speaker: str) -> list[FactMention]:
        """The slot facts stated in `text`, in text order; first-person statements are about `speaker`."""
        if not speaker.strip():
            raise ValueError("speaker must not be blank")
        facts: list[FactMention] = []
        work = fold_width(text)
        people = self._people(work)
        for start, end in self._sentences(work):
            carry: _Lent | None = None
            clauses = list(self._clauses(work, start, end))
            for index, clause in enumerate(clauses):
                # A question is asked clause by clause, up to where the next clause starts (so the
                # last one keeps its "?"): "I work at Acme now, did I tell you?" keeps its statement.
                asked = work[clause[0] : clauses[index + 1][0] if index + 1 < len(clauses) else end]
                if self._first(self.settings.questions, self._languages(asked), asked):
                    carry = None
                    continue
                found, matched = self._read_clause(text, work, clause, speaker, None)
                if not matched and (lent := carry or self._dropped_subject(work, clause, people)) is not None:
                    found, _ = self._read_clause(text, work, clause, speaker, lent)
                facts.extend(item.fact for item in found)
                carry = _Lent(found[-1].subject_text, found[-1].subject_span) if found else None
        return facts

    def clauses(self, text: str) -> list[list[tuple[int, int]]]:
        """The clauses of `text` as the extractor reads them: (start, end) offsets, one list per sentence."""
        work = fold_width(text)
        return [list(self._clauses(work, start, end)) for start, end in self._sentences(work)]

    def _sentences(self, text: str) -> Iterator[tuple[int, int]]:
        start = 0
        for end in self.settings.sentence_end.finditer(text):
            if text[start : end.end()].strip():
                yield start, end.end()
            start = end.end()
        if text[start:].strip():
            yield start, len(text)

    def _clauses(self, text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
        separator = self.settings.clause_separator
        pieces: list[tuple[int, int]] = []
        position = start
        if separator is not None:
            for m in separator.finditer(text, start, end):
                if m.end() > m.start():
                    pieces.append((position, m.start()))
                    position = m.end()
        pieces.append((position, end))
        for piece_start, piece_end in pieces:
            while piece_start < piece_end and text[piece_start].isspace():
                piece_start += 1
            while piece_end > piece_start and _is_edge_char(text[piece_end - 1]):
                piece_end -= 1
            if piece_end > piece_start:
                yield piece_start, piece_end

    def _read_clause(
        self, text: str, work: str, bounds: tuple[int, int], speaker: str, carry: _Lent | None
    ) -> tuple[list[_Found], bool]:
        """The facts of one clause, and whether any pattern matched it at all (even if refused later).

        `work` is `text` with full-width forms folded (same length, so offsets hold for both)."""
        start, end = bounds
        clause = work[start:end]
        lead = ""
        if carry is not None:
            lead = carry.subject_text + ("" if _has_cjk(carry.subject_text[-1]) else " ")
        target = lead + clause
        folded = target.casefold()
        languages = self._languages(clause)
        candidates: list[_Candidate] = []
        matched = False
        for order, rule in enumerate(self.rules):
            if carry is not None and not rule.subject_carry:
                continue
            if rule.keywords and not _contains_any(folded, rule.keywords):
                continue
            for lang, pattern in rule.patterns:
                if not self._applies(lang, languages):
                    continue
                # a lent subject is the clause's start: only a match there counts
                m = pattern.search(target) if carry is None else pattern.match(target)
                if m is None:
                    continue
                if carry is not None and m.group("subject") != carry.subject_text:
                    continue
                matched = True
                frame = _Frame(text, target, len(lead), start, carry, languages)
                candidate = self._candidate(rule, order, m, frame, speaker)
                if candidate is not None:
                    candidates.append(candidate)
        return _select(candidates), matched

    def _candidate(
        self, rule: FactRule, order: int, m: re.Match[str], frame: _Frame, speaker: str
    ) -> _Candidate | None:
        subject_text = m.group("subject")
        if not subject_text:  # an optional subject group that took no part in the match
            return None
        subject_span = frame.subject_span(m.span("subject"))
        subject, subject_entities = self._resolve_subject(frame.source, subject_text, subject_span, speaker)
        if subject is None:
            return None
        value = self._clean_value(frame, *m.span("value"), rule.stops)
        if value is None:
            return None
        value_start, value_end, value_text = value
        if not rule.negative and self._negated(frame, value_start):
            return None
        if self._first(rule.reject, frame.languages, value_text):
            return None
        slot = self._slot(rule, m)
        if slot is None:
            return None
        # the statement: from the subject (the clause start for a borrowed one) to the value, or to the
        # end of the match when the pattern goes on after the value ("I am 30 years old")
        end = value_end if m.end("value") == m.end() else m.end()
        span = (frame.original(max(m.start(), frame.shift)), frame.original(end))
        entities = subject_entities + self._value_entities(slot, frame, value_start, value_end)
        fact = FactMention(subject, slot, value_text, rule.confidence, span, entities)
        found = [_Found(fact, subject_text, subject_span)]
        for extra in (
            self._named_value(rule, m, frame, subject, slot, value_text, span),
            self._role_value(rule, m, frame, subject, span),
        ):
            if extra is not None:
                found.append(_Found(extra, subject_text, subject_span))
        return _Candidate(rule.confidence, order, span, tuple(found))

    def _role_value(
        self, rule: FactRule, m: re.Match[str], frame: _Frame, subject: str, span: tuple[int, int]
    ) -> FactMention | None:
        """The `job` fact of a workplace named with a role: "我在腾讯做产品经理" -> job = "产品经理"."""
        role = self._group_value(rule, m, frame, "role")
        if role is None:
            return None
        role_start, role_end, role_text = role
        entities = self._value_entities("job", frame, role_start, role_end)
        return FactMention(subject, "job", role_text, rule.confidence, span, entities)

    def _group_value(self, rule: FactRule, m: re.Match[str], frame: _Frame, group: str) -> tuple[int, int, str] | None:
        """A second value the match names in `group` ("name", "role"), cleaned as values are."""
        if group not in m.re.groupindex or m.group(group) is None:
            return None
        return self._clean_value(frame, *m.span(group), rule.stops)

    def _named_value(
        self,
        rule: FactRule,
        m: re.Match[str],
        frame: _Frame,
        subject: str,
        slot: str,
        value_text: str,
        span: tuple[int, int],
    ) -> FactMention | None:
        """The `name` fact of a named value: "a dog named Rex" -> "<subject>'s dog" name = "Rex"."""
        name = self._group_value(rule, m, frame, "name")
        if name is None:
            return None
        name_start, name_end, name_text = name
        owner = self.settings.relations.get(value_text.casefold(), value_text.casefold())
        kind = self.settings.slots.get(slot, DEFAULT_SLOT).kind
        entity = frame.mention(name_start, name_end, kind)
        return FactMention(f"{subject}'s {owner}", "name", name_text, rule.confidence, span, (entity,))

    # --- subjects ----------------------------------------------------------------------------------

    def _resolve_subject(
        self, source: str, raw: str, span: tuple[int, int], speaker: str
    ) -> tuple[str | None, tuple[EntityMention, ...]]:
        """Who a subject as written is: the speaker, "<speaker>'s <relation>", a name, or None (refused)."""
        text = raw.strip()
        if self.settings.possessive is not None:
            text = self.settings.possessive.sub("", text)
        folded = " ".join(text.casefold().split())
        words = folded.split()
        if not words:
            return None, ()
        if folded in self.settings.first_person:
            return speaker, ()
        if folded in self.settings.others or words[0] in self.settings.others:
            return None, ()
        owner = self.settings.owner.match(text) if self.settings.owner is not None else None
        if owner is not None:
            return self._relation_subject(source, raw, text, owner.end(), span, speaker)
        return self._named_subject(source, raw, text, span)

    def _relation_subject(
        self, source: str, raw: str, text: str, offset: int, span: tuple[int, int], speaker: str
    ) -> tuple[str | None, tuple[EntityMention, ...]]:
        words = [(w.group(), w.start() + offset) for w in re.finditer(r"\S+", text[offset:])]
        if not words:
            return speaker, ()
        # "my friend Alice": trailing names, after at least one relation word, name the subject
        names = 0
        while names < len(words) - 1 and self._is_name_word(words[-1 - names][0]):
            names += 1
        if names:
            return self._name_with_entity(source, raw, words[-names:], span)
        relation = " ".join(w for w, _ in words).casefold()
        return f"{speaker}'s {self.settings.relations.get(relation, relation)}", ()

    def _named_subject(
        self, source: str, raw: str, text: str, span: tuple[int, int]
    ) -> tuple[str | None, tuple[EntityMention, ...]]:
        words = [(w.group(), w.start()) for w in re.finditer(r"\S+", text)]
        while words and words[0][0].casefold() in self.settings.not_names:
            words.pop(0)
        if not words or not all(self._is_name_word(w) for w, _ in words):
            return None, ()
        return self._name_with_entity(source, raw, words, span)

    def _is_name_word(self, word: str) -> bool:
        return word[:1].isupper() and word.casefold() not in self.settings.not_names

    def _name_with_entity(
        self, source: str, raw: str, words: list[tuple[str, int]], span: tuple[int, int]
    ) -> tuple[str, tuple[EntityMention, ...]]:
        # word offsets are into the stripped subject, which starts after `raw`'s leading space
        base = span[0] + (len(raw) - len(raw.lstrip()))
        first, last = words[0], words[-1]
        start, end = base + first[1], base + last[1] + len(last[0])
        name = raw[start - span[0] : end - span[0]]
        return name, (_mention(source[start:end], EntityKind.PERSON, (start, end)),)

    # --- values ------------------------------------------------------------------------------------

    def _clean_value(self, frame: _Frame, start: int, end: int, stops: LanguagePatterns) -> tuple[int, int, str] | None:
        """The value's trimmed bounds in `frame.target` and its text, or None when nothing is left."""
        if start < 0:
            return None
        target = frame.target
        stop = self._first(stops, frame.languages, target, start + 1, end)
        if stop is not None:
            end = stop.start()
        limit = self.settings.max_length
        if end - start > limit:
            space = target.rfind(" ", start, start + limit + 1)
            end = space if space > start + limit // 2 else start + limit
        while True:
            bounds = (start, end)
            start, end = _trim_edges(target, start, end)
            start = self._strip_leading(frame, start, end)
            end = self._trim_end(frame, start, end)
            if (start, end) == bounds:
                break
        if start >= end:
            return None
        return start, end, " ".join(unicodedata.normalize("NFKC", target[start:end]).split())

    def _strip_leading(self, frame: _Frame, start: int, end: int) -> int:
        # on a slice: these patterns are anchored with ^
        m = self._first(self.settings.strip_leading, frame.languages, frame.target[start:end])
        return start + m.end() if m is not None and 0 < m.end() < end - start else start

    def _trim_end(self, frame: _Frame, start: int, end: int) -> int:
        m = self._first(self.settings.trim_end, frame.languages, frame.target, start, end)
        return m.start() if m is not None and m.start() > start else end

    def _negated(self, frame: _Frame, value_start: int) -> bool:
        settings, target = self.settings, frame.target
        before = self._first(settings.negation_before_value, frame.languages, target, 0, value_start)
        return before is not None or self._first(settings.negation_anywhere, frame.languages, target) is not None

    def _people(self, work: str) -> dict[str, list[tuple[int, bool]]]:
        """Where the turn names a person (`subjects.persons`), per language that leaves out subjects and
        that the turn is written in (an English turn is not scanned): (offset, whether the person is
        first person), in text order."""
        return {
            lang: [(m.start(), m.group().casefold() in self.settings.first_person) for m in persons.finditer(work)]
            for lang, persons in self.settings.persons
            if lang in self.settings.dropped and lang in self._languages(work)
        }

    def _dropped_subject(
        self, work: str, clause: tuple[int, int], people: Mapping[str, list[tuple[int, bool]]]
    ) -> _Lent | None:
        """The speaker as the subject of a clause that leaves its subject out, in a language that does
        (`subjects.dropped`: "还住在高新区" is 我还住在高新区), unless the last person the turn names
        before the clause is someone else (`subjects.persons`: "他是程序员，在阿里巴巴工作" is his work,
        "我女朋友也在杭州，在浙大读研" hers)."""
        if not people:
            return None
        languages = self._languages(work[clause[0] : clause[1]])
        for lang, named in people.items():
            if lang not in languages:
                continue
            before = [first_person for offset, first_person in named if offset < clause[0]]
            if not before or before[-1]:
                return _Lent(self.settings.dropped[lang], (clause[0], clause[0]))
        return None

    def _languages(self, text: str) -> frozenset[str]:
        """The languages (of those with a script) that `text` is written in."""
        return frozenset(lang for lang, script in self.settings.scripts.items() if script.search(text))

    def _applies(self, lang: str, languages: frozenset[str]) -> bool:
        return lang in languages or lang not in self.settings.scripts

    def _first(
        self, patterns: LanguagePatterns, languages: frozenset[str], text: str, pos: int = 0, endpos: int | None = None
    ) -> re.Match[str] | None:
        """The earliest match in `text[pos:endpos]` of the patterns of the `languages` and script-less ones."""
        end = len(text) if endpos is None else endpos
        best: re.Match[str] | None = None
        for lang, pattern in patterns:
            if self._applies(lang, languages):
                m = pattern.search(text, pos, end)
                if m is not None and (best is None or m.start() < best.start()):
                    best = m
        return best

    def _slot(self, rule: FactRule, m: re.Match[str]) -> str | None:
        if "{key}" not in rule.slot:
            return rule.slot
        key = m.group("key")
        slot = self._key_slot(key) if key else ""
        return rule.slot.replace("{key}", slot) if slot else None

    def _key_slot(self, key: str) -> str:
        """A key as written ("favourite colour") as a slot name ("favorite_color"), through `slot_aliases`."""
        slot = self._key_slots.get(key)
        if slot is None:
            slot = self._key_slots[key] = self._compute_key_slot(key)
        return slot

    def _compute_key_slot(self, key: str) -> str:
        aliases = self.settings.slot_aliases
        folded = normalize_name(key)
        if folded in aliases:
            return aliases[folded]
        words = [aliases.get(word, word) for word in re.split(r"[\s\-]+", folded) if word]
        return re.sub(r"\W+", "_", "_".join(words)).strip("_")

    # --- entities ----------------------------------------------------------------------------------

    def _value_entities(self, slot: str, frame: _Frame, start: int, end: int) -> tuple[EntityMention, ...]:
        info = self.settings.slots.get(slot, DEFAULT_SLOT)
        if info.mode == "none":
            return ()
        written = frame.target[start:end]
        whole = (frame.mention(start, end, info.kind),)
        if info.mode == "whole":
            return whole if any(ch.isupper() for ch in written) or _has_cjk(written) else ()
        names = tuple(frame.mention(start + s, start + e, info.kind) for _, s, e in self._capitalized_names(written))
        return names or (whole if _has_cjk(written) else ())

    def extract_entities(self, text: str) -> list[EntityMention]:
        """Entities of the facts in `text`, then other capitalized names (a single capitalized word that
        opens a sentence is left out: "Honestly", "Berlin is nice"). Chinese entities come only from facts."""
        found: dict[tuple[int, int], EntityMention] = {}
        for fact in self.extract_facts(text, speaker="speaker"):
            for entity in fact.entities:
                found.setdefault(entity.span, entity)
        work = fold_width(text)
        openings = {_first_word(work, start, end) for start, end in self._sentences(work)}
        for _, start, end in self._capitalized_names(work, openings):
            if not any(start < e and s < end for s, e in found):
                found[(start, end)] = _mention(text[start:end], EntityKind.THING, (start, end))
        return sorted(found.values(), key=lambda mention: mention.span)

    def _capitalized_names(
        self, text: str, openings: frozenset[int] | set[int] = frozenset()
    ) -> Iterator[tuple[str, int, int]]:
        """Capitalized names in `text`; a single word at one of the `openings` (sentence starts) is skipped."""
        for run in _CAPITALIZED_RUN.finditer(text):
            tokens = [(t.group(), run.start() + t.start()) for t in re.finditer(r"\S+", run.group())]
            for part in self._split_at_not_names(tokens):
                start, end = part[0][1], part[-1][1] + len(part[-1][0])
                if len(part) == 1 and (len(part[0][0]) == 1 or start in openings):
                    continue
                yield text[start:end], start, end

    def _split_at_not_names(self, tokens: list[tuple[str, int]]) -> Iterator[list[tuple[str, int]]]:
        part: list[tuple[str, int]] = []
        for token in [*tokens, ("", -1)]:
            if token[1] >= 0 and token[0].casefold() not in self.settings.not_names:
                part.append(token)
                continue
            while part and not part[0][0][:1].isupper():
                part.pop(0)
            while part and part[-1][0] in _NAME_CONNECTORS:
                part.pop()
            if part:
                yield part
            part = []


@dataclass(frozen=True)
class _Frame:
    """A clause as matched: `target` is the clause, behind a borrowed subject when there is one."""

    source: str  # the whole turn as written
    target: str
    shift: int  # length of the borrowed subject and its joiner
    clause_start: int  # offset of the clause in the turn
    carry: _Lent | None
    languages: frozenset[str]  # the languages the clause is written in

    def original(self, index: int) -> int:
        return self.clause_start + index - self.shift

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        return self.original(start), self.original(end)

    def mention(self, start: int, end: int, kind: EntityKind) -> EntityMention:
        """An entity at `target[start:end]`, named as written in the turn."""
        span = self.original_span(start, end)
        return _mention(self.source[span[0] : span[1]], kind, span)

    def subject_span(self, span: tuple[int, int]) -> tuple[int, int]:
        if self.carry is not None and span[0] < self.shift:
            return self.carry.subject_span
        return self.original_span(*span)


def _select(candidates: list[_Candidate]) -> list[_Found]:
    """The most confident candidates whose spans do not overlap, in text order."""
    chosen: list[_Candidate] = []
    for candidate in sorted(candidates, key=lambda c: (-c.confidence, c.order)):
        if all(candidate.span[1] <= c.span[0] or c.span[1] <= candidate.span[0] for c in chosen):
            chosen.append(candidate)
    chosen.sort(key=lambda c: c.span)
    return [found for candidate in chosen for found in candidate.found]


def _trim_edges(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and _is_edge_char(text[start]) and not _closed_later(text, start, end):
        start += 1
    while end > start and _is_edge_char(text[end - 1]) and not _opened_before(text, start, end - 1):
        end -= 1
    return start, end


def _closed_later(text: str, start: int, end: int) -> bool:
    closer = _OPENERS.get(text[start])
    return closer is not None and closer in text[start + 1 : end]


def _opened_before(text: str, start: int, index: int) -> bool:
    opener = _BRACKETS.get(text[index])
    return opener is not None and opener in text[start:index]


def _first_word(text: str, start: int, end: int) -> int:
    while start < end and (text[start].isspace() or text[start] in _OPENING_MARKS):
        start += 1
    return start


def _mention(name: str, kind: EntityKind, span: tuple[int, int]) -> EntityMention:
    return EntityMention(name=name, normalized=_normalized(name), kind=kind, span=span)


@functools.lru_cache(maxsize=8192)
def _normalized(name: str) -> str:
    return normalize_name(name)


@functools.cache
def default_patterns() -> FactPatterns:
    """The bank in `app/data/fact_patterns.yaml`, loaded on first use."""
    return FactPatterns.load()


def extract_facts(text: str, speaker: str) -> list[FactMention]:
    """The slot facts stated in `text`; first-person statements are about `speaker`."""
    return default_patterns().extract_facts(text, speaker)


def extract_entities(text: str) -> list[EntityMention]:
    """Named entities in `text`: those of its facts, and capitalized names in English."""
    return default_patterns().extract_entities(text)
