"""The fact track's plan (app/memory/ingest.py writes it): a batch's facts and inferences placed, in
turn order, in the timelines of their keys read before it, so the batch's outcome (restated, new,
superseding, placed in history) is worked out in Python and written in four statements. A later
value supersedes an earlier one within the batch as across batches; a statement arriving late takes
its place in its key's timeline."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.domain.entities import EntityName
from app.domain.importance import ImportanceRules
from app.domain.inputs import stable_digest
from app.domain.model import Importance, NodeType, RelType, Source
from app.domain.turns import Turn, dialogue_id
from app.extract.names import normalize_name
from app.extract.types import EntityKind, FactMention, Inference, supersedes
from app.memory.entities import fact_entity_names
from app.memory.records import link_row, node_properties
from app.memory.semantic import NodeText
from app.memory.turn_spans import sentence_around, vector_source
from app.stores.queries.ingest_queries import NewEntity, NewFact, Supersession


@dataclass(frozen=True)
class TurnFacts:
    """A turn's extracted facts and the inferences drawn from them, to be written with its batch."""

    turn: Turn
    facts: Sequence[FactMention]
    inferences: Sequence[Inference]
    extracted_by: str | None = None  # an extractor other than the rules (the LLM enricher)


FactKey = tuple[str, str, str | None]  # (subject_key, slot, value_key for a multi-valued slot, else None)


@dataclass
class Version:
    """One stated value of a fact key and its interval, as the plan will have left it."""

    id: str
    value_key: str
    valid_from: datetime
    valid_to: datetime | None = None
    superseded_by: str | None = None


def version_at(versions: Sequence[Version], at: datetime) -> int:
    """Index of the version in force at `at` in `versions` (oldest first): the last one that began
    at or before it; -1 when `at` is earlier than all of them."""
    return bisect_right([version.valid_from for version in versions], at) - 1


@dataclass
class FactPlan:
    """The statements of a batch's fact track, worked out in turn order from the versions read
    before it: a later value supersedes an earlier one within the batch as across batches."""

    facts: list[NewFact] = field(default_factory=list)  # upsert_facts rows, in order
    causal: list[dict[str, Any]] = field(default_factory=list)  # premise -> inference links
    supersessions: list[Supersession] = field(default_factory=list)  # in order
    superseded: int = 0  # versions that stop being in force (a re-pointed supersession is not one)
    entities: list[NewEntity] = field(default_factory=list)  # upsert_entities rows
    written: list[NodeText] = field(default_factory=list)  # to embed
    entity_ids: dict[EntityName, str] = field(default_factory=dict)  # names the namespace holds already


def plan_turn(
    plan: FactPlan,
    timelines: dict[FactKey, list[Version]],
    item: TurnFacts,
    now: datetime,
    importance: ImportanceRules,
) -> None:
    """Add one turn's facts and inferences to the plan, updating `timelines` as the writes will."""
    turn = item.turn
    dialogue = dialogue_id(turn.session_id, turn.turn_id)
    fact_ids: list[str] = []
    for fact in item.facts:
        fact_id, text = plan_fact(plan, timelines, turn, fact, dialogue, now, item.extracted_by, importance)
        fact_ids.append(fact_id)
        plan.written.append(NodeText(fact_id, NodeType.KNOWLEDGE.value, text, vector_source(turn, fact.span)))
        plan.entities += [
            {"id": entity_id, "type": entity_type, "properties": properties, "fact_id": fact_id}
            for entity_id, entity_type, properties in fact_entities(turn, fact, now, plan.entity_ids)
        ]
    for inference in item.inferences:
        premises = [fact_ids[i] for i in inference.premise_indexes]
        inferred_id = f"knowledge:{stable_digest('inferred', inference.rule_id, *premises)}"
        content = f"{inference.subject} {inference.slot.replace('_', ' ')}: {inference.value} (inferred)"
        properties = node_properties(
            label=f"{inference.subject} {inference.slot}",
            content=content,
            importance=Importance.NORMAL,
            now=now,
            source=Source.INFERRED,
            confidence=min(inference.confidence, 0.6),
            agent_id=turn.agent_id,
            subject=inference.subject,
            subject_key=normalize_name(inference.subject),
            slot=inference.slot,
            value=inference.value,
            value_key=normalize_name(inference.value),
            valid_from=inference.valid_from or turn.timestamp,
            valid_to=inference.valid_to,
            rule_id=inference.rule_id,
            session_id=turn.session_id,
            extracted_by=item.extracted_by,
        )
        plan.facts.append(_fact_row(inferred_id, properties, turn, dialogue, inferred=True))
        plan.causal += [
            link_row(RelType.CAUSAL, premise, inferred_id, inference.confidence, now) for premise in premises
        ]
        plan.written.append(NodeText(inferred_id, NodeType.KNOWLEDGE.value, content))


