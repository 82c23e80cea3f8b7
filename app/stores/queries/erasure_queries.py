"""Typed calls of cypher/erasure.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, NotRequired, TypedDict, cast

from app.stores.queries.runner import Queries


class SourcesRow(TypedDict):
    """A node the filter names: a turn (with its session and turn id) or another memory."""

    id: str
    turn: bool
    session_id: str | None
    turn_id: str | None


class SourceFilter(TypedDict):
    """What `sources` selects by (`ForgetFilter.params`; None: any)."""

    agent_id: str | None
    session_id: str | None
    turn_ids: list[str] | None
    tags: list[str] | None
    since: datetime | None
    until: datetime | None


class TurnsRow(SourcesRow):
    text: str
    speaker: str


class CorrectedTurn(TypedDict):
    """A stored turn's new text (`Erasure.correct`): its node, speaker, properties, the old version."""

    id: str
    person_id: str
    properties: dict[str, Any]
    history: list[str]  # JSON of the version replaced


class IdsRow(TypedDict):
    ids: list[str]


class TypeCount(TypedDict):
    type: str
    n: int


class CountGoingRow(TypedDict):
    nodes: list[TypeCount]
    relationships: int


class RepairTimelinesRow(TypedDict):
    repaired: int


class DropProvenanceRow(TypedDict):
    updated: int
    episodes: list[str]


class EventSubjectsRow(TypedDict):
    subject_keys: list[str]


class DeletedRow(TypedDict):
    deleted: int


class RecordAuditRow(TypedDict):
    id: str


class AuditRecord(TypedDict):
    """A ForgetAudit node (a property that was null is absent)."""

    id: str
    audit_namespace: str
    at: datetime
    role: str
    agent_id: NotRequired[str]
    key_id: NotRequired[str]
    filter: str  # JSON
    counts: str  # JSON


class AuditRow(TypedDict):
    record: AuditRecord


class ReplaceTurnsRow(TypedDict):
    replaced: int


class ErasureQueries(Queries):
    def sources(
        self,
        *,
        namespace: str,
        agent_id: str | None,
        session_id: str | None,
        turn_ids: list[str] | None,
        tags: list[str] | None,
        since: datetime | None,
        until: datetime | None,
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

    def derived_only_from(self, *, namespace: str, ids: list[str]) -> list[IdsRow]:
        return cast("list[IdsRow]", self._write("erasure.derived_only_from", namespace=namespace, ids=ids))

    def orphan_inferences(self, *, namespace: str, gone: list[str]) -> list[IdsRow]:
        return cast("list[IdsRow]", self._write("erasure.orphan_inferences", namespace=namespace, gone=gone))

    def count_going(self, *, namespace: str, gone: list[str]) -> list[CountGoingRow]:
        return cast("list[CountGoingRow]", self._write("erasure.count_going", namespace=namespace, gone=gone))

    def repair_timelines(self, *, namespace: str, gone: list[str], now: datetime) -> list[RepairTimelinesRow]:
        return cast(
            "list[RepairTimelinesRow]", self._write("erasure.repair_timelines", namespace=namespace, gone=gone, now=now)
        )

    def drop_provenance(
        self, *, namespace: str, turns: list[str], gone: list[str], turn_ids: list[str]
    ) -> list[DropProvenanceRow]:
        return cast(
            "list[DropProvenanceRow]",
            self._write("erasure.drop_provenance", namespace=namespace, turns=turns, gone=gone, turn_ids=turn_ids),
        )

    def event_subjects(self, *, namespace: str, gone: list[str]) -> list[EventSubjectsRow]:
        return cast("list[EventSubjectsRow]", self._write("erasure.event_subjects", namespace=namespace, gone=gone))

    def delete_nodes(self, *, namespace: str, gone: list[str]) -> list[DeletedRow]:
        return cast("list[DeletedRow]", self._write("erasure.delete_nodes", namespace=namespace, gone=gone))

    def orphaned_entities(self, *, namespace: str, candidates: list[str], gone: list[str]) -> list[IdsRow]:
        return cast(
            "list[IdsRow]",
            self._write("erasure.orphaned_entities", namespace=namespace, candidates=candidates, gone=gone),
        )

    def neighbours(self, *, namespace: str, gone: list[str]) -> list[IdsRow]:
        return cast("list[IdsRow]", self._write("erasure.neighbours", namespace=namespace, gone=gone))

    def record_audit(
        self,
        *,
        namespace: str,
        id: str,
        at: datetime,
        role: str,
        agent_id: str | None,
        key_id: str | None,
        filter: str,  # JSON
        counts: str,  # JSON
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

    def delete_audit(self, *, namespace: str) -> list[DeletedRow]:
        return cast("list[DeletedRow]", self._write("erasure.delete_audit", namespace=namespace))

    def replace_turns(self, *, namespace: str, turns: list[CorrectedTurn], now: datetime) -> list[ReplaceTurnsRow]:
        return cast(
            "list[ReplaceTurnsRow]", self._write("erasure.replace_turns", namespace=namespace, turns=turns, now=now)
        )
