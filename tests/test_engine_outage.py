"""An engine outage answers 503 `engine_unavailable` (never 500), naming the engine, with `Retry-After`;
the API recovers by itself once the engine is back.

The Neo4j outage runs on a PRIVATE server (never the shared test engines): a testcontainers Neo4j
paused and unpaused when a Docker engine answers, else `scripts/neo4j_local.py` stopped and started
on a free port. Every `/v1` operation of the app's OpenAPI document is called while it is down, so a
new route is covered without editing this test (a new request body model needs an example below).
"""

from __future__ import annotations

import contextlib
import pickle
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import kombu.exceptions
import pytest
from fastapi.testclient import TestClient

from app.api.errors import ENGINE_RETRY_AFTER_S
from app.api.main import create_app
from app.errors import EngineUnavailable, HippographError
from app.runtime import Runtime
from tests.conftest import Services, checked, make_settings
from tests.private_neo4j import PrivateNeo4j, private_neo4j_server

SEED_NODE_ID = "knowledge:outage-seed"
KEY_ID = "key-outage-test"
RECOVERY_DEADLINE_S = 30.0

# A minimal valid body per request body model (OpenAPI component name). A route with a body model
# missing here fails the test: add its example.
BODY_EXAMPLES: dict[str, Callable[[str], Any]] = {
    "NamespaceBody": lambda ns: {"capacity": 1000},
    "MemoryBody": lambda ns: {"type": "Knowledge", "label": "outage", "content": "written while an engine is down"},
    "LinkBody": lambda ns: {"source_id": SEED_NODE_ID, "target_id": "knowledge:other", "type": "ASSOCIATION"},
    "NodePatchBody": lambda ns: {"tags": ["outage"]},
    "TurnsBody": lambda ns: {"turns": [{"session_id": "s1", "turn_id": "1", "speaker": "Alice", "text": "Hello"}]},
    "ForgetBody": lambda ns: {"session_id": "s1"},
    "EntityMergeBody": lambda ns: {"keep_id": SEED_NODE_ID, "merged_id": "knowledge:other"},
    "EntitySplitBody": lambda ns: {"merged_id": "knowledge:other"},
    "RecallBody": lambda ns: {"query": "what was written?"},
    "ChainBody": lambda ns: {"task_id": "task:outage"},
    "KeyBody": lambda ns: {"namespace": ns, "role": "reader", "agent_id": "outage-test"},
    "CypherBody": lambda ns: {"query": "MATCH (m:Memory {namespace: $namespace}) RETURN count(m) AS n"},
    "ToolCall": lambda ns: {"arguments": {"type": ["Knowledge"]}},
    "RunStepBody": lambda ns: {"name": "read_file", "tokens": 100, "window": 1000},
    "RunResumeBody": lambda ns: {"resume_token": "outage"},
    "ContextBody": lambda ns: {"goal": "what was written?", "token_budget": 500},
    "TaskBody": lambda ns: {"title": "written while an engine is down"},
    "TaskPatchBody": lambda ns: {"status": "running"},
    "ResumeBody": lambda ns: {"token_budget": 100},
}
# Routes that touch no engine (static catalogues): they answer 200 during an outage; every other
# /v1 operation must answer 503.
# A batch's status is a Redis record: reading it needs no Neo4j.
ENGINE_FREE_ROUTES = frozenset(
    {"GET /v1/namespaces/{ns}/cypher/queries", "GET /v1/tools", "GET /v1/namespaces/{ns}/batches/{batch_id}",
     "GET /v1/me"}  # fmt: skip
)
# Acknowledging turns needs only Redis (the hot window, and the namespace's existence marker there):
# a Neo4j outage delays their writing, not their acknowledgement.
REDIS_ONLY_ROUTES = {"POST /v1/namespaces/{ns}/turns": 202}
# Routes that read their body raw (no request body model in OpenAPI), by path suffix; filled with the
# seeded namespace's export (a valid snapshot) before the outage.
RAW_BODY_SUFFIXES = ("/import",)


@pytest.fixture
def private_neo4j(tmp_path: Path) -> Iterator[PrivateNeo4j]:
    with private_neo4j_server(tmp_path / "neo4j") as found:
        yield found


