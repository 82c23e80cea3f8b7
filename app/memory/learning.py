"""Hebbian learning: record co-activations in Redis, turn them into ASSOCIATION edges in a flush.

Redis keeps, per namespace, a hash of co-activation totals per pair (never reset) and a set of
pairs touched since the last flush. A flush moves the touched set aside atomically, reads the
totals and applies them (`cypher/learning.cypher`); the graph records the total each relationship
has absorbed, so a flush that is repeated or interrupted never counts a co-activation twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import redis

from app.domain.decay import EDGE_HALF_LIFE_HOURS
from app.domain.hebbian import EDGE_AT_CO_ACTIVATION, LEARNING_RATE, co_activated_pairs, split_pair_key
from app.domain.model import LN2
from app.stores.graph import GraphStore
from app.stores.hot import namespace_key
from app.stores.queries.learning_queries import CoActivation, LearningQueries

FLUSH_BATCH = 1000


@dataclass(frozen=True)
class FlushReport:
    pairs: int
    reinforced: int
    created: int


class HebbianLearning:
    def __init__(self, graph: GraphStore, hot: redis.Redis) -> None:
        self.graph = graph
        self.hot = hot

    def _keys(self, namespace: str) -> tuple[str, str, str]:
        return (
            namespace_key(namespace, "coact", "totals"),
            namespace_key(namespace, "coact", "dirty"),
            namespace_key(namespace, "coact", "flushing"),
        )

    def record(self, namespace: str, node_ids: Iterable[str]) -> int:
        """Count one co-activation for every pair among `node_ids`; returns the number of pairs."""
        pipe = self.hot.pipeline(transaction=True)
        pairs = self.queue(pipe, namespace, node_ids)
        pipe.execute()
        return pairs

    def queue(self, pipe: redis.client.Pipeline, namespace: str, node_ids: Iterable[str]) -> int:
        """`record`'s writes on the caller's pipeline, which executes them; returns the number of pairs."""
        pairs = co_activated_pairs(node_ids)
        if not pairs:
            return 0
        totals, dirty, _ = self._keys(namespace)
        for pair in pairs:
            pipe.hincrby(totals, pair, 1)
        pipe.sadd(dirty, *pairs)
        return len(pairs)

    def flush(self, namespace: str, now: datetime) -> FlushReport:
        totals_key, dirty, flushing = self._keys(namespace)
        # Move the touched pairs aside in one step; pairs left by an interrupted flush are kept.
        pipe = self.hot.pipeline(transaction=True)
        pipe.sunionstore(flushing, [flushing, dirty])
        pipe.delete(dirty)
        pipe.execute()
        pairs = sorted(self.hot.smembers(flushing))  # type: ignore[arg-type]
        reinforced = created = 0
        for start in range(0, len(pairs), FLUSH_BATCH):
            batch = pairs[start : start + FLUSH_BATCH]
            totals = self.hot.hmget(totals_key, batch)
            rows: list[CoActivation] = []
            for key, total in zip(batch, totals, strict=True):  # type: ignore[arg-type]
                a, b = split_pair_key(str(key))
                rows.append(CoActivation(a=a, b=b, total=int(total or 0)))
            result = LearningQueries(self.graph).apply_co_activations(
                namespace=namespace,
                pairs=rows,
                now=now,
                ln2=LN2,
                edge_half_life=EDGE_HALF_LIFE_HOURS,
                keep=1.0 - LEARNING_RATE,
                edge_at=EDGE_AT_CO_ACTIVATION,
            )
            if result:
                reinforced += result[0]["reinforced"] or 0
                created += result[0]["created"] or 0
        self.hot.delete(flushing)
        return FlushReport(pairs=len(pairs), reinforced=reinforced, created=created)
