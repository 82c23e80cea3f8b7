"""Input the engines cannot store is refused at the door: 422 naming the field (or 413 for a body
too large), in the one error shape, with nothing written; never a 500 (issue 20)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from app.domain.inputs import INT64_MAX, InputError, check_json_value

JSON = {"content-type": "application/json"}


def nested(depth: int, leaf: str = "1") -> str:
    """`{"a": {"a": ... leaf}}` with `depth` objects, as text (json.dumps would recurse)."""
    return '{"a":' * depth + leaf + "}" * depth


def turns_body(metadata: str = "null", **fields: str) -> str:
    turn = {"session_id": "s1", "turn_id": "t1", "speaker": "Alice", "text": "I moved to Berlin.", **fields}
    return '{"turns": [' + json.dumps(turn)[:-1] + ', "metadata": ' + metadata + "}]}"


def refused(response: Any, field: str, status: int = 422) -> dict[str, Any]:
    """The error names `field`, or a place inside it (`field.a.a...` for a depth)."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["field"] == field or error["field"].startswith(f"{field}."), error
    assert error["message"].startswith(f"{error['field']}: "), error
    return error


def assert_nothing_stored(api: Any, namespace: str) -> None:
    """The refused turn was not stored: the same (session, turn) is new afterwards."""
    response = api.post(f"/v1/namespaces/{namespace}/turns", content=turns_body(), headers=JSON)
    assert response.status_code == 202, response.text
    assert response.json()["turns"][0]["new"] is True


# --- the pure check ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "field", "message"),
    [
        ({"a": {"b": [1, {"c": 1}]}}, "m.a.b[1]", "nested deeper than 3 levels"),
        ({"a": "x\ud800"}, "m.a", "contains a lone surrogate (not valid Unicode)"),
        ({"\udc00k": 1}, "m", "key '\\udc00k' contains a lone surrogate (not valid Unicode)"),
        ({"n": [INT64_MAX + 1]}, "m.n[0]", "integer beyond the 64-bit range"),
        ({"n": -(2**63) - 1}, "m.n", "integer beyond the 64-bit range"),
        ({"f": float("nan")}, "m.f", "must be a finite number"),
        ({"f": [float("-inf")]}, "m.f[0]", "must be a finite number"),
    ],
)
def test_check_json_value_names_the_place(value: Any, field: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        check_json_value(value, "m", 3)
    assert (caught.value.field, caught.value.message) == (field, message)


def test_check_json_value_accepts_what_the_engines_store() -> None:
    check_json_value({"a": {"b": [1, 2.5, True, None, "é😀", INT64_MAX, -(2**63)]}}, "m", 3)
    deep: dict[str, Any] = {}
    for _ in range(5000):
        deep = {"a": deep}
    check_json_value(deep, "m", 5001)  # iterative: no RecursionError


# --- through the API, on the real engines -------------------------------------------------------


@pytest.fixture
def ns(api: Any, namespace: str) -> str:
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    return namespace


@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        (nested(900), "turns[0].metadata"),  # was a RecursionError (500)
        (nested(17), "turns[0].metadata"),
        ('{"k": "\\ud800"}', "turns[0].metadata.k"),  # was a UnicodeEncodeError in Redis (500)
        ('{"\\udfff": 1}', "turns[0].metadata"),
        ('{"n": 9223372036854775808}', "turns[0].metadata.n"),
        ('{"x": NaN}', "body"),
        ('{"x": 1e400}', "turns[0].metadata.x"),
    ],
)
def test_turn_metadata_the_engines_cannot_store_is_refused(api: Any, ns: str, metadata: str, field: str) -> None:
    response = api.post(f"/v1/namespaces/{ns}/turns", content=turns_body(metadata), headers=JSON)
    refused(response, field)
    assert_nothing_stored(api, ns)


def test_metadata_of_the_documented_depth_is_accepted(api: Any, ns: str) -> None:
    response = api.post(f"/v1/namespaces/{ns}/turns", content=turns_body(nested(16)), headers=JSON)
    assert response.status_code == 202, response.text


