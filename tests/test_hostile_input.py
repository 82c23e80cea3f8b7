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


def test_ids_with_the_key_separator_are_refused_at_the_door(api: Any, ns: str) -> None:
    """Ids that joined alike before joined_key escaped the separator (\x1f) carry a control
    character: the API refuses them now (the escaping stays, for ids from elsewhere)."""
    first = {"session_id": "team\x1fsync", "turn_id": "7", "speaker": "Alice", "text": "The deploy is on Monday."}
    second = {"session_id": "team", "turn_id": "sync\x1f7", "speaker": "Bob", "text": "The review is on Friday."}
    error = refused(api.post(f"/v1/namespaces/{ns}/turns", json={"turns": [first]}), "turns[0].session_id")
    assert "control characters (found U+001F)" in error["message"]
    refused(api.post(f"/v1/namespaces/{ns}/turns", json={"turns": [second]}), "turns[0].turn_id")
    assert_nothing_stored(api, ns)


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

    from app.operations.schemas import CypherBody

    for params, place in (({"n": 2**70}, "params.n"), ({"f": [float("inf")]}, "params.f[0]")):
        with pytest.raises(ValidationError, match=re.escape(place)):
            CypherBody(query="RETURN 1", params=params)
    assert CypherBody(query="RETURN $n", params={"n": [1, 2.5, "x"]}).params == {"n": [1, 2.5, "x"]}


# --- issue 37: numbers of thousands of digits, strict types, invisible names -----------------------

HUGE = "1" + "0" * 5000  # past Python's int-string limit (4,300 digits): json.loads raised ValueError


def test_a_number_of_5000_digits_is_refused_naming_its_place_by_the_pure_parse() -> None:
    from app.api.bodies import parse_json_body

    for text, field in ((f'{{"top_k": {HUGE}}}', "top_k"), (f'{{"a": [1, -{HUGE}]}}', "a[1]"),
                        (f'{{"a": {{"b": {HUGE}}}}}', "a.b"), (HUGE, "body")):  # fmt: skip
        with pytest.raises(InputError) as caught:
            parse_json_body(text.encode())
        assert caught.value.field == field
        assert caught.value.message == "integer beyond the 64-bit range (5001 digits)"
    assert parse_json_body(b'{"n": -9223372036854775808, "m": 9223372036854775807}') == {
        "n": -(2**63), "m": INT64_MAX}  # fmt: skip


def test_a_number_of_5000_digits_in_a_recall_is_a_422_naming_top_k(api: Any, ns: str) -> None:
    """Was a 500: the int-string conversion limit raised ValueError inside json.loads."""
    response = api.post(f"/v1/namespaces/{ns}/recall", content=f'{{"query": "x", "top_k": {HUGE}}}', headers=JSON)
    error = refused(response, "top_k")
    assert error["message"] == "top_k: integer beyond the 64-bit range (5001 digits)"


def _body_routes(api: Any) -> list[tuple[str, str]]:
    document = api.get("/openapi.json").json()
    return [(method.upper(), path) for path, operations in document["paths"].items()
            for method, operation in operations.items()
            if "application/json" in operation.get("requestBody", {}).get("content", {})]  # fmt: skip


def test_every_json_body_route_refuses_a_number_of_5000_digits(api: Any, ns: str) -> None:
    """(The import reads a snapshot, checked where its values are read: tests/test_import_validation.py.)"""
    values = {"ns": ns, "node_id": "knowledge:x", "task_id": "task:x", "run_id": "r1", "name": "recall"}
    routes = [(method, path) for method, path in _body_routes(api) if not path.endswith("/import")]
    assert len(routes) >= 16, routes
    for method, template in routes:
        path = template.format(**values)
        for body in (f'{{"n": {HUGE}}}', f'{{"n": [-{HUGE}]}}'):
            response = api.request(method, path, content=body, headers=JSON)
            assert response.status_code == 422, (method, template, response.text)
            assert response.json()["error"]["field"] in {"n", "n[0]"}, (method, template, response.text)


