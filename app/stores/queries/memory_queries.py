"""Typed calls of cypher/memory.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from typing import Any, TypedDict, cast

from app.stores.queries.runner import Queries


class NodeRow(TypedDict):
    """A memory node: its properties (open: they differ by type) and its type label."""

    node: dict[str, Any]
    type: str


class CreateRow(NodeRow):
    created: bool


class MissingIdsRow(TypedDict):
    missing: list[str]


class ForgetRow(TypedDict):
    deleted: int


class MemoryQueries(Queries):
    def create(
        self, *, namespace: str, id: str, type: str, properties: dict[str, Any], namespace_term: str
    ) -> list[CreateRow]:
        return cast(
            "list[CreateRow]",
            self._write(
                "memory.create",
                namespace=namespace,
                id=id,
                type=type,
                properties=properties,
                namespace_term=namespace_term,
            ),
        )

    def get(self, *, namespace: str, id: str) -> list[NodeRow]:
        return cast("list[NodeRow]", self._read("memory.get", namespace=namespace, id=id))

    def missing_ids(self, *, namespace: str, ids: list[str]) -> list[MissingIdsRow]:
        return cast("list[MissingIdsRow]", self._read("memory.missing_ids", namespace=namespace, ids=ids))

    def update(self, *, namespace: str, id: str, properties: dict[str, Any]) -> list[NodeRow]:
        return cast("list[NodeRow]", self._write("memory.update", namespace=namespace, id=id, properties=properties))

    def forget(self, *, namespace: str, id: str) -> list[ForgetRow]:
        return cast("list[ForgetRow]", self._write("memory.forget", namespace=namespace, id=id))