def test_a_lone_surrogate_in_a_turn_field_is_refused(api: Any, ns: str) -> None:
    body = turns_body().replace('"I moved to Berlin."', '"I moved \\ud83d to Berlin."')
    refused(api.post(f"/v1/namespaces/{ns}/turns", content=body, headers=JSON), "turns[0].text")
    assert_nothing_stored(api, ns)


@pytest.mark.parametrize("route", ["turns", "recall", "memories", "cypher", "import"])
def test_a_body_nested_10000_deep_is_refused(api: Any, ns: str, route: str) -> None:
    response = api.post(f"/v1/namespaces/{ns}/{route}", content="[" * 10_000 + "]" * 10_000, headers=JSON)
    refused(response, "body")


def test_free_form_cypher_parameters_are_checked(api: Any, ns: str) -> None:
    body = '{"query": "RETURN $n AS n", "params": {"n": 99999999999999999999}}'
    refused(api.post(f"/v1/namespaces/{ns}/cypher", content=body, headers=JSON), "params.n")
    body = '{"query": "RETURN $s AS s", "params": {"s": "\\udc00"}}'
    refused(api.post(f"/v1/namespaces/{ns}/cypher", content=body, headers=JSON), "params.s")


def test_invalid_json_is_a_422_naming_the_body(api: Any, ns: str) -> None:
    error = refused(api.post(f"/v1/namespaces/{ns}/recall", content='{"query": ', headers=JSON), "body")
    assert "not valid JSON" in error["message"]


# --- times and blank fields ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2024-05-15T10:00:00+19:00", "the UTC offset must be within -18:00 and +18:00"),
        ("2024-05-15T10:00:00-23:59", "the UTC offset must be within -18:00 and +18:00"),
        ("0001-01-01T00:00:00+18:00", "out of range once converted to UTC (years 1-9999)"),
        ("9999-12-31T23:59:00-18:00", "out of range once converted to UTC (years 1-9999)"),
    ],
)
def test_check_storable_time_refuses_what_neo4j_cannot_store(text: str, message: str) -> None:
    from datetime import datetime

    from app.domain.inputs import check_storable_time

    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        check_storable_time(datetime.fromisoformat(text))


def test_check_storable_time_keeps_the_edges_neo4j_stores() -> None:
    from datetime import datetime

    from app.domain.inputs import check_storable_time

    for text in ("2024-05-15T10:00+18:00", "2024-05-15T10:00-18:00", "0001-01-01T00:00", "9999-12-31T23:59:59"):
        value = datetime.fromisoformat(text)
        assert check_storable_time(value) is value


@pytest.mark.parametrize("timestamp", ["2024-05-15T10:00:00+19:00", "2024-05-15T10:00:00-23:59"])
def test_a_turn_timestamp_offset_neo4j_refuses_is_a_422(api: Any, ns: str, timestamp: str) -> None:
    response = api.post(f"/v1/namespaces/{ns}/turns", content=turns_body(timestamp=timestamp), headers=JSON)
    refused(response, "turns[0].timestamp")
    assert_nothing_stored(api, ns)


@pytest.mark.parametrize("field", ["session_id", "turn_id", "speaker", "text"])
def test_a_whitespace_only_turn_field_is_a_422(api: Any, ns: str, field: str) -> None:
    response = api.post(f"/v1/namespaces/{ns}/turns", content=turns_body(**{field: " \t\u3000 "}), headers=JSON)
    refused(response, f"turns[0].{field}")
    assert_nothing_stored(api, ns)


@pytest.mark.parametrize(
    ("route", "body", "field"),
    [
        ("memories", {"type": "Knowledge", "label": "  ", "content": "x"}, "label"),
        ("memories", {"type": "Knowledge", "label": "x", "content": "\n"}, "content"),
        ("memories", {"type": "Knowledge", "label": "x", "content": "y", "tags": [" "]}, "tags[0]"),
        ("memories", {"type": "Experience", "label": "x", "content": "y", "event_time": "2024-01-01T00:00:00+18:30"},
         "event_time"),
        ("links", {"source_id": " ", "target_id": "task:b", "type": "DEPENDENCY"}, "source_id"),
        ("recall", {"query": "where?", "as_of": "2024-01-01T00:00:00-20:00"}, "as_of"),
    ],
)  # fmt: skip
def test_other_write_and_read_bodies_refuse_the_same(api: Any, ns: str, route: str, body: Any, field: str) -> None:
    refused(api.post(f"/v1/namespaces/{ns}/{route}", json=body), field)