def _open_api(settings, embedder) -> tuple[Runtime, TestClient]:  # type: ignore[no-untyped-def]
    runtime = Runtime.open(settings, embedder=embedder)
    admin_key = settings.admin_key.get_secret_value()
    client = checked(TestClient(create_app(runtime=runtime), headers={"Authorization": f"Bearer {admin_key}"}))
    return runtime, client


@contextlib.contextmanager
def _api(settings, embedder) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    runtime, client = _open_api(settings, embedder)
    try:
        with client:
            yield client
    finally:
        runtime.close()


def _assert_engine_unavailable(response: Any, engine: str, what: str) -> None:
    assert response.status_code == 503, f"{what}: {response.status_code} {response.text[:500]}"
    body = response.json()
    assert body["error"]["code"] == "engine_unavailable", f"{what}: {body}"
    assert engine in body["error"]["message"], f"{what}: {body}"
    assert body["engine"] == engine, f"{what}: {body}"
    assert body["request_id"], what
    assert response.headers.get("Retry-After") == str(ENGINE_RETRY_AFTER_S), f"{what}: {dict(response.headers)}"


def _body_model(operation: dict[str, Any]) -> str | None:
    """The component name of an operation's JSON request body (a `$ref`, possibly inside anyOf)."""
    schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    pending = [schema] if schema else []
    while pending:
        node = pending.pop()
        if "$ref" in node:
            return str(node["$ref"]).rsplit("/", 1)[-1]
        pending.extend(node.get("anyOf", []) + node.get("oneOf", []) + node.get("allOf", []))
    return None


def _v1_operations(client: TestClient, ns: str, raw_bodies: dict[str, bytes], batch_id: str) -> list[dict[str, Any]]:
    """Every /v1 operation as a ready request: path parameters filled, a minimal body where it takes one."""
    path_values = {"ns": ns, "namespace": ns, "node_id": SEED_NODE_ID, "id": SEED_NODE_ID, "name": "memory_search",
                   "batch_id": batch_id, "dead_letter_id": "dialogue:0123", "run_id": "outage-run",
                   "task_id": "task:outage"}  # fmt: skip
    document = client.get("/openapi.json").json()
    requests, problems = [], []
    for template, operations in document["paths"].items():
        if not (template == "/v1" or template.startswith("/v1/")):
            continue
        for method, operation in operations.items():
            what = f"{method.upper()} {template}"
            path = template
            for parameter in operation.get("parameters", []):
                name = parameter["name"]
                if parameter["in"] == "path":
                    value = path_values.get(name) or (KEY_ID if "key" in name else None)
                    if value is None:
                        problems.append(f"{what}: no value for path parameter {name!r}")
                        continue
                    path = path.replace(f"{{{name}}}", value)
                elif parameter.get("required") and parameter["in"] == "query":
                    problems.append(f"{what}: no value for required query parameter {name!r}")
            request: dict[str, Any] = {"method": method.upper(), "url": path, "what": what}
            if (model := _body_model(operation)) is not None:
                if model not in BODY_EXAMPLES:
                    problems.append(f"{what}: no example body for {model} in BODY_EXAMPLES")
                    continue
                request["json"] = BODY_EXAMPLES[model](ns)
            elif template.endswith(RAW_BODY_SUFFIXES):
                request["content"] = raw_bodies[template]
            requests.append(request)
    assert not problems, "\n".join(problems)
    assert len(requests) >= 15, [r["what"] for r in requests]  # the document was read whole
    return requests


def _wait_for_status(client: TestClient, url: str, status: int, deadline_s: float) -> Any:
    deadline = time.monotonic() + deadline_s
    while True:
        response = client.get(url)
        if response.status_code == status or time.monotonic() > deadline:
            return response
        time.sleep(0.5)


