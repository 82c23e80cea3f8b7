"""Typed calls of cypher/transfer.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from typing import Any, TypedDict, cast

from app.stores.queries.runner import Queries


class Visibility(TypedDict):
    private: bool | None
    agent_id: str | None


class ExportNodesRow(TypedDict):
    id: str
    labels: list[str]
    properties: dict[str, Any]  # the node's stored properties


class ExportedRelationship(TypedDict):
    type: str
    target: str
    properties: dict[str, Any]
    visibility: Visibility  # of the target


class ExportRelationshipsRow(TypedDict):
    source: str
    visibility: Visibility  # of the source
    relationships: list[ExportedRelationship]


class ImportNode(TypedDict):
    type: str
    properties: dict[str, Any]


class ImportRelationship(TypedDict):
    type: str
    source: str
    target: str
    properties: dict[str, Any]


class CreatedRow(TypedDict):
    created: int


class TransferQueries(Queries):
    def export_nodes(self, *, namespace: str, after: str, limit: int) -> list[ExportNodesRow]:
        return cast(
            "list[ExportNodesRow]", self._read("transfer.export_nodes", namespace=namespace, after=after, limit=limit)
        )

    def export_relationships(self, *, namespace: str, after: str, limit: int) -> list[ExportRelationshipsRow]:
        return cast(
            "list[ExportRelationshipsRow]",
            self._read("transfer.export_relationships", namespace=namespace, after=after, limit=limit),
        )

    def import_nodes(self, *, namespace: str, nodes: list[ImportNode]) -> list[CreatedRow]:
        return cast("list[CreatedRow]", self._write("transfer.import_nodes", namespace=namespace, nodes=nodes))

    def import_relationships(self, *, namespace: str, relationships: list[ImportRelationship]) -> list[CreatedRow]:
        return cast(
            "list[CreatedRow]",
            self._write("transfer.import_relationships", namespace=namespace, relationships=relationships),
        )
