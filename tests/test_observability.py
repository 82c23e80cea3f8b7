"""Observability on real engines: `/metrics` (Prometheus text format) and the JSON-lines logs."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app.observability.logs import JsonFormatter
from tests.conftest import TEST_ADMIN_KEY, admin_headers, make_settings

RECALL = "/v1/namespaces/{ns}/recall"
NODE = "/v1/namespaces/{ns}/nodes/{node_id}"
TURNS = "/v1/namespaces/{ns}/turns"
SECRET_TEXT = "Zanzibar-heliotrope marmalade code 7731"
OPEN = {"Authorization": ""}  # overrides the admin key the `api` client sends by default

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(api) -> Samples:  # type: ignore[no-untyped-def]
    response = api.get("/metrics", headers=OPEN)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def _turn(turn_id: str, text: str) -> dict:
    return {"session_id": "s1", "turn_id": turn_id, "speaker": "Alice", "text": text,
            "timestamp": "2024-05-15T10:00:00+00:00"}  # fmt: skip


def _knowledge(api, ns: str, content: str) -> str:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{ns}").status_code in (200, 201)
    response = api.post(
        f"/v1/namespaces/{ns}/memories", json={"type": "Knowledge", "label": "note", "content": content}
    )
    assert response.status_code == 201, response.text
    node_id: str = response.json()["id"]
    return node_id


def test_counters_move_by_exactly_the_requests_recalls_and_turns_made(api, worker, namespace) -> None:
    node_id = _knowledge(api, namespace, "Alice drives a red bicycle to work.")
    before = scrape(api)

    cards = 0
    for query in ("bicycle", "what does Alice drive", "red"):
        response = api.post(f"/v1/namespaces/{namespace}/recall", json={"query": query})
        assert response.status_code == 200, response.text
        cards += len(response.json()["items"])
    for _ in range(2):
        assert api.get(f"/v1/namespaces/{namespace}/nodes/{node_id}").status_code == 200
    assert api.get(f"/v1/namespaces/{namespace}/nodes/knowledge:nope").status_code == 404
    turns = [_turn("s1:1", "I moved to Berlin."), _turn("s1:2", "My car is a Model Y.")]
    response = api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": turns, "wait": True})
    assert response.status_code == 200, response.text
    # Celery sends task_success after storing the result the request waited for: allow it a moment.
    deadline = time.monotonic() + 5
    while True:
        after = scrape(api)
        outcome = delta(
            before, after, "hippograph_task_outcomes_total", task="hippograph.ingest_turns", outcome="success"
        )
        if outcome >= 1 or time.monotonic() > deadline:
            break
        time.sleep(0.05)

    requests = "hippograph_http_requests_total"
    assert delta(before, after, requests, method="POST", route=RECALL, status="200") == 3
    assert delta(before, after, requests, method="GET", route=NODE, status="200") == 2
    assert delta(before, after, requests, method="GET", route=NODE, status="404") == 1
    assert delta(before, after, requests, method="POST", route=TURNS, status="200") == 1
    assert delta(before, after, requests, method="GET", route="/metrics", status="200") >= 1  # the scrapes
    assert delta(before, after, "hippograph_http_request_duration_seconds_count", method="POST", route=RECALL) == 3
    assert cards > 0
    assert delta(before, after, "hippograph_recall_cards_total") == cards
    for stage in ("hot", "cold", "fusion", "total"):
        assert delta(before, after, "hippograph_recall_stage_seconds_count", stage=stage) == 3
    # The task counters are the process's, and its shared queue can still hand this test's worker an
    # earlier test's task (restored when that test's worker stopped): at least this test's batch.
    # The request and recall counters above are exact.
    assert delta(before, after, "hippograph_ingest_turns_total") >= 2
    assert delta(before, after, "hippograph_ingest_stage_seconds_count", stage="dialogues") >= 1
    assert outcome >= 1
    for engine in ("neo4j", "redis", "vectors"):
        assert value(after, "hippograph_engine_up", engine=engine) == 1
    assert value(after, "hippograph_queue_depth") >= 0
    assert ("hippograph_queue_depth", frozenset()) in after


def test_metrics_are_open_and_name_no_namespace_and_no_text_by_default(api, namespace) -> None:
    before = scrape(api)  # the process's counters: earlier tests' requests are in them
    node_id = _knowledge(api, namespace, SECRET_TEXT)
    assert api.post(f"/v1/namespaces/{namespace}/recall", json={"query": SECRET_TEXT}).status_code == 200
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{node_id}").status_code == 200
    # A request refused before routing is still counted under its route's template.
    assert api.post(f"/v1/namespaces/{namespace}/recall", json={"query": "x"}, headers=OPEN).status_code == 401
    assert api.get("/no/such/path", headers=OPEN).status_code == 404

    response = api.get("/metrics", headers=OPEN)
    assert response.status_code == 200
    text = response.text
    assert namespace not in text and "namespace=" not in text
    assert SECRET_TEXT not in text and "Zanzibar" not in text and node_id not in text
    assert TEST_ADMIN_KEY not in text
    samples = scrape(api)
    assert delta(before, samples, "hippograph_http_requests_total", method="POST", route=RECALL, status="401") == 1
    assert delta(before, samples, "hippograph_http_requests_total", method="GET", route="unmatched", status="404") == 1


@pytest.fixture
def labelled_api(services, tmp_path, embedder, celery_configured) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    from app.api.main import create_app
    from app.runtime import Runtime

    settings = make_settings(services, tmp_path, HIPPOGRAPH_METRICS_NAMESPACES="1")
    runtime = Runtime.open(settings, embedder=embedder)
    try:
        with TestClient(create_app(runtime=runtime), headers=admin_headers()) as client:
            yield client
    finally:
        runtime.close()


def test_namespace_labels_when_asked_for(labelled_api, namespace) -> None:
    _knowledge(labelled_api, namespace, "Alice drives a red bicycle to work.")
    assert labelled_api.post(f"/v1/namespaces/{namespace}/recall", json={"query": "bicycle"}).status_code == 200
    samples = scrape(labelled_api)
    assert value(samples, "hippograph_recall_stage_seconds_count", stage="total", namespace=namespace) == 1
    assert value(samples, "hippograph_recall_cards_total", namespace=namespace) >= 1
    # The request metrics still name only the template.
    assert value(samples, "hippograph_http_requests_total", method="POST", route=RECALL, status="200") == 1


def _access_records(caplog: pytest.LogCaptureFixture, request_id: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "hippograph.access" and getattr(r, "request_id", None) == request_id]


def test_one_json_access_line_per_request_with_ids_and_no_text_or_key(api, namespace, caplog) -> None:
    _knowledge(api, namespace, "Alice drives a red bicycle to work.")
    created = api.post(
        "/v1/keys", json={"namespace": namespace, "role": "reader", "agent_id": "agent-obs", "label": "test"}
    )
    assert created.status_code == 201, created.text
    key = created.json()["key"]

    with caplog.at_level(logging.INFO, logger="hippograph.access"):
        response = api.post(
            f"/v1/namespaces/{namespace}/recall", json={"query": SECRET_TEXT}, headers=admin_headers(key)
        )
        missing = api.get(f"/v1/namespaces/{namespace}/nodes/knowledge:nope", headers=admin_headers(key))
    assert response.status_code == 200 and missing.status_code == 404

    [record] = _access_records(caplog, response.headers["X-Request-ID"])
    line = JsonFormatter().format(record)
    assert "\n" not in line
    fields = json.loads(line)
    assert {"ts", "level", "logger", "message"} <= set(fields)
    assert fields["level"] == "INFO" and fields["logger"] == "hippograph.access"
    assert fields["route"] == RECALL and fields["method"] == "POST" and fields["status"] == 200
    assert fields["namespace"] == namespace and fields["agent_id"] == "agent-obs"
    assert isinstance(fields["duration_ms"], float) and fields["duration_ms"] > 0
    assert SECRET_TEXT not in line and "Zanzibar" not in line and key not in line

    # The error body, the header and the log line carry the same request id.
    [error_record] = _access_records(caplog, missing.headers["X-Request-ID"])
    assert missing.json()["request_id"] == missing.headers["X-Request-ID"]
    assert error_record.status == 404 and error_record.route == NODE  # type: ignore[attr-defined]


def test_the_ingest_task_logs_the_request_id_of_its_request(api, worker, namespace, caplog) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    with caplog.at_level(logging.INFO):
        response = api.post(
            f"/v1/namespaces/{namespace}/turns", json={"turns": [_turn("s1:1", SECRET_TEXT)], "wait": True}
        )
    assert response.status_code == 200, response.text
    request_id = response.headers["X-Request-ID"]
    [done] = [
        r for r in caplog.records if r.name == "jobs.celery_tasks" and getattr(r, "request_id", None) == request_id
    ]
    line = JsonFormatter().format(done)
    fields = json.loads(line)
    assert fields["message"] == "ingest_turns done" and fields["turns"] == 1 and fields["namespace"] == namespace
    assert SECRET_TEXT not in line


def test_a_job_run_moves_the_job_counters(api, runtime, namespace) -> None:
    from jobs.celery_tasks import decay, flush_activity
    from jobs.engines import use_runtime

    _knowledge(api, namespace, "Alice drives a red bicycle to work.")
    before = scrape(api)
    use_runtime(runtime)
    try:
        report = decay(namespace)
        flush_activity(namespace)
    finally:
        use_runtime(None)
    after = scrape(api)
    assert delta(before, after, "hippograph_job_runs_total", job="decay") == 1
    assert delta(before, after, "hippograph_job_duration_seconds_count", job="decay") == 1
    assert (
        delta(before, after, "hippograph_job_items_total", job="decay")
        == report[namespace]["nodes"] + report[namespace]["edges"]
    )
    assert report[namespace]["nodes"] >= 1
    assert delta(before, after, "hippograph_job_runs_total", job="flush_activity") == 1


def test_a_client_that_goes_away_mid_body_is_counted_as_499_not_as_a_server_error(live_api, namespace, caplog) -> None:  # type: ignore[no-untyped-def]
    """Issue 37: the request whose body never came whole was logged ("unhandled error") and counted
    as a 500. Over real HTTP (uvicorn), as a client that hangs up does it."""
    import socket

    import requests

    caplog.set_level(logging.INFO)
    session = requests.Session()
    session.headers.update(admin_headers())
    assert session.put(f"{live_api}/v1/namespaces/{namespace}", timeout=30).status_code == 201

    def recall_counts() -> dict[str, float]:
        text = session.get(f"{live_api}/metrics", timeout=30).text
        samples = {(sample.name, frozenset(sample.labels.items())): sample.value
                   for family in text_string_to_metric_families(text) for sample in family.samples}  # fmt: skip
        return {status: value(samples, "hippograph_http_requests_total", method="POST", route=RECALL, status=status)
                for status in ("499", "500")}  # fmt: skip

    before = recall_counts()
    host, port = live_api.removeprefix("http://").split(":")
    head = (f"POST /v1/namespaces/{namespace}/recall HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {TEST_ADMIN_KEY}\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000\r\n\r\n")  # fmt: skip
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode() + b'{"query": "where')  # 16 of the 1,000 bytes announced
        time.sleep(0.3)  # the route is reading the body when the client hangs up
    deadline = time.monotonic() + 10
    while (counts := recall_counts())["499"] == before["499"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert counts == {"499": before["499"] + 1, "500": before["500"]}, counts
    lines = [r.getMessage() for r in caplog.records if r.name == "hippograph.access" and "/recall" in r.getMessage()]
    assert lines[-1:] == [f"POST {RECALL} 499"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