def test_every_v1_route_answers_503_while_neo4j_is_down_and_recovers(
    services: Services, private_neo4j: PrivateNeo4j, tmp_path: Path, embedder, celery_configured, namespace: str
) -> None:
    found = private_neo4j.services(services)
    settings = make_settings(found, tmp_path / "data", HIPPOGRAPH_ADMIN_KEY=secrets.token_urlsafe(24))
    with _api(settings, embedder) as client:
        assert client.put(f"/v1/namespaces/{namespace}").status_code == 201
        saved = client.post(f"/v1/namespaces/{namespace}/memories",
                            json={"type": "Knowledge", "label": "seed", "content": "The outage test's seed",
                                  "id": SEED_NODE_ID})  # fmt: skip
        assert saved.status_code == 201, saved.text
        node_url = f"/v1/namespaces/{namespace}/nodes/{SEED_NODE_ID}"
        assert client.get(node_url).status_code == 200
        exported = client.get(f"/v1/namespaces/{namespace}/export")
        assert exported.status_code == 200, exported.text
        raw_bodies = {"/v1/namespaces/{ns}/import": exported.content}
        batch = client.post(f"/v1/namespaces/{namespace}/turns", json=BODY_EXAMPLES["TurnsBody"](namespace))
        assert batch.status_code == 202, batch.text
        operations = _v1_operations(client, namespace, raw_bodies, batch.json()["batch_id"])
        assert client.get("/readyz").status_code == 200

        private_neo4j.stop()
        try:
            for operation in operations:
                request = {k: v for k, v in operation.items() if k != "what"}
                response = client.request(**request)
                if operation["what"] in ENGINE_FREE_ROUTES:  # nothing to be unavailable
                    assert response.status_code == 200, f"{operation['what']}: {response.text[:300]}"
                elif operation["what"] in REDIS_ONLY_ROUTES:
                    expected = REDIS_ONLY_ROUTES[operation["what"]]
                    assert response.status_code == expected, f"{operation['what']}: {response.text[:300]}"
                else:
                    _assert_engine_unavailable(response, "neo4j", operation["what"])
            ready = client.get("/readyz")
            assert ready.status_code == 503 and ready.json()["checks"]["neo4j"]["status"] == "down", ready.text
            assert ready.json()["error"]["message"].startswith("neo4j down: ")
        finally:
            private_neo4j.start()

        node = _wait_for_status(client, node_url, 200, RECOVERY_DEADLINE_S)
        assert node.status_code == 200, f"not back within {RECOVERY_DEADLINE_S:g} s: {node.text[:300]}"
        assert node.json()["id"] == SEED_NODE_ID
        ready = _wait_for_status(client, "/readyz", 200, RECOVERY_DEADLINE_S)
        assert ready.status_code == 200, ready.text


def test_a_redis_outage_answers_503_naming_redis(services: Services, tmp_path: Path, embedder, celery_configured,
                                                 namespace: str, unused_port: int) -> None:  # fmt: skip
    admin_key = secrets.token_urlsafe(24)
    settings = make_settings(services, tmp_path, HIPPOGRAPH_ADMIN_KEY=admin_key)
    memory = {"type": "Knowledge", "label": "launch", "content": "The Phoenix launch moved to May."}
    with _api(settings, embedder) as client:  # create the namespace and a memory while Redis answers
        assert client.put(f"/v1/namespaces/{namespace}").status_code == 201
        node_id = client.post(f"/v1/namespaces/{namespace}/memories", json=memory).json()["id"]
    broken = make_settings(services, tmp_path, HIPPOGRAPH_ADMIN_KEY=admin_key,
                           REDIS_URL=f"redis://127.0.0.1:{unused_port}/0")  # fmt: skip
    with _api(broken, embedder) as client:
        body = {"turns": [{"session_id": "s1", "turn_id": "1", "speaker": "Alice", "text": "Hello"}]}
        _assert_engine_unavailable(client.post(f"/v1/namespaces/{namespace}/turns", json=body), "redis", "turns")
        response = client.post(f"/v1/namespaces/{namespace}/recall", json={"query": "hello"})
        _assert_engine_unavailable(response, "redis", "recall")
        # Erasing a namespace starts with its hot state: without Redis nothing of it is erased.
        _assert_engine_unavailable(client.delete(f"/v1/namespaces/{namespace}"), "redis", "namespace delete")
    with _api(settings, embedder) as client:
        assert client.get(f"/v1/namespaces/{namespace}/nodes/{node_id}").status_code == 200
        assert client.delete(f"/v1/namespaces/{namespace}").json()["deleted"]["nodes"] >= 1  # the retry finishes it
        assert client.get(f"/v1/namespaces/{namespace}").status_code == 404


