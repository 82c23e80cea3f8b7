"""Accesses recorded in Redis raise activation and promote importance through the flush."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.domain.inputs import NewMemory
from app.domain.model import Importance, NodeType

T0 = datetime(2024, 5, 15, 10, 0, tzinfo=UTC)


def _node(runtime, cypher, ns: str, key: str, importance: Importance) -> str:
    memory = NewMemory(type=NodeType.DOCUMENT, label=key, content=f"document {key}", id=f"document:{key}",
                       importance=importance)  # fmt: skip
    return runtime.nodes.save(ns, memory, now=T0)[0]["id"]


def _node_state(cypher, ns: str, node_id: str) -> dict:
    return cypher(
        "MATCH (m:Memory {namespace: $ns, id: $id}) RETURN m.activation AS a, m.activation_base AS base, "
        "m.access_count AS n, m.importance AS importance, m.last_accessed AS last",
        ns=ns,
        id=node_id,
    )[0]


def test_an_access_wakes_a_soft_forgotten_node(runtime, cypher, namespace) -> None:
    runtime.namespaces.put(namespace)
    node = _node(runtime, cypher, namespace, "old", Importance.NORMAL)
    later = T0 + timedelta(hours=24 * 6)  # six half-lives: 1/64
    report = runtime.forgetting.decay(namespace, later)
    assert report.soft_forgotten == 1
    runtime.accesses.record(namespace, [node])
    assert runtime.accesses.flush(namespace, later) == 1
    state = _node_state(cypher, namespace, node)
    assert state["a"] == pytest.approx(1 / 64 + 0.5 * (1 - 1 / 64), abs=1e-12)
    assert state["base"] == state["a"] and state["n"] == 1 and state["last"] == later
    assert runtime.forgetting.decay(namespace, later).soft_forgotten == 0
    assert runtime.accesses.flush(namespace, later) == 0  # nothing pending: nothing changes
    assert _node_state(cypher, namespace, node)["n"] == 1


def test_the_third_access_promotes_normal_to_important_once(runtime, cypher, namespace) -> None:
    runtime.namespaces.put(namespace)
    normal = _node(runtime, cypher, namespace, "normal", Importance.NORMAL)
    fact = _node(runtime, cypher, namespace, "fact", Importance.FACT)
    for expected in ("NORMAL", "NORMAL", "IMPORTANT"):
        runtime.accesses.record(namespace, [normal, fact])
        runtime.accesses.flush(namespace, T0)
        assert _node_state(cypher, namespace, normal)["importance"] == expected
    for _ in range(3):
        runtime.accesses.record(namespace, [normal])
        runtime.accesses.flush(namespace, T0)
    assert _node_state(cypher, namespace, normal)["importance"] == "IMPORTANT"  # one step, at the crossing
    assert _node_state(cypher, namespace, fact)["importance"] == "FACT"  # only TRIVIAL and NORMAL rise
    assert _node_state(cypher, namespace, normal)["n"] == 6


def test_an_interrupted_flush_is_finished_without_counting_twice(runtime, cypher, namespace) -> None:
    runtime.namespaces.put(namespace)
    node = _node(runtime, cypher, namespace, "n", Importance.IMPORTANT)
    runtime.accesses.record(namespace, [node])
    runtime.accesses.flush(namespace, T0)
    # Simulate a crash after the graph write: the batch is still parked in Redis.
    runtime.accesses.record(namespace, [node])
    pending, flushing, batch = runtime.accesses._keys(namespace)
    runtime.redis.rename(pending, flushing)
    runtime.redis.set(batch, "batch-1")
    runtime.accesses.flush(namespace, T0)  # applies batch-1
    runtime.redis.hset(flushing, node, 1)  # the crash left the parked batch behind
    runtime.redis.set(batch, "batch-1")
    runtime.accesses.flush(namespace, T0)  # the same batch again: skipped by the node
    assert _node_state(cypher, namespace, node)["n"] == 2
