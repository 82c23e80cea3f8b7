"""Typed calls of cypher/erasure.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict, cast

from app.stores.queries.base import Queries


class SourcesRow(TypedDict):
    id: str
    turn: str
    session_id: str
    turn_id: str


class TurnsRow(TypedDict):
    id: str
    turn: str
    session_id: str
    turn_id: str
    text: str
    speaker: str


class DerivedOnlyFromRow(TypedDict):
    ids: list[str]


class CountGoingRow(TypedDict):
    nodes: int
    relationships: int


class RepairTimelinesRow(TypedDict):
    repaired: int


class DropProvenanceRow(TypedDict):
    updated: int
    episodes: list[dict[str, Any]]


class EventSubjectsRow(TypedDict):
    subject_keys: list[str]


class DeleteNodesRow(TypedDict):
    deleted: int


class RecordAuditRow(TypedDict):
    id: str


class AuditRow(TypedDict):
    record: dict[str, Any]


class ReplaceTurnsRow(TypedDict):
    replaced: Any


class ErasureQueries(Queries):
    def sources(
        self,
        *,
        namespace: str,
        agent_id: str,
        session_id: str,
        turn_ids: list[str],
        tags: list[str],
        since: datetime,
        until: datetime,
    ) -> list[SourcesRow]:
        return cast(
            "list[SourcesRow]",
            self._read(
                "erasure.sources",
                namespace=namespace,
                agent_id=agent_id,
                session_id=session_id,
                turn_ids=turn_ids,
                tags=tags,
                since=since,
                until=until,
            ),
        )

    def turns(self, *, namespace: str, ids: list[str]) -> list[TurnsRow]:
        return cast("list[TurnsRow]", self._read("erasure.turns", namespace=namespace, ids=ids))

    def derived_only_from(self, *, namespace: str, ids: list[str]) -> list[DerivedOnlyFromRow]:
        return cast("list[DerivedOnlyFromRow]", self._write("erasure.derived_only_from", namespace=namespace, ids=ids))

    def orphan_inferences(self, *, namespace: str, gone: list[str]) -> list[DerivedOnlyFromRow]:
        return cast(
            "list[DerivedOnlyFromRow]", self._write("erasure.orphan_inferences", namespace=namespace, gone=gone)
        )

    def count_going(self, *, namespace: str, gone: list[str]) -> list[CountGoingRow]:
        return cast("list[CountGoingRow]", self._write("erasure.count_going", namespace=namespace, gone=gone))

    def repair_timelines(self, *, namespace: str, gone: list[str], now: datetime) -> list[RepairTimelinesRow]:
        return cast(
            "list[RepairTimelinesRow]", self._write("erasure.repair_timelines", namespace=namespace, gone=gone, now=now)
        )

    def drop_provenance(
        self, *, namespace: str, turns: list[dict[str, Any]], gone: list[str], turn_ids: list[str]
    ) -> list[DropProvenanceRow]:
        return cast(
            "list[DropProvenanceRow]",
            self._write("erasure.drop_provenance", namespace=namespace, turns=turns, gone=gone, turn_ids=turn_ids),
        )

    def event_subjects(self, *, namespace: str, gone: list[str]) -> list[EventSubjectsRow]:
        return cast("list[EventSubjectsRow]", self._write("erasure.event_subjects", namespace=namespace, gone=gone))

    def delete_nodes(self, *, namespace: str, gone: list[str]) -> list[DeleteNodesRow]:
        return cast("list[DeleteNodesRow]", self._write("erasure.delete_nodes", namespace=namespace, gone=gone))

    def orphaned_entities(self, *, namespace: str, candidates: list[str], gone: list[str]) -> list[DerivedOnlyFromRow]:
        return cast(
            "list[DerivedOnlyFromRow]",
            self._write("erasure.orphaned_entities", namespace=namespace, candidates=candidates, gone=gone),
        )

    def neighbours(self, *, namespace: str, gone: list[str]) -> list[DerivedOnlyFromRow]:
        return cast("list[DerivedOnlyFromRow]", self._write("erasure.neighbours", namespace=namespace, gone=gone))

    def record_audit(
        self,
        *,
        namespace: str,
        id: str,
        at: datetime,
        role: str,
        agent_id: str,
        key_id: str,
        filter: dict[str, Any],
        counts: dict[str, Any],
    ) -> list[RecordAuditRow]:
        return cast(
            "list[RecordAuditRow]",
            self._write(
                "erasure.record_audit",
                namespace=namespace,
                id=id,
                at=at,
                role=role,
                agent_id=agent_id,
                key_id=key_id,
                filter=filter,
                counts=counts,
            ),
        )

    def audit(self, *, namespace: str, limit: int) -> list[AuditRow]:
        return cast("list[AuditRow]", self._read("erasure.audit", namespace=namespace, limit=limit))

    def delete_audit(self, *, namespace: str) -> list[DeleteNodesRow]:
        return cast("list[DeleteNodesRow]", self._write("erasure.delete_audit", namespace=namespace))

    def replace_turns(self, *, namespace: str, turns: list[dict[str, Any]], now: datetime) -> list[ReplaceTurnsRow]:
        return cast(
            "list[ReplaceTurnsRow]", self._write("erasure.replace_turns", namespace=namespace, turns=turns, now=now)
        )