def test_a_broker_that_refuses_the_task_answers_503(
    services: Services, tmp_path: Path, embedder, celery_configured, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jobs.celery_tasks import ingest_turns

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise kombu.exceptions.OperationalError("Error 111 connecting to redis:6379. Connection refused.")

    settings = make_settings(services, tmp_path, HIPPOGRAPH_ADMIN_KEY=secrets.token_urlsafe(24))
    with _api(settings, embedder) as client:
        assert client.put(f"/v1/namespaces/{namespace}").status_code == 201
        monkeypatch.setattr(ingest_turns, "apply_async", refuse)  # the turns route queues with its batch id
        body = {"turns": [{"session_id": "s1", "turn_id": "1", "speaker": "Alice", "text": "Hello"}]}
        _assert_engine_unavailable(client.post(f"/v1/namespaces/{namespace}/turns", json=body), "redis", "turns")


def test_stores_wrap_driver_errors_of_an_unreachable_engine(settings, unused_port: int) -> None:
    from qdrant_client import QdrantClient

    from app.stores.graph import GraphStore
    from app.stores.hot import connect_redis
    from app.stores.vectors.qdrant_server import QdrantClientVectorStore

    down = settings.model_copy(
        update={"neo4j_uri": f"bolt://127.0.0.1:{unused_port}", "redis_url": f"redis://127.0.0.1:{unused_port}/0"}
    )
    graph = GraphStore.connect(down)
    try:
        # (the writes, retried by the driver for 5 s first, are called in the outage test above)
        for call in (lambda: graph.read("health.ping"), lambda: graph.run_batched("health.ping"),
                     graph.apply_schema, lambda: graph.ping(timeout_s=1.0)):  # fmt: skip
            with pytest.raises(EngineUnavailable) as raised:
                call()
            assert raised.value.engine == "neo4j" and raised.value.__cause__ is not None
    finally:
        graph.close()

    client = connect_redis(down)
    pipeline = client.pipeline(transaction=True)
    pipeline.incr("hg:outage")
    for call in (client.ping, lambda: list(client.scan_iter(match="hg:*")), pipeline.execute):
        with pytest.raises(EngineUnavailable) as raised:
            call()
        assert raised.value.engine == "redis"
    client.close()

    with pytest.raises(EngineUnavailable) as raised:
        QdrantClientVectorStore(
            QdrantClient(url=f"http://127.0.0.1:{unused_port}", timeout=2, check_compatibility=False), "c", 384
        )
    assert raised.value.engine == "vectors" and "ConnectError" in raised.value.reason


def test_one_error_hierarchy_that_tasks_retry_on() -> None:
    from app.domain.inputs import InputError
    from app.memory.errors import ConflictError, NotFoundError
    from jobs.celery_tasks import enrich_turns, ingest_turns

    for cls in (InputError, NotFoundError, ConflictError, EngineUnavailable):
        assert issubclass(cls, HippographError)
    assert issubclass(InputError, ValueError) and issubclass(NotFoundError, LookupError)
    error = EngineUnavailable("neo4j", "ServiceUnavailable: Couldn't connect")
    assert str(error) == "neo4j unavailable: ServiceUnavailable: Couldn't connect"
    copy = pickle.loads(pickle.dumps(error))  # a task's exception travels to the result backend
    assert (copy.engine, copy.reason) == (error.engine, error.reason)
    assert EngineUnavailable(*error.args).engine == "neo4j"  # Celery's JSON exception codec: cls(*args)
    from app.memory.batch_writer import OUTAGE_ERRORS

    assert EngineUnavailable in OUTAGE_ERRORS  # ingest_turns retries on these (retry_schedule), never a dead letter
    assert ingest_turns.max_retries is None  # the retry window decides
    assert EngineUnavailable in enrich_turns.autoretry_for
    assert enrich_turns.max_retries and enrich_turns.retry_backoff
