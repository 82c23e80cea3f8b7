"""Typed calls of cypher/entity.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict, cast

from app.stores.queries.memory_queries import NodeRow
from app.stores.queries.runner import Queries


class NameToResolve(TypedDict):
    type: str  # the node type
    key: str  # the normalized name
    derived: str  # the id a new node of that name gets
    given: bool  # a first name alone: also look for the one Person whose full name starts with it


class LinkEnds(TypedDict):
    type: str
    source_id: str
    target_id: str


class ResolveRow(TypedDict):
    type: str
    key: str
    by_name: str | None
    by_alias: str | None
    by_first_name: list[str]


class Alias(TypedDict):
    name: str
    key: str


class BindAliasesRow(TypedDict):
    key: str
    target_id: str


class IdRow(TypedDict):
    id: str


class RedirectRow(TypedDict):
    keep_id: str
    merge_id: str


class RecordRow(TypedDict):
    record: dict[str, Any]


class NodeRelationshipsRow(TypedDict):
    type: str
    source_id: str
    target_id: str
    properties: dict[str, Any]


class RepointAliasesRow(TypedDict):
    keys: list[str]


class RestoreAliasesRow(TypedDict):
    restored: int


class DeletedRow(TypedDict):
    deleted: int


class EntityQueries(Queries):
    def resolve(self, *, namespace: str, names: list[NameToResolve]) -> list[ResolveRow]:
        return cast("list[ResolveRow]", self._read("entity.resolve", namespace=namespace, names=names))

    def bind_aliases(
        self, *, namespace: str, aliases: list[Alias], type: str, id: str, origin: str, now: datetime
    ) -> list[BindAliasesRow]:
        return cast(
            "list[BindAliasesRow]",
            self._write(
                "entity.bind_aliases", namespace=namespace, aliases=aliases, type=type, id=id, origin=origin, now=now
            ),
        )

    def set_aliases(self, *, namespace: str, id: str, names: list[str], keys: list[str]) -> list[IdRow]:
        return cast(
            "list[IdRow]", self._write("entity.set_aliases", namespace=namespace, id=id, names=names, keys=keys)
        )

    def adopt(self, *, namespace: str, id: str, properties: dict[str, Any]) -> list[NodeRow]:
        return cast("list[NodeRow]", self._write("entity.adopt", namespace=namespace, id=id, properties=properties))

    def redirect(self, *, namespace: str, id: str) -> list[RedirectRow]:
        return cast("list[RedirectRow]", self._read("entity.redirect", namespace=namespace, id=id))

    def record(self, *, namespace: str, merge_id: str | None, merged_id: str | None) -> list[RecordRow]:
        return cast(
            "list[RecordRow]", self._write("entity.record", namespace=namespace, merge_id=merge_id, merged_id=merged_id)
        )

    def node_relationships(self, *, namespace: str, id: str) -> list[NodeRelationshipsRow]:
        return cast("list[NodeRelationshipsRow]", self._write("entity.node_relationships", namespace=namespace, id=id))

    def update_survivor(
        self, *, namespace: str, id: str, turn_ids: list[str], merged_id: str, name_key: str | None, now: datetime
    ) -> list[IdRow]:
        return cast(
            "list[IdRow]",
            self._write(
                "entity.update_survivor",
                namespace=namespace,
                id=id,
                turn_ids=turn_ids,
                merged_id=merged_id,
                name_key=name_key,
                now=now,
            ),
        )

    def unset_aliases(self, *, namespace: str, id: str, names: list[str], keys: list[str]) -> list[IdRow]:
        return cast(
            "list[IdRow]",
            self._write("entity.unset_aliases", namespace=namespace, id=id, names=names, keys=keys),
        )

    def restore_survivor(
        self, *, namespace: str, id: str, turn_ids: list[str], merged_id: str, name_key_set: bool, now: datetime
    ) -> list[IdRow]:
        return cast(
            "list[IdRow]",
            self._write(
                "entity.restore_survivor",
                namespace=namespace,
                id=id,
                turn_ids=turn_ids,
                merged_id=merged_id,
                name_key_set=name_key_set,
                now=now,
            ),
        )

    def repoint_aliases(self, *, namespace: str, from_id: str, to_id: str) -> list[RepointAliasesRow]:
        return cast(
            "list[RepointAliasesRow]",
            self._write("entity.repoint_aliases", namespace=namespace, from_id=from_id, to_id=to_id),
        )

    def restore_aliases(
        self, *, namespace: str, type: str, moved_keys: list[str], keep_id: str, merged_id: str, merge_id: str
    ) -> list[RestoreAliasesRow]:
        return cast(
            "list[RestoreAliasesRow]",
            self._write(
                "entity.restore_aliases",
                namespace=namespace,
                type=type,
                moved_keys=moved_keys,
                keep_id=keep_id,
                merged_id=merged_id,
                merge_id=merge_id,
            ),
        )

    def delete_links(self, *, namespace: str, links: list[LinkEnds]) -> list[DeletedRow]:
        return cast("list[DeletedRow]", self._write("entity.delete_links", namespace=namespace, links=links))

    def save_record(self, *, namespace: str, merge_id: str, record: dict[str, Any]) -> list[RecordRow]:
        return cast(
            "list[RecordRow]", self._write("entity.save_record", namespace=namespace, merge_id=merge_id, record=record)
        )

    def mark_split(self, *, namespace: str, merge_id: str, now: datetime, agent_id: str | None) -> list[RecordRow]:
        return cast(
            "list[RecordRow]",
            self._write("entity.mark_split", namespace=namespace, merge_id=merge_id, now=now, agent_id=agent_id),
        )

    def delete_records(self, *, namespace: str) -> list[DeletedRow]:
        return cast("list[DeletedRow]", self._write("entity.delete_records", namespace=namespace))
