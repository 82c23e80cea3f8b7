"""Typed calls of cypher/bench.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypedDict, cast

from app.stores.queries.link_queries import NewLink
from app.stores.queries.runner import Queries


class BenchNode(TypedDict):
    type: str
    id: str
    properties: dict[str, Any]


class NodeUpdate(TypedDict):
    id: str
    properties: dict[str, Any]


class CreatedRow(TypedDict):
    created: int


class UpdateMemoriesRow(TypedDict):
    updated: int


class ResetActivationRow(TypedDict):
    reset: int


class BenchQueries(Queries):
    def load_nodes(
        self,
        *,
        namespace: str,
        start: int,
        end: int,
        types: list[str],
        levels: list[str],
        now: datetime,
        spread_hours: int,
        namespace_term: str,
    ) -> list[CreatedRow]:
        return cast(
            "list[CreatedRow]",
            self._batched(
                "bench.load_nodes",
                namespace=namespace,
                start=start,
                end=end,
                types=types,
                levels=levels,
                now=now,
                spread_hours=spread_hours,
                namespace_term=namespace_term,
            ),
        )

    def load_edges(self, *, namespace: str, start: int, end: int, types: list[str]) -> list[CreatedRow]:
        return cast(
            "list[CreatedRow]",
            self._batched("bench.load_edges", namespace=namespace, start=start, end=end, types=types),
        )

    def load_memories(self, *, namespace: str, rows: Sequence[BenchNode], namespace_term: str) -> list[CreatedRow]:
        return cast(
            "list[CreatedRow]",
            self._write("bench.load_memories", namespace=namespace, rows=rows, namespace_term=namespace_term),
        )

    def load_relationships(self, *, namespace: str, rows: Sequence[NewLink]) -> list[CreatedRow]:
        return cast("list[CreatedRow]", self._write("bench.load_relationships", namespace=namespace, rows=rows))

    def update_memories(self, *, namespace: str, rows: Sequence[NodeUpdate]) -> list[UpdateMemoriesRow]:
        return cast("list[UpdateMemoriesRow]", self._write("bench.update_memories", namespace=namespace, rows=rows))

    def reset_activation(self, *, namespace: str) -> list[ResetActivationRow]:
        return cast("list[ResetActivationRow]", self._batched("bench.reset_activation", namespace=namespace))
