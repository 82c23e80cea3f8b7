"""Namespaces: create with settings, show with counts (per type and temperature), erase everything they hold."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis

from app.domain.inputs import MAX_CAPACITY, InputError, check_namespace
from app.domain.tags import temperature_bounds
from app.errors import EngineUnavailable
from app.memory.errors import NotFoundError
from app.stores.graph import GraphStore
from app.stores.hot import delete_namespace_keys, namespace_key
from app.stores.queries.entity_queries import EntityQueries
from app.stores.queries.erasure_queries import ErasureQueries
from app.stores.queries.namespace_queries import ListNamesRow, NamespaceQueries
from app.stores.vectors import VectorStore

DEFAULT_CAPACITY = 100_000
DEFAULT_LOW_WATER_RATIO = 0.9
# Seconds Redis remembers that a namespace exists (`exists_marker`), renewed at each check that reads
# Neo4j. The marker goes with the namespace's other hot keys when it is erased.
EXISTS_MARKER_TTL_S = 3600


@dataclass(frozen=True)
class NamespaceSettings:
    capacity: int = DEFAULT_CAPACITY
    low_water_ratio: float = DEFAULT_LOW_WATER_RATIO

    def __post_init__(self) -> None:
        if not 1 <= self.capacity <= MAX_CAPACITY:
            raise InputError("capacity", f"must be between 1 and {MAX_CAPACITY}")
        if not 0.0 < self.low_water_ratio <= 1.0:
            raise InputError("low_water_ratio", "must be in (0, 1]")

    @property
    def low_water_mark(self) -> int:
        return int(self.capacity * self.low_water_ratio)


class Namespaces:
    def __init__(self, graph: GraphStore, vectors: VectorStore, hot: redis.Redis) -> None:
        self.graph = graph
        self.vectors = vectors
        self.hot = hot

    def put(
        self, namespace: str, capacity: int | None = None, low_water_ratio: float | None = None
    ) -> tuple[dict[str, Any], bool]:
        """Create the namespace or update the settings given; returns (namespace, created)."""
        check_namespace(namespace)
        NamespaceSettings(  # validates what was given
            capacity if capacity is not None else DEFAULT_CAPACITY,
            low_water_ratio if low_water_ratio is not None else DEFAULT_LOW_WATER_RATIO,
        )
        row = NamespaceQueries(self.graph).upsert(
            namespace=namespace,
            now=datetime.now(UTC),
            capacity=capacity,
            low_water_ratio=low_water_ratio,
            default_capacity=DEFAULT_CAPACITY,
            default_low_water_ratio=DEFAULT_LOW_WATER_RATIO,
        )[0]
        with contextlib.suppress(EngineUnavailable):  # a shortcut only: the write path reads Neo4j without it
            self.hot.set(self.exists_marker(namespace), "1", ex=EXISTS_MARKER_TTL_S)
        return row["namespace"], bool(row["created"])

    @staticmethod
    def exists_marker(namespace: str) -> str:
        """The Redis key saying the namespace exists: the write path (POST …/turns) checks it there,
        so acknowledging turns needs Redis only, not Neo4j (a hung Neo4j does not hold it)."""
        return namespace_key(namespace, "exists")

    def require_known(self, namespace: str) -> None:
        """`require` answered by Redis when it can: the namespace's marker, else Neo4j once (which
        sets it). NotFoundError when it does not exist."""
        marker = self.exists_marker(check_namespace(namespace))
        if self.hot.exists(marker):
            return
        self.require(namespace)
        self.hot.set(marker, "1", ex=EXISTS_MARKER_TTL_S)

    def exists(self, namespace: str) -> bool:
        return bool(NamespaceQueries(self.graph).get(namespace=check_namespace(namespace)))

    def require(self, namespace: str) -> dict[str, Any]:
        """The stored namespace; NotFoundError (404 naming `namespace`) when it does not exist."""
        rows = NamespaceQueries(self.graph).get(namespace=check_namespace(namespace))
        if not rows:
            raise NotFoundError("namespace", f"namespace {namespace!r} does not exist")
        return rows[0]["namespace"]

    def settings_of(self, namespace: str) -> NamespaceSettings:
        stored = self.require(namespace)
        return NamespaceSettings(stored["capacity"], stored["low_water_ratio"])

    def show(self, namespace: str) -> dict[str, Any]:
        stored = self.require(namespace)
        bounds = temperature_bounds(datetime.now(UTC))
        rows = NamespaceQueries(self.graph).counts_by_type(
            namespace=namespace,
            hot_since=bounds["hot_since"],
            warm_since=bounds["warm_since"],
        )
        counts = {r["type"]: r["count"] for r in rows}
        hot, warm = sum(r["hot"] for r in rows), sum(r["warm"] for r in rows)
        total = sum(counts.values())
        return {
            **stored,
            "counts": counts,
            "temperatures": {"hot": hot, "warm": warm, "cold": total - hot - warm},
            "total": total,
            "vectors": self.vectors.count(namespace),
        }

    def delete(self, namespace: str) -> dict[str, int]:
        """Erase the namespace's graph, vectors and hot state, and nothing else. The hot state goes
        first: its pending turns can no longer be ingested into the graph being erased, and a Redis
        outage stops the erase before anything else is gone. Every step is idempotent, so after a
        failure half-way (503) the same delete again finishes it; the namespace's own node goes last."""
        self.require(namespace)
        hot_keys = delete_namespace_keys(self.hot, namespace)
        queries = NamespaceQueries(self.graph)
        queries.delete_relationships(namespace=namespace)
        deleted = queries.delete_memories(namespace=namespace)[0]["deleted"]
        EntityQueries(self.graph).delete_records(namespace=namespace)  # aliases and merge records
        self.vectors.delete_namespace(namespace)
        ErasureQueries(self.graph).delete_audit(namespace=namespace)  # its forgettings' audit records
        queries.delete(namespace=namespace)
        # Again at the end: a turn post that read the namespace from Neo4j meanwhile may have set it.
        self.hot.delete(self.exists_marker(namespace))
        return {"nodes": deleted, "hot_keys": hot_keys}

    def names(self) -> list[str]:
        return [row["name"] for row in self.listing()]

    def listing(self, only: str | None = None) -> list[ListNamesRow]:
        """Every namespace (name, capacity, low_water_ratio) by name, or just `only` if it exists."""
        return NamespaceQueries(self.graph).list_names(namespace=only)
