"""When a stated fact happened: the time expressions of its own clause, not of its whole turn.

"My car is a Model Y. I went to Paris last Friday." dates the trip (last Friday) and leaves the car
undated: a time expression dates only the statement it belongs to. The rule, clause by clause as the
fact extractor cuts the text (`FactPatterns.clauses`: sentences, then clauses, in both languages):

1. A fact is dated by the first time expression of its own clause (the clause its span starts in;
   an expression cut by a clause boundary, "On May 5, 2024", belongs to both halves): "I started at
   Acme last Monday and the team is tiny" dates `works_at`, "我住在北京。我上周五去了上海。" dates only
   the trip.
2. A fact whose clause has none takes the time of a clause of its sentence that is only a time (the
   expression and at most one word or two Chinese characters, and no fact of its own):
   "Last May, I moved to Berlin", "上周五，我去了上海", "待到下周二，然后飞上海". With two such clauses
   in the sentence nothing is taken.
3. Otherwise the fact is undated (`event_time` None): "I live in Berlin and I went to Paris last
   Friday" dates the trip, not where the speaker lives.

A time expression inside the fact's value is what the fact says, not when ("my birthday is December
21st"), and dates nothing. A fact that already has an `event_time` keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from app.extract.facts import FactPatterns, default_patterns
from app.extract.names import normalize_name
from app.extract.types import FactMention, TimeMention

Span = tuple[int, int]

# What is left of a clause once its time expressions are taken out: Chinese characters, other words.
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[^\W_]+")

__all__ = ["date_facts"]


def date_facts(
    text: str, facts: Sequence[FactMention], times: Sequence[TimeMention], patterns: FactPatterns | None = None
) -> list[FactMention]:
    """`facts` (found in `text`) with `event_time` set from `times` (found in `text`) by the rule above."""
    if not facts or not times:
        return list(facts)
    sentences = (patterns or default_patterns()).clauses(text)
    dated: list[FactMention] = []
    for fact in facts:
        when = fact.event_time or _date(text, fact, facts, times, sentences)
        dated.append(fact if when is fact.event_time else replace(fact, event_time=when))
    return dated


def _date(
    text: str,
    fact: FactMention,
    facts: Sequence[FactMention],
    times: Sequence[TimeMention],
    sentences: Sequence[Sequence[Span]],
) -> datetime | None:
    for clauses in sentences:
        own = next((clause for clause in clauses if clause[0] <= fact.span[0] < clause[1]), None)
        if own is None:
            continue
        value = normalize_name(fact.value)
        candidates = [m for m in times if normalize_name(m.text) not in value]
        if mine := _within(own, candidates):
            return mine[0].start
        time_clauses = [
            found[0]
            for clause in clauses
            if clause != own and (found := _within(clause, candidates)) and _only_time(text, clause, found, facts)
        ]
        return time_clauses[0].start if len(time_clauses) == 1 else None
    return None


def _within(clause: Span, times: Sequence[TimeMention]) -> list[TimeMention]:
    """The time expressions that overlap `clause`, in text order."""
    return sorted((m for m in times if m.span[0] < clause[1] and clause[0] < m.span[1]), key=lambda m: m.span)


def _only_time(text: str, clause: Span, times: Sequence[TimeMention], facts: Sequence[FactMention]) -> bool:
    """Whether the clause is a time and little else: no fact starts in it, and at most one word ("On
    May 5") or two Chinese characters ("待到下周二") are left once its time expressions are taken out."""
    if any(clause[0] <= fact.span[0] < clause[1] for fact in facts):
        return False
    rest = list(text[clause[0] : clause[1]])
    for mention in times:
        for i in range(max(mention.span[0], clause[0]), min(mention.span[1], clause[1])):
            rest[i - clause[0]] = " "
    left = "".join(rest)
    chinese = len(_CJK.findall(left))
    return len(_WORD.findall(_CJK.sub(" ", left))) + (chinese + 1) // 2 <= 1