def test_a_listing_time_neo4j_refuses_is_a_422(api: Any, ns: str) -> None:
    response = api.get(f"/v1/namespaces/{ns}/memories", params={"since": "2024-01-01T00:00:00+23:00"})
    refused(response, "since")


def test_a_key_expiry_neo4j_refuses_is_a_422(api: Any, ns: str) -> None:
    body = {"namespace": ns, "role": "reader", "agent_id": "a", "expires_at": "9999-12-31T23:00:00-19:00"}
    refused(api.post("/v1/keys", json=body), "expires_at")


# --- numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("capacity", ["1e30", "99999999999999999999", "1000000000001"])
def test_a_capacity_beyond_the_maximum_is_a_422(api: Any, ns: str, capacity: str) -> None:
    response = api.put(f"/v1/namespaces/{ns}", content='{"capacity": ' + capacity + "}", headers=JSON)
    refused(response, "capacity")
    assert api.get(f"/v1/namespaces/{ns}").json()["capacity"] == 100_000  # unchanged


def test_the_maximum_capacity_is_stored(api: Any, ns: str) -> None:
    from app.domain.inputs import MAX_CAPACITY

    assert api.put(f"/v1/namespaces/{ns}", json={"capacity": MAX_CAPACITY}).json()["capacity"] == MAX_CAPACITY


# --- namespace names and node ids ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["rel-a\n", "a\nb", ".", "..", "", "a" * 65, "a/b", "é"])
def test_check_namespace_refuses(name: str) -> None:
    from app.domain.inputs import NAMESPACE_RULE, check_namespace

    with pytest.raises(InputError) as caught:
        check_namespace(name)
    assert (caught.value.field, caught.value.message) == ("namespace", NAMESPACE_RULE)


@pytest.mark.parametrize("name", ["a", "team-a", "...", ".a", "a..b", "A_9." + "x" * 60])
def test_check_namespace_accepts(name: str) -> None:
    from app.domain.inputs import check_namespace

    assert check_namespace(name) == name


def test_a_node_id_with_a_trailing_newline_is_refused() -> None:
    from app.domain.inputs import check_node_id

    with pytest.raises(InputError):
        check_node_id("knowledge:abc\n")
    assert check_node_id("knowledge:abc") == "knowledge:abc"


@pytest.mark.parametrize("path", ["rel-a%0A", "%2E", "%2E%2E"])
def test_a_namespace_name_with_a_newline_or_dots_is_a_422(api: Any, path: str) -> None:
    refused(api.put(f"/v1/namespaces/{path}"), "namespace")
    assert refused(api.get(f"/v1/namespaces/{path}/export"), "namespace")


# --- ids that cannot collide ---------------------------------------------------------------------


def test_joined_key_escapes_the_separator_and_the_escape() -> None:
    from app.domain.inputs import joined_key

    assert joined_key("team", "sync") == "team\x1fsync"  # plain parts: as before
    assert joined_key("team\x1fsync", "7") == "team\x1b\x1fsync\x1f7"
    assert joined_key("team", "sync\x1f7") == "team\x1fsync\x1b\x1f7"
    assert joined_key("a\x1b", "b") == "a\x1b\x1b\x1fb"
    assert joined_key("a", "\x1bb") == "a\x1f\x1b\x1bb"
    assert joined_key("a\x1b\x1f", "b") != joined_key("a\x1b", "\x1fb")
    assert joined_key("") == "" and joined_key("", "") == "\x1f"


def test_ids_of_plain_inputs_are_unchanged() -> None:
    import hashlib
    from datetime import UTC, datetime

    from app.domain.turns import Turn, dialogue_id, episode_id

    def legacy(*parts: str) -> str:  # the derivation before the separator was escaped
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]

    assert dialogue_id("s1", "t1") == f"dialogue:{legacy('s1', 't1')}"
    assert episode_id("session 7 é") == f"episode:{legacy('session 7 é')}"
    assert Turn("s1", "t1", "A", "x", datetime.now(UTC)).key == "s1\x1ft1"


