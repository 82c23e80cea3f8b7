"""Export → import into an empty namespace gives an identical graph, in JSON and in GraphML."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from datetime import UTC, datetime

import networkx
import pytest

from app.domain.snapshot import Snapshot, canonical, snapshot_from_graphml, snapshot_from_json
from tests.query_plans import explained


def _fill(api, ns: str) -> None:
    assert api.put(f"/v1/namespaces/{ns}").status_code == 201
    url = f"/v1/namespaces/{ns}/memories"
    person = api.post(url, json={"type": "Person", "label": "王小明", "content": '我叫王小明 & I <love> "tea"'})
    fact = api.post(url, json={
        "type": "Knowledge", "label": "car", "content": "My car is a Model Y", "subject": "user", "slot": "car",
        "value": "Model Y", "valid_from": "2024-05-15T10:00:00.123456+00:00", "tags": ["car", "车"],
        "source_turn_ids": ["s1:t3"], "confidence": 0.9, "source": "user_stated",
        "links": [{"type": "REFERENCE", "target_id": person.json()["id"], "weight": 0.7}],
    })  # fmt: skip
    event = api.post(url, json={"type": "Experience", "label": "trip", "content": "Trip to Paris",
                                "event_time": "2024-05-10T00:00:00+00:00", "importance": "MUST_REMEMBER"})  # fmt: skip
    task = api.post(url, json={"type": "Task", "label": "plan", "content": "Plan the trip", "tags": []})
    ids = [r.json()["id"] for r in (person, fact, event, task)]
    for rel_type, a, b in [("HIERARCHY", 3, 2), ("DEPENDENCY", 3, 1), ("TEMPORAL", 2, 3), ("CAUSAL", 2, 1),
                           ("ASSOCIATION", 0, 3), ("SEMANTIC", 1, 2)]:  # fmt: skip
        body = {"type": rel_type, "source_id": ids[a], "target_id": ids[b], "weight": 0.5}
        assert api.post(f"/v1/namespaces/{ns}/links", json=body).status_code == 201


def _without_namespace(snapshot: Snapshot) -> Snapshot:
    nodes = tuple(replace(n, properties={k: v for k, v in n.properties.items() if k != "namespace"})
                  for n in snapshot.nodes)  # fmt: skip
    return canonical(replace(snapshot, namespace="-", nodes=nodes))


@pytest.mark.parametrize("fmt", ["json", "graphml"])
def test_export_then_import_gives_an_identical_graph(api, runtime, namespace: str, fmt: str) -> None:
    _fill(api, namespace)
    exported = api.get(f"/v1/namespaces/{namespace}/export", params={"format": fmt})
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("application/json" if fmt == "json" else "application/graphml")
    copy = f"{namespace}-copy"
    assert api.put(f"/v1/namespaces/{copy}").status_code == 201
    imported = api.post(f"/v1/namespaces/{copy}/import", params={"format": fmt}, content=exported.content)
    assert imported.status_code == 201, imported.text
    assert imported.json()["imported"] == {"nodes": 4, "relationships": 7}

    original = runtime.transfer.snapshot(namespace)
    again = runtime.transfer.snapshot(copy)
    assert len(original.nodes) == 4 and len(original.relationships) == 7
    assert _without_namespace(again) == _without_namespace(original)
    assert all(n.properties["namespace"] == copy for n in again.nodes)
    fact = next(n for n in again.nodes if n.id.startswith("knowledge:"))
    assert fact.properties["valid_from"] == datetime(2024, 5, 15, 10, 0, 0, 123456, tzinfo=UTC)
    assert fact.properties["tags"] == ["car", "车"] and isinstance(fact.properties["confidence"], float)
    assert runtime.vectors.count(copy) == 4  # vectors are rebuilt on import

    decoded = snapshot_from_graphml(exported.text) if fmt == "graphml" else snapshot_from_json(exported.text)
    assert _without_namespace(decoded) == _without_namespace(original)
    if fmt == "graphml":
        graph = networkx.read_graphml(io.BytesIO(exported.content))
        assert graph.number_of_nodes() == 4 and graph.number_of_edges() == 7


def test_import_needs_an_empty_namespace_and_a_valid_file(api, cypher, namespace: str) -> None:
    _fill(api, namespace)
    exported = api.get(f"/v1/namespaces/{namespace}/export").content
    again = api.post(f"/v1/namespaces/{namespace}/import", content=exported)
    assert again.status_code == 409 and again.json()["error"]["field"] == "namespace"

    target = f"{namespace}-t"
    api.put(f"/v1/namespaces/{target}")
    broken = api.post(f"/v1/namespaces/{target}/import", content=b"{not json")
    assert broken.status_code == 422 and broken.json()["error"]["field"] == "body"
    document = json.loads(exported)
    document["nodes"][0]["labels"] = ["Memory", "Recipe"]
    bad_label = api.post(f"/v1/namespaces/{target}/import", content=json.dumps(document).encode())
    assert bad_label.status_code == 422 and bad_label.json()["error"]["field"] == "nodes[0].labels"
    document = json.loads(exported)
    document["relationships"][0]["type"] = "LIKES"
    bad_type = api.post(f"/v1/namespaces/{target}/import", content=json.dumps(document).encode())
    assert bad_type.status_code == 422 and bad_type.json()["error"]["field"] == "relationships[0].type"
    assert cypher("MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS n", ns=target)[0]["n"] == 0
    missing = api.post("/v1/namespaces/never-created/import", content=exported)
    assert missing.status_code == 404


@pytest.mark.parametrize("fmt", ["json", "graphml"])
def test_a_paged_export_is_the_same_file_and_leaves_out_another_agents_private_memory(
    api, runtime, namespace: str, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.memory import transfer
    from tests.test_keys import bearer, create_key

    _fill(api, namespace)
    url = f"/v1/namespaces/{namespace}/export"
    whole = api.get(url, params={"format": fmt}).content
    monkeypatch.setattr(transfer, "EXPORT_PAGE", 2)  # 4 nodes: three pages of nodes and of relationships
    assert api.get(url, params={"format": fmt}).content == whole

    alice = create_key(api, namespace, "writer", "alice")
    bob = create_key(api, namespace, "reader", "bob")
    nodes = [n.id for n in runtime.transfer.snapshot(namespace).nodes]
    secret = api.post(f"/v1/namespaces/{namespace}/memories", headers=bearer(alice), json={
        "type": "Knowledge", "label": "secret", "content": "Alice's secret", "private": True,
        "links": [{"type": "REFERENCE", "target_id": nodes[0]}],
    }).json()["id"]  # fmt: skip
    link = {"type": "ASSOCIATION", "source_id": nodes[1], "target_id": secret}
    assert api.post(f"/v1/namespaces/{namespace}/links", headers=bearer(alice), json=link).status_code == 201
    decode = snapshot_from_graphml if fmt == "graphml" else snapshot_from_json
    seen_by_bob = decode(api.get(url, params={"format": fmt}, headers=bearer(bob)).content)
    assert sorted(n.id for n in seen_by_bob.nodes) == sorted(nodes)
    assert len(seen_by_bob.relationships) == 7 and secret not in {r.target for r in seen_by_bob.relationships}
    seen_by_alice = decode(api.get(url, params={"format": fmt}, headers=bearer(alice)).content)
    assert secret in {n.id for n in seen_by_alice.nodes}
    assert {(r.source, r.target) for r in seen_by_alice.relationships} >= {(secret, nodes[0]), (nodes[1], secret)}


def test_export_pages_are_read_in_index_order(runtime) -> None:
    """Keyset pages straight off the (namespace, id) index: no sort of the rest of the namespace per page."""
    for name in ("transfer.export_nodes", "transfer.export_relationships"):
        operators = [operator for operator, _ in explained(runtime, name, namespace="x", after="", limit=10)]
        assert "NodeUniqueIndexSeek" in operators, (name, operators)
        assert not {"Sort", "Top", "PartialSort", "PartialTop"} & set(operators), (name, operators)


def test_an_export_during_ingestion_is_consistent_and_imports(live_api: str, worker, namespace: str) -> None:
    """Issue 20: an export while turns are ingested named relationships to nodes it did not contain
    (`relationships[454].source: unknown node`). A writer thread posts batches the worker ingests;
    every export meanwhile must decode (the decoder refuses an unknown endpoint) and import."""
    import threading
    import time

    import httpx

    from tests.conftest import admin_headers

    stop = threading.Event()
    posted: list[int] = []
    errors: list[str] = []

    def write() -> None:
        with httpx.Client(base_url=live_api, headers=admin_headers(), timeout=30) as client:
            n = 0
            while not stop.is_set():
                text = f"Turn {n}: the deploy of service {n} moved to Friday."
                turns = [{"session_id": f"s{n // 3}", "turn_id": f"t{n}-{i}", "speaker": f"Agent {i % 3}",
                          "text": f"{text} ({i})"} for i in range(5)]  # fmt: skip
                answer = client.post(f"/v1/namespaces/{namespace}/turns", json={"turns": turns})
                (posted if answer.status_code == 202 else errors).append(answer.status_code)
                n += 1
                time.sleep(0.02)

    with httpx.Client(base_url=live_api, headers=admin_headers(), timeout=60) as client:
        assert client.put(f"/v1/namespaces/{namespace}").status_code == 201
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        exports: list[tuple[str, bytes]] = []
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                fmt = "graphml" if len(exports) % 4 == 3 else "json"
                answer = client.get(f"/v1/namespaces/{namespace}/export", params={"format": fmt})
                assert answer.status_code == 200, answer.text[:500]
                decode = snapshot_from_graphml if fmt == "graphml" else snapshot_from_json
                decode(answer.content)  # raises on a relationship to a node the export does not contain
                exports.append((fmt, answer.content))
        finally:
            stop.set()
            writer.join(timeout=60)
        assert not errors and len(posted) > 10
        relationships = [len(json.loads(body)["relationships"]) for fmt, body in exports if fmt == "json"]
        assert len(exports) >= 10 and max(relationships) > 0
        for i, (fmt, body) in enumerate([exports[len(exports) // 2], exports[-1]]):
            copy = f"{namespace}-c{i}"
            assert client.put(f"/v1/namespaces/{copy}").status_code == 201
            imported = client.post(f"/v1/namespaces/{copy}/import", params={"format": fmt}, content=body)
            assert imported.status_code == 201, imported.text[:500]
