"""What the extraction tracks produce from one turn; shared by the extractors and the write path."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class Granularity(StrEnum):
    INSTANT = "instant"  # a point in time ("3 days ago at 10:00" keeps the turn's clock time)
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    YEAR = "year"


@dataclass(frozen=True)
class TimeMention:
    """A time expression found in a text, resolved against the turn's timestamp.

    `start` and `end` are timezone-aware and half-open: a day is [00:00, next 00:00) in the
    reference's time zone; an instant has start == end. `event_time` is `start`.
    """

    text: str  # the expression as written, e.g. "last Friday", "上周五"
    span: tuple[int, int]  # character offsets in the source text
    start: datetime
    end: datetime
    granularity: Granularity

    @property
    def event_time(self) -> datetime:
        return self.start


# Slots that hold many values at once: a new value adds to them instead of superseding the old one.
MULTI_VALUED_SLOTS = frozenset({"trip_to", "likes", "dislikes", "pet", "visited"})


def supersedes(slot: str) -> bool:
    """Whether a new value for this slot replaces the one in force."""
    return slot not in MULTI_VALUED_SLOTS


class EntityKind(StrEnum):
    PERSON = "person"
    PLACE = "place"
    THING = "thing"  # products, organisations, other named things: Concept nodes


@dataclass(frozen=True)
class EntityMention:
    name: str  # as written, e.g. "Model Y", "北京"
    normalized: str  # merge key: casefolded, whitespace and width normalized ("model y")
    kind: EntityKind
    span: tuple[int, int]


@dataclass(frozen=True)
class FactMention:
    """A slot fact stated in a turn: `subject` has `slot` = `value`.

    `subject` is the speaker's name for first-person statements ("I", "my", "我"); a possessive
    chain that is not the speaker's ("my friend's car") gets its own subject, e.g. "Alice's friend".
    `slot` is a canonical snake_case name from the extractor's vocabulary (e.g. `car`, `lives_in`,
    `moved_to`, `job`, `name`), the same for English and Chinese statements.
    """

    subject: str
    slot: str
    value: str
    confidence: float
    span: tuple[int, int]
    entities: tuple[EntityMention, ...] = field(default=())  # entities mentioned in subject/value
    event_time: datetime | None = None  # when the statement itself is dated ("I moved to Berlin last May")
    # What the subject is: a person (the speaker, a relation, a name) or a thing whose attribute
    # changed ("billing" in "we upgraded billing to Postgres 16", app/extract/updates.py).
    subject_kind: EntityKind = EntityKind.PERSON
    replaces: str | None = None  # the old value the statement names ("switched from AWS to GCP")


@dataclass(frozen=True)
class Inference:
    """A fact derived by a rule from premise facts; always `source: inferred`, confidence <= 0.6."""

    rule_id: str
    subject: str
    slot: str
    value: str
    confidence: float
    premise_indexes: tuple[int, ...]  # indexes into the facts given to the inference engine
    valid_from: datetime | None = None
    valid_to: datetime | None = None
