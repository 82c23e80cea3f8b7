"""The optional LLM enricher: answer parsing and checks (exact), the HTTP client against a local
OpenAI-compatible endpoint, and the enrichment task on real engines.

The endpoint is a small HTTP server in this process that answers chat completions from a script:
no LLM runs here, and none is needed by anything else in the suite.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.domain.turns import Turn
from app.extract.llm import LLM_FACT_CONFIDENCE, LlmFactExtractor, LlmUnavailable, parse_facts

AT = datetime(2024, 5, 15, 10, tzinfo=UTC)
TURNS = [
    Turn("s1", "t1", "Maya", "I moved to Boston last spring and I work at Fidelity.", AT),
    Turn("s1", "t2", "Maya", "My dog Biscuit loves the park.", AT),
    Turn("s1", "t3", "王伟", "我住在北京。", AT),
]


def _answer(*facts: dict) -> str:
    return json.dumps({"facts": list(facts)})


def test_facts_are_kept_when_the_turn_bears_them_out() -> None:
    content = _answer(
        {"turn_id": "t1", "subject": "I", "slot": "Lives In", "value": "boston"},
        {"turn_id": "t1", "subject": "Maya", "slot": "works_at", "value": "Fidelity"},
        {"turn_id": "t2", "subject": "my dog", "slot": "name", "value": "Biscuit"},
        {"turn_id": "t3", "subject": "我", "slot": "lives_in", "value": "北京"},
    )
    kept = [(turn.turn_id, f.subject, f.slot, f.value, f.span, f.confidence) for turn, f in parse_facts(content, TURNS)]
    assert kept == [
        ("t1", "Maya", "lives_in", "Boston", (11, 17), LLM_FACT_CONFIDENCE),  # the turn's own spelling
        ("t1", "Maya", "works_at", "Fidelity", (44, 52), LLM_FACT_CONFIDENCE),
        ("t2", "Maya's dog", "name", "Biscuit", (7, 14), LLM_FACT_CONFIDENCE),
        ("t3", "王伟", "lives_in", "北京", (3, 5), LLM_FACT_CONFIDENCE),
    ]


def test_invented_or_malformed_facts_are_dropped() -> None:
    content = _answer(
        {"turn_id": "t1", "subject": "I", "slot": "car", "value": "Ferrari"},  # not in the turn
        {"turn_id": "t9", "subject": "I", "slot": "lives_in", "value": "Boston"},  # no such turn
        {"turn_id": "t1", "subject": "Jordan", "slot": "lives_in", "value": "Boston"},  # nobody the turn names
        {"turn_id": "t1", "subject": "I", "slot": "!!", "value": "Boston"},  # no slot left
        {"turn_id": "t1", "subject": "I", "slot": "lives_in"},  # no value
        {"turn_id": "t1", "subject": "I", "slot": "lives_in", "value": "x" * 121},
        "Boston",
    )
    assert parse_facts(content, TURNS) == []


def test_a_fenced_answer_is_read_and_a_broken_one_is_an_error() -> None:
    fenced = "```json\n" + _answer({"turn_id": "t3", "subject": "王伟", "slot": "lives_in", "value": "北京"}) + "\n```"
    assert [f.value for _, f in parse_facts(fenced, TURNS)] == ["北京"]
    with pytest.raises(LlmUnavailable):
        parse_facts("Sure! Maya lives in Boston.", TURNS)
    with pytest.raises(LlmUnavailable):
        parse_facts(json.dumps({"facts": "none"}), TURNS)


class ScriptedEndpoint:
    """An OpenAI-compatible `/v1/chat/completions` answering with `answer(request body)`."""

    def __init__(self, answer: Callable[[dict], tuple[int, str]]) -> None:
        self.requests: list[dict] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
                status, content = answer(body)
                payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(payload.encode())

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _turns_in(body: dict) -> list[dict]:
    return [json.loads(line) for line in body["messages"][-1]["content"].splitlines()]


def _car_facts(body: dict) -> tuple[int, str]:
    """Reports the car of any turn that mentions a Subaru, and invents a Ferrari for it as well."""
    facts = []
    for turn in _turns_in(body):
        if "Subaru" in turn["text"]:
            facts.append({"turn_id": turn["turn_id"], "subject": "I", "slot": "car", "value": "Subaru Outback"})
            facts.append({"turn_id": turn["turn_id"], "subject": "I", "slot": "car", "value": "Ferrari"})
    return 200, _answer(*facts)


@pytest.fixture
def endpoint() -> Iterator[ScriptedEndpoint]:
    server = ScriptedEndpoint(_car_facts)
    yield server
    server.close()


def test_the_client_sends_a_json_chat_request_and_reports_failures(endpoint: ScriptedEndpoint) -> None:
    extractor = LlmFactExtractor(endpoint.url, "test-model", api_key="secret", chunk=2)
    turns = [*TURNS, Turn("s1", "t4", "Maya", "These days I get around in a Subaru Outback.", AT)]
    try:
        found = extractor.extract(turns)
    finally:
        extractor.close()
    assert [(turn.turn_id, f.slot, f.value) for turn, f in found] == [("t4", "car", "Subaru Outback")]
    assert [len(_turns_in(r)) for r in endpoint.requests] == [2, 2]  # chunks of two turns
    first = endpoint.requests[0]
    assert first["path"] == "/v1/chat/completions" and first["auth"] == "Bearer secret"
    assert first["model"] == "test-model" and first["temperature"] == 0
    assert first["response_format"] == {"type": "json_object"}

    failing = ScriptedEndpoint(lambda body: (500, "overloaded"))
    extractor = LlmFactExtractor(failing.url, "test-model")
    try:
        with pytest.raises(LlmUnavailable):
            extractor.extract(TURNS)
    finally:
        extractor.close()
        failing.close()


def test_the_enricher_adds_what_the_rules_missed_after_the_tracks(
    services, embedder, celery_configured, endpoint: ScriptedEndpoint, tmp_path, namespace
) -> None:
    from fastapi.testclient import TestClient

    from app.api.main import create_app
    from app.runtime import Runtime
    from jobs.embedded import EmbeddedJobs
    from tests.conftest import admin_headers, make_settings

    settings = make_settings(
        services, tmp_path, HIPPOGRAPH_LLM_BASE_URL=endpoint.url, HIPPOGRAPH_LLM_MODEL="test-model"
    )
    runtime = Runtime.open(settings, embedder=embedder)
    jobs = EmbeddedJobs(runtime, resume_pending=False)
    jobs.start()

    def cars() -> list[dict]:
        records, _, _ = runtime.graph.driver.execute_query(
            "MATCH (k:Knowledge {namespace: $ns, slot: 'car'})-[:REFERENCE]->(d:Dialogue) "
            "RETURN k.value AS value, k.extracted_by AS extracted_by, k.confidence AS confidence, "
            "k.superseded_by IS NOT NULL AS superseded, k.source_turn_ids AS turns, d.turn_id AS dialogue "
            "ORDER BY value",
            {"ns": namespace},
        )
        return [dict(r) for r in records]

    try:
        with TestClient(create_app(runtime=runtime), headers=admin_headers()) as api:
            api.put(f"/v1/namespaces/{namespace}")
            first = [{"session_id": "s1", "turn_id": "s1:1", "speaker": "Maya", "text": "My car is a Model Y.",
                      "timestamp": "2024-05-01T09:00:00+00:00"}]  # fmt: skip
            later = [{"session_id": "s2", "turn_id": "s2:1", "speaker": "Maya",
                      "text": "These days I get around in a Subaru Outback.",
                      "timestamp": "2024-06-01T09:00:00+00:00"}]  # fmt: skip
            assert api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": first, "wait": True}).status_code == 200
            response = api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": later, "wait": True})
            assert response.status_code == 200 and response.json()["report"]["facts_created"] == 0  # rules miss it
            deadline = time.monotonic() + 60
            while len(cars()) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            found = cars()
    finally:
        jobs.stop()
        runtime.close()
    assert found == [
        {"value": "Model Y", "extracted_by": None, "confidence": pytest.approx(0.9, abs=0.1), "superseded": True,
         "turns": ["s1:1"], "dialogue": "s1:1"},
        {"value": "Subaru Outback", "extracted_by": "llm:test-model", "confidence": LLM_FACT_CONFIDENCE,
         "superseded": False, "turns": ["s2:1"], "dialogue": "s2:1"},
    ]  # fmt: skip
