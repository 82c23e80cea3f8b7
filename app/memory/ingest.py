"""The write path's tracks for a batch of conversation turns (run by the `ingest_turns` task).

1. Dialogue node per turn, Person per speaker, Episode per session (HIERARCHY to its turns,
   extractive summary), TEMPORAL chains of turns within a session and of sessions in time order.
2. Fact track: slot facts (app/extract/facts.py) become Knowledge nodes with REFERENCE edges to
   their dialogue and entities (Person/Concept merged by normalized name). A new value for the same
   subject and slot supersedes the old node (superseded_by, valid_to); nothing is deleted.
3. Temporal track: time expressions (app/extract/timeexpr.py) resolved against the turn's
   timestamp become Experience events with event_time/event_end, chained per subject.
4. Inference track: rules (app/data/inference_rules.yaml) add Knowledge nodes with
   source `inferred`, confidence <= 0.6 and CAUSAL edges from their premises; superseding a premise
   withdraws them.
5. New nodes are embedded in one batch, stored in the vector tier and linked to close neighbours.

Every step is idempotent (deterministic ids, MERGE), so a retried or re-delivered task leaves
exactly one copy of everything.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from app.domain.importance import ImportanceRules
from app.domain.inputs import stable_digest
from app.domain.model import Importance, NodeType, RelType, Source
from app.domain.summarize import extractive_summary, sentences
from app.domain.turns import Turn, concept_id, dialogue_id, episode_id, person_id
from app.extract.facts import extract_facts, normalize_name
from app.extract.inference import InferenceRules
from app.extract.timeexpr import find_time_expressions
from app.extract.types import EntityKind, FactMention, supersedes
from app.memory.records import create_links, link_row, node_properties, relationship_properties
from app.memory.semantic import NodeText, SemanticIndexer
from app.stores.graph import GraphStore, GraphTx

SUMMARY_SENTENCES = 3


@dataclass
class IngestReport:
    turns: int = 0
    dialogues_created: int = 0
    facts_created: int = 0
    facts_superseded: int = 0
    inferences: int = 0
    inferences_withdrawn: int = 0
    events: int = 0
    semantic_edges: int = 0
    seconds_by_stage: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds_by_stage[name] = self.seconds_by_stage.get(name, 0.0) + time.perf_counter() - start


@dataclass(frozen=True)
class SequencedTurn:
    turn: Turn
    seq: int  # arrival order within the namespace: orders turns that share a timestamp


def sentence_around(text: str, span: tuple[int, int]) -> str:
    offset = 0
    for sentence in sentences(text):
        start = text.find(sentence, offset)
        if start <= span[0] < start + len(sentence) + 1:
            return sentence
        offset = max(offset, start + len(sentence))
    return text


@dataclass
class LaterWrites:
    """Writes of a batch's fact work that no later fact depends on, made at the end in one statement:
    entity upserts, each with the REFERENCE from its fact."""

    entities: list[dict[str, Any]] = field(default_factory=list)


FactWork = Callable[[GraphTx, LaterWrites], list[NodeText]]


def vector_source(turn: Turn, span: tuple[int, int]) -> str | None:
    """The turn's Dialogue when the sentence around `span` is the whole turn: a fact or event drawn
    from it shares the turn's vector (see `NodeText.vector_of`) rather than embedding a near-copy."""
    if sentence_around(turn.text, span).strip() == turn.text.strip():
        return dialogue_id(turn.session_id, turn.turn_id)
    return None


