"""The Python client (`hippograph.client`) against the running service: every test body runs for the
sync `Hippograph` and, through a blocking adapter, for the async `AsyncHippograph`.

Also: every route of the app's OpenAPI document has a client method; the retry schedule; a real 503
(an API whose Redis is down) retried and then raised as `EngineUnavailable`.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from app.api.main import create_app
from hippograph import _requests
from hippograph._retry import RetryPolicy
from hippograph.client import AsyncHippograph, Hippograph
from hippograph.errors import (
    BY_CODE,
    Conflict,
    CypherBusy,
    CypherRefused,
    EngineUnavailable,
    Forbidden,
    HippographError,
    InvalidRequest,
    NotFound,
    NotReady,
    RateLimited,
    Unauthorized,
    Unavailable,
    error_from_response,
    parse_retry_after,
)
from tests.conftest import TEST_ADMIN_KEY, free_port, make_settings


class Blocking:
    """The async client, called like the sync one: each awaitable is run to completion on a loop."""

    def __init__(self, client: AsyncHippograph, loop: asyncio.AbstractEventLoop) -> None:
        self._client, self._loop = client, loop

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._client, name)
        if not callable(found):
            return found

        def call(*args: Any, **kwargs: Any) -> Any:
            result = found(*args, **kwargs)
            if inspect.isasyncgen(result):  # iter_memories: drained into a list
                return self._loop.run_until_complete(_drained(result))
            return self._loop.run_until_complete(result) if inspect.isawaitable(result) else result

        return call

    def close(self) -> None:
        self._loop.run_until_complete(self._client.aclose())


async def _drained(items: Any) -> list[Any]:
    return [item async for item in items]


MakeClient = Callable[..., Any]


@pytest.fixture(params=["sync", "async"])
def make_client(request: pytest.FixtureRequest, live_api: str) -> Iterator[MakeClient]:
    """Builds clients of one half (sync, or async behind `Blocking`) on the live API."""
    loop = asyncio.new_event_loop() if request.param == "async" else None
    made: list[Any] = []

    def make(key: str | None = TEST_ADMIN_KEY, *, url: str = live_api, **options: Any) -> Any:
        if loop is None:
            client: Any = Hippograph(url, key, **options)
        else:
            client = Blocking(AsyncHippograph(url, key, **options), loop)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()
    if loop is not None:
        loop.close()


@pytest.fixture
def hg(make_client: MakeClient, namespace: str) -> Any:
    """An admin client whose default namespace exists."""
    client = make_client(namespace=namespace)
    created = client.put_namespace()
    assert created.name == namespace
    return client


def test_every_openapi_route_has_a_client_method() -> None:
    document = create_app().openapi()
    in_app = {(method.upper(), path) for path, ops in document["paths"].items() for method in ops}
    covered = {(e.method, e.path): e.name for e in _requests.ENDPOINTS}
    missing = sorted(f"{m} {p}" for m, p in in_app - covered.keys())
    assert not missing, f"routes without a client method: {missing}"
    # A client path that is not in the app is a typo.
    unknown = sorted(f"{m} {p}" for m, p in covered.keys() - in_app)
    assert not unknown, unknown
    for endpoint in _requests.ENDPOINTS:
        assert callable(getattr(Hippograph(), endpoint.name)), endpoint.name
        assert inspect.iscoroutinefunction(AsyncHippograph.__dict__.get("_send")), "the async half awaits"
        assert getattr(Hippograph, endpoint.name) is endpoint and getattr(AsyncHippograph, endpoint.name) is endpoint


def test_namespaces(hg: Any, namespace: str) -> None:
    assert hg.healthz().status == "ok"
    assert hg.readyz().status == "ok"
    assert namespace in [item.name for item in hg.list_namespaces().items]
    updated = hg.put_namespace(capacity=5000)
    assert updated.capacity == 5000
    shown = hg.get_namespace(namespace)
    assert shown.name == namespace and shown.capacity == 5000 and shown.total == 0
    assert hg.delete_namespace().deleted.nodes == 0
    with pytest.raises(NotFound) as raised:
        hg.get_namespace()
    assert raised.value.status == 404 and raised.value.code == "not_found" and raised.value.request_id


def test_memories_links_nodes_related_chain(hg: Any) -> None:
    a = hg.save_memory("Knowledge", "Ann's editor", "Ann writes her reports in Vim", tags=["tools"])
    assert a.id.startswith("knowledge:") and a.type == "Knowledge"
    again = hg.save_memory("Knowledge", "Ann's editor", "Ann writes her reports in Vim", tags=["tools"])
    assert again.id == a.id  # the same memory again changes nothing
    b = hg.save_memory("Task", "Port the reports", "Port Ann's reports to Markdown", id="task:port-reports")
    link = hg.add_link(b.id, a.id, "ASSOCIATION", weight=0.7)
    assert link.type == "ASSOCIATION"
    node = hg.get_node(a.id)
    assert node.id == a.id and node.content == "Ann writes her reports in Vim"
    assert {rel.type for rel in node.relationships} >= {"ASSOCIATION"}
    patched = hg.patch_node(a.id, tags=["tools", "editor"])
    assert set(patched.tags) >= {"tools", "editor"}
    related = hg.related(b.id, depth=1)
    assert a.id in [item.id for item in related.items]
    path = hg.chain(from_id=b.id, to_id=a.id)
    assert [node.id for node in path.nodes] == [b.id, a.id] and path.relationships == ["ASSOCIATION"]
    task_chain = hg.chain(task_id=b.id)
    assert task_chain.task_id == b.id
    assert hg.forget_node(b.id) is None
    with pytest.raises(NotFound):
        hg.get_node(b.id)


def test_tasks_tree_suspend_resume(hg: Any) -> None:
    note = hg.save_memory("Knowledge", "Billing DB", "Billing runs on Postgres 16", importance="NORMAL")
    root = hg.create_task("Migrate billing", id="task:migrate", related_ids=[note.id])
    assert root.status == "pending" and root.subtasks == []
    sub = hg.create_task("Copy the data", id="task:copy", parent_id=root.id)
    again = hg.create_task("Copy the data", id="task:copy", parent_id=root.id)
    assert again.id == sub.id  # the same id again: unchanged
    hg.create_task("Check", id="task:check", parent_id=root.id, depends_on=[sub.id])
    with pytest.raises(Conflict) as cycle:
        hg.update_task(sub.id, depends_on=["task:check"])
    assert cycle.value.field == "depends_on"
    assert hg.update_task(sub.id, status="running").status == "running"
    moved = hg.update_task("task:check", top_level=True)
    assert moved.parent_id is None
    hg.update_task("task:check", parent_id=root.id)
    tree = hg.get_task(root.id)
    assert [task.id for task in tree.subtasks] == ["task:copy", "task:check"]
    assert hg.get_task(root.id, depth=0).subtasks_truncated

    suspension = hg.suspend_task(root.id)
    assert set(suspension.suspended) == {"task:migrate", "task:copy", "task:check"}
    assert hg.get_task_suspension(root.id).graphml == suspension.graphml
    graphml = hg.download_task_suspension(root.id)
    assert graphml.startswith(b"<?xml") and note.id.encode() in graphml
    resumed = hg.resume_task(root.id, token_budget=500)
    assert resumed.context.tree.subtasks[0].status == "running"
    assert [card.id for card in resumed.context.cards] == [note.id] and resumed.activations[note.id] > 0.99
    with pytest.raises(Conflict):
        hg.resume_task(root.id)


def test_turns_wait_then_recall(hg: Any, worker: Any) -> None:
    turns = [
        {"session_id": "s1", "turn_id": "1", "speaker": "Ann", "text": "I moved to Lisbon last spring."},
        {"session_id": "s1", "turn_id": "2", "speaker": "Bob", "text": "How do you like Lisbon?"},
    ]
    ingested = hg.post_turns(turns, wait=True)
    assert [t.new for t in ingested.turns] == [True, True]
    assert ingested.report.turns == 2 and ingested.report.dialogues_created == 2
    accepted = hg.post_turns(turns[:1])
    assert accepted.task_id and [t.new for t in accepted.turns] == [False]
    cards = hg.recall("Where did Ann move?", top_k=5)
    assert any("Lisbon" in card.summary and card.source_turn_ids for card in cards.items), cards


def test_batch_status_after_a_write_without_wait(hg: Any, worker: Any) -> None:
    turn = {"session_id": "s2", "turn_id": "1", "speaker": "Ann", "text": "The review is on Friday."}
    accepted = hg.post_turns([turn])
    assert accepted.batch_id == accepted.task_id and accepted.status_url.endswith(accepted.batch_id)
    deadline = time.monotonic() + 60
    while (batch := hg.get_batch(accepted.batch_id)).status != "done":
        assert batch.status in {"queued", "running"} and time.monotonic() < deadline, batch
        time.sleep(0.1)
    assert batch.turns == 1 and batch.report is not None and batch.report["turns"] == 1
    with pytest.raises(NotFound) as missing:
        hg.get_batch("no-such-batch")
    assert missing.value.field == "batch_id"


def test_memory_listing_pages_and_tools(hg: Any) -> None:
    saved = [hg.save_memory("Knowledge", f"fact {i}", f"Fact number {i} about the launch", tags=["launch"])
             for i in range(5)]  # fmt: skip
    first = hg.list_memories(limit=2, tags=["launch"])
    assert len(first.items) == 2 and first.next_cursor
    every = hg.iter_memories(limit=2, tags="launch")
    assert sorted(card.id for card in every) == sorted(node.id for node in saved)
    tools = hg.list_tools()
    # An admin key: the seven tools and the admin tool.
    assert len(tools.tools) == 8 and {t.function.name for t in tools.tools} >= {"recall_memory", "forget_memories"}
    ran = hg.run_tool("memory_search", {"tags": ["launch"], "limit": 2})
    assert ran.tool == "memory_search"
    assert ran.result == first.model_dump(mode="json")
    with pytest.raises(NotFound) as unknown:
        hg.run_tool("forget_everything")
    assert unknown.value.field == "name"


def test_keys_roles_and_error_classes(hg: Any, make_client: MakeClient, namespace: str) -> None:
    created = hg.create_key(namespace, "reader", "reader-agent", label="client test")
    assert created.key and created.role == "reader" and created.namespace == namespace
    assert created.id in [item.id for item in hg.list_keys().items]
    reader = make_client(created.key, namespace=namespace)
    assert reader.recall("anything").items == []
    with pytest.raises(Forbidden) as forbidden:
        reader.save_memory("Knowledge", "x", "a reader may not write")
    assert forbidden.value.status == 403 and forbidden.value.code == "forbidden"
    with pytest.raises(InvalidRequest) as invalid:
        hg.recall("hello", top_k=0)
    assert invalid.value.status == 422 and invalid.value.field == "top_k"
    assert hg.revoke_key(created.id).revoked == created.id
    with pytest.raises(Unauthorized) as unauthorized:
        reader.recall("anything")
    assert unauthorized.value.status == 401 and unauthorized.value.code == "unauthorized"
    with pytest.raises(Unauthorized):
        make_client(None, namespace=namespace).get_namespace()


def test_a_key_bound_to_a_namespace_implies_it(hg: Any, make_client: MakeClient, namespace: str) -> None:
    """No `namespace=` anywhere: the client asks the key's own (GET /v1/me) once; the bootstrap admin,
    which holds every namespace, must name one."""
    writer = make_client(hg.create_key(namespace, "writer", "writer-agent").key)
    assert writer.namespace is None
    identity = writer.me()
    assert identity.namespace == namespace and identity.role == "writer" and identity.agent_id == "writer-agent"
    saved = writer.save_memory("Knowledge", "Beta", "The beta ships on Friday")
    assert writer.namespace == namespace
    assert hg.get_node(saved.id).id == saved.id  # written where the admin client looks
    assert [item.id for item in writer.list_memories().items] == [saved.id]
    with pytest.raises(ValueError, match="bootstrap admin"):
        make_client().recall("anything")


def test_cypher(hg: Any, namespace: str) -> None:
    hg.save_memory("Knowledge", "Ann's editor", "Ann writes her reports in Vim")
    result = hg.cypher("MATCH (m:Memory {namespace: $namespace}) RETURN count(m) AS n")
    assert result.columns == ["n"] and result.rows == [{"n": 1}]
    names = [query.name for query in hg.cypher_queries().queries]
    assert names
    named = hg.cypher(name=names[0])
    assert isinstance(named.rows, list)
    with pytest.raises(CypherRefused) as refused:
        hg.cypher("MATCH (m:Memory {namespace: $namespace}) DETACH DELETE m")
    assert isinstance(refused.value, InvalidRequest) and refused.value.code == "cypher_refused"
    assert refused.value.field == "query"


def test_export_import(hg: Any, make_client: MakeClient, namespace: str) -> None:
    hg.save_memory("Knowledge", "Ann's editor", "Ann writes her reports in Vim", id="knowledge:editor")
    exported = hg.export_namespace()
    assert b"knowledge:editor" in exported
    assert hg.export_namespace(format="graphml").lstrip().startswith(b"<?xml")
    target = f"{namespace}-copy"
    hg.put_namespace(target)
    imported = hg.import_namespace(exported, namespace=target)
    assert imported.imported.nodes >= 1
    assert hg.get_node("knowledge:editor", namespace=target).content == "Ann writes her reports in Vim"
    with pytest.raises(Conflict):  # into a namespace that is no longer empty
        hg.import_namespace(exported, namespace=target)
    hg.delete_namespace(target)


def test_metrics_is_text(hg: Any) -> None:
    assert "hippograph_http_requests" in hg.metrics()


# Retries.


def test_the_backoff_schedule() -> None:
    policy = RetryPolicy(max_retries=4, backoff_base=0.5, backoff_max=3.0, max_wait=10.0)
    assert [policy.delay(n) for n in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert policy.delay(0, retry_after=5.0) == 5.0  # never sooner than the server asked
    assert policy.delay(3, retry_after=1.0) == 3.0
    assert policy.delay(0, retry_after=60.0) == 10.0  # but never longer than max_wait
    unavailable = EngineUnavailable("down", status=503)
    assert policy.should_retry(unavailable, 3, idempotent=True)
    assert not policy.should_retry(unavailable, 4, idempotent=True)
    assert not policy.should_retry(unavailable, 0, idempotent=False)
    assert not policy.should_retry(NotFound("gone", status=404), 0, idempotent=True)
    # A 429 was refused before anything was done: any call goes again, after its Retry-After.
    assert policy.should_retry(RateLimited("slow down", status=429), 0, idempotent=False)
    assert policy.should_retry(CypherBusy("busy", status=429), 3, idempotent=True)
    assert not policy.should_retry(RateLimited("slow down", status=429), 4, idempotent=False)
    assert parse_retry_after("5") == 5.0 and parse_retry_after(None) is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past: now


def test_errors_map_by_code_then_status() -> None:
    def answer(status: int, code: str | None, **extra: Any) -> HippographError:
        error = {"code": code, "message": "m", "field": "f"} if code else {"message": "m"}
        return error_from_response(httpx.Response(status, json={"error": error, "request_id": "r", **extra},
                                                  headers={"Retry-After": "7"}))  # fmt: skip

    assert set(BY_CODE) >= {"unauthorized", "forbidden", "not_found", "conflict", "invalid_request",
                            "cypher_refused", "cypher_timeout", "cypher_error", "engine_unavailable", "timeout"}
    down = answer(503, "engine_unavailable", engine="redis")
    assert isinstance(down, EngineUnavailable) and down.engine == "redis" and down.retry_after == 7.0
    assert (down.status, down.code, down.message, down.field, down.request_id) == (503, "engine_unavailable", "m",
                                                                                   "f", "r")  # fmt: skip
    assert type(answer(503, "not_ready")) is NotReady
    assert type(answer(503, "brand_new_code")) is Unavailable  # an unknown code: by status
    assert type(answer(418, None)) is HippographError
    assert type(answer(422, "cypher_refused")) is CypherRefused
    limited = answer(429, "rate_limited")
    assert type(limited) is RateLimited and limited.retry_after == 7.0
    assert type(answer(429, "cypher_busy")) is CypherBusy


@pytest.fixture
def api_without_redis(services, tmp_path, embedder, celery_configured, namespace):  # type: ignore[no-untyped-def]
    """A second API whose Redis is unreachable (a real outage: recall answers 503 engine_unavailable);
    the namespace is created first, while Redis answers."""
    import uvicorn

    from app.runtime import Runtime

    def serve(settings: Any) -> tuple[Any, Any, threading.Thread, str]:
        runtime = Runtime.open(settings, embedder=embedder)
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(create_app(runtime=runtime), host="127.0.0.1", port=port,
                                               log_config=None, access_log=False))  # fmt: skip
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the API did not start"
            time.sleep(0.02)
        return runtime, server, thread, f"http://127.0.0.1:{port}"

    def stop(runtime: Any, server: Any, thread: threading.Thread) -> None:
        server.should_exit = True
        thread.join(timeout=30)
        runtime.close()

    runtime, server, thread, url = serve(make_settings(services, tmp_path / "up"))
    with Hippograph(url, TEST_ADMIN_KEY) as admin:
        admin.put_namespace(namespace)
    stop(runtime, server, thread)
    broken = make_settings(services, tmp_path / "up", REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    runtime, server, thread, url = serve(broken)
    yield url
    stop(runtime, server, thread)


def test_an_idempotent_call_is_retried_on_a_real_503_then_raised(
    make_client: MakeClient, api_without_redis: str, namespace: str
) -> None:
    retry = RetryPolicy(max_retries=2, backoff_base=0.01, backoff_max=0.05, max_wait=0.05)
    client = make_client(url=api_without_redis, namespace=namespace, retry=retry)
    started = time.monotonic()
    with pytest.raises(EngineUnavailable) as raised:
        client.recall("anything")
    assert raised.value.engine == "redis" and raised.value.retry_after == 5.0
    assert time.monotonic() - started < 5.0  # max_wait bounded the server's Retry-After
    seen = _counter(client.metrics(), 'method="POST",route="/v1/namespaces/{ns}/recall",status="503"')
    assert seen == 3.0  # the first call and two retries


def _counter(exposition: str, labels: str) -> float:
    for line in exposition.splitlines():
        if line.startswith("hippograph_http_requests_total{") and labels in line:
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no hippograph_http_requests_total{{{labels}}} in\n{exposition[:2000]}")