def test_turns_whose_ids_joined_alike_are_both_kept(api: Any, ns: str, worker: Any) -> None:
    from app.domain.turns import dialogue_id

    first = {"session_id": "team\x1fsync", "turn_id": "7", "speaker": "Alice", "text": "The deploy is on Monday."}
    second = {"session_id": "team", "turn_id": "sync\x1f7", "speaker": "Bob", "text": "The review is on Friday."}
    assert dialogue_id(first["session_id"], first["turn_id"]) != dialogue_id(second["session_id"], second["turn_id"])
    answer = api.post(f"/v1/namespaces/{ns}/turns", json={"turns": [first, second], "wait": True})
    assert answer.status_code == 200, answer.text
    turns = answer.json()["turns"]
    assert [turn["new"] for turn in turns] == [True, True]
    for turn, sent in zip(turns, (first, second), strict=True):
        node = api.get(f"/v1/namespaces/{ns}/nodes/{turn['node_id']}")
        assert node.status_code == 200, node.text
        assert node.json()["content"] == sent["text"]


# --- body size -----------------------------------------------------------------------------------


@pytest.fixture
def small_limits_api(services: Any, runtime: Any, tmp_path: Any) -> Any:
    """The API with a 2,000-byte body limit (8,000 for turns and import)."""
    from fastapi.testclient import TestClient

    from app.api.main import create_app
    from tests.conftest import admin_headers, checked, make_settings

    settings = make_settings(
        services, tmp_path, HIPPOGRAPH_MAX_BODY_BYTES="2000", HIPPOGRAPH_MAX_BATCH_BODY_BYTES="8000"
    )
    with checked(TestClient(create_app(settings, runtime=runtime), headers=admin_headers())) as client:
        yield client


def too_large(response: Any, limit: int) -> None:
    error = refused(response, "body", status=413)
    message = f"body: larger than the limit of {limit} bytes"
    assert error == {"code": "body_too_large", "field": "body", "message": message}


def test_a_body_over_the_limit_is_refused_before_it_is_read(small_limits_api: Any, namespace: str) -> None:
    api = small_limits_api
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    query = json.dumps({"query": "x" * 3000})
    too_large(api.post(f"/v1/namespaces/{namespace}/recall", content=query, headers=JSON), 2000)
    # Without Content-Length (chunked): counted as it streams.
    too_large(api.post(f"/v1/namespaces/{namespace}/recall", content=iter([query.encode()]), headers=JSON), 2000)
    # The batch routes take the batch limit: 3,000 bytes of turns pass, 9,000 do not.
    text = "y" * 2500
    turns = {"turns": [{"session_id": "s", "turn_id": "t", "speaker": "A", "text": text}]}
    assert api.post(f"/v1/namespaces/{namespace}/turns", json=turns).status_code == 202
    turns["turns"][0]["text"] = text * 4
    too_large(api.post(f"/v1/namespaces/{namespace}/turns", json=turns), 8000)
    too_large(api.post(f"/v1/namespaces/{namespace}/import", content=b"{" + b" " * 9000 + b"}", headers=JSON), 8000)
    too_large(api.post(f"/v1/namespaces/{namespace}/import", content=iter([b" " * 9000]), headers=JSON), 8000)
    # A small body on the same routes is served.
    assert api.post(f"/v1/namespaces/{namespace}/recall", json={"query": "x"}).status_code == 200


def test_the_default_limit_refuses_a_5_mb_recall(api: Any, ns: str) -> None:
    body = json.dumps({"query": "x" * (5 * 2**20)})
    too_large(api.post(f"/v1/namespaces/{ns}/recall", content=body, headers=JSON), 4 * 2**20)


def test_cypher_parameters_are_checked_by_the_model_too() -> None:
    """The graph_query tool over MCP parses its JSON elsewhere (infinities and any integer pass)."""
    from pydantic import ValidationError

    from app.api.schemas import CypherBody

    for params, place in (({"n": 2**70}, "params.n"), ({"f": [float("inf")]}, "params.f[0]")):
        with pytest.raises(ValidationError, match=re.escape(place)):
            CypherBody(query="RETURN 1", params=params)
    assert CypherBody(query="RETURN $n", params={"n": [1, 2.5, "x"]}).params == {"n": [1, 2.5, "x"]}
