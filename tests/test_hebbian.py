"""Hebbian learning through Redis counts and the flush job, on real Redis and Neo4j."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.domain.inputs import NewLink, NewMemory
from app.domain.model import NodeType, RelType
from jobs.celery_tasks import flush_activity
from jobs.engines import use_runtime

T = datetime(2024, 5, 15, 10, 0, tzinfo=UTC)


def _node(runtime, ns: str, key: str, links=()) -> str:
    memory = NewMemory(type=NodeType.CONCEPT, label=key, content=f"concept {key}", id=f"concept:{key}",
                       links=tuple(links))  # fmt: skip
    return runtime.nodes.save(ns, memory, now=T)[0]["id"]


def _edges(cypher, ns: str, rel_type: str) -> list[dict]:
    return cypher(
        "MATCH (a:Memory {namespace: $ns})-[r]->(b) WHERE type(r) = $t "
        "RETURN a.id AS a, b.id AS b, r.weight AS w, r.co_activations AS n, r.protected AS p",
        ns=ns,
        t=rel_type,
    )


def test_association_appears_exactly_at_the_third_co_activation(runtime, cypher, namespace) -> None:
    runtime.namespaces.put(namespace)
    a, b = _node(runtime, namespace, "a"), _node(runtime, namespace, "b")
    for expected_edges in (0, 0):
        runtime.learning.record(namespace, [a, b])
        runtime.learning.flush(namespace, T)
        assert len(_edges(cypher, namespace, "ASSOCIATION")) == expected_edges
    runtime.learning.record(namespace, [b, a])
    report = runtime.learning.flush(namespace, T)
    assert report.created == 1
    [edge] = _edges(cypher, namespace, "ASSOCIATION")
    assert (edge["a"], edge["b"], edge["n"], edge["p"]) == (a, b, 3, False)
    w3 = 1 - 0.9**3
    assert edge["w"] == pytest.approx(w3, abs=1e-12)

    runtime.learning.record(namespace, [a, b])
    runtime.learning.flush(namespace, T)
    [edge] = _edges(cypher, namespace, "ASSOCIATION")
    assert edge["w"] == pytest.approx(w3 + 0.1 * (1 - w3), abs=1e-12)
    runtime.learning.flush(namespace, T)  # nothing new recorded: a repeated flush changes nothing
    assert _edges(cypher, namespace, "ASSOCIATION")[0]["w"] == pytest.approx(w3 + 0.1 * (1 - w3), abs=1e-12)


def test_reinforcement_starts_from_the_decayed_weight(runtime, cypher, namespace) -> None:
    runtime.namespaces.put(namespace)
    a = _node(runtime, namespace, "a")
    b = _node(runtime, namespace, "b", links=[NewLink(RelType.REFERENCE, a, 0.5)])
    runtime.learning.record(namespace, [a, b])
    runtime.learning.flush(namespace, T + timedelta(hours=168))  # one edge half-life later: 0.25
    [edge] = _edges(cypher, namespace, "REFERENCE")
    assert edge["w"] == pytest.approx(0.25 + 0.1 * 0.75, abs=1e-12)
    assert not _edges(cypher, namespace, "ASSOCIATION")


def test_the_beat_task_flushes_every_namespace(runtime, cypher, namespace) -> None:
    runtime.namespaces.put(namespace)
    a, b, c = (_node(runtime, namespace, k) for k in "abc")
    for _ in range(3):
        runtime.learning.record(namespace, [a, b, c])
    use_runtime(runtime)
    try:
        result = flush_activity.run()
    finally:
        use_runtime(None)
    learning = result[namespace]["learning"]
    assert (learning["pairs"], learning["created"]) == (3, 3)
    assert len(_edges(cypher, namespace, "ASSOCIATION")) == 3
