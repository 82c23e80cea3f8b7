"""Imports are checked as strictly as the routes that write the same nodes (issue 20): a snapshot
with a value reads, recall or decay cannot use is refused with 422 naming its path, nothing is
imported, and the namespace keeps working."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

JSON = {"content-type": "application/json"}


@pytest.fixture
def exported(api: Any, namespace: str) -> dict[str, Any]:
    """A real export: one namespace with two linked memories."""
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    for label, content in (("Database", "We use Postgres 16."), ("Billing", "Billing runs on the database.")):
        body = {"type": "Knowledge", "label": label, "content": content, "importance": "FACT"}
        assert api.post(f"/v1/namespaces/{namespace}/memories", json=body).status_code == 201
    ids = sorted(node["id"] for node in api.get(f"/v1/namespaces/{namespace}/memories").json()["items"])
    link = {"source_id": ids[0], "target_id": ids[1], "type": "REFERENCE", "weight": 0.5}
    assert api.post(f"/v1/namespaces/{namespace}/links", json=link).status_code == 201
    document: dict[str, Any] = api.get(f"/v1/namespaces/{namespace}/export").json()
    assert len(document["nodes"]) == 2 and len(document["relationships"]) == 1
    return document


@pytest.fixture
def target(api: Any, namespace: str) -> str:
    name = f"{namespace}-copy"
    assert api.put(f"/v1/namespaces/{name}").status_code == 201
    return name


def import_into(api: Any, namespace: str, document: dict[str, Any] | str) -> Any:
    text = document if isinstance(document, str) else json.dumps(document)
    return api.post(f"/v1/namespaces/{namespace}/import", content=text, headers=JSON)


POISON = [
    ("nodes", "importance", "BOGUS", "must be one of TRIVIAL"),
    ("nodes", "activation_base", "not-a-number", "expected a number in [0, 1]"),
    ("nodes", "activation_base", {"$float": "NaN"}, "expected a number in [0, 1]"),
    ("nodes", "activation", 7.5, "expected a number in [0, 1]"),
    ("nodes", "confidence", -0.1, "expected a number in [0, 1]"),
    ("nodes", "last_accessed", "yesterday", "expected a datetime with a UTC offset"),
    ("nodes", "created_at", {"$datetime": "2024-01-01T00:00:00+19:00"}, "within -18:00 and +18:00"),
    ("nodes", "source", "gossip", "must be one of user_stated"),
    ("nodes", "access_count", -1, "expected a whole number >= 0"),
    ("nodes", "tags", "billing", "expected a list of strings"),
    ("nodes", "private", "yes", "expected true or false"),
    ("relationships", "weight", 2.0, "expected a number in [0, 1]"),
    ("relationships", "last_reinforced", 12, "expected a datetime with a UTC offset"),
]


@pytest.mark.parametrize(("kind", "name", "value", "problem"), POISON)
def test_a_badly_typed_value_is_refused_and_nothing_imported(
    api: Any, exported: dict[str, Any], target: str, kind: str, name: str, value: Any, problem: str
) -> None:
    document = copy.deepcopy(exported)
    document[kind][-1]["properties"][name] = value
    response = import_into(api, target, document)
    assert response.status_code == 422, response.text
    field = f"{kind}[{len(exported[kind]) - 1}].properties.{name}"
    assert response.json()["error"]["field"] == field
    assert problem in response.json()["error"]["message"]
    assert api.get(f"/v1/namespaces/{target}/memories").json()["items"] == []


def test_the_issues_poison_import_is_refused_and_the_namespace_keeps_working(
    api: Any, exported: dict[str, Any], target: str
) -> None:
    poison = copy.deepcopy(exported)
    poison["nodes"][0]["properties"] |= {"importance": "BOGUS", "activation_base": "not-a-number",
                                         "last_accessed": "yesterday"}  # fmt: skip
    assert import_into(api, target, poison).status_code == 422
    assert import_into(api, target, exported).status_code == 201
    node_id = exported["nodes"][0]["id"]
    assert api.get(f"/v1/namespaces/{target}/nodes/{node_id}").status_code == 200
    assert api.get(f"/v1/namespaces/{target}/nodes/{node_id}/related").status_code == 200
    assert api.patch(f"/v1/namespaces/{target}/nodes/{node_id}", json={"tags": ["x"]}).status_code == 200
    recall = api.post(f"/v1/namespaces/{target}/recall", json={"query": "Which database do we use?"})
    assert recall.status_code == 200, recall.text


def test_unknown_labels_types_and_ids_are_refused(api: Any, exported: dict[str, Any], target: str) -> None:
    for kind, index, change, field in (
        ("nodes", 0, {"labels": ["Memory", "Gossip"]}, "nodes[0].labels"),
        ("nodes", 0, {"id": "knowledge:bad\n"}, "nodes[0].id"),
        ("nodes", 0, {"id": "task:abc"}, "nodes[0].id"),
        ("relationships", 0, {"type": "LIKES"}, "relationships[0].type"),
    ):
        document = copy.deepcopy(exported)
        document[kind][index] |= change
        if "id" in change:
            document[kind][index]["properties"]["id"] = change["id"]
            document["relationships"] = []
        response = import_into(api, target, document)
        assert response.status_code == 422, response.text
        assert response.json()["error"]["field"] == field


def test_a_deeply_nested_property_list_is_refused(api: Any, exported: dict[str, Any], target: str) -> None:
    deep = '"deep": ' + "[" * 900 + "]" * 900 + ', "importance": "FACT"'
    text = json.dumps(exported).replace('"importance": "FACT"', deep, 1)
    response = import_into(api, target, text)
    assert response.status_code == 422, response.text
    assert "a list inside a list is not a property value" in response.json()["error"]["message"]


HUGE = "1" + "0" * 5000  # past Python's int-string limit: the JSON parse raised ValueError, a 500 (issue 37)


def test_a_number_of_5000_digits_is_refused_naming_its_place(api: Any, exported: dict[str, Any], target: str) -> None:
    text = json.dumps(exported).replace('"access_count": 0', f'"access_count": {HUGE}', 1)
    assert HUGE in text
    response = import_into(api, target, text)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["field"] == "body", error
    assert "].properties['access_count']: integer of 5001 digits is outside the 64-bit range" in error["message"]
    response = import_into(api, target, json.dumps(exported).replace('"version": 1', f'"version": -{HUGE}'))
    assert response.status_code == 422, response.text
    assert "unsupported format version <an integer of 5001 digits>" in response.json()["error"]["message"]
    assert api.get(f"/v1/namespaces/{target}/memories").json()["items"] == []
    assert import_into(api, target, exported).status_code == 201


def test_a_graphml_long_of_5000_digits_is_refused(api: Any, exported: dict[str, Any], target: str) -> None:
    import re

    source = exported["namespace"]
    graphml = api.get(f"/v1/namespaces/{source}/export", params={"format": "graphml"}).text
    key = re.search(r'<key id="(\w+)" for="node" attr.name="access_count" attr.type="long"', graphml)
    assert key is not None, graphml[:800]
    poisoned, count = re.subn(rf'(<data key="{key.group(1)}">)\d+(</data>)', rf"\g<1>{HUGE}\g<2>", graphml, count=1)
    assert count == 1
    response = api.post(f"/v1/namespaces/{target}/import", params={"format": "graphml"}, content=poisoned,
                        headers={"content-type": "application/graphml+xml"})  # fmt: skip
    assert response.status_code == 422, response.text
    assert "outside the 64-bit range" in response.json()["error"]["message"]
    assert api.get(f"/v1/namespaces/{target}/memories").json()["items"] == []
