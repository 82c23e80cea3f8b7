"""Typed calls of cypher/namespace.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict, cast

from app.stores.queries.runner import Queries


class UpsertRow(TypedDict):
    namespace: dict[str, Any]  # the Namespace node's properties
    created: bool


class GetRow(TypedDict):
    namespace: dict[str, Any]


class CountsByTypeRow(TypedDict):
    type: str
    count: int
    hot: int
    warm: int


class CountMemoriesRow(TypedDict):
    count: int


class DeletedRow(TypedDict):
    deleted: int


class ListNamesRow(TypedDict):
    name: str
    capacity: int
    low_water_ratio: float
    created_at: datetime


class NamespaceQueries(Queries):
    def upsert(
        self,
        *,
        namespace: str,
        now: datetime,
        capacity: int | None,
        default_capacity: int,
        low_water_ratio: float | None,
        default_low_water_ratio: float,
    ) -> list[UpsertRow]:
        return cast(
            "list[UpsertRow]",
            self._write(
                "namespace.upsert",
                namespace=namespace,
                now=now,
                capacity=capacity,
                default_capacity=default_capacity,
                low_water_ratio=low_water_ratio,
                default_low_water_ratio=default_low_water_ratio,
            ),
        )

    def get(self, *, namespace: str) -> list[GetRow]:
        return cast("list[GetRow]", self._read("namespace.get", namespace=namespace))

    def counts_by_type(self, *, namespace: str, hot_since: datetime, warm_since: datetime) -> list[CountsByTypeRow]:
        return cast(
            "list[CountsByTypeRow]",
            self._read("namespace.counts_by_type", namespace=namespace, hot_since=hot_since, warm_since=warm_since),
        )

    def count_memories(self, *, namespace: str) -> list[CountMemoriesRow]:
        return cast("list[CountMemoriesRow]", self._read("namespace.count_memories", namespace=namespace))

    def delete_relationships(self, *, namespace: str) -> list[DeletedRow]:
        return cast("list[DeletedRow]", self._batched("namespace.delete_relationships", namespace=namespace))

    def delete_memories(self, *, namespace: str) -> list[DeletedRow]:
        return cast("list[DeletedRow]", self._batched("namespace.delete_memories", namespace=namespace))

    def delete(self, *, namespace: str) -> list[DeletedRow]:
        return cast("list[DeletedRow]", self._write("namespace.delete", namespace=namespace))

    def list_names(self, *, namespace: str | None) -> list[ListNamesRow]:
        return cast("list[ListNamesRow]", self._read("namespace.list_names", namespace=namespace))
