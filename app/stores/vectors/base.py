"""The vector-store interface shared by every backend.

One collection holds every namespace (Qdrant's multitenancy pattern): each point carries
`namespace` and `node_id` in its payload and every call filters on the namespace. The point id is a
UUID derived from (namespace, node id), so upserting the same node twice replaces its vector.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# Fixed namespace for point ids; changing it would orphan every stored vector.
_POINT_ID_NAMESPACE = uuid.UUID("6f1d4c52-9a57-4a43-9d1c-7d5b3f0e2a11")

NAMESPACE_KEY = "namespace"
NODE_ID_KEY = "node_id"

# Equality filters on payload keys: a value matches exactly, a sequence matches any of its values.
PayloadMatch = Mapping[str, str | int | bool | Sequence[str]]


def point_id(namespace: str, node_id: str) -> str:
    return str(uuid.uuid5(_POINT_ID_NAMESPACE, f"{namespace}\x1f{node_id}"))


@dataclass(frozen=True)
class VectorRecord:
    node_id: str
    vector: Sequence[float]
    payload: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class VectorHit:
    node_id: str
    score: float
    payload: dict[str, Any]


class VectorDimensionError(ValueError):
    pass


class VectorStore(ABC):
    """Namespace-scoped cosine search over one vector per memory node."""

    backend: str

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension

    def _payload(self, namespace: str, record: VectorRecord) -> dict[str, Any]:
        if len(record.vector) != self.dimension:
            raise VectorDimensionError(
                f"vector for {record.node_id} has {len(record.vector)} dimensions, expected {self.dimension}"
            )
        return {**record.payload, NAMESPACE_KEY: namespace, NODE_ID_KEY: record.node_id}

    @abstractmethod
    def upsert(self, namespace: str, records: Sequence[VectorRecord]) -> None: ...

    def search(
        self, namespace: str, vector: Sequence[float], limit: int, match: PayloadMatch | None = None
    ) -> list[VectorHit]:
        return self.search_many(namespace, [vector], limit, match)[0]

    def search_many(
        self, namespace: str, vectors: Sequence[Sequence[float]], limit: int, match: PayloadMatch | None = None
    ) -> list[list[VectorHit]]:
        """The hits of each vector, in order, from one call to the engine (the write path searches
        the neighbours of a whole batch at once)."""
        return self._search_batch(namespace, vectors, limit, match) if vectors else []

    @abstractmethod
    def _search_batch(
        self, namespace: str, vectors: Sequence[Sequence[float]], limit: int, match: PayloadMatch | None
    ) -> list[list[VectorHit]]:
        """`search_many` for at least one vector; each backend's batch query."""

    @staticmethod
    def _hits(points: Iterable[Any]) -> list[VectorHit]:
        """Scored points of either engine (`.score`, `.payload`) as hits."""
        return [
            VectorHit(node_id=str(p.payload[NODE_ID_KEY]), score=float(p.score), payload=dict(p.payload))
            for p in points
            if p.payload
        ]

    @abstractmethod
    def delete(self, namespace: str, node_ids: Sequence[str]) -> None: ...

    @abstractmethod
    def delete_namespace(self, namespace: str) -> None: ...

    @abstractmethod
    def count(self, namespace: str) -> int: ...

    def optimize(self) -> bool:
        """Build search indexes for what was added since the last call; True when anything was done.
        Only the embedded engine needs this (a Qdrant server optimizes by itself): see the
        `hippograph.optimize_vectors` job."""
        return False

    @abstractmethod
    def ping(self) -> None:
        """Raise when the engine cannot serve requests."""

    @abstractmethod
    def close(self) -> None: ...
