"""`namespace_term` (the one full-text token recall's Lucene query requires, app/domain/inputs.py) is
an internal field: it stays on the nodes and in the product's Cypher, and no REST answer, tool result
or export carries it (issue 38)."""

from __future__ import annotations

from typing import Any

from app.domain.inputs import namespace_term

INTERNAL = "namespace_term"


def _answers(api: Any, namespace: str, worker: Any) -> dict[str, str]:
    """Every read route (and the writes that answer a node) on a namespace holding saved memories, a
    link, turns written by the tracks, a task tree and its suspension: route -> answer text."""
    base = f"/v1/namespaces/{namespace}"
    texts: dict[str, str] = {}

    def keep(what: str, response: Any, status: int = 200) -> Any:
        assert response.status_code == status, f"{what}: {response.status_code} {response.text}"
        texts[what] = response.text
        return response

    assert api.put(base).status_code == 201
    person = keep("POST memories", api.post(f"{base}/memories", json={
        "type": "Person", "label": "Alice", "content": "Alice leads the platform team"}), 201).json()["id"]
    note = keep("POST memories (private)", api.post(f"{base}/memories", json={
        "type": "Knowledge", "label": "Postgres", "content": "The platform team runs Postgres 16", "private": True,
        "links": [{"type": "ASSOCIATION", "target_id": person}]}), 201).json()["id"]
    keep("POST links", api.post(f"{base}/links", json={"type": "REFERENCE", "source_id": note, "target_id": person,
                                                        "weight": 0.5}), 201)  # fmt: skip
    keep("POST turns", api.post(f"{base}/turns", json={"wait": True, "turns": [
        {"session_id": "s1", "turn_id": "1", "speaker": "Alice", "text": "I moved to Lisbon last year.",
         "timestamp": "2024-05-15T10:00:00Z"}]}), 200)
    keep("POST tasks", api.post(f"{base}/tasks", json={"id": "task:root", "title": "Migrate",
                                                       "related_ids": [note]}), 201)  # fmt: skip
    keep("POST tasks (sub)", api.post(f"{base}/tasks", json={"id": "task:sub", "title": "Copy",
                                                             "parent_id": "task:root"}), 201)  # fmt: skip
    keep("GET namespace", api.get(base))
    keep("GET memories", api.get(f"{base}/memories"))
    keep("GET node", api.get(f"{base}/nodes/{note}"))
    keep("PATCH node", api.patch(f"{base}/nodes/{person}", json={"tags": ["lead"]}))
    keep("GET decay", api.get(f"{base}/nodes/{note}/decay"))
    keep("GET related", api.get(f"{base}/nodes/{person}/related", params={"edges": "true", "depth": 2}))
    keep("POST recall", api.post(f"{base}/recall", json={"query": "Where does Alice live? Postgres", "top_k": 10}))
    keep("POST chain", api.post(f"{base}/chain", json={"task_id": "task:sub"}))
    keep("GET task", api.get(f"{base}/tasks/task:root"))
    keep("POST context", api.post(f"{base}/context", json={"goal": "Alice and Postgres", "token_budget": 500}))
    for name, arguments in {
        "read_memory_node": {"node_id": note},
        "recall_memory": {"query": "Alice"},
        "memory_search": {"type": ["Knowledge"]},
        "discover_related": {"node_id": person},
        "graph_query": {"query": "MATCH (m:Memory {namespace: $namespace}) RETURN m"},
    }.items():
        keep(f"tool {name}", api.post(f"{base}/tools/{name}", json={"arguments": arguments}))
    keep("POST cypher (nodes)", api.post(f"{base}/cypher", json={
        "query": "MATCH (m:Memory {namespace: $namespace}) RETURN m"}))
    keep("POST cypher (paths)", api.post(f"{base}/cypher", json={
        "query": "MATCH p = (m:Memory {namespace: $namespace})-[]->(:Memory) RETURN p"}))
    for fmt in ("json", "graphml"):
        keep(f"GET export {fmt}", api.get(f"{base}/export", params={"format": fmt}))
    keep("POST suspend", api.post(f"{base}/tasks/task:root/suspend"))
    keep("GET suspension", api.get(f"{base}/tasks/task:root/suspension"))
    keep("GET suspension graphml", api.get(f"{base}/tasks/task:root/suspension/graphml"))
    keep("POST resume", api.post(f"{base}/tasks/task:root/resume", json={}))
    return texts


def test_no_answer_or_export_carries_the_namespace_term(api: Any, namespace: str, worker: Any, cypher: Any) -> None:
    term = namespace_term(namespace)
    texts = _answers(api, namespace, worker)
    # The nodes do carry it (recall's full-text query needs it): the field is hidden, not gone.
    stored = cypher("MATCH (m:Memory {namespace: $ns}) RETURN collect(DISTINCT m.namespace_term) AS t", ns=namespace)
    assert stored[0]["t"] == [term]
    carrying = sorted(what for what, text in texts.items() if INTERNAL in text or term in text)
    assert carrying == [], f"answers carrying {INTERNAL}: {carrying}"
    assert f'"namespace":"{namespace}"' in texts["GET node"]  # the answers do hold the nodes' properties


def test_an_analyst_may_still_name_the_field_in_a_query(api: Any, namespace: str) -> None:
    """Hidden from answers, not forbidden: a query that names it reads it (nothing else leaks it)."""
    base = f"/v1/namespaces/{namespace}"
    assert api.put(base).status_code == 201
    note = {"type": "Knowledge", "label": "note", "content": "a note"}
    assert api.post(f"{base}/memories", json=note).status_code == 201
    rows = api.post(f"{base}/cypher", json={
        "query": "MATCH (m:Memory {namespace: $namespace}) RETURN m.namespace_term AS t, m AS node"}).json()["rows"]
    assert [row["t"] for row in rows] == [namespace_term(namespace)]
    assert INTERNAL not in rows[0]["node"] and rows[0]["node"]["content"] == "a note"
