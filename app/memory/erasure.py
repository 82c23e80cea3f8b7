"""Forgetting on request: the turns and memories a filter names, and everything derived from them alone.

Not to be confused with `forgetting.py` (decay, soft forgetting and pruning, which the service does by
itself). Here a caller asks: `POST /v1/namespaces/{ns}/forget` with a filter (agent, session, turn
ids, tags, a time range). What goes (cypher/erasure.cypher):

- the sources the filter names: turns (Dialogue) and saved memories;
- what was derived from them alone: facts, events and inferences whose every source turn goes (a fact
  a surviving turn also states stays, losing only the going turns' provenance), inferences whose
  every premise goes, episodes whose every turn goes, persons and concepts a going turn introduced
  that nothing surviving names any more; every relationship on them (associations included);
- their vectors (every point of each node), their hot-window entries (the window, the pending hash,
  claims, content digests), their dead letters, and their pending access and co-activation counts.

What survives is repaired in the same transaction: a superseded fact whose successor goes is in force
again, session, episode and event chains are re-threaded, an episode that keeps turns gets its
summary again from them. The graph part runs in one write transaction per chunk of
`CHUNK_SOURCES` sources (one for most requests); every statement is idempotent, so a repeat finds
nothing. Redis goes first: a pending turn forgotten there is never written afterwards.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import Any

import redis

from app.domain.inputs import joined_key
from app.domain.model import RelType
from app.domain.summarize import extractive_summary
from app.memory.dead_letters import DeadLetters
from app.memory.hot_window import HotWindow
from app.memory.ingest import SUMMARY_SENTENCES
from app.memory.records import relationship_properties
from app.memory.semantic import SemanticIndexer
from app.stores.graph import GraphStore, GraphTx
from app.stores.hot import namespace_key
from app.stores.queries.erasure_queries import CorrectedTurn, ErasureQueries, SourceFilter, SourcesRow
from app.stores.queries.ingest_queries import EpisodeSummary, IngestQueries, TurnRow
from app.stores.vectors import VectorStore

CHUNK_SOURCES = 2000  # sources per write transaction: a large forgetting is several bounded ones
AUDIT_LIMIT = 200
# What a correction changes on a stored turn (the rest, such as created_at and seq, stays).
CORRECTED_PROPERTIES = ("content", "speaker", "label", "summary", "importance", "timestamp", "metadata_json")


@dataclass(frozen=True)
class ForgetFilter:
    """What to forget; every field given must hold. At least one field is required (the route checks)."""

    agent_id: str | None = None
    session_id: str | None = None
    turn_ids: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    since: datetime | None = None
    until: datetime | None = None

    def bound_to(self, agent_id: str) -> ForgetFilter:
        """The same filter, limited to what `agent_id` wrote (a writer key's own agent)."""
        return replace(self, agent_id=agent_id)

    def params(self) -> SourceFilter:
        return {
            "agent_id": self.agent_id,
            "session_id": self.session_id,
            "turn_ids": list(self.turn_ids) if self.turn_ids is not None else None,
            "tags": list(self.tags) if self.tags is not None else None,
            "since": self.since,
            "until": self.until,
        }

    def as_json(self) -> dict[str, Any]:
        return {
            name: value.isoformat()
            if isinstance(value, datetime)
            else list(value)
            if isinstance(value, tuple)
            else value
            for name, value in asdict(self).items()
            if value is not None
        }

    def matches_turn(self, record: dict[str, Any]) -> bool:
        """Whether a turn still in Redis (pending, a dead letter) is one the filter names. A turn carries
        no tags, so a filter with tags names none."""
        timestamp = datetime.fromisoformat(record["timestamp"])
        return (
            self.tags is None
            and (self.agent_id is None or record.get("agent_id") == self.agent_id)
            and (self.session_id is None or record["session_id"] == self.session_id)
            and (self.turn_ids is None or record["turn_id"] in self.turn_ids)
            and (self.since is None or timestamp >= self.since)
            and (self.until is None or timestamp < self.until)
        )


@dataclass
class ForgetCounts:
    """What a forgetting removed (or, dry, would remove)."""

    nodes: dict[str, int] = field(default_factory=dict)  # per type
    relationships: int = 0
    vectors: int = 0  # points of the vector tier (a node has one or more)
    hot_window: int = 0  # turns taken out of the hot window (window and pending)
    dead_letters: int = 0
    facts_restored: int = 0  # superseded versions in force again
    provenance_dropped: int = 0  # surviving nodes that lost a going turn from their sources

    @property
    def total_nodes(self) -> int:
        return sum(self.nodes.values())

    def add(self, other: ForgetCounts) -> None:
        for node_type, n in other.nodes.items():
            self.nodes[node_type] = self.nodes.get(node_type, 0) + n
        for name in ("relationships", "vectors", "hot_window", "dead_letters", "facts_restored", "provenance_dropped"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_json(self) -> dict[str, Any]:
        return asdict(self) | {"total_nodes": self.total_nodes}


@dataclass(frozen=True)
class Forgetter:
    """Who asks: recorded on the audit record."""

    role: str
    agent_id: str | None
    key_id: str | None


@dataclass(frozen=True)
class _Plan:
    gone: list[str]  # every node id that goes, sources first
    turns: list[str]  # the going Dialogue ids
    turn_ids: list[str]  # their turn_id values
    neighbours: list[str]  # surviving nodes next to a going one
    going: list[str]  # what loses its provenance: `gone`, and turns corrected in place


class Erasure:
    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        semantic: SemanticIndexer,
        hot: redis.Redis,
        hot_window: HotWindow,
        dead_letters: DeadLetters,
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.semantic = semantic
        self.hot = hot
        self.hot_window = hot_window
        self.dead_letters = dead_letters

    # -- the request ------------------------------------------------------------------------------

    def forget(
        self, namespace: str, what: ForgetFilter, by: Forgetter, now: datetime, dry_run: bool = False
    ) -> dict[str, Any]:
        """Forget what `what` names (or, `dry_run`, count it); returns the counts and, when done, the
        audit record's id."""
        sources = ErasureQueries(self.graph).sources(namespace=namespace, **what.params())
        counts = ForgetCounts()
        if dry_run:
            for chunk in _chunks(sources):
                # A write transaction that changes nothing: the plan's reads, as the forgetting runs them.
                counts.add(self.graph.write_transaction(partial(self._count, namespace=namespace, sources=chunk)))
            counts.hot_window, counts.dead_letters = self._redis_matches(namespace, what, sources, remove=False)
            return {"dry_run": True, "counts": counts.as_json()}
        # Redis first: a pending turn the filter names is never written after this.
        counts.hot_window, counts.dead_letters = self._redis_matches(namespace, what, sources, remove=True)
        before = self.vectors.count(namespace)
        for chunk in _chunks(sources):
            counts.add(self._forget_chunk(namespace, chunk, now))
        # The namespace's points before and after (the engines count no points by node): a write into
        # the namespace meanwhile makes it an undercount, never a negative.
        counts.vectors = max(0, before - self.vectors.count(namespace))
        audit_id = f"forget:{uuid.uuid4().hex}"
        ErasureQueries(self.graph).record_audit(
            id=audit_id, namespace=namespace, at=now, role=by.role, agent_id=by.agent_id, key_id=by.key_id,
            filter=json.dumps(what.as_json(), sort_keys=True), counts=json.dumps(counts.as_json(), sort_keys=True),
        )  # fmt: skip
        return {"dry_run": False, "counts": counts.as_json(), "audit_id": audit_id}

    def audit(self, namespace: str, limit: int = AUDIT_LIMIT) -> list[dict[str, Any]]:
        """The namespace's forgettings, newest first: who, when, the filter, the counts."""
        rows = ErasureQueries(self.graph).audit(namespace=namespace, limit=limit)
        return [
            {
                "id": r["id"], "at": r["at"], "role": r["role"], "agent_id": r.get("agent_id"),
                "key_id": r.get("key_id"), "filter": json.loads(r["filter"]), "counts": json.loads(r["counts"]),
            }
            for r in (row["record"] for row in rows)
        ]  # fmt: skip

    def delete_audit(self, namespace: str) -> int:
        """With the namespace."""
        return int(ErasureQueries(self.graph).delete_audit(namespace=namespace)[0]["deleted"])

    # -- a turn corrected in place (`"replace": true`) ---------------------------------------------

    def correct(self, namespace: str, rows: Sequence[TurnRow], now: datetime) -> int:
        """Corrections, before the write tracks run on their new text: each stored turn whose text or
        speaker differs from its row (`Ingestor` turn rows) keeps its old version in `history`, and
        what the tracks derived from it alone goes (facts, events, inferences; facts another turn
        also states stay, without this turn's provenance), with its vectors; the tracks then derive
        again from the new text. Returns how many turns changed; a repeat changes nothing."""
        stored = {
            r["id"]: r for r in ErasureQueries(self.graph).turns(namespace=namespace, ids=[r["id"] for r in rows])
        }
        changed = [
            row for row in rows
            if row["id"] in stored and (stored[row["id"]]["text"], stored[row["id"]]["speaker"])
            != (row["properties"]["content"], row["properties"]["speaker"])
        ]  # fmt: skip
        if not changed:
            return 0
        turns = [
            CorrectedTurn(
                id=row["id"], person_id=row["person_id"],
                properties={name: row["properties"].get(name) for name in CORRECTED_PROPERTIES},
                history=[json.dumps({"text": stored[row["id"]]["text"], "speaker": stored[row["id"]]["speaker"],
                                     "replaced_at": now.isoformat()}, ensure_ascii=False)],
            )
            for row in changed
        ]  # fmt: skip

        def work(tx: GraphTx) -> int:
            plan = self._plan(tx, namespace, [stored[row["id"]] for row in changed], keep_sources=True)
            self._apply(tx, namespace, plan, now)
            return int(ErasureQueries(tx).replace_turns(namespace=namespace, turns=turns, now=now)[0]["replaced"])

        replaced = self.graph.write_transaction(work)
        self.vectors.delete(namespace, [row["id"] for row in changed])  # the tracks embed the new text
        return replaced

    # -- the parts --------------------------------------------------------------------------------

    def _plan(self, tx: GraphTx, namespace: str, sources: Sequence[SourcesRow], keep_sources: bool = False) -> _Plan:
        erasure = ErasureQueries(tx)
        source_ids = [row["id"] for row in sources]
        turns = [row["id"] for row in sources if row["turn"]]
        derived = erasure.derived_only_from(namespace=namespace, ids=turns)[0]["ids"]
        if keep_sources:  # a corrected turn stays in its session
            derived = [node for node in derived if not node.startswith("episode:")]
        gone = list(dict.fromkeys(([] if keep_sources else source_ids) + derived))
        inferences = erasure.orphan_inferences(namespace=namespace, gone=gone)[0]["ids"]
        gone += [i for i in inferences if i not in gone]
        # A turn kept in place (a correction) counts as going for provenance, not for deletion.
        going = gone + turns if keep_sources else gone
        neighbours = erasure.neighbours(namespace=namespace, gone=going)[0]["ids"]
        entities = erasure.orphaned_entities(namespace=namespace, candidates=neighbours, gone=going)[0]
        gone += [e for e in entities["ids"] if e not in gone]
        turn_ids = [row["turn_id"] for row in sources if row["turn"] and row["turn_id"] is not None]
        return _Plan(gone, turns, turn_ids, neighbours, going + entities["ids"])

    def _count(self, tx: GraphTx, *, namespace: str, sources: Sequence[SourcesRow]) -> ForgetCounts:
        plan = self._plan(tx, namespace, sources)
        row = ErasureQueries(tx).count_going(namespace=namespace, gone=plan.gone)[0]
        return ForgetCounts(nodes={r["type"]: r["n"] for r in row["nodes"]}, relationships=row["relationships"])

    def _forget_chunk(self, namespace: str, sources: Sequence[SourcesRow], now: datetime) -> ForgetCounts:
        def work(tx: GraphTx) -> tuple[ForgetCounts, _Plan]:
            plan = self._plan(tx, namespace, sources)
            return self._apply(tx, namespace, plan, now), plan

        # The vectors of what is planned go first: were the graph transaction to fail, a retry (which
        # plans from the graph) still finds these nodes; vectors deleted after it would be left behind.
        planned = self.graph.write_transaction(lambda tx: self._plan(tx, namespace, sources))
        self.vectors.delete(namespace, planned.gone)
        counts, plan = self.graph.write_transaction(work)
        self.vectors.delete(namespace, [node for node in plan.gone if node not in set(planned.gone)])
        survivors = [n for n in plan.neighbours if n.startswith("dialogue:") and n not in set(plan.gone)]
        self.semantic.store_context(namespace, survivors)  # their windows lost a turn
        self._forget_activity(namespace, plan.gone)
        return counts

    def _apply(self, tx: GraphTx, namespace: str, plan: _Plan, now: datetime) -> ForgetCounts:
        """Repair what survives, then delete `plan.gone`, in the caller's transaction."""
        erasure, ingest = ErasureQueries(tx), IngestQueries(tx)
        going = erasure.count_going(namespace=namespace, gone=plan.gone)[0]
        counts = ForgetCounts(nodes={r["type"]: r["n"] for r in going["nodes"]}, relationships=going["relationships"])
        counts.facts_restored = erasure.repair_timelines(namespace=namespace, gone=plan.gone, now=now)[0]["repaired"]
        subjects = erasure.event_subjects(namespace=namespace, gone=plan.gone)[0]["subject_keys"]
        dropped = erasure.drop_provenance(
            namespace=namespace, turns=plan.turns, gone=plan.going, turn_ids=plan.turn_ids
        )
        counts.provenance_dropped = sum(row["updated"] for row in dropped)
        episodes = sorted({e for row in dropped for e in row["episodes"]})
        erasure.delete_nodes(namespace=namespace, gone=plan.gone)
        # The chains and summaries of what survives, by the write path's own queries.
        if episodes:
            ingest.chain_sessions(namespace=namespace, episode_ids=episodes, structural=_structural(now))
            texts = ingest.session_texts(namespace=namespace, episode_ids=episodes)
            summaries: list[EpisodeSummary] = [
                {"id": row["id"], "summary": extractive_summary(row["texts"], 1, max_chars=150),
                 "content": extractive_summary(row["texts"], SUMMARY_SENTENCES) or f"Session {row['session_id']}"}
                for row in texts
            ]  # fmt: skip
            ingest.set_episode_summaries(namespace=namespace, episodes=summaries, now=now)
        if any(node.startswith("episode:") for node in plan.gone):
            ingest.chain_episodes(namespace=namespace, structural=_structural(now))
        if subjects:
            ingest.chain_events(namespace=namespace, subject_keys=subjects, structural=_structural(now))
        return counts

    def _redis_matches(
        self, namespace: str, what: ForgetFilter, sources: Sequence[SourcesRow], remove: bool
    ) -> tuple[int, int]:
        """The named turns' hot-window entries and dead letters: (turns in the window or pending, dead
        letters); `remove` takes them out. Turns still pending are matched by their stored records."""
        keys = {
            joined_key(row["session_id"], row["turn_id"])
            for row in sources
            if row["turn"] and row["session_id"] is not None and row["turn_id"] is not None  # not a saved Dialogue
        }
        records = self.hot.hgetall(self.hot_window.records_key(namespace))
        pending = self.hot.hgetall(self.hot_window.pending_key(namespace))
        for key, raw in {**records, **pending}.items():  # type: ignore[dict-item]
            if what.matches_turn(json.loads(str(raw))):
                keys.add(str(key))
        present = [k for k in keys if k in records or k in pending]  # type: ignore[operator]
        letters = [
            letter for letter in self.dead_letters.list(namespace)
            if letter.turn_key in keys or what.matches_turn(json.loads(letter.record))
        ]  # fmt: skip
        if remove:
            self.hot_window.remove(namespace, sorted(keys))
            for letter in letters:
                self.dead_letters.discard(namespace, letter.id)
        return len(present), len(letters)

    def _forget_activity(self, namespace: str, node_ids: Sequence[str]) -> None:
        """Pending access counts and co-activation totals of the nodes that went (else a flush would
        count them for nodes that no longer exist, and Redis would keep their ids)."""
        if not node_ids:
            return
        gone = set(node_ids)
        self.hot.hdel(namespace_key(namespace, "access", "pending"), *node_ids)
        totals = namespace_key(namespace, "coact", "totals")
        dirty = namespace_key(namespace, "coact", "dirty")
        pairs = [p for p in self.hot.hkeys(totals) if any(part in gone for part in str(p).split("\x1f"))]  # type: ignore[union-attr]
        if pairs:
            pipe = self.hot.pipeline(transaction=True)
            pipe.hdel(totals, *pairs)
            pipe.srem(dirty, *pairs)
            pipe.execute()


def _chunks(sources: Sequence[SourcesRow]) -> list[Sequence[SourcesRow]]:
    return [sources[i : i + CHUNK_SOURCES] for i in range(0, len(sources), CHUNK_SOURCES)] or [[]]


def _structural(now: datetime) -> dict[str, Any]:
    return relationship_properties(RelType.TEMPORAL, None, now)
