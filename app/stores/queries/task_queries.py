"""Typed calls of cypher/tasks.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict, cast

from app.stores.queries.runner import Queries


class LookupRow(TypedDict):
    id: str
    found: bool
    task: bool
    private: bool | None
    agent_id: str | None
    status: str | None


class Dependency(TypedDict):
    id: str
    status: str


class TreeRow(TypedDict):
    node: dict[str, Any]  # the task node's properties
    depth: int
    parent_id: str | None
    depends_on: list[Dependency]
    has_subtasks: bool


class DependencyCyclesRow(TypedDict):
    closing: list[str]


class BelowRow(TypedDict):
    below: bool


class DroppedRow(TypedDict):
    dropped: int


class TaskProperties(TypedDict):
    id: str
    properties: dict[str, Any]  # a null value removes the property


class ActivationAnchor(TypedDict):
    """A node's activation as of a suspension (app/memory/suspension.py, resume)."""

    id: str
    activation: float
    activation_base: float
    last_accessed: datetime


class SetPropertiesRow(TypedDict):
    updated: int


class NeighboursRow(TypedDict):
    id: str


class NodesRow(TypedDict):
    id: str
    labels: list[str]
    properties: dict[str, Any]  # the node's stored properties


class RelationshipsAmongRow(TypedDict):
    type: str
    source: str
    target: str
    properties: dict[str, Any]


class RestoreActivationsRow(TypedDict):
    restored: list[str]


class TaskQueries(Queries):
    def lookup(self, *, namespace: str, ids: list[str]) -> list[LookupRow]:
        return cast("list[LookupRow]", self._read("tasks.lookup", namespace=namespace, ids=ids))

    def tree(self, *, namespace: str, id: str, depth: int) -> list[TreeRow]:
        return cast("list[TreeRow]", self._read("tasks.tree", namespace=namespace, id=id, depth=depth))

    def dependency_cycles(self, *, namespace: str, depends_on: list[str], id: str) -> list[DependencyCyclesRow]:
        return cast(
            "list[DependencyCyclesRow]",
            self._write("tasks.dependency_cycles", namespace=namespace, depends_on=depends_on, id=id),
        )

    def below(self, *, namespace: str, id: str, parent_id: str) -> list[BelowRow]:
        return cast("list[BelowRow]", self._write("tasks.below", namespace=namespace, id=id, parent_id=parent_id))

    def drop_dependencies(self, *, namespace: str, id: str, keep: list[str]) -> list[DroppedRow]:
        return cast("list[DroppedRow]", self._write("tasks.drop_dependencies", namespace=namespace, id=id, keep=keep))

    def drop_parents(self, *, namespace: str, id: str, parent_id: str | None) -> list[DroppedRow]:
        return cast(
            "list[DroppedRow]",
            self._write("tasks.drop_parents", namespace=namespace, id=id, parent_id=parent_id),
        )

    def set_properties(self, *, namespace: str, rows: list[TaskProperties]) -> list[SetPropertiesRow]:
        return cast("list[SetPropertiesRow]", self._write("tasks.set_properties", namespace=namespace, rows=rows))

    def neighbours(self, *, namespace: str, ids: list[str], limit: int) -> list[NeighboursRow]:
        return cast("list[NeighboursRow]", self._read("tasks.neighbours", namespace=namespace, ids=ids, limit=limit))

    def nodes(self, *, namespace: str, ids: list[str]) -> list[NodesRow]:
        return cast("list[NodesRow]", self._read("tasks.nodes", namespace=namespace, ids=ids))

    def relationships_among(self, *, namespace: str, ids: list[str]) -> list[RelationshipsAmongRow]:
        return cast(
            "list[RelationshipsAmongRow]", self._read("tasks.relationships_among", namespace=namespace, ids=ids)
        )

    def restore_activations(
        self, *, namespace: str, rows: list[ActivationAnchor], suspended_at: datetime
    ) -> list[RestoreActivationsRow]:
        return cast(
            "list[RestoreActivationsRow]",
            self._write("tasks.restore_activations", namespace=namespace, rows=rows, suspended_at=suspended_at),
        )
