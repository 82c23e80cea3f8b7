"""The analysts' read-only Cypher endpoint on real engines: two namespaces A and B, seeded through the
API; a table of crafted queries run against A (writes, escapes to B, tricks) must be refused or return
only A's data, and leave both namespaces as they were. The analytics catalogue runs by name.

The table runs twice: first on a namespace that has no memories yet (before the seeding fixture runs;
on a database without many memories Neo4j plans label scans + filters), then on the seeded namespace
(index seeks). The engines and the seeded namespaces are shared by the module: seeding through the
write path takes seconds, the table has ~50 rows.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.analytics.guard import CypherRefused
from app.analytics.named_queries import AnalyticsCatalog
from app.analytics.values import ValueConverter
from app.domain.decay import SOFT_FORGET_THRESHOLD
from app.domain.model import prune_weight_table
from tests.conftest import admin_headers, checked, make_settings

S1 = "2024-05-15T10:00:00+00:00"


@dataclass
class Engines:
    client: Any
    runtime: Any
    a: str
    b: str
    marker: str  # in every summary of B: no answer about A may contain it


@pytest.fixture(scope="module")
def engines(services, embedder, celery_configured, tmp_path_factory) -> Iterator[Engines]:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from app.api.main import create_app
    from app.runtime import Runtime
    from jobs.embedded import EmbeddedJobs

    runtime = Runtime.open(
        make_settings(services, tmp_path_factory.mktemp("cypher")), embedder=embedder
    )
    jobs = EmbeddedJobs(runtime, resume_pending=False)
    jobs.start()
    suffix = uuid.uuid4().hex[:10]
    found = Engines(None, runtime, f"cy-a-{suffix}", f"cy-b-{suffix}", f"SECRETB{suffix}")
    try:
        with checked(TestClient(create_app(runtime=runtime), headers=admin_headers())) as client:
            found.client = client
            for ns in (found.a, found.b):
                assert client.put(f"/v1/namespaces/{ns}").status_code == 201
            yield found
            for ns in (found.a, found.b):
                client.delete(f"/v1/namespaces/{ns}")
    finally:
        jobs.stop()
        runtime.close()


def _seed(client: Any, ns: str, tag: str, marker: str = "") -> None:
    """Memories of several types, links (one ASSOCIATION), an orphan, and turns through the write path."""

    def save(body: dict[str, Any]) -> str:
        response = client.post(f"/v1/namespaces/{ns}/memories", json=body)
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    espresso = save(
        {
            "type": "Concept",
            "label": f"Espresso {tag}",
            "content": f"Espresso coffee {marker}",
            "summary": f"Espresso {tag} {marker}".strip(),
            "agent_id": "barista",
        }
    )
    habit = save(
        {
            "type": "Knowledge",
            "label": f"habit {tag}",
            "content": f"Drinks espresso every morning {marker}",
            "summary": f"Morning espresso habit {tag} {marker}".strip(),
            "subject": "Alice",
            "slot": "drinks",
            "value": "espresso",
            "valid_from": S1,
            "importance": "FACT",
            "links": [{"type": "REFERENCE", "target_id": espresso}],
        }
    )
    task = save(
        {
            "type": "Task",
            "label": f"Buy beans {tag}",
            "content": f"Buy coffee beans on Friday {marker}",
            "summary": f"Buy beans {tag} {marker}".strip(),
            "agent_id": "planner",
            "importance": "TRIVIAL",
        }
    )
    save(
        {
            "type": "Document",
            "label": f"Tax archive {tag}",
            "content": f"Form 1099 scanned in 2019 {marker}",
            "id": f"document:{ns}-orphan",
            "summary": f"Tax archive {tag} {marker}".strip(),
            "importance": "NORMAL",
        }
    )
    link = client.post(
        f"/v1/namespaces/{ns}/links", json={"source_id": habit, "target_id": task, "type": "ASSOCIATION", "weight": 0.4}
    )
    assert link.status_code == 201, link.text
    session = f"{tag}-s1"
    turns = [
        {
            "session_id": session,
            "turn_id": f"{session}:1",
            "speaker": "Alice",
            "text": "I moved to Berlin.",
            "timestamp": S1,
        },
        {
            "session_id": session,
            "turn_id": f"{session}:2",
            "speaker": "Alice",
            "text": "I moved to Munich.",
            "timestamp": "2024-06-01T09:00:00+00:00",
        },
        {
            "session_id": session,
            "turn_id": f"{session}:3",
            "speaker": "Bob",
            "text": "My car is a Model Y.",
            "timestamp": "2024-06-02T09:00:00+00:00",
        },
    ]
    response = client.post(f"/v1/namespaces/{ns}/turns", json={"turns": turns, "wait": True})
    assert response.status_code == 200, response.text


def _snapshot(runtime: Any, ns: str) -> dict[str, Any]:
    """Everything of a namespace that a write could change (test-only Cypher)."""
    nodes, _, _ = runtime.graph.driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) RETURN m.id AS id, labels(m) AS labels, properties(m) AS p ORDER BY id",
        ns=ns,
    )
    rels, _, _ = runtime.graph.driver.execute_query(
        "MATCH (a:Memory {namespace: $ns})-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p "
        "ORDER BY a, t, b",
        ns=ns,
    )
    return {
        "nodes": [(r["id"], sorted(r["labels"]), json.dumps(r["p"], default=str, sort_keys=True)) for r in nodes],
        "relationships": [(r["a"], r["t"], r["b"], json.dumps(r["p"], default=str, sort_keys=True)) for r in rels],
    }


@pytest.fixture(scope="module")
def seeded(engines: Engines) -> Iterator[Engines]:
    _seed(engines.client, engines.a, "A")
    _seed(engines.client, engines.b, "B", engines.marker)
    engines.runtime.graph.driver.execute_query("CALL db.awaitIndexes(60)")
    before = {ns: _snapshot(engines.runtime, ns) for ns in (engines.a, engines.b)}
    yield engines
    after = {ns: _snapshot(engines.runtime, ns) for ns in (engines.a, engines.b)}
    assert after == before, "a query changed a namespace"


def _cypher(client: Any, ns: str, **body: Any) -> Any:
    return client.post(f"/v1/namespaces/{ns}/cypher", json=body)


# -- the table --------------------------------------------------------------------------------------
# (query, expected): "refused" = 422 cypher_refused; "rejected" = 422 cypher_refused or cypher_error
# (Neo4j refuses the text itself); "ok" = 200 with only the namespace's data. `{B}` stands for B's name.

REFUSED, REJECTED, OK = "refused", "rejected", "ok"
NBSP, EM_SPACE = "\u00a0", "\u2003"

TABLE: list[tuple[str, str, str]] = [
    # writes in every form
    ("create", "CREATE (n:Memory {namespace: $namespace, id: 'knowledge:pwned'}) RETURN n", REFUSED),
    ("merge", "MERGE (n:Memory {namespace: $namespace, id: 'knowledge:pwned'}) RETURN n", REFUSED),
    ("set", "MATCH (m:Memory {namespace: $namespace}) SET m.summary = 'pwned' RETURN m", REFUSED),
    ("delete", "MATCH (m:Memory {namespace: $namespace})-[r]->() DELETE r", REFUSED),
    ("detach delete", "MATCH (m:Memory {namespace: $namespace}) DETACH DELETE m", REFUSED),
    ("remove", "MATCH (m:Memory {namespace: $namespace}) REMOVE m.summary RETURN m.id", REFUSED),
    ("remove label", "MATCH (m:Memory {namespace: $namespace}) REMOVE m:Memory RETURN m.id", REFUSED),
    ("call subquery write", "MATCH (m:Memory {namespace: $namespace}) CALL (m) { SET m.x = 1 } RETURN m.id", REFUSED),
    ("call block write", "CALL { MATCH (m:Memory {namespace: $namespace}) SET m.x = 1 RETURN m } RETURN m.id", REFUSED),
    (
        "call in transactions",
        "MATCH (m:Memory {namespace: $namespace}) CALL (m) { SET m.x = 1 } IN TRANSACTIONS RETURN m.id",
        REJECTED,
    ),
    ("foreach", "MATCH (m:Memory {namespace: $namespace}) FOREACH (i IN [1] | SET m.x = i)", REFUSED),
    ("write procedure", "CALL db.createLabel('Pwned')", REFUSED),
    ("create index", "CREATE INDEX pwned IF NOT EXISTS FOR (n:Memory) ON (n.pwned)", REFUSED),
    ("drop constraint", "DROP CONSTRAINT memory_key", REFUSED),
    ("load csv", "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", REJECTED),
    (
        "comment hides write",
        "MATCH (m:Memory {namespace: $namespace}) // read only\n/* RETURN m */ SET m.x = 1",
        REFUSED,
    ),
    (
        "odd casing",
        "mAtCh (m:Memory {namespace: $namespace}) cReAtE (n:Memory {namespace: $namespace}) ReTuRn n",
        REFUSED,
    ),
    (
        "unicode whitespace",
        f"MATCH{NBSP}(m:Memory {{namespace: $namespace}}){EM_SPACE}SET{NBSP}m.x = 1{EM_SPACE}RETURN m.id",
        REJECTED,
    ),
    ("second statement", "MATCH (m:Memory {namespace: $namespace}) RETURN m.id; MATCH (n) DETACH DELETE n", REJECTED),
    ("explain prefix", "EXPLAIN MATCH (n) DETACH DELETE n", REJECTED),
    ("profile prefix", "PROFILE MATCH (n) RETURN n", REJECTED),
    # reading another namespace, or all of them
    ("unanchored match", "MATCH (n) RETURN n", REFUSED),
    ("unanchored memory", "MATCH (n:Memory) RETURN n.summary AS s", REFUSED),
    ("other namespace literal", "MATCH (n:Memory {namespace: '{B}'}) RETURN n", REFUSED),
    ("other namespace param", "MATCH (n:Memory {namespace: $other}) RETURN n", REFUSED),
    ("id lookup", "MATCH (n) WHERE id(n) = 0 RETURN n", REFUSED),
    ("elementId lookup", "MATCH (n) WHERE elementId(n) = '4:00000000-0000-0000-0000-000000000000:0' RETURN n", REFUSED),
    (
        "union unanchored",
        "MATCH (m:Memory {namespace: $namespace}) RETURN m.summary AS s UNION MATCH (n:Memory) RETURN n.summary AS s",
        REFUSED,
    ),
    (
        "optional match unanchored",
        "MATCH (m:Memory {namespace: $namespace}) OPTIONAL MATCH (n:Memory {namespace: '{B}'}) RETURN m.id, n.summary",
        REFUSED,
    ),
    ("cartesian product", "MATCH (m:Memory {namespace: $namespace}), (n:Memory) RETURN m.id, n.summary", REFUSED),
    ("join on id", "MATCH (m:Memory {namespace: $namespace}) WITH m MATCH (n) WHERE n.id = m.id RETURN n", REFUSED),
    ("rebound namespace", "WITH '{B}' AS namespace MATCH (m:Memory {namespace: namespace}) RETURN m", REFUSED),
    (
        "fulltext procedure",
        "CALL db.index.fulltext.queryNodes('memory_text_v3', 'espresso') YIELD node RETURN node",
        REFUSED,
    ),
    ("count all", "MATCH (n) RETURN count(n)", REFUSED),
    ("count memories", "MATCH (n:Memory) RETURN count(n)", REFUSED),
    ("all relationships", "MATCH ()-[r]->() RETURN r", REFUSED),
    ("or true", "MATCH (m:Memory) WHERE m.namespace = $namespace OR true RETURN m.summary", REFUSED),
    ("or other", "MATCH (m:Memory) WHERE m.namespace = $namespace OR m.namespace = '{B}' RETURN m.summary", REFUSED),
    ("in list", "MATCH (m:Memory) WHERE m.namespace IN [$namespace, '{B}'] RETURN m.summary", REFUSED),
    ("starts with", "MATCH (m:Memory) WHERE m.namespace STARTS WITH '' RETURN m.summary", REFUSED),
    ("quoted-string trick", "MATCH (m:Memory) WHERE m.summary = ' AND m.namespace = $namespace ' RETURN m", REFUSED),
    ("quoted-string trick 2", 'MATCH (m:Memory) WHERE m.summary <> " AND m.namespace = $namespace " RETURN m', REFUSED),
    (
        "collect subquery",
        "MATCH (m:Memory {namespace: $namespace}) RETURN COLLECT { MATCH (x:Memory) RETURN x.summary }",
        REFUSED,
    ),
    (
        "nested collect in case",
        "MATCH (m:Memory {namespace: $namespace}) RETURN CASE WHEN true THEN "
        "COLLECT { MATCH (x:Memory {namespace: '{B}'}) RETURN x.summary } END AS s",
        REFUSED,
    ),
    (
        "exists on other",
        "MATCH (m:Memory {namespace: $namespace}) WHERE EXISTS { MATCH (x:Memory {namespace: '{B}'}) } RETURN m.id",
        REFUSED,
    ),
    ("namespace nodes", "MATCH (n:Namespace) RETURN n", REFUSED),
    ("api keys", "MATCH (k:ApiKey) RETURN k", REFUSED),
    ("type label only", "MATCH (k:Knowledge {namespace: $namespace}) RETURN k", REFUSED),
    ("show indexes", "SHOW INDEXES", REFUSED),
    ("use system", "USE system SHOW DATABASES", REJECTED),
    ("use system match", "USE system MATCH (n) RETURN n", REJECTED),
    ("dbms procedure", "CALL dbms.components()", REFUSED),
    ("syntax error", "MATCH (m:Memory {namespace: $namespace} RETURN m", REJECTED),
    # allowed: anchored reads, traversals that stay inside by the graph's invariant, schema names
    ("schema labels", "CALL db.labels() YIELD label RETURN label", OK),
    ("anchored", "MATCH (m:Memory {namespace: $namespace}) RETURN m", OK),
    # planner hints are refused: they can force a scan+filter plan (issue 37)
    ("anchored scan hint", "MATCH (m:Memory {namespace: $namespace}) USING SCAN m:Memory RETURN m", REFUSED),
    ("anchored where", "MATCH (m:Memory) WHERE $namespace = m.namespace AND m.importance <> 'x' RETURN m", OK),
    ("traversal", "MATCH (m:Memory {namespace: $namespace})-[*1..4]-(x) RETURN DISTINCT x", OK),
    ("relationships", "MATCH (m:Memory {namespace: $namespace})-[r]->(x) RETURN m, r, x", OK),
    ("relationships alone", "MATCH (:Memory {namespace: $namespace})-[r]->() RETURN r", OK),
    ("paths", "MATCH p = (m:Memory {namespace: $namespace})-[*1..2]-() RETURN p LIMIT 50", OK),
    ("optional expand", "MATCH (m:Memory {namespace: $namespace}) OPTIONAL MATCH (m)-[r]->(x) RETURN m, r, x", OK),
    (
        "shortest path",
        "MATCH (a:Memory {namespace: $namespace}), (b:Memory {namespace: $namespace}) WHERE a.id < b.id "
        "MATCH p = shortestPath((a)-[*..6]-(b)) RETURN p LIMIT 20",
        OK,
    ),
    ("literal trick anchored", "MATCH (m:Memory {namespace: $namespace}) WHERE m.summary <> ' OR true ' RETURN m", OK),
]


def _check(engines: Engines, ns: str, query: str, expected: str) -> None:
    response = _cypher(engines.client, ns, query=query.replace("{B}", engines.b), params={"other": engines.b})
    assert engines.marker not in response.text
    assert engines.b not in response.text.replace(f"'{engines.b}'", "")
    body = response.json()
    if expected == OK:
        assert response.status_code == 200, response.text
        assert body["query_type"] == "r"
        _assert_only(body["rows"], ns)
        return
    assert response.status_code == 422, response.text
    codes = {"cypher_refused"} if expected == REFUSED else {"cypher_refused", "cypher_error"}
    assert body["error"]["code"] in codes, body
    assert body["error"]["field"] == "query"
    assert body["error"]["message"]


def _assert_only(value: Any, ns: str) -> None:
    """Every node in the rows is a memory of `ns`."""
    if isinstance(value, list):
        for item in value:
            _assert_only(item, ns)
    elif isinstance(value, dict):
        if "_labels" in value:
            assert "Memory" in value["_labels"] and value["namespace"] == ns, value
        for item in value.values():
            _assert_only(item, ns)


@pytest.mark.parametrize(("query", "expected"), [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_table_on_a_namespace_without_memories(engines: Engines, query: str, expected: str) -> None:
    _check(engines, engines.a, query, expected)


@pytest.mark.parametrize(("query", "expected"), [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_table_on_the_seeded_namespace(seeded: Engines, query: str, expected: str) -> None:
    _check(seeded, seeded.a, query, expected)


def test_the_server_binds_namespace(seeded: Engines) -> None:
    response = _cypher(seeded.client, seeded.a, query="MATCH (m:Memory {namespace: $namespace}) RETURN m",
                       params={"namespace": seeded.b})  # fmt: skip
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "params.namespace"
    assert seeded.marker not in response.text


def test_anchored_reads_return_the_namespace_and_json_values(seeded: Engines) -> None:
    body = _cypher(seeded.client, seeded.a,
                   query="MATCH (m:Memory {namespace: $namespace})-[r]->(x) RETURN m, r, x, m.created_at AS at, "
                         "duration('P1DT2H') AS d ORDER BY m.id, type(r), x.id").json()  # fmt: skip
    assert body["columns"] == ["m", "r", "x", "at", "d"]
    assert body["truncated"] is False and body["took_ms"] > 0
    row = body["rows"][0]
    assert "Memory" in row["m"]["_labels"] and row["m"]["namespace"] == seeded.a
    assert row["r"]["_type"] and (row["r"]["_start"], row["r"]["_end"]) == (row["m"]["id"], row["x"]["id"])
    assert isinstance(row["at"], str) and row["at"].startswith("20")
    assert isinstance(row["d"], str) and row["d"].startswith("P1DT")
    # a relationship returned without its nodes names its ends by their ids as well
    alone = _cypher(seeded.client, seeded.a, query="MATCH (m:Memory {namespace: $namespace})-[r:ASSOCIATION]->(x) "
                                                   "RETURN r, m.id AS a, x.id AS b").json()  # fmt: skip
    assert alone["rows"] and all((r["r"]["_start"], r["r"]["_end"]) == (r["a"], r["b"]) for r in alone["rows"])
    path = _cypher(seeded.client, seeded.a, query="MATCH p = (m:Memory {namespace: $namespace})-[:ASSOCIATION]->() "
                                                  "RETURN p").json()["rows"][0]["p"]  # fmt: skip
    assert [("_type" in item) for item in path] == [False, True, False]


def test_the_row_limit_truncates(seeded: Engines) -> None:
    query = "MATCH (m:Memory {namespace: $namespace}) RETURN m.id AS id"
    total = len(_cypher(seeded.client, seeded.a, query=query).json()["rows"])
    body = _cypher(seeded.client, seeded.a, query=query, limit=2).json()
    assert total > 2 and len(body["rows"]) == 2 and body["truncated"] is True
    assert _cypher(seeded.client, seeded.a, query=query, limit=total).json()["truncated"] is False
    big = _cypher(seeded.client, seeded.a, query="UNWIND range(1, 1500) AS i RETURN i").json()
    assert len(big["rows"]) == 1000 and big["truncated"] is True
    assert _cypher(seeded.client, seeded.a, query=query, limit=10_001).status_code == 422
    assert _cypher(seeded.client, seeded.a, query=query, name="orphans").status_code == 422


def test_a_slow_query_is_stopped_at_the_timeout(services, embedder, celery_configured, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from app.api.main import create_app
    from app.runtime import Runtime

    settings = make_settings(services, tmp_path, HIPPOGRAPH_CYPHER_TIMEOUT="0.2")
    runtime = Runtime.open(settings, embedder=embedder)
    try:
        with checked(TestClient(create_app(runtime=runtime), headers=admin_headers())) as client:
            ns = f"cy-t-{uuid.uuid4().hex[:8]}"
            client.put(f"/v1/namespaces/{ns}")
            response = _cypher(
                client, ns, query="UNWIND range(1, 300000000) AS i WITH i WHERE i % 7 = 3 RETURN count(*)"
            )
            assert response.status_code == 422, response.text
            assert response.json()["error"]["code"] == "cypher_timeout"
            assert response.json()["error"]["field"] == "query"
            client.delete(f"/v1/namespaces/{ns}")
    finally:
        runtime.close()


# -- the analytics catalogue ------------------------------------------------------------------------

CATALOG = AnalyticsCatalog.load()


def test_the_catalogue_lists_every_query_with_its_parameters(engines: Engines) -> None:
    response = engines.client.get(f"/v1/namespaces/{engines.a}/cypher/queries")
    assert response.status_code == 200
    listed = {query["name"]: query for query in response.json()["queries"]}
    assert set(listed) == set(CATALOG.names()) and len(listed) >= 8
    for query in listed.values():
        assert query["description"]
        for parameter in query["parameters"]:
            assert set(parameter) == {"name", "type", "default", "description"} and parameter["description"]
    assert {"name": "limit", "type": "int", "default": 20, "description": "How many to return"} in listed[
        "most_activated_concepts"
    ]["parameters"]


@pytest.mark.parametrize("name", CATALOG.names())
def test_every_analytics_query_runs_by_name_on_a_seeded_namespace(seeded: Engines, name: str) -> None:
    response = _cypher(seeded.client, seeded.a, name=name)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["rows"], f"{name} returned no rows"
    assert seeded.marker not in response.text
    _assert_only(body["rows"], seeded.a)


def test_named_queries_take_their_parameters(seeded: Engines) -> None:
    history = _cypher(seeded.client, seeded.a, name="fact_history", params={"subject": "alice", "slot": "moved_to"})
    rows = history.json()["rows"]
    assert [row["value"] for row in rows] == ["Berlin", "Munich"], rows
    assert rows[0]["superseded_by"] == rows[1]["id"] and rows[0]["valid_to"] == rows[1]["valid_from"]
    refused = _cypher(seeded.client, seeded.a, name="fact_history", params={"nope": 1})
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "params.nope"
    wrong = _cypher(seeded.client, seeded.a, name="orphans", params={"limit": "ten"})
    assert wrong.status_code == 422 and wrong.json()["error"]["field"] == "params.limit"
    unknown = _cypher(seeded.client, seeded.a, name="no_such_query")
    assert unknown.status_code == 422 and unknown.json()["error"]["field"] == "name"


def test_catalogue_defaults_follow_the_product_constants() -> None:
    prune = {p.name: p.default for p in CATALOG["next_prune"].parameters}
    assert prune["prune_weights"] == prune_weight_table()
    decay = {p.name: p.default for p in CATALOG["decay_by_importance"].parameters}
    assert decay["soft_forget_threshold"] == SOFT_FORGET_THRESHOLD


# -- the second check -------------------------------------------------------------------------------


def test_the_converter_refuses_nodes_of_another_namespace() -> None:
    import neo4j.graph

    graph = neo4j.graph.Graph()
    ours = neo4j.graph.Node(graph, "4:x:1", 1, ["Memory", "Task"], {"namespace": "a", "id": "task:1"})
    theirs = neo4j.graph.Node(graph, "4:x:2", 2, ["Memory", "Task"], {"namespace": "b", "id": "task:2"})
    key = neo4j.graph.Node(graph, "4:x:3", 3, ["ApiKey"], {"namespace": "a"})
    converter = ValueConverter("a")
    assert converter.convert([ours]) == [{"namespace": "a", "id": "task:1", "_labels": ["Memory", "Task"]}]
    for value in (theirs, [1, {"x": theirs}], key):
        with pytest.raises(CypherRefused, match="outside the namespace"):
            converter.convert(value)
    converter.fill_ends({})
    relationship_type = graph.relationship_type("LINK")
    link = relationship_type(graph, "5:x:1", 1, {"weight": 0.5})
    link._start_node, link._end_node = ours, neo4j.graph.Node(graph, "4:x:9", 9)
    converted = converter.convert(link)
    assert converted["_start"] == "task:1" and converter.pending_ends() == ["4:x:9"]
    with pytest.raises(CypherRefused, match="outside the namespace"):
        converter.fill_ends({})


def test_a_reader_that_cannot_see_private_memories_is_refused_while_there_are_any(engines: Engines) -> None:
    client, ns = engines.client, f"cy-p-{uuid.uuid4().hex[:8]}"
    client.put(f"/v1/namespaces/{ns}")
    created = client.post("/v1/keys", json={"namespace": ns, "role": "reader", "agent_id": "analyst"})
    assert created.status_code == 201, created.text
    reader = {"Authorization": f"Bearer {created.json()['key']}"}
    query = {"query": "MATCH (m:Memory {namespace: $namespace}) RETURN m.content AS c"}
    assert client.post(f"/v1/namespaces/{ns}/cypher", json=query, headers=reader).status_code == 200
    diary = {"type": "Task", "label": "diary", "content": "dear diary", "agent_id": "writer", "private": True}
    saved = client.post(f"/v1/namespaces/{ns}/memories", json=diary)
    assert saved.status_code == 201, saved.text
    refused = client.post(f"/v1/namespaces/{ns}/cypher", json=query, headers=reader)
    assert refused.status_code == 403 and "dear diary" not in refused.text
    assert client.post(f"/v1/namespaces/{ns}/cypher", json=query).json()["rows"] == [{"c": "dear diary"}]
    client.delete(f"/v1/namespaces/{ns}")