class Ingestor:
    def __init__(
        self,
        graph: GraphStore,
        semantic: SemanticIndexer,
        importance_rules: ImportanceRules,
        inference_rules: InferenceRules,
    ) -> None:
        self.graph = graph
        self.semantic = semantic
        self.importance_rules = importance_rules
        self.inference_rules = inference_rules

    def ingest(self, namespace: str, batch: Sequence[SequencedTurn], now: datetime) -> IngestReport:
        report = IngestReport(turns=len(batch))
        ordered = sorted(batch, key=lambda item: (item.turn.timestamp, item.seq))
        to_index: list[NodeText] = []
        with report.stage("dialogues"):
            to_index += self._dialogues(namespace, ordered, now, report)
        with report.stage("facts+inferences"):
            # Extraction first, then one transaction for the whole batch (one commit, not one per turn);
            # turns are applied in order, so a later value supersedes an earlier one within the batch.
            works = [work for item in ordered if (work := self._facts(namespace, item.turn, now, report))]
            if works:
                to_index += self.graph.write_transaction(lambda tx: self._write_facts(tx, namespace, works, now))
        with report.stage("temporal"):
            to_index += self._events(namespace, ordered, now, report)
        with report.stage("episodes"):
            to_index += self._episodes(namespace, ordered, now)
        with report.stage("embedding+semantic"):
            report.semantic_edges = self.semantic.index(namespace, to_index, now)
        return report

    # -- 1. dialogues, speakers, sessions --------------------------------------------------------

    def _dialogues(
        self, namespace: str, ordered: Sequence[SequencedTurn], now: datetime, report: IngestReport
    ) -> list[NodeText]:
        rows = [self._turn_row(item, now) for item in ordered]
        results = self.graph.write(
            "ingest.turns",
            namespace=namespace,
            turns=rows,
            structural=relationship_properties(RelType.HIERARCHY, None, now),
            learned=relationship_properties(RelType.REFERENCE, 1.0, now),
        )
        created = {row["id"] for row in results if row["created"]}
        report.dialogues_created = len(created)
        episode_ids = sorted({row["episode_id"] for row in rows})
        structural = relationship_properties(RelType.TEMPORAL, None, now)
        self.graph.write("ingest.chain_sessions", namespace=namespace, episode_ids=episode_ids, structural=structural)
        self.graph.write("ingest.chain_episodes", namespace=namespace, structural=structural)
        # Every turn of the batch is (re)indexed, not only the new ones: a task re-delivered after a
        # crash between the graph write and the vectors must still produce the vectors.
        return [
            NodeText(
                row["id"], NodeType.DIALOGUE.value, f"{row['properties']['speaker']}: {row['properties']['content']}"
            )
            for row in rows
        ]

    def _turn_row(self, item: SequencedTurn, now: datetime) -> dict[str, Any]:
        turn = item.turn
        speaker_key = normalize_name(turn.speaker) or turn.speaker
        properties = node_properties(
            label=f"{turn.speaker}: {turn.text[:80]}",
            content=turn.text,
            importance=self.importance_rules.detect(turn.text),
            now=now,
            source=Source.USER_STATED,
            source_turn_ids=[turn.turn_id],
            speaker=turn.speaker,
            session_id=turn.session_id,
            turn_id=turn.turn_id,
            timestamp=turn.timestamp,
            seq=item.seq,
            metadata_json=json.dumps(turn.metadata, ensure_ascii=False, sort_keys=True) if turn.metadata else None,
        )
        episode = node_properties(
            label=f"Session {turn.session_id}",
            content=f"Session {turn.session_id}",
            importance=Importance.NORMAL,
            now=now,
            source=Source.AGENT,
            session_id=turn.session_id,
        )
        person = node_properties(
            label=turn.speaker,
            content=f"{turn.speaker}, a participant in the conversation",
            importance=Importance.IDENTITY,
            now=now,
            source=Source.USER_STATED,
            source_turn_ids=[turn.turn_id],  # the turn that introduced the speaker (set on creation only)
            name_key=speaker_key,
        )
        return {
            "id": dialogue_id(turn.session_id, turn.turn_id),
            "turn_id": turn.turn_id,
            "episode_id": episode_id(turn.session_id),
            "person_id": person_id(speaker_key),
            "timestamp": turn.timestamp,
            "properties": properties,
            "episode_properties": episode,
            "person_properties": person,
        }

    def _episodes(self, namespace: str, ordered: Sequence[SequencedTurn], now: datetime) -> list[NodeText]:
        episode_ids = sorted({episode_id(item.turn.session_id) for item in ordered})
        texts = self.graph.read("ingest.session_texts", namespace=namespace, episode_ids=episode_ids)
        episodes = []
        for row in texts:
            content = extractive_summary(row["texts"], SUMMARY_SENTENCES)
            summary = extractive_summary(row["texts"], 1, max_chars=150)
            episodes.append({"id": row["id"], "summary": summary, "content": content or f"Session {row['session_id']}"})
        self.graph.write("ingest.set_episode_summaries", namespace=namespace, episodes=episodes, now=now)
        return [NodeText(e["id"], NodeType.EPISODE.value, e["content"]) for e in episodes]

    # -- 2. facts and 4. inferences ------------------------------------------------------------------

    @staticmethod
    def _write_facts(tx: GraphTx, namespace: str, works: Sequence[FactWork], now: datetime) -> list[NodeText]:
        """Run the turns' fact work in order (a later value supersedes an earlier one), then the
        entities, which no fact statement reads, in one statement."""
        later = LaterWrites()
        written = [node for work in works for node in work(tx, later)]
        if later.entities:
            tx.run("ingest.upsert_entities", namespace=namespace, entities=later.entities,
                   learned=relationship_properties(RelType.REFERENCE, 1.0, now))  # fmt: skip
        return written

    def enrich(
        self, namespace: str, facts: Sequence[tuple[Turn, FactMention]], now: datetime, extracted_by: str
    ) -> IngestReport:
        """Write facts an extractor other than the rules found (the LLM enricher) the way the fact
        track writes its own: restated, new or superseding, with their inferences, entities and
        vectors; each node records `extracted_by`. Idempotent like the tracks."""
        report = IngestReport(turns=len({turn.key for turn, _ in facts}))
        by_turn: dict[str, tuple[Turn, list[FactMention]]] = {}
        for turn, fact in sorted(facts, key=lambda item: item[0].timestamp):
            by_turn.setdefault(turn.key, (turn, []))[1].append(fact)
        works = [
            work
            for turn, mentions in by_turn.values()
            if (work := self._fact_work(namespace, turn, mentions, now, report, extracted_by))
        ]
        if works:
            with report.stage("facts+inferences"):
                written = self.graph.write_transaction(lambda tx: self._write_facts(tx, namespace, works, now))
            with report.stage("embedding+semantic"):
                report.semantic_edges = self.semantic.index(namespace, written, now)
        return report

    def turns_of(self, namespace: str, dialogue_ids: Sequence[str]) -> list[Turn]:
        """The turns behind these Dialogue nodes, in time order (for extractors run after the tracks)."""
        rows = self.graph.read("ingest.dialogue_turns", namespace=namespace, ids=list(dialogue_ids))
        return [Turn(r["session_id"], r["turn_id"], r["speaker"], r["text"], r["timestamp"]) for r in rows]

    def _facts(self, namespace: str, turn: Turn, now: datetime, report: IngestReport) -> FactWork | None:
        """The turn's facts and inferences, extracted now, as work for the batch's write transaction."""
        return self._fact_work(namespace, turn, extract_facts(turn.text, turn.speaker), now, report)

    def _fact_work(
        self,
        namespace: str,
        turn: Turn,
        facts: Sequence[FactMention],
        now: datetime,
        report: IngestReport,
        extracted_by: str | None = None,
    ) -> FactWork | None:
        """A turn's facts and their inferences as work for the batch's write transaction."""
        if not facts:
            return None
        times = find_time_expressions(turn.text, turn.timestamp)
        # A statement with one time expression is dated by it ("I went to Paris last Friday").
        if len(times) == 1:
            facts = [replace(f, event_time=f.event_time or times[0].start) for f in facts]
        inferences = self.inference_rules.infer(facts)
        dialogue = dialogue_id(turn.session_id, turn.turn_id)
        learned = relationship_properties(RelType.REFERENCE, 1.0, now)

        def work(tx: GraphTx, later: LaterWrites) -> list[NodeText]:
            written: list[NodeText] = []
            fact_ids: list[str] = []
            for fact in facts:
                fact_id, text = self._write_fact(tx, namespace, turn, fact, dialogue, now, report, extracted_by)
                fact_ids.append(fact_id)
                written.append(NodeText(fact_id, NodeType.KNOWLEDGE.value, text, vector_source(turn, fact.span)))
                later.entities += [
                    {"id": entity_id, "type": entity_type, "properties": properties, "fact_id": fact_id}
                    for entity_id, entity_type, properties in self._entities(turn, fact, now)
                ]
            for inference in inferences:
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
                    subject=inference.subject,
                    subject_key=normalize_name(inference.subject),
                    slot=inference.slot,
                    value=inference.value,
                    value_key=normalize_name(inference.value),
                    valid_from=inference.valid_from or turn.timestamp,
                    valid_to=inference.valid_to,
                    rule_id=inference.rule_id,
                    session_id=turn.session_id,
                    extracted_by=extracted_by,
                )
                row = tx.run("ingest.upsert_fact", namespace=namespace, id=inferred_id, properties=properties,
                             turn_id=turn.turn_id, dialogue_id=dialogue, learned=learned)[0]  # fmt: skip
                # Now, not later: a premise superseded further on in this batch finds its inferences
                # through these edges.
                create_links(
                    tx,
                    namespace,
                    [link_row(RelType.CAUSAL, premise, inferred_id, inference.confidence, now) for premise in premises],
                )
                report.inferences += int(row["created"])
                written.append(NodeText(inferred_id, NodeType.KNOWLEDGE.value, content))
            return written

        return work

    def _write_fact(
        self,
        tx: GraphTx,
        namespace: str,
        turn: Turn,
        fact: FactMention,
        dialogue: str,
        now: datetime,
        report: IngestReport,
        extracted_by: str | None = None,
    ) -> tuple[str, str]:
        """Create, restate or supersede; returns (fact id, text to embed). `extracted_by` names an
        extractor other than the rules (stored on a node it creates)."""
        subject_key = normalize_name(fact.subject)
        value_key = normalize_name(fact.value)
        event_time = fact.event_time
        sentence = sentence_around(turn.text, fact.span)
        content = f"{fact.subject} {fact.slot.replace('_', ' ')}: {fact.value}. “{sentence}”"
        learned = relationship_properties(RelType.REFERENCE, 1.0, now)
        # A single-valued slot (car, lives_in) has one value in force; a multi-valued one (likes,
        # trip_to) only recognises the same value said again.
        value_filter = None if supersedes(fact.slot) else value_key
        current = tx.run(
            "ingest.current_fact", namespace=namespace, subject_key=subject_key, slot=fact.slot, value_key=value_filter
        )
        if current and current[0]["value_key"] == value_key:  # said again: the same fact, one more source
            tx.run("ingest.upsert_fact", namespace=namespace, id=current[0]["id"], properties={},
                   turn_id=turn.turn_id, dialogue_id=dialogue, learned=learned)  # fmt: skip
            return current[0]["id"], content
        fact_id = f"knowledge:{stable_digest(subject_key, fact.slot, value_key, turn.key)}"
        properties = node_properties(
            label=f"{fact.subject} {fact.slot}",
            content=content,
            importance=self.importance_rules.detect(sentence).raised_to(Importance.FACT),
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
            event_time=event_time,
            session_id=turn.session_id,
            extracted_by=extracted_by,
        )
        if current and current[0]["valid_from"] > turn.timestamp:
            # An older statement arriving late: it is history, already replaced by the current value.
            properties |= {"valid_to": current[0]["valid_from"], "superseded_by": current[0]["id"]}
        row = tx.run("ingest.upsert_fact", namespace=namespace, id=fact_id, properties=properties,
                     turn_id=turn.turn_id, dialogue_id=dialogue, learned=learned)[0]  # fmt: skip
        if current and current[0]["id"] != fact_id and "superseded_by" not in properties:
            withdrawn = tx.run("ingest.supersede_fact", namespace=namespace, old_id=current[0]["id"], new_id=fact_id,
                               at=turn.timestamp, now=now)[0]["withdrawn"]  # fmt: skip
            report.facts_superseded += 1
            report.inferences_withdrawn += withdrawn
        report.facts_created += int(row["created"])
        return fact_id, content

    def _entities(self, turn: Turn, fact: FactMention, now: datetime) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """The fact's subject and the entities it names, as Person/Concept nodes to merge."""
        subject_key = normalize_name(fact.subject)
        # An entity's provenance is the turn that introduced it (properties are set on creation only).
        yield person_id(subject_key), NodeType.PERSON.value, node_properties(
            label=fact.subject, content=fact.subject, importance=Importance.IDENTITY, now=now,
            source=Source.USER_STATED, source_turn_ids=[turn.turn_id], name_key=subject_key,
        )  # fmt: skip
        for entity in fact.entities:
            if entity.normalized == subject_key:
                continue
            is_person = entity.kind == EntityKind.PERSON
            node_id = person_id(entity.normalized) if is_person else concept_id(entity.normalized)
            node_type = NodeType.PERSON if is_person else NodeType.CONCEPT
            yield node_id, node_type.value, node_properties(
                label=entity.name, content=f"{entity.name} ({entity.kind.value})", importance=Importance.NORMAL,
                now=now, source=Source.USER_STATED, source_turn_ids=[turn.turn_id], name_key=entity.normalized,
                entity_kind=entity.kind.value,
            )  # fmt: skip

    # -- 3. events -------------------------------------------------------------------------------

    def _events(
        self, namespace: str, ordered: Sequence[SequencedTurn], now: datetime, report: IngestReport
    ) -> list[NodeText]:
        events: list[dict[str, Any]] = []
        for item in ordered:
            turn = item.turn
            for mention in find_time_expressions(turn.text, turn.timestamp):
                sentence = sentence_around(turn.text, mention.span)
                subject_key = normalize_name(turn.speaker) or turn.speaker
                properties = node_properties(
                    label=f"{turn.speaker}, {mention.start.date().isoformat()}: {sentence[:80]}",
                    content=sentence,
                    importance=self.importance_rules.detect(sentence),
                    now=now,
                    source=Source.USER_STATED,
                    source_turn_ids=[turn.turn_id],
                    subject=turn.speaker,
                    subject_key=subject_key,
                    event_time=mention.start,
                    event_end=mention.end,
                    time_text=mention.text,
                    time_granularity=mention.granularity.value,
                    session_id=turn.session_id,
                )
                event_id = f"experience:{stable_digest(turn.key, str(mention.span[0]), str(mention.span[1]))}"
                dialogue = dialogue_id(turn.session_id, turn.turn_id)
                events.append({"id": event_id, "dialogue_id": dialogue, "properties": properties,
                               "vector_of": vector_source(turn, mention.span)})  # fmt: skip
        if not events:
            return []
        rows = self.graph.write(
            "ingest.upsert_events",
            namespace=namespace,
            events=events,
            learned=relationship_properties(RelType.REFERENCE, 1.0, now),
        )
        subjects = sorted({e["properties"]["subject_key"] for e in events})
        self.graph.write(
            "ingest.chain_events",
            namespace=namespace,
            subject_keys=subjects,
            structural=relationship_properties(RelType.TEMPORAL, None, now),
        )
        report.events += sum(1 for row in rows if row["created"])
        return [NodeText(e["id"], NodeType.EXPERIENCE.value, e["properties"]["label"], e["vector_of"]) for e in events]
