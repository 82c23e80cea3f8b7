"""Decay, soft forgetting and pruning on a real Neo4j, with a controllable clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.domain.decay import EDGE_HALF_LIFE_HOURS, node_activation
from app.domain.inputs import NewLink, NewMemory
from app.domain.model import Importance, NodeType, RelType

T0 = datetime(2024, 5, 15, 10, 0, tzinfo=UTC)


def _save(runtime, ns: str, key: str, importance: Importance, at: datetime, links=()) -> str:
    memory = NewMemory(type=NodeType.KNOWLEDGE, label=key, content=f"note {key} about item {key}",
                       importance=importance, id=f"knowledge:{key}", links=tuple(links))  # fmt: skip
    node, created = runtime.nodes.save(ns, memory, now=at)
    assert created
    return node["id"]


def _activations(cypher, ns: str) -> dict[str, float]:
    rows = cypher("MATCH (m:Memory {namespace: $ns}) RETURN m.id AS id, m.activation AS a", ns=ns)
    return {row["id"]: row["a"] for row in rows}


def test_decay_follows_the_formula_for_every_level_and_never_compounds(runtime, cypher, namespace) -> None:
    runtime.namespaces.put(namespace)
    ids = {level: _save(runtime, namespace, level.value.lower(), level, T0) for level in Importance}
    for level in Importance:
        if level.half_life_hours is None:
            continue
        at = T0 + timedelta(hours=level.half_life_hours)
        runtime.forgetting.decay(namespace, at)
        assert _activations(cypher, namespace)[ids[level]] == pytest.approx(0.5, abs=1e-12), level

    later = T0 + timedelta(hours=7, minutes=30)
    runtime.forgetting.decay(namespace, T0 + timedelta(hours=2))  # an earlier run must not matter
    runtime.forgetting.decay(namespace, later)
    once = _activations(cypher, namespace)
    runtime.forgetting.decay(namespace, later)  # running twice equals running once
    assert _activations(cypher, namespace) == once
    for level, node_id in ids.items():
        assert once[node_id] == pytest.approx(node_activation(1.0, T0, later, level), abs=1e-12), level
    assert once[ids[Importance.MUST_REMEMBER]] == 1.0


def test_learned_edges_decay_and_structural_edges_do_not(runtime, cypher, namespace) -> None:
    runtime.namespaces.put(namespace)
    a = _save(runtime, namespace, "a", Importance.FACT, T0)
    _save(runtime, namespace, "b", Importance.FACT, T0, links=[NewLink(RelType.REFERENCE, a, 0.8),
                                                                NewLink(RelType.HIERARCHY, a)])  # fmt: skip
    report = runtime.forgetting.decay(namespace, T0 + timedelta(hours=EDGE_HALF_LIFE_HOURS))
    rows = cypher("MATCH (:Memory {namespace: $ns})-[r]->() RETURN type(r) AS t, r.weight AS w, r.protected AS p",
                  ns=namespace)  # fmt: skip
    assert report.edges == sum(1 for row in rows if not row["p"])  # REFERENCE, and SEMANTIC between the notes
    by_type = {row["t"]: row for row in rows}
    assert by_type["REFERENCE"]["w"] == pytest.approx(0.4, abs=1e-12)
    assert by_type["HIERARCHY"]["w"] is None and by_type["HIERARCHY"]["p"] is True


def test_soft_forgotten_nodes_are_counted_and_keep_their_vectors(runtime, namespace) -> None:
    runtime.namespaces.put(namespace)
    _save(runtime, namespace, "old", Importance.TRIVIAL, T0)
    _save(runtime, namespace, "kept", Importance.MUST_REMEMBER, T0)
    report = runtime.forgetting.decay(namespace, T0 + timedelta(hours=30))  # 5 half-lives of TRIVIAL
    assert report.soft_forgotten == 1
    assert runtime.vectors.count(namespace) == 2


def test_pruning_reaches_the_low_water_mark_and_spares_protected_nodes(runtime, cypher, namespace) -> None:
    other = f"{namespace}-other"
    runtime.namespaces.put(namespace, capacity=20, low_water_ratio=0.9)
    runtime.namespaces.put(other, capacity=20)
    levels = [Importance.TRIVIAL, Importance.NORMAL, Importance.IMPORTANT]
    plan: dict[str, tuple[Importance, datetime]] = {}
    for i in range(24):
        plan[f"n{i:02d}"] = (levels[i % 3], T0 + timedelta(hours=i))
    plan["n00"] = (Importance.MUST_REMEMBER, plan["n00"][1])  # oldest: would go first if not protected
    for key, (level, at) in plan.items():
        for ns in (namespace, other):
            links = [NewLink(RelType.HIERARCHY, "knowledge:n00")] if key == "n03" else []
            links += [NewLink(RelType.ASSOCIATION, "knowledge:n00", 0.0505)] if key == "n23" else []
            _save(runtime, ns, key, level, at, links)
    runtime.namespaces.put(other, capacity=100)  # the other namespace is within capacity
    now = T0 + timedelta(hours=30)
    runtime.forgetting.decay(namespace, now)

    report = runtime.forgetting.prune(namespace)

    assert (report.before, report.after, report.deleted_nodes) == (24, 18, 6)
    eligible = {k: v for k, v in plan.items() if k not in {"n00", "n03"}}  # MUST_REMEMBER, on HIERARCHY
    score = {k: node_activation(1.0, at, now, level) * level.prune_weight for k, (level, at) in eligible.items()}
    expected_victims = {f"knowledge:{k}" for k in sorted(score, key=lambda k: (score[k], plan[k][1]))[:6]}
    remaining = set(_activations(cypher, namespace))
    assert len(remaining) == 18 and not expected_victims & remaining
    assert {"knowledge:n00", "knowledge:n03"} <= remaining
    assert runtime.vectors.count(namespace) == 18
    assert report.deleted_edges == 1  # the weak ASSOCIATION (0.0505 decays below the 0.05 floor in 7 h)
    assert len(_activations(cypher, other)) == 24 and runtime.vectors.count(other) == 24
    assert runtime.forgetting.prune(namespace).deleted_nodes == 0  # under capacity now


def test_pruning_deletes_every_passage_vector_of_a_long_node(runtime, namespace, monkeypatch) -> None:
    monkeypatch.setattr(runtime.semantic, "embed_passages", True)  # HIPPOGRAPH_EMBED_PASSAGES
    other = f"{namespace}-other"
    runtime.namespaces.put(namespace, capacity=2, low_water_ratio=0.5)
    runtime.namespaces.put(other, capacity=100)
    long_content = " ".join(f"Item {i} of the packing list is a spare battery for camera {i}." for i in range(40))
    for ns in (namespace, other):
        for key in ("a", "b"):
            memory = NewMemory(type=NodeType.KNOWLEDGE, label=key, content=long_content,
                               importance=Importance.TRIVIAL, id=f"knowledge:{key}")  # fmt: skip
            runtime.nodes.save(ns, memory, now=T0)
        _save(runtime, ns, "kept", Importance.MUST_REMEMBER, T0)
    per_node = runtime.vectors.count(other) // 2
    assert per_node >= 3 and runtime.vectors.count(namespace) == 2 * per_node + 1
    runtime.forgetting.decay(namespace, T0 + timedelta(hours=30))

    assert runtime.forgetting.prune(namespace).deleted_nodes == 2
    assert runtime.vectors.count(namespace) == 1  # the kept node's; no passage of a or b is left
    assert runtime.vectors.count(other) == 2 * per_node + 1
