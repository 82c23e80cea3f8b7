"""Accesses: recalls count them in Redis; a flush raises activation, re-anchors decay and promotes.

Per namespace, Redis keeps a hash of pending access counts per node. A flush moves it aside under a
batch id in one step (an interrupted flush is finished by the next one, under the same id) and
applies it (`cypher/learning.cypher`, `apply_accesses`); each node records the last batch it
absorbed, so no access is counted twice. The recall path itself never writes to the graph.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime

import redis

from app.domain.decay import ACCESS_BOOST
from app.domain.importance import PROMOTION_ACCESS_COUNT, promote_on_access
from app.domain.model import LN2, Importance, half_life_table
from app.stores.graph import GraphStore
from app.stores.hot import namespace_key
from app.stores.queries.learning_queries import Access, LearningQueries

FLUSH_BATCH = 5000

# The promotion rule of app/domain/importance.py, as a map for Cypher: the level each one rises to.
PROMOTIONS = {
    level.value: promoted.value
    for level in Importance
    if (promoted := promote_on_access(level, PROMOTION_ACCESS_COUNT)) != level
}


class AccessLog:
    def __init__(self, graph: GraphStore, hot: redis.Redis) -> None:
        self.graph = graph
        self.hot = hot

    def _keys(self, namespace: str) -> tuple[str, str, str]:
        return (
            namespace_key(namespace, "access", "pending"),
            namespace_key(namespace, "access", "flushing"),
            namespace_key(namespace, "access", "batch"),
        )

    def record(self, namespace: str, node_ids: Iterable[str]) -> None:
        pipe = self.hot.pipeline(transaction=True)
        self.queue(pipe, namespace, node_ids)
        pipe.execute()

    def queue(self, pipe: redis.client.Pipeline, namespace: str, node_ids: Iterable[str]) -> None:
        """`record`'s writes on the caller's pipeline, which executes them (a recall writes its
        accesses and co-activations in one round trip)."""
        pending, _, _ = self._keys(namespace)
        for node_id in set(node_ids):
            pipe.hincrby(pending, node_id, 1)

    def flush(self, namespace: str, now: datetime) -> int:
        """Apply pending accesses; returns the number of nodes updated."""
        pending, flushing, batch_key = self._keys(namespace)
        if not self.hot.exists(flushing):
            if not self.hot.exists(pending):
                return 0
            pipe = self.hot.pipeline(transaction=True)
            pipe.rename(pending, flushing)
            pipe.set(batch_key, uuid.uuid4().hex)
            pipe.execute()
        batch = str(self.hot.get(batch_key))
        counts = self.hot.hgetall(flushing)
        accesses = [Access(id=node_id, count=int(count)) for node_id, count in counts.items()]  # type: ignore[union-attr,typeddict-item]
        updated = 0
        for start in range(0, len(accesses), FLUSH_BATCH):
            updated += LearningQueries(self.graph).apply_accesses(
                namespace=namespace,
                accesses=accesses[start : start + FLUSH_BATCH],
                batch=batch,
                now=now,
                ln2=LN2,
                half_lives=half_life_table(),
                keep=1.0 - ACCESS_BOOST,
                promote_at=PROMOTION_ACCESS_COUNT,
                promotions=PROMOTIONS,
            )[0]["updated"]
        self.hot.delete(flushing, batch_key)
        return updated