def plan_fact(
    plan: FactPlan,
    timelines: dict[FactKey, list[Version]],
    turn: Turn,
    fact: FactMention,
    dialogue: str,
    now: datetime,
    extracted_by: str | None,
    importance: ImportanceRules,
) -> tuple[str, str]:
    """Restate, create or supersede; returns (fact id, text to embed). `extracted_by` names an
    extractor other than the rules (stored on a node it creates).

    The statement is placed in its key's timeline by the turn's time, so a statement arriving
    late lands where it belongs: the value in force then said again is restated; a new value
    dated inside an old version's interval splits it (the old version now ends at the statement,
    the new one runs to the old one's successor); one dated before every version ends where the
    first begins. A single-valued slot (car, lives_in) has one value in force; a multi-valued one
    (likes, trip_to) only recognises the same value said again."""
    subject_key = normalize_name(fact.subject)
    value_key = normalize_name(fact.value)
    sentence = sentence_around(turn.text, fact.span)
    content = f"{fact.subject} {fact.slot.replace('_', ' ')}: {fact.value}. “{sentence}”"
    versions = timelines[fact_key(fact)]  # every key of the batch was read, if only as []
    at = version_at(versions, turn.timestamp)
    # The value in force then said again (a multi-valued key's versions all hold its one value).
    multi_valued = not supersedes(fact.slot)
    said_again = versions[max(at, 0)] if versions and (at >= 0 or multi_valued) else None
    if said_again is not None and said_again.value_key == value_key:
        plan.facts.append(_fact_row(said_again.id, {}, turn, dialogue, inferred=False))
        return said_again.id, content
    fact_id = f"knowledge:{stable_digest(subject_key, fact.slot, value_key, turn.key)}"
    properties = node_properties(
        label=f"{fact.subject} {fact.slot}",
        content=content,
        importance=importance.detect(sentence).raised_to(Importance.FACT),
        now=now,
        source=Source.USER_STATED,
        summary=f"{fact.subject} {fact.slot.replace('_', ' ')}: {fact.value}"[:150],
        confidence=fact.confidence,
        subject=fact.subject,
        subject_key=subject_key,
        slot=fact.slot,
        value=fact.value,
        value_key=value_key,
        valid_from=turn.timestamp,
        event_time=fact.event_time,
        agent_id=turn.agent_id,
        session_id=turn.session_id,
        extracted_by=extracted_by,
    )
    plan.facts.append(_fact_row(fact_id, properties, turn, dialogue, inferred=False))
    new = Version(fact_id, value_key, turn.timestamp)
    successor = versions[at + 1] if at + 1 < len(versions) else None
    ends = (successor.valid_from, successor.id) if successor is not None else None
    if at >= 0:
        previous = versions[at]
        if previous.superseded_by is None:
            plan.superseded += 1  # the value in force until now
        elif ends is None and previous.valid_to is not None:  # its successor was not read: keep its end
            ends = (previous.valid_to, previous.superseded_by)
        plan.supersessions.append({"old_id": previous.id, "new_id": fact_id, "at": turn.timestamp})
        previous.valid_to, previous.superseded_by = turn.timestamp, fact_id
    if ends is not None:
        # History from the start: it ends where its successor begins, and what is inferred from
        # it is withdrawn then (the same supersession row, after the CAUSAL links exist).
        new.valid_to, new.superseded_by = ends
        plan.supersessions.append({"old_id": fact_id, "new_id": ends[1], "at": ends[0]})
        plan.superseded += 1
    versions.insert(at + 1, new)
    return fact_id, content


def fact_entities(
    turn: Turn, fact: FactMention, now: datetime, known: dict[EntityName, str]
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """The fact's subject (a thing whose attribute changed, "billing", is a Concept) and the entities it
    names, as Person/Concept nodes to merge: the node
    the namespace holds for the name (`known`), else the name's derived id."""
    for name, entity in fact_entity_names(fact):
        node_id = known.get(name, name.derived_id)
        # An entity's provenance is the turn that introduced it (properties are set on creation
        # only); its content is made up (`placeholder`) until a saved memory of the name gives one.
        if entity is None and fact.subject_kind == EntityKind.THING:  # a thing whose attribute changed
            yield node_id, name.type.value, node_properties(
                label=fact.subject, content=f"{fact.subject} (thing)", importance=Importance.NORMAL, now=now,
                source=Source.USER_STATED, source_turn_ids=[turn.turn_id], name_key=name.key,
                entity_kind=EntityKind.THING.value, placeholder=True,
            )  # fmt: skip
        elif entity is None:
            yield node_id, name.type.value, node_properties(
                label=fact.subject, content=fact.subject, importance=Importance.IDENTITY, now=now,
                source=Source.USER_STATED, source_turn_ids=[turn.turn_id], name_key=name.key, placeholder=True,
            )  # fmt: skip
        else:
            yield node_id, name.type.value, node_properties(
                label=entity.name, content=f"{entity.name} ({entity.kind.value})", importance=Importance.NORMAL,
                now=now, source=Source.USER_STATED, source_turn_ids=[turn.turn_id], name_key=name.key,
                entity_kind=entity.kind.value, placeholder=True,
            )  # fmt: skip


def fact_key(fact: FactMention) -> FactKey:
    value_key = None if supersedes(fact.slot) else normalize_name(fact.value)
    return normalize_name(fact.subject), fact.slot, value_key


def _fact_row(fact_id: str, properties: dict[str, Any], turn: Turn, dialogue: str, *, inferred: bool) -> NewFact:
    """An `ingest.upsert_facts` row: properties are set on creation only ({} for a restated fact)."""
    return {"id": fact_id, "properties": properties, "turn_id": turn.turn_id, "dialogue_id": dialogue,
            "inferred": inferred}  # fmt: skip
