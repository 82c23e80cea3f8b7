"""The memory graph through the v1 API, on real Neo4j, Redis and the embedded vector tier."""

from __future__ import annotations

import pytest

from app.domain.model import NodeType, RelType
from app.stores.hot import namespace_key

NODE_TEXTS = {
    "Task": ("Ship the beta", "Ship the beta release of the memory service by Friday"),
    "Dialogue": ("Turn 1", "User: we should use Neo4j for the graph"),
    "Knowledge": ("Car", "My car is a red Model Y"),
    "Experience": ("Deploy failed", "The first deploy failed because the port was taken"),
    "Episode": ("Planning session", "A planning session about the beta release"),
    "File": ("schema.cypher", "Constraints and indexes of the memory graph"),
    "Concept": ("Spreading activation", "Activation spreads from seeds along weighted edges"),
    "Person": ("Alice", "Alice leads the platform team"),
    "Document": ("Design notes", "Notes on the design of Hippograph"),
}


def _create_namespace(api, ns: str, **settings: object) -> None:
    response = api.put(f"/v1/namespaces/{ns}", json=settings or None)
    assert response.status_code in (200, 201), response.text


def _save(api, ns: str, node_type: str, **fields: object) -> dict:
    label, content = NODE_TEXTS[node_type]
    body = {"type": node_type, "label": label, "content": content, **fields}
    response = api.post(f"/v1/namespaces/{ns}/memories", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def _count(cypher, ns: str) -> int:
    return cypher("MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS n", ns=ns)[0]["n"]


def test_nine_node_types_and_seven_relationship_types(api, cypher, namespace: str) -> None:
    _create_namespace(api, namespace)
    ids = {t: _save(api, namespace, t)["id"] for t in NODE_TEXTS}
    for node_type, node_id in ids.items():
        assert node_id.startswith(f"{node_type.lower()}:")

    pairs = {
        "HIERARCHY": ("Episode", "Dialogue"),
        "DEPENDENCY": ("Task", "File"),
        "TEMPORAL": ("Dialogue", "Experience"),
        "REFERENCE": ("Knowledge", "Person"),
        "SEMANTIC": ("Concept", "Document"),
        "CAUSAL": ("Experience", "Task"),
        "ASSOCIATION": ("Person", "Task"),
    }
    for rel_type, (source, target) in pairs.items():
        body = {"type": rel_type, "source_id": ids[source], "target_id": ids[target], "weight": 0.6}
        response = api.post(f"/v1/namespaces/{namespace}/links", json=body)
        assert response.status_code == 201, response.text
        assert response.json()["properties"]["protected"] is (rel_type in {"HIERARCHY", "DEPENDENCY", "TEMPORAL"})

    labels = {row["label"] for row in cypher("CALL db.labels() YIELD label RETURN label")}
    assert {t.value for t in NodeType} | {"Memory"} <= labels
    types = {row["t"] for row in cypher("CALL db.relationshipTypes() YIELD relationshipType AS t RETURN t")}
    assert {t.value for t in RelType} <= types

    # Exactly :Memory plus one type label on every node of the namespace.
    rows = cypher("MATCH (m:Memory {namespace: $ns}) RETURN m.id AS id, labels(m) AS labels", ns=namespace)
    assert len(rows) == 9
    for row in rows:
        assert sorted(row["labels"]) == sorted(["Memory", NodeType.of_id(row["id"]).value])

    # `protected` is true on exactly the three structural types; learned edges carry their weights.
    edges = cypher(
        "MATCH (:Memory {namespace: $ns})-[r]->(:Memory {namespace: $ns}) "
        "WHERE type(r) <> 'SEMANTIC' OR r.weight = 0.6 "
        "RETURN type(r) AS type, r.protected AS protected, r.weight AS weight",
        ns=namespace,
    )
    by_type = {e["type"]: e for e in edges}
    assert set(by_type) == {t.value for t in RelType}
    for rel_type, edge in by_type.items():
        assert edge["protected"] is RelType(rel_type).protected
        assert (edge["weight"] is None) is RelType(rel_type).protected


def test_saving_the_same_memory_again_creates_nothing(api, cypher, namespace: str) -> None:
    _create_namespace(api, namespace)
    first = _save(api, namespace, "Knowledge")
    again = api.post(
        f"/v1/namespaces/{namespace}/memories",
        json={"type": "Knowledge", **dict(zip(("label", "content"), NODE_TEXTS["Knowledge"], strict=True))},
    )
    assert again.status_code == 200 and again.json()["id"] == first["id"]
    with_id = {"type": "Task", "label": "x", "content": "y", "id": "task:release-1"}
    assert api.post(f"/v1/namespaces/{namespace}/memories", json=with_id).status_code == 201
    assert api.post(f"/v1/namespaces/{namespace}/memories", json=with_id).status_code == 200
    assert _count(cypher, namespace) == 2
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 200  # namespaces are idempotent too


def test_node_carries_the_model_properties_and_derived_tags(api, namespace: str) -> None:
    _create_namespace(api, namespace)
    saved = _save(api, namespace, "Knowledge", tags=["car"], agent_id="agent-7", source_turn_ids=["t1"],
                  subject="user", slot="car", value="Model Y")  # fmt: skip
    node = api.get(f"/v1/namespaces/{namespace}/nodes/{saved['id']}").json()
    expected = "id namespace label summary content activation importance created_at last_accessed access_count"
    expected += " source agent_id confidence source_turn_ids tags subject slot value"
    for key in expected.split():
        assert key in node, key
    assert node["type"] == "Knowledge" and node["source"] == "agent" and node["activation"] == 1.0
    assert node["importance"] == "FACT"  # "my X is Y" is a plain fact by the importance rules
    assert node["created_at"].endswith(("+00:00", "Z"))
    assert node["temperature"] == "HOT" and node["time_scope"] == "RECENT"
    assert node["summary"] == NODE_TEXTS["Knowledge"][1]


def test_patch_raises_importance_only_and_replaces_tags(api, namespace: str) -> None:
    _create_namespace(api, namespace)
    node_id = _save(api, namespace, "Concept")["id"]
    raised = api.patch(f"/v1/namespaces/{namespace}/nodes/{node_id}", json={"importance": "IDENTITY", "tags": ["a"]})
    assert raised.status_code == 200 and raised.json()["importance"] == "IDENTITY" and raised.json()["tags"] == ["a"]
    lowered = api.patch(f"/v1/namespaces/{namespace}/nodes/{node_id}", json={"importance": "TRIVIAL"})
    assert lowered.status_code == 422 and lowered.json()["error"]["field"] == "importance"
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{node_id}").json()["importance"] == "IDENTITY"


def test_forgetting_a_node_erases_it_its_edges_and_its_vector(api, runtime, cypher, namespace: str) -> None:
    _create_namespace(api, namespace)
    a = _save(api, namespace, "Person")["id"]
    b = _save(api, namespace, "Task", links=[{"type": "REFERENCE", "target_id": a}])["id"]
    assert runtime.vectors.count(namespace) == 2
    assert api.delete(f"/v1/namespaces/{namespace}/nodes/{a}").status_code == 204
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{a}").status_code == 404
    assert runtime.vectors.count(namespace) == 1
    assert cypher("MATCH (:Memory {namespace: $ns})-[r]-() RETURN count(r) AS n", ns=namespace)[0]["n"] == 0
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{b}").status_code == 200
    assert api.delete(f"/v1/namespaces/{namespace}/nodes/{a}").status_code == 404


def test_close_memories_get_a_semantic_edge(api, cypher, namespace: str) -> None:
    _create_namespace(api, namespace)
    url = f"/v1/namespaces/{namespace}/memories"
    first = api.post(url, json={"type": "Knowledge", "label": "Tea", "content": "I drink green tea every morning"})
    second = api.post(url, json={"type": "Knowledge", "label": "Tea", "content": "Every morning I drink green tea"})
    api.post(url, json={"type": "Knowledge", "label": "Stocks", "content": "The stock market fell sharply"})
    edges = cypher(
        "MATCH (a:Memory {namespace: $ns})-[r:SEMANTIC]->(b) RETURN a.id AS a, b.id AS b, r.weight AS w",
        ns=namespace,
    )
    assert len(edges) == 1
    assert {edges[0]["a"], edges[0]["b"]} == {first.json()["id"], second.json()["id"]}
    assert 0.7 < edges[0]["w"] <= 1.0


def test_namespace_shows_counts_and_delete_erases_only_it(api, runtime, cypher, namespace: str) -> None:
    other = f"{namespace}-keep"
    for ns in (namespace, other):
        _create_namespace(api, ns, capacity=500)
        _save(api, ns, "Person")
        _save(api, ns, "Knowledge")
    runtime.learning.record(namespace, ["person:x", "knowledge:y"])
    shown = api.get(f"/v1/namespaces/{namespace}").json()
    assert shown["capacity"] == 500 and shown["low_water_ratio"] == 0.9
    assert shown["counts"] == {"Knowledge": 1, "Person": 1} and shown["total"] == 2 and shown["vectors"] == 2

    assert api.delete(f"/v1/namespaces/{namespace}").status_code == 200
    assert api.get(f"/v1/namespaces/{namespace}").status_code == 404
    assert _count(cypher, namespace) == 0 and runtime.vectors.count(namespace) == 0
    assert not list(runtime.redis.scan_iter(match=namespace_key(namespace, "*")))
    assert _count(cypher, other) == 2 and runtime.vectors.count(other) == 2
    api.delete(f"/v1/namespaces/{other}")


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"type": "Recipe", "label": "x", "content": "y"}, 422, "type"),
        ({"type": "Task", "label": "x", "content": "y", "importance": "URGENT"}, 422, "importance"),
        ({"type": "Task", "label": "x", "content": "y", "links": [{"type": "LIKES", "target_id": "task:1"}]},
         422, "links[0].type"),
        ({"type": "Task", "label": "x", "content": "y", "summary": "s" * 151}, 422, "summary"),
        ({"type": "Task", "label": "x", "content": ""}, 422, "content"),
        ({"type": "Task", "label": "x", "content": "y", "id": "knowledge:1"}, 422, "id"),
        ({"type": "Task", "label": "x", "content": "y", "colour": "red"}, 422, "colour"),
        ({"type": "Task", "label": "x", "content": "y", "links": [{"type": "CAUSAL", "target_id": "file:no"}]},
         404, "links[0].target_id"),
    ],
)  # fmt: skip
def test_bad_input_names_the_field_and_writes_nothing(api, runtime, cypher, namespace, body, status, field) -> None:
    _create_namespace(api, namespace)
    response = api.post(f"/v1/namespaces/{namespace}/memories", json=body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["field"] == field and field.split("[")[0] in error["message"]
    assert response.json()["request_id"]
    assert _count(cypher, namespace) == 0 and runtime.vectors.count(namespace) == 0


def test_missing_or_malformed_namespace_and_bad_links_are_refused(api, cypher, namespace: str) -> None:
    body = {"type": "Task", "label": "x", "content": "y"}
    missing = api.post(f"/v1/namespaces/{namespace}/memories", json=body)
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "namespace"
    assert _count(cypher, namespace) == 0
    bad_name = api.put("/v1/namespaces/" + "x" * 65)
    assert bad_name.status_code == 422 and bad_name.json()["error"]["field"] == "namespace"
    assert api.put("/v1/namespaces/bad%20name").status_code == 422
    _create_namespace(api, namespace)
    task = _save(api, namespace, "Task")["id"]
    for link, field in [
        ({"type": "CAUSAL", "source_id": task, "target_id": "task:missing"}, "target_id"),
        ({"type": "CAUSAL", "source_id": task, "target_id": task}, "target_id"),
        ({"type": "FRIEND", "source_id": task, "target_id": task}, "type"),
        ({"type": "CAUSAL", "source_id": task, "target_id": "file:x", "weight": 1.5}, "weight"),
    ]:
        response = api.post(f"/v1/namespaces/{namespace}/links", json=link)
        assert response.status_code in (404, 422) and response.json()["error"]["field"] == field, response.text
    assert cypher("MATCH (:Memory {namespace: $ns})-[r]-() RETURN count(r) AS n", ns=namespace)[0]["n"] == 0


def test_full_text_index_serves_english_and_chinese(api, cypher, namespace: str) -> None:
    _create_namespace(api, namespace)
    url = f"/v1/namespaces/{namespace}/memories"
    for label, content in [("车", "我的车是 Model Y，上周五买的"), ("住址", "我住在北京朝阳区"),
                           ("car", "My car is a red Model Y"), ("move", "I moved to Berlin last spring")]:  # fmt: skip
        assert api.post(url, json={"type": "Knowledge", "label": label, "content": content}).status_code == 201
    index = cypher("SHOW FULLTEXT INDEXES YIELD name, options WHERE name = 'memory_text_v3' RETURN options")[0]
    assert index["options"]["indexConfig"]["fulltext.analyzer"] == "cjk"

    def found(query: str) -> set[str]:
        rows = cypher(
            "CALL db.index.fulltext.queryNodes('memory_text_v3', $q) YIELD node "
            "WHERE node.namespace = $ns RETURN node.content AS content",
            q=query,
            ns=namespace,
        )
        return {row["content"] for row in rows}

    assert found("朝阳") == {"我住在北京朝阳区"}  # Chinese bigrams: precise
    assert found("berlin") == {"I moved to Berlin last spring"}
    assert found('"Model Y"') == {"我的车是 Model Y，上周五买的", "My car is a red Model Y"}  # mixed text


def test_nodes_written_before_namespace_terms_get_them_at_start_up(api, runtime, cypher, namespace: str) -> None:
    """The migration's work (`add_namespace_terms`) on nodes without a term. The database-wide record
    that it completed stays: the suite's Neo4j is shared, and without it every worker's start-up would
    run the migration over everyone's namespaces."""
    from app.domain.inputs import namespace_term
    from app.memory.migrations import NAMESPACE_TERM, add_namespace_terms, migrate

    _create_namespace(api, namespace)
    url = f"/v1/namespaces/{namespace}/memories"
    assert api.post(url, json={"type": "Knowledge", "label": "move", "content": "I moved to Berlin"}).status_code == 201
    # As a database written by an earlier version holds it: no term.
    cypher("MATCH (m:Memory {namespace: $ns}) REMOVE m.namespace_term", ns=namespace)

    def recalled() -> list[dict]:
        items: list[dict] = api.post(f"/v1/namespaces/{namespace}/recall", json={"query": "Berlin"}).json()["items"]
        return [card for card in items if card["explain"]["full_text"] > 0]

    assert recalled() == []  # no full-text seed without the term
    add_namespace_terms(runtime.graph)
    terms = cypher("MATCH (m:Memory {namespace: $ns}) RETURN collect(DISTINCT m.namespace_term) AS t", ns=namespace)
    assert terms[0]["t"] == [namespace_term(namespace)]
    assert [card["summary"] for card in recalled()] == ["I moved to Berlin"]
    migrate(runtime.graph)  # completed before: recorded once, not run again
    assert cypher("MATCH (m:Migration {name: $name}) RETURN count(m) AS n", name=NAMESPACE_TERM)[0]["n"] == 1
