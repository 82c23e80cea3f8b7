"""The write path's tracks for a batch of conversation turns (run by the `ingest_turns` task).

1. Dialogue node per turn, Person per speaker, Episode per session (HIERARCHY to its turns,
   extractive summary), TEMPORAL chains of turns within a session and of sessions in time order.
2. Fact track: slot facts (app/extract/facts.py) become Knowledge nodes with REFERENCE edges to
   their dialogue and entities (Person/Concept resolved by name: app/memory/entities.py). A new
   value for the same subject and slot supersedes the old node (superseded_by, valid_to); nothing is deleted, and a
   statement arriving late takes its place in the key's timeline. The batch's outcome (restated,
   new, superseding, placed in history) is worked out in Python from one read of the versions its
   times can meet (`FactPlan`, app/memory/fact_plan.py), then written in four statements.
3. Temporal track: time expressions (app/extract/timeexpr.py) resolved against the turn's
   timestamp become Experience events with event_time/event_end, chained per subject.
4. Inference track: rules (app/data/inference_rules.yaml) add Knowledge nodes with
   source `inferred`, confidence <= 0.6 and CAUSAL edges from their premises; superseding a premise
   withdraws them.
5. New nodes are embedded, stored in the vector tier and linked to close neighbours; the turns'
   share of this starts in the background before 1-4 and runs beside them
   (`SemanticIndexer.index_ahead`), the links are written last.

Every step is idempotent (deterministic ids, MERGE), so a retried or re-delivered task leaves
exactly one copy of everything.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from app.domain.importance import ImportanceRules
from app.domain.inputs import namespace_term, stable_digest
from app.domain.model import Importance, NodeType, RelType, Source
from app.domain.summarize import extractive_summary
from app.domain.turns import Turn, dialogue_id, episode_id
from app.extract.dating import date_facts
from app.extract.inference import InferenceRules
from app.extract.names import normalize_name
from app.extract.timeexpr import find_time_expressions
from app.extract.types import FactMention
from app.extract.updates import extract_statements
from app.memory.entities import fact_entity_names, resolve_names, speaker_name
from app.memory.fact_plan import FactKey, FactPlan, TurnFacts, Version, fact_key, plan_turn
from app.memory.records import create_links, node_properties, relationship_properties
from app.memory.semantic import NodeText, SemanticIndexer
from app.memory.turn_spans import sentence_around, vector_source
from app.stores.graph import GraphStore, GraphTx
from app.stores.queries.entity_queries import EntityQueries
from app.stores.queries.ingest_queries import EpisodeSummary, IngestQueries, NewEvent, TurnRow

SUMMARY_SENTENCES = 3
# The report's stage for the turns' vector work, which overlaps the other stages (not part of their sum).
BACKGROUND_STAGE = "turn vectors (background)"


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
    # Ids of the dead letters the batch's unwritable turns became (app/memory/batch_writer.py).
    dead_lettered: list[str] = field(default_factory=list)
    # Nodes written without their SEMANTIC links (`ingest(..., link=False)`), for `SemanticIndexer.link`.
    unlinked: list[str] = field(default_factory=list)

    def add(self, other: IngestReport) -> None:
        """Count `other` (a part of the same batch, written on its own) into this report."""
        for name in ("turns", "dialogues_created", "facts_created", "facts_superseded", "inferences",
                     "inferences_withdrawn", "events", "semantic_edges"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for stage, seconds in other.seconds_by_stage.items():
            self.seconds_by_stage[stage] = self.seconds_by_stage.get(stage, 0.0) + seconds
        self.dead_lettered += other.dead_lettered
        self.unlinked += other.unlinked

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


def _dialogue_text(row: TurnRow) -> NodeText:
    """A turn is embedded as "speaker: content"."""
    properties = row["properties"]
    return NodeText(row["id"], NodeType.DIALOGUE.value, properties["content"], prefix=f"{properties['speaker']}: ")


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

    def ingest(self, namespace: str, batch: Sequence[SequencedTurn], now: datetime, link: bool = True) -> IngestReport:
        """Run the write tracks for `batch`. Without `link` the new nodes get their vectors but not
        their SEMANTIC edges: their ids are `report.unlinked`, for `SemanticIndexer.link` later."""
        report = IngestReport(turns=len(batch))
        ordered = sorted(batch, key=lambda item: (item.turn.timestamp, item.seq))
        rows = [self._turn_row(item, now) for item in ordered]
        # A speaker the namespace knows (by name, alias or first name) is that node, not a new one.
        names = [speaker_name(item.turn.speaker) for item in ordered]
        speakers = resolve_names(EntityQueries(self.graph), namespace, names)
        for row, name in zip(rows, names, strict=True):
            row["person_id"] = speakers.get(name, row["person_id"])
        with report.stage("facts+inferences"):
            # Extraction first (pure Python), before anything is written: a turn it refuses (a
            # blank speaker) or trips over (a bug) fails its batch with nothing of it written.
            extracted = [found for item in ordered if (found := self._facts(item.turn))]
        # Every turn of the batch is (re)indexed, not only the new ones: a task re-delivered after a
        # crash between the graph write and the vectors must still produce the vectors. The turns'
        # vector work runs in the background beside the graph statements (`SemanticIndexer.index_ahead`).
        dialogues = [_dialogue_text(row) for row in rows]
        ahead = self.semantic.index_ahead(namespace, dialogues, now, link)
        to_index: list[NodeText] = []
        with report.stage("dialogues"):
            self._dialogues(namespace, rows, now, report)
        with report.stage("facts+inferences"):
            # One transaction for the whole batch (one commit, not one per turn); turns are applied
            # in order, so a later value supersedes an earlier one within the batch.
            if extracted:
                to_index += self._write_facts(namespace, extracted, now, report)
        with report.stage("temporal"):
            to_index += self._events(namespace, ordered, now, report)
        with report.stage("episodes"):
            to_index += self._episodes(namespace, ordered, now)
        with report.stage("embedding+semantic"):
            indexed = self.semantic.index(namespace, to_index, now, ahead, link)
            report.semantic_edges, report.unlinked = indexed.edges, indexed.unlinked
            self.semantic.store_context(namespace, [row["id"] for row in rows])
        report.seconds_by_stage[BACKGROUND_STAGE] = ahead.seconds
        return report

    # -- 1. dialogues, speakers, sessions --------------------------------------------------------

    def _dialogues(self, namespace: str, rows: Sequence[TurnRow], now: datetime, report: IngestReport) -> None:
        ingest = IngestQueries(self.graph)
        results = ingest.turns(
            namespace=namespace,
            namespace_term=namespace_term(namespace),
            turns=rows,
            structural=relationship_properties(RelType.HIERARCHY, None, now),
            learned=relationship_properties(RelType.REFERENCE, 1.0, now),
        )
        created = {row["id"] for row in results if row["created"]}
        report.dialogues_created = len(created)
        episode_ids = sorted({row["episode_id"] for row in rows})
        structural = relationship_properties(RelType.TEMPORAL, None, now)
        ingest.chain_sessions(namespace=namespace, episode_ids=episode_ids, structural=structural)
        ingest.chain_episodes(namespace=namespace, structural=structural)

    def _turn_row(self, item: SequencedTurn, now: datetime) -> TurnRow:
        """The `ingest.turns` row of a turn, its speaker on the name's derived id (`ingest` puts the
        node the name resolves to in the namespace in its place)."""
        turn = item.turn
        speaker = speaker_name(turn.speaker)
        speaker_key = speaker.key
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
            agent_id=turn.agent_id,
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
            placeholder=True,  # made-up content: a saved Person of this name takes the node over
        )
        return {
            "id": dialogue_id(turn.session_id, turn.turn_id),
            "turn_id": turn.turn_id,
            "episode_id": episode_id(turn.session_id),
            "person_id": speaker.derived_id,
            "timestamp": turn.timestamp,
            "properties": properties,
            "episode_properties": episode,
            "person_properties": person,
        }

    def _episodes(self, namespace: str, ordered: Sequence[SequencedTurn], now: datetime) -> list[NodeText]:
        episode_ids = sorted({episode_id(item.turn.session_id) for item in ordered})
        ingest = IngestQueries(self.graph)
        texts = ingest.session_texts(namespace=namespace, episode_ids=episode_ids)
        episodes: list[EpisodeSummary] = []
        for row in texts:
            content = extractive_summary(row["texts"], SUMMARY_SENTENCES)
            summary = extractive_summary(row["texts"], 1, max_chars=150)
            episodes.append({"id": row["id"], "summary": summary, "content": content or f"Session {row['session_id']}"})
        ingest.set_episode_summaries(namespace=namespace, episodes=episodes, now=now)
        return [NodeText(e["id"], NodeType.EPISODE.value, e["content"]) for e in episodes]

    # -- 2. facts and 4. inferences ------------------------------------------------------------------

    def _write_facts(
        self, namespace: str, extracted: Sequence[TurnFacts], now: datetime, report: IngestReport
    ) -> list[NodeText]:
        """The batch's facts, inferences and entities in one transaction; returns the nodes to embed.
        The counts reach `report` once the transaction has committed (it may be retried)."""
        counts = IngestReport()
        written = self.graph.write_transaction(lambda tx: self._fact_statements(tx, namespace, extracted, now, counts))
        report.facts_created += counts.facts_created
        report.inferences += counts.inferences
        report.facts_superseded += counts.facts_superseded
        report.inferences_withdrawn += counts.inferences_withdrawn
        return written

    def _fact_statements(
        self, tx: GraphTx, namespace: str, extracted: Sequence[TurnFacts], now: datetime, counts: IngestReport
    ) -> list[NodeText]:
        """Each key's versions are read once, the plan is made here, and each kind of write is one
        statement (a premise's CAUSAL links exist before any supersession withdraws what was inferred
        from it). `counts` is set, not added to: a retried transaction starts it again."""
        keys = {fact_key(fact) for item in extracted for fact in item.facts}
        ingest = IngestQueries(tx)
        rows = ingest.fact_versions(
            namespace=namespace,
            keys=[{"subject_key": subject, "slot": slot, "value_key": value} for subject, slot, value in keys],
            since=min(item.turn.timestamp for item in extracted),
        )
        timelines: dict[FactKey, list[Version]] = {key: [] for key in keys}
        for row in rows:
            if row["id"] is not None:
                timelines[(row["subject_key"], row["slot"], row["key_value"])].append(
                    Version(row["id"], row["value_key"], row["valid_from"], row["valid_to"], row["superseded_by"])
                )
        # The entities the facts name, resolved in the same transaction as they are written.
        names = [name for item in extracted for fact in item.facts for name, _ in fact_entity_names(fact)]
        plan = FactPlan(entity_ids=resolve_names(EntityQueries(tx), namespace, names))
        for item in extracted:
            plan_turn(plan, timelines, item, now, self.importance_rules)
        learned = relationship_properties(RelType.REFERENCE, 1.0, now)
        term = namespace_term(namespace)
        upserted = ingest.upsert_facts(namespace=namespace, namespace_term=term, facts=plan.facts, learned=learned)
        counts.facts_created = len({row["id"] for row in upserted if row["created"] and not row["inferred"]})
        counts.inferences = len({row["id"] for row in upserted if row["created"] and row["inferred"]})
        create_links(tx, namespace, plan.causal)
        counts.facts_superseded = plan.superseded
        counts.inferences_withdrawn = 0
        if plan.supersessions:
            withdrawn = ingest.supersede_facts(namespace=namespace, supersessions=plan.supersessions, now=now)
            counts.inferences_withdrawn = withdrawn[0]["withdrawn"]
        if plan.entities:
            ingest.upsert_entities(namespace=namespace, namespace_term=term, entities=plan.entities, learned=learned)
        return plan.written

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
        extracted = [
            found for turn, mentions in by_turn.values() if (found := self._turn_facts(turn, mentions, extracted_by))
        ]
        if extracted:
            with report.stage("facts+inferences"):
                written = self._write_facts(namespace, extracted, now, report)
            with report.stage("embedding+semantic"):
                report.semantic_edges = self.semantic.index(namespace, written, now).edges
        return report

    def turns_of(self, namespace: str, dialogue_ids: Sequence[str]) -> list[Turn]:
        """The turns behind these Dialogue nodes, in time order (for extractors run after the tracks)."""
        rows = IngestQueries(self.graph).dialogue_turns(namespace=namespace, ids=list(dialogue_ids))
        return [Turn(r["session_id"], r["turn_id"], r["speaker"], r["text"], r["timestamp"]) for r in rows]

    def _facts(self, turn: Turn) -> TurnFacts | None:
        """The turn's facts and inferences, extracted by the rules (slot facts and updates)."""
        return self._turn_facts(turn, extract_statements(turn.text, turn.speaker))

    def _turn_facts(
        self, turn: Turn, facts: Sequence[FactMention], extracted_by: str | None = None
    ) -> TurnFacts | None:
        if not facts:
            return None
        # A statement is dated by the time expression of its own clause ("I went to Paris last Friday").
        facts = date_facts(turn.text, facts, find_time_expressions(turn.text, turn.timestamp))
        return TurnFacts(turn, facts, self.inference_rules.infer(facts), extracted_by)

    # -- 3. events -------------------------------------------------------------------------------

    def _events(
        self, namespace: str, ordered: Sequence[SequencedTurn], now: datetime, report: IngestReport
    ) -> list[NodeText]:
        events: list[NewEvent] = []
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
                    agent_id=turn.agent_id,
                )
                event_id = f"experience:{stable_digest(turn.key, str(mention.span[0]), str(mention.span[1]))}"
                dialogue = dialogue_id(turn.session_id, turn.turn_id)
                events.append({"id": event_id, "dialogue_id": dialogue, "properties": properties,
                               "vector_of": vector_source(turn, mention.span)})  # fmt: skip
        if not events:
            return []
        ingest = IngestQueries(self.graph)
        rows = ingest.upsert_events(
            namespace=namespace,
            namespace_term=namespace_term(namespace),
            events=events,
            learned=relationship_properties(RelType.REFERENCE, 1.0, now),
        )
        subjects = sorted({e["properties"]["subject_key"] for e in events})
        ingest.chain_events(
            namespace=namespace,
            subject_keys=subjects,
            structural=relationship_properties(RelType.TEMPORAL, None, now),
        )
        report.events += sum(1 for row in rows if row["created"])
        return [NodeText(e["id"], NodeType.EXPERIENCE.value, e["properties"]["label"], e["vector_of"]) for e in events]
