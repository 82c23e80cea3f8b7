"""/openapi.json is true and usable by client generators: every operation declares its success and
error bodies (errors in the one error shape), readable unique operation ids, an example per body,
a description on every field and parameter, the bearer scheme. That the suite's responses match
the document is checked on every request of the `api` client (`tests/response_contract.py`); the
checker itself is tested here. No engines: the document is built without a runtime."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from app.api.main import create_app
from hippograph.responses import NodeResponse
from tests.conftest import REPO
from tests.response_contract import ResponseContract

SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
ERROR_SHAPES = {"ErrorBody", "NotReadyBody"}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return create_app().openapi()


def operations(document: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    found = [
        (f"{method.upper()} {path}", operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]
    assert len(found) >= 23, [what for what, _ in found]  # every existing route is in the document
    return found


def refs(schema: dict[str, Any]) -> list[str]:
    """The component names a schema points to (itself, or its anyOf/oneOf branches)."""
    if "$ref" in schema:
        return [schema["$ref"].rsplit("/", 1)[-1]]
    return [name for branch in schema.get("anyOf", []) + schema.get("oneOf", []) for name in refs(branch)]


def test_every_operation_declares_a_success_response_with_a_schema(document: dict[str, Any]) -> None:
    components = document["components"]["schemas"]
    for what, operation in operations(document):
        successes = {status: r for status, r in operation["responses"].items() if status.startswith("2")}
        assert successes, f"{what}: no success response"
        for status, response in successes.items():
            content = response.get("content", {})
            if status == "204":
                assert not content, f"{what}: 204 with a body"
                continue
            assert content, f"{what} {status}: no content declared"
            for media_type, declared in content.items():
                schema = declared.get("schema")
                assert schema, f"{what} {status} {media_type}: no schema"
                if media_type == "application/json" and not what.endswith("/export"):
                    names = refs(schema)
                    assert names and all(name in components for name in names), f"{what} {status}: {schema}"


def test_every_error_status_answers_in_the_one_error_shape(document: dict[str, Any]) -> None:
    for what, operation in operations(document):
        for status, response in operation["responses"].items():
            if int(status) < 400:
                continue
            schema = response.get("content", {}).get("application/json", {}).get("schema", {})
            assert set(refs(schema)) <= ERROR_SHAPES and refs(schema), f"{what} {status}: {schema}"


def test_each_operation_declares_the_errors_its_dependencies_imply(document: dict[str, Any]) -> None:
    for what, operation in operations(document):
        responses = operation["responses"]
        role = operation.get("x-required-role")
        if role is not None:
            assert "401" in responses, what
            assert ("403" in responses) == (role != "key"), what
            assert operation["security"] == [{"bearer": []}], what
        if operation.get("parameters") or "requestBody" in operation:
            assert "422" in responses, what
        if what.split(" ", 1)[1].startswith("/v1"):
            assert "Retry-After" in responses["503"]["headers"], what
    by_name = {what: op for what, op in operations(document)}
    assert {"404", "409"} <= set(by_name["POST /v1/namespaces/{ns}/import"]["responses"])
    assert {"200", "202", "504"} <= set(by_name["POST /v1/namespaces/{ns}/turns"]["responses"])
    assert "503" in by_name["GET /readyz"]["responses"]


def test_fastapis_validation_error_shape_is_gone(document: dict[str, Any]) -> None:
    text = json.dumps(document)
    assert "HTTPValidationError" not in text
    assert "ValidationError" not in document["components"]["schemas"]


def test_operation_ids_are_the_route_functions_names_snake_case_and_unique(document: dict[str, Any]) -> None:
    ids = [operation["operationId"] for _, operation in operations(document)]
    assert all(SNAKE_CASE.match(operation_id) for operation_id in ids), ids
    assert len(ids) == len(set(ids)), sorted(ids)
    assert {"save_memory", "recall", "post_turns", "create_key", "run_cypher", "import_namespace"} <= set(ids)


def test_every_request_body_has_an_example(document: dict[str, Any]) -> None:
    components = document["components"]["schemas"]
    for what, operation in operations(document):
        for media_type, declared in operation.get("requestBody", {}).get("content", {}).items():
            examples = [declared.get("example")] if "example" in declared else declared.get("examples", [])
            for name in refs(declared.get("schema", {})):
                examples += components[name].get("examples", [])
            assert examples, f"{what} {media_type}: no example"


def test_every_field_and_parameter_is_described(document: dict[str, Any]) -> None:
    missing = [
        f"{name}.{prop}"
        for name, schema in document["components"]["schemas"].items()
        for prop, declared in schema.get("properties", {}).items()
        if not declared.get("description")
    ]
    missing += [
        f"{what} {parameter['name']}"
        for what, operation in operations(document)
        for parameter in operation.get("parameters", [])
        if not parameter.get("description")
    ]
    assert not missing, missing


def test_the_bearer_scheme_is_declared(document: dict[str, Any]) -> None:
    assert document["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "an API key (POST /v1/keys)",
    }


def _response(method: str, path: str, status: int, body: Any = None, content_type: str | None = None) -> httpx.Response:
    request = httpx.Request(method, "http://testserver" + path)
    if content_type is not None:
        return httpx.Response(status, content=body, headers={"content-type": content_type}, request=request)
    return httpx.Response(status, json=body, request=request)


ERROR = {"error": {"code": "not_found", "message": "key 'k' does not exist", "field": "key_id"}, "request_id": "r"}
KEY = {"id": "k1", "namespace": "team-a", "role": "reader", "agent_id": "a", "label": None,
       "created_at": "2024-05-15T10:00:00+00:00", "expires_at": None}  # fmt: skip


@pytest.mark.parametrize(
    "response",
    [
        _response("GET", "/healthz", 200, {"status": "ok"}),
        _response("GET", "/v1/keys", 200, {"items": [KEY]}),
        _response("DELETE", "/v1/keys/k1", 404, ERROR),
        _response("GET", "/v1/no-such-route", 404, ERROR),
        _response("GET", "/metrics", 200, b"up 1\n", "text/plain; version=0.0.4; charset=utf-8"),
    ],
)
def test_the_response_checker_accepts_what_the_document_declares(
    document: dict[str, Any], response: httpx.Response
) -> None:
    ResponseContract(document).check(response)


@pytest.mark.parametrize(
    ("response", "complaint"),
    [
        (_response("GET", "/healthz", 418, {"status": "ok"}), "status 418 is not declared"),
        (_response("GET", "/healthz", 200, {"status": "ok", "extra": 1}), "'extra' was unexpected"),
        (_response("GET", "/v1/keys", 200, {"items": [{**KEY, "role": "owner"}]}), "at items/0/role"),
        (_response("DELETE", "/v1/keys/k1", 404, {"detail": "Not Found"}), "'error' is a required property"),
        (_response("GET", "/metrics", 200, b"{}", "application/json"), "media type 'application/json' not declared"),
        (_response("DELETE", "/v1/namespaces/a/nodes/x", 204, {"deleted": 1}), "declared without a body"),
    ],
)
def test_the_response_checker_refuses_what_the_document_does_not_declare(
    document: dict[str, Any], response: httpx.Response, complaint: str
) -> None:
    with pytest.raises(AssertionError, match=re.escape(complaint)):
        ResponseContract(document).check(response)


def test_a_response_model_keeps_the_routes_encoding() -> None:
    """FastAPI serializes route results through the response model: unset fields stay out (not
    null), times keep `isoformat()` (+00:00, as before the models), open properties pass through."""
    at = datetime(2024, 5, 15, 10, 0, tzinfo=UTC)
    node = {"id": "knowledge:x", "type": "Knowledge", "namespace": "n", "label": "l", "summary": "s", "content": "c",
            "importance": "NORMAL", "activation": 1.0, "activation_base": 1.0, "created_at": at, "updated_at": at,
            "last_accessed": at, "access_count": 0, "source": "agent", "confidence": 1.0, "source_turn_ids": [],
            "tags": [], "temperature": "hot", "time_scope": "recent", "subject": None, "speaker": "Bob",
            "seen_at": at}  # fmt: skip
    encoded = json.loads(NodeResponse.model_validate(node).model_dump_json())
    assert encoded == {**node, "created_at": at.isoformat(), "updated_at": at.isoformat(),
                       "last_accessed": at.isoformat(), "seen_at": at.isoformat()}  # fmt: skip
    assert encoded["created_at"] == "2024-05-15T10:00:00+00:00"


def test_the_models_modules_load_without_the_engines() -> None:
    """A client imports the request and response models without Neo4j, Redis, Celery or the embedder."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import app.operations.schemas, hippograph.responses"],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    heavy = [line for line in result.stderr.splitlines() if re.search(r"neo4j|torch|onnx|redis|celery|qdrant", line)]
    assert not heavy, heavy[:5]
    assert "hippograph.responses" in result.stderr  # the import was measured


def test_the_document_does_not_depend_on_the_settings(document: dict[str, Any]) -> None:
    """The suite checks every response against one document built once (tests/conftest.py
    `response_contract`); that holds only while no setting changes what the document says."""
    from app.settings import Settings

    other = Settings(
        HIPPOGRAPH_ADMIN_KEY="o" * 24,
        HIPPOGRAPH_MAX_BODY_BYTES="2048",
        HIPPOGRAPH_RATE_LIMIT_READER="5/minute",
        HIPPOGRAPH_CYPHER_TIMEOUT="1",
    )
    assert json.dumps(create_app(other).openapi(), sort_keys=True) == json.dumps(document, sort_keys=True)
