"""Forgetting: decay (never compounding), soft forgetting, pruning to capacity.

Decay recomputes every node's activation and every learned edge's weight from stored anchors
(`cypher/forgetting.cypher`). A node below the soft-forget threshold leaves the hot path but keeps
its vector. Pruning deletes the lowest activation x importance-weight nodes of a namespace over its
capacity down to the low-water mark (never MUST_REMEMBER, never a node on a structural edge),
with their vectors, and removes learned edges whose weight fell below the floor.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.domain.decay import EDGE_HALF_LIFE_HOURS, EDGE_WEIGHT_FLOOR, SOFT_FORGET_THRESHOLD
from app.domain.model import LN2, half_life_table, prune_weight_table
from app.memory.namespaces import Namespaces
from app.stores.graph import GraphStore
from app.stores.queries.forgetting_queries import ForgettingQueries
from app.stores.queries.memory_queries import MemoryQueries
from app.stores.queries.namespace_queries import NamespaceQueries
from app.stores.vectors import VectorStore

DELETE_BATCH = 50_000
DELETE_ATTEMPTS = 3


@dataclass(frozen=True)
class DecayReport:
    nodes: int
    edges: int
    soft_forgotten: int


@dataclass(frozen=True)
class PruneReport:
    before: int
    after: int
    deleted_nodes: int
    deleted_edges: int


class Forgetting:
    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        namespaces: Namespaces,
        soft_forget_threshold: float = SOFT_FORGET_THRESHOLD,
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.namespaces = namespaces
        self.soft_forget_threshold = soft_forget_threshold

    def decay(self, namespace: str, now: datetime) -> DecayReport:
        queries = ForgettingQueries(self.graph)
        nodes = queries.decay_nodes(namespace=namespace, now=now, ln2=LN2, half_lives=half_life_table())[0]["decayed"]
        edges = queries.decay_edges(
            namespace=namespace,
            now=now,
            ln2=LN2,
            edge_half_life=EDGE_HALF_LIFE_HOURS,
        )[0]["decayed"]
        soft = queries.count_soft_forgotten(namespace=namespace, threshold=self.soft_forget_threshold)[0]["count"]
        return DecayReport(nodes=nodes, edges=edges, soft_forgotten=soft)

    def prune(self, namespace: str) -> PruneReport:
        settings = self.namespaces.settings_of(namespace)
        queries = ForgettingQueries(self.graph)
        before = NamespaceQueries(self.graph).count_memories(namespace=namespace)[0]["count"]
        deleted_nodes = 0
        if before > settings.capacity:
            victims = [
                row["id"]
                for row in queries.prune_candidates(
                    namespace=namespace,
                    prune_weights=prune_weight_table(),
                    limit=before - settings.low_water_mark,
                )
            ]
            for start in range(0, len(victims), DELETE_BATCH):
                deleted_nodes += self._delete_nodes(namespace, victims[start : start + DELETE_BATCH])
        deleted_edges = queries.delete_weak_edges(namespace=namespace, floor=EDGE_WEIGHT_FLOOR)[0]["deleted"]
        return PruneReport(before, before - deleted_nodes, deleted_nodes, deleted_edges)

    def _delete_nodes(self, namespace: str, ids: list[str]) -> int:
        """Delete nodes and then their vectors (a vector orphaned by a crash between the two points at
        nothing and is ignored). Batches lost to lock conflicts are retried a few times."""
        deleted = 0
        remaining = ids
        for _ in range(DELETE_ATTEMPTS):
            row = ForgettingQueries(self.graph).delete_nodes(namespace=namespace, ids=remaining)[0]
            deleted += row["deleted"] or 0
            if row["deleted"] == row["attempted"]:
                break
            missing = set(MemoryQueries(self.graph).missing_ids(namespace=namespace, ids=remaining)[0]["missing"])
            remaining = [node_id for node_id in remaining if node_id not in missing]
        self.vectors.delete(namespace, ids)
        return deleted
