"""The seven tools over REST: schemas (GET /v1/tools) and runs (POST …/tools/{name}) that answer
exactly what the wrapped routes answer (real engines)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from app.tools import ADMIN_TOOLS, TOOLS
from app.tools.catalog import NoteArguments
from app.tools.definition import inline_refs
from tests.conftest import bearer

SEVEN = {
    "recall_memory",
    "read_memory_node",
    "save_memory_note",
    "discover_related",
    "focus_on_chain",
    "memory_search",
    "graph_query",
}
TIMINGS = ("took_ms", "stats")  # wall-clock figures: the only parts of two runs that may differ


def without_timings(result: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key not in TIMINGS}


def comparable(result: dict[str, Any]) -> Any:
    """A route's answer without timings, every number as `pytest.approx` (within 1e-4): two recalls a
    few milliseconds apart differ in recency (it decays with the wall clock, and the tool takes no
    `now`) by ~1e-6, which rounding to a fixed number of decimals turned into a flaky 1e-4 now and
    then, where a score sat on a rounding boundary."""

    def close(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: close(item) for key, item in value.items()}
        if isinstance(value, list):
            return [close(item) for item in value]
        if isinstance(value, float):
            return pytest.approx(value, abs=1e-4)
        return value

    return close(without_timings(result))


def test_every_tool_schema_is_valid_json_schema_without_refs() -> None:
    assert set(TOOLS) == SEVEN and set(ADMIN_TOOLS) == {"forget_memories"}
    for tool in (TOOLS | ADMIN_TOOLS).values():
        parameters = tool.parameters()
        Draft202012Validator.check_schema(parameters)
        Draft7Validator.check_schema(parameters)
        assert parameters["type"] == "object" and "$ref" not in json.dumps(parameters), tool.name
        assert "$defs" not in parameters and parameters["additionalProperties"] is False, tool.name
        for name, field in parameters["properties"].items():
            assert field.get("description"), f"{tool.name}.{name} has no description"
        assert len(tool.description) > 100, tool.name
        # The schema refuses an unknown field, as the arguments model does.
        assert list(Draft202012Validator(parameters).iter_errors({"bogus": 1})), tool.name


def test_inline_refs_replaces_references_and_keeps_the_fields_own_keywords() -> None:
    schema = {
        "$defs": {"Colour": {"enum": ["red"], "type": "string", "description": "developer notes"}},
        "properties": {
            "a": {"$ref": "#/$defs/Colour", "description": "the colour"},
            "b": {"items": {"$ref": "#/$defs/Colour"}},
        },
    }
    assert inline_refs(schema) == {
        "properties": {
            "a": {"enum": ["red"], "type": "string", "description": "the colour"},
            "b": {"items": {"enum": ["red"], "type": "string"}},
        }
    }
    with pytest.raises(ValueError, match="unresolvable"):
        inline_refs({"properties": {"a": {"$ref": "#/$defs/Missing"}}})


def test_list_tools_answers_openai_function_schemas(api) -> None:  # type: ignore[no-untyped-def]
    response = api.get("/v1/tools")
    assert response.status_code == 200, response.text
    tools = response.json()["tools"]
    assert {tool["function"]["name"] for tool in tools} == SEVEN | set(ADMIN_TOOLS)  # `api` sends an admin key
    for tool in tools:
        assert tool["type"] == "function"
        assert set(tool["function"]) == {"name", "description", "parameters"}
        assert tool["function"]["parameters"] == (TOOLS | ADMIN_TOOLS)[tool["function"]["name"]].parameters()


def test_a_key_is_listed_the_tools_its_role_may_run(api, namespace) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    for role, expected in {
        "reader": SEVEN - {"save_memory_note"},
        "writer": SEVEN,
        "admin": SEVEN | {"forget_memories"},
    }.items():
        key = api.post("/v1/keys", json={"namespace": namespace, "role": role, "agent_id": role}).json()["key"]
        listed = api.get("/v1/tools", headers={"Authorization": f"Bearer {key}"}).json()["tools"]
        assert {tool["function"]["name"] for tool in listed} == expected, role


@pytest.fixture
def memory(api, namespace) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """A namespace with a task, a subtask, a person linked to it, and a writer and reader key."""
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    ids = {}
    for name, body in {
        "task": {"type": "Task", "label": "Beta", "content": "Ship the beta of the memory service by Friday"},
        "subtask": {"type": "Task", "label": "Docs", "content": "Write the beta's documentation"},
        "person": {"type": "Person", "label": "Alice", "content": "Alice leads the platform team and owns the beta"},
    }.items():
        response = api.post(f"/v1/namespaces/{namespace}/memories", json=body)
        assert response.status_code == 201, response.text
        ids[name] = response.json()["id"]
    for rel, source, target in (("HIERARCHY", "task", "subtask"), ("ASSOCIATION", "person", "task")):
        link = {"type": rel, "source_id": ids[source], "target_id": ids[target]}
        assert api.post(f"/v1/namespaces/{namespace}/links", json=link).status_code == 201
    for role in ("writer", "reader"):
        created = api.post("/v1/keys", json={"namespace": namespace, "role": role, "agent_id": f"{role}-agent"})
        ids[role] = created.json()["key"]
    return ids


def run_tool(api, ns: str, name: str, arguments: dict[str, Any], key: str | None = None):  # type: ignore[no-untyped-def]
    headers = bearer(key) if key else None
    return api.post(f"/v1/namespaces/{ns}/tools/{name}", json={"arguments": arguments}, headers=headers)


def test_each_tool_answers_what_its_rest_route_answers(api, namespace, memory) -> None:  # type: ignore[no-untyped-def]
    ns, task, person = namespace, memory["task"], memory["person"]
    writer = bearer(memory["writer"])
    note = {"content": "The beta's launch party is on Saturday at the office", "tags": ["beta"]}
    saved = run_tool(api, ns, "save_memory_note", note, memory["writer"])
    assert saved.status_code == 200, saved.text
    # The same note through REST: the same memory (idempotent save: 200 and the stored node).
    body = NoteArguments(**note).to_body().model_dump(mode="json", exclude_none=True)
    rest_saved = api.post(f"/v1/namespaces/{ns}/memories", json=body, headers=writer)
    assert rest_saved.status_code == 200, rest_saved.text
    assert saved.json() == {"tool": "save_memory_note", "result": rest_saved.json()}
    assert saved.json()["result"]["type"] == "Knowledge" and saved.json()["result"]["agent_id"] == "writer-agent"

    pairs = [
        ("recall_memory", {"query": "When is the beta launch party?", "top_k": 5}, "POST", "recall", None),
        ("read_memory_node", {"node_id": task}, "GET", f"nodes/{task}", None),
        ("discover_related", {"node_id": person, "depth": 2, "limit": 5}, "GET", f"nodes/{person}/related",
         {"depth": 2, "limit": 5}),
        ("focus_on_chain", {"task_id": task}, "POST", "chain", None),
        ("focus_on_chain", {"from_id": person, "to_id": memory["subtask"]}, "POST", "chain", None),
        ("memory_search", {"type": ["Task"], "limit": 1}, "GET", "memories", {"type": ["Task"], "limit": 1}),
        ("graph_query", {"name": "writes_by_agent", "limit": 50}, "POST", "cypher", None),
        ("graph_query", {"query": "MATCH (m:Memory {namespace: $namespace}) RETURN m.id AS id ORDER BY id"},
         "POST", "cypher", None),
    ]  # fmt: skip
    for name, arguments, method, route, params in pairs:
        url = f"/v1/namespaces/{ns}/{route}"
        if name == "graph_query":  # the tool's default limit is 50; REST gets it spelled out
            rest = api.post(url, json={"limit": 50, **arguments})
        elif method == "POST":
            rest = api.post(url, json=arguments)
        else:
            rest = api.get(url, params=params)
        tool = run_tool(api, ns, name, arguments)
        assert rest.status_code == 200 and tool.status_code == 200, (name, rest.text, tool.text)
        assert tool.json()["tool"] == name
        assert without_timings(tool.json()["result"]) == comparable(rest.json()), name
        assert tool.json()["result"], name
    recalled = run_tool(api, ns, "recall_memory", {"query": "When is the beta launch party?"}).json()["result"]
    assert saved.json()["result"]["id"] in [card["id"] for card in recalled["items"]]
    page = run_tool(api, ns, "memory_search", {"type": ["Task"], "limit": 1}).json()["result"]
    assert page["next_cursor"] and len(page["items"]) == 1


def test_tool_errors_name_the_tool_or_the_argument(api, namespace, memory) -> None:  # type: ignore[no-untyped-def]
    unknown = run_tool(api, namespace, "forget_everything", {})
    assert unknown.status_code == 404 and unknown.json()["error"]["field"] == "name", unknown.text
    assert "forget_everything" in unknown.json()["error"]["message"]
    cases = [
        ("recall_memory", {}, "arguments.query"),
        ("recall_memory", {"query": "x", "top_k": 0}, "arguments.top_k"),
        ("memory_search", {"type": ["Bogus"]}, "arguments.type[0]"),
        ("memory_search", {"cursor": "garbage"}, "arguments.cursor"),  # the route's own check
        ("save_memory_note", {"content": "x", "colour": "red"}, "arguments.colour"),
        ("discover_related", {"node_id": memory["task"], "depth": 9}, "arguments.depth"),
        ("graph_query", {}, "arguments"),
    ]
    for name, arguments, field in cases:
        response = run_tool(api, namespace, name, arguments, memory["writer"])
        assert response.status_code == 422, (name, response.text)
        assert response.json()["error"]["field"] == field, (name, response.text)
    missing = run_tool(api, namespace, "read_memory_node", {"node_id": "task:nope"})
    assert missing.status_code == 404, missing.text


def test_each_tool_needs_its_own_role(api, namespace, memory) -> None:  # type: ignore[no-untyped-def]
    refused = run_tool(api, namespace, "save_memory_note", {"content": "a reader may not write"}, memory["reader"])
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["code"] == "forbidden" and "writer" in refused.json()["error"]["message"]
    listed = run_tool(api, namespace, "memory_search", {}, memory["reader"]).json()["result"]["items"]
    assert "a reader may not write" not in json.dumps(listed)
    allowed = run_tool(api, namespace, "recall_memory", {"query": "beta"}, memory["reader"])
    assert allowed.status_code == 200, allowed.text
    other = run_tool(api, f"{namespace}-other", "recall_memory", {"query": "beta"}, memory["writer"])
    assert other.status_code == 403, other.text


def test_the_forget_tool_is_listed_to_and_run_by_admins_only(api, namespace, memory) -> None:  # type: ignore[no-untyped-def]
    for role in ("writer", "reader"):
        listed = api.get("/v1/tools", headers=bearer(memory[role])).json()["tools"]
        names = {tool["function"]["name"] for tool in listed}
        assert "forget_memories" not in names and names <= SEVEN, role
    arguments = {"tags": ["beta"], "dry_run": True}
    refused = run_tool(api, namespace, "forget_memories", arguments, memory["writer"])
    assert refused.status_code == 403 and "admin" in refused.json()["error"]["message"], refused.text
    note = {"content": "The beta ships on a Tuesday", "tags": ["beta"]}
    saved = run_tool(api, namespace, "save_memory_note", note, memory["writer"]).json()["result"]
    dry = run_tool(api, namespace, "forget_memories", arguments)
    assert dry.status_code == 200, dry.text
    assert dry.json()["result"] == api.post(f"/v1/namespaces/{namespace}/forget", json=arguments).json()
    assert dry.json()["result"]["counts"]["nodes"] == {"Knowledge": 1}
    done = run_tool(api, namespace, "forget_memories", {"tags": ["beta"]}).json()["result"]
    assert done["counts"]["nodes"] == {"Knowledge": 1} and done["audit_id"].startswith("forget:")
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{saved['id']}").status_code == 404
    assert run_tool(api, namespace, "forget_memories", {}).json()["error"]["field"] == "arguments"
