"""schemathesis over the whole OpenAPI document: every operation is called with generated requests
(valid ones, and ones that break the schema) against the API served over real HTTP (`live_api`, on the
suite's engines), with the bootstrap admin key, in a namespace of its own. Each response must be no
server error (5xx) and must conform to the document: a documented status code, a documented content
type and headers, a body valid against the declared schema.

Bounded: POSITIVE_EXAMPLES valid and NEGATIVE_EXAMPLES invalid requests per operation, with a fixed
seed (derandomized, so CI reruns the same requests): ~40 operations, about 1,200 requests, 35 s on
2 idle cores (~2 min when shared). Failures of all operations are collected and reported together.

One operation is neutralised: `DELETE /v1/namespaces/{ns}` gets a scratch namespace of its own, since
deleting the run's namespace would turn every later request into a 404 and test nothing else.
"""

from __future__ import annotations

import uuid
from typing import Any

import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import admin_headers

POSITIVE_EXAMPLES = 20
NEGATIVE_EXAMPLES = 10
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def _run_operation(operation: Any, mode: GenerationMode, examples: int, path_parameters: dict[str, str],
                   base_url: str, session: requests.Session) -> None:  # fmt: skip
    known = {p.name for p in operation.path_parameters}
    strategy = operation.as_strategy(
        generation_mode=mode, path_parameters={k: v for k, v in path_parameters.items() if k in known}
    )

    @hypothesis_settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                         suppress_health_check=list(HealthCheck), phases=[Phase.generate],
                         report_multiple_bugs=False)  # fmt: skip
    @given(case=strategy)
    def check(case: Any) -> None:
        response = case.call(base_url=base_url, session=session, timeout=60)
        case.validate_response(response, checks=CHECKS)

    check()


def test_every_operation_answers_within_its_documented_contract(live_api: str, worker) -> None:  # type: ignore[no-untyped-def]
    namespace = f"st-{uuid.uuid4().hex[:12]}"
    scratch = f"{namespace}-scratch"
    session = requests.Session()
    session.headers.update(admin_headers())
    for ns in (namespace, scratch):
        assert session.put(f"{live_api}/v1/namespaces/{ns}", timeout=30).status_code == 201
    schema = schemathesis.openapi.from_dict(session.get(f"{live_api}/openapi.json", timeout=30).json())

    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 40, len(operations)  # the document was read whole
    try:
        for operation in operations:
            deletes_namespace = (operation.method.upper(), operation.path) == ("DELETE", "/v1/namespaces/{ns}")
            own = scratch if deletes_namespace else namespace
            for mode, examples in ((GenerationMode.POSITIVE, POSITIVE_EXAMPLES),
                                   (GenerationMode.NEGATIVE, NEGATIVE_EXAMPLES)):  # fmt: skip
                try:
                    _run_operation(operation, mode, examples, {"ns": own}, live_api, session)
                except Unsatisfiable:  # negative mode: nothing to break (no input besides the fixed ns)
                    assert mode is GenerationMode.NEGATIVE
                except Exception as failure:  # noqa: BLE001  (every operation's findings, then one assert)
                    failures.append(f"{operation.method.upper()} {operation.path} [{mode.value}]: {failure}")
    finally:
        session.close()
    assert not failures, "\n\n".join(failures)


def test_the_checks_refuse_what_contradicts_the_document() -> None:
    """The run above can fail: its checks refuse an undocumented status, a body off the schema, a 5xx."""
    import datetime
    import json

    from app.api.main import create_app
    from app.settings import Settings

    document = create_app(Settings(HIPPOGRAPH_ADMIN_KEY="x" * 24)).openapi()
    case = schemathesis.openapi.from_dict(document)["/v1/namespaces/{ns}"]["GET"].Case(path_parameters={"ns": "a"})

    def failures(status: int, body: object) -> set[str]:
        response = requests.Response()
        response.status_code, response._content = status, json.dumps(body).encode()
        response.headers["Content-Type"] = "application/json"
        response.url = "http://127.0.0.1/v1/namespaces/a"
        response.request = requests.Request("GET", response.url).prepare()
        response.elapsed = datetime.timedelta(0)
        try:
            case.validate_response(response, checks=CHECKS)
        except BaseException as group:  # noqa: BLE001  (schemathesis raises a group of failures)
            return {type(failure).__name__ for failure in getattr(group, "exceptions", [group])}
        return set()

    assert "UndefinedStatusCode" in failures(418, {})
    assert "JsonSchemaError" in failures(200, {"nope": 1})
    assert "ServerError" in failures(500, {})