@pytest.mark.parametrize(
    ("route", "body", "field"),
    [
        ("recall", {"query": "where?", "now": 0}, "now"),  # was read as Unix seconds
        ("recall", {"query": "where?", "as_of": "1700000000"}, "as_of"),
        ("recall", {"query": "where?", "top_k": "5"}, "top_k"),
        ("recall", {"query": "where?", "top_k": True}, "top_k"),
        ("recall", {"query": "where?", "include_history": 1}, "include_history"),
        ("turns", {"turns": [{"session_id": "s", "turn_id": "t", "speaker": "A", "text": "x"}], "wait": 0}, "wait"),
        ("turns", {"turns": [{"session_id": "s", "turn_id": "t", "speaker": "A", "text": "x", "timestamp": 0}]},
         "turns[0].timestamp"),
        ("memories", {"type": "Knowledge", "label": "x", "content": "y", "private": "yes"}, "private"),
        ("memories", {"type": "Knowledge", "label": "x", "content": "y", "confidence": True}, "confidence"),
        ("context", {"goal": "ship it", "token_budget": 500, "now": 1.5}, "now"),
        ("context", {"goal": "ship it", "token_budget": "500"}, "token_budget"),
    ],
)  # fmt: skip
def test_numbers_and_text_where_the_schema_says_date_time_boolean_or_integer_are_refused(
    api: Any, ns: str, route: str, body: Any, field: str
) -> None:
    refused(api.post(f"/v1/namespaces/{ns}/{route}", json=body), field)


def test_a_boolean_namespace_setting_is_refused_and_nothing_changes(api: Any, ns: str) -> None:
    """schemathesis ST201: `{"low_water_ratio": true}` was stored as 1.0."""
    refused(api.put(f"/v1/namespaces/{ns}", json={"low_water_ratio": True}), "low_water_ratio")
    refused(api.put(f"/v1/namespaces/{ns}", json={"capacity": True}), "capacity")
    assert api.get(f"/v1/namespaces/{ns}").json()["low_water_ratio"] == 0.9


@pytest.mark.parametrize("until", ["0.5", "1700000000", " 12 "])
def test_a_listing_time_given_as_a_number_is_a_422(api: Any, ns: str, until: str) -> None:
    refused(api.get(f"/v1/namespaces/{ns}/memories", params={"until": until}), "until")


def test_the_strict_fields_still_take_their_own_types(api: Any, ns: str) -> None:
    recall = {"query": "where?", "top_k": 5, "now": "2024-05-15T10:00:00Z", "include_history": True}
    assert api.post(f"/v1/namespaces/{ns}/recall", json=recall).status_code == 200
    assert api.put(f"/v1/namespaces/{ns}", json={"low_water_ratio": 1, "capacity": 500}).status_code == 200
    listing = api.get(f"/v1/namespaces/{ns}/memories", params={"until": "2024-05-15T10:00:00", "limit": "5"})
    assert listing.status_code == 200, listing.text


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("speaker", "\u200b\u200b"),  # zero-width spaces only: a Person named nothing
        ("speaker", "\ufeff\u2060\u200d"),  # BOM, word joiner, zero-width joiner
        ("speaker", "\u3164"),  # Hangul filler: a letter to Unicode, a blank on screen
        ("speaker", "Al\x00ice"),
        ("speaker", "Alice\n"),
        ("speaker", "Alice\x85"),  # C1 next line
        ("session_id", "s\t1"),
        ("turn_id", "\u2028"),
    ],
)
def test_invisible_or_control_characters_in_a_turns_ids_and_speaker_are_refused(
    api: Any, ns: str, field: str, value: str
) -> None:
    response = api.post(f"/v1/namespaces/{ns}/turns", content=turns_body(**{field: value}), headers=JSON)
    refused(response, f"turns[0].{field}")
    assert_nothing_stored(api, ns)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": "Person", "label": "\u200b\u200b", "content": "a person"}, "label"),
        ({"type": "Knowledge", "label": "x", "content": "y", "tags": ["a\x00b"]}, "tags[0]"),
        ({"type": "Knowledge", "label": "x", "content": "y", "id": "knowledge:\u200b"}, "id"),
        ({"type": "Knowledge", "label": "x", "content": "y", "subject": "\u00ad"}, "subject"),
    ],
)
def test_invisible_or_control_characters_in_memory_names_and_ids_are_refused(
    api: Any, ns: str, body: Any, field: str
) -> None:
    refused(api.post(f"/v1/namespaces/{ns}/memories", json=body), field)
    assert api.get(f"/v1/namespaces/{ns}/memories").json()["items"] == []


@pytest.mark.parametrize("speaker", ["张伟", "Zoë O'Brien", "李小龙 (Bruce Lee)", "نیما\u200cیوشیج", "👩\u200d💻 Ada"])
def test_chinese_english_and_joined_names_are_kept(api: Any, ns: str, speaker: str) -> None:
    response = api.post(f"/v1/namespaces/{ns}/turns", content=turns_body(speaker=speaker), headers=JSON)
    assert response.status_code == 202, response.text
    memory = {"type": "Person", "label": speaker, "content": f"{speaker} works on billing.", "tags": ["同事"]}
    assert api.post(f"/v1/namespaces/{ns}/memories", json=memory).status_code == 201
