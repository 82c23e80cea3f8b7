"""Tenant isolation over every route of the OpenAPI document, generated from it: a route added
later is covered without editing this test. Each `/v1` operation declares the role it needs
(`x-required-role`, written from the route's own access dependency)."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from tests.conftest import bearer

ROLES = ("reader", "writer", "admin")
RANK = {"key": 0, "reader": 1, "writer": 2, "admin": 3}


class Tenant:
    """A namespace with one memory (a unique marker in its text) and a key of each role."""

    def __init__(self, api, name: str) -> None:  # type: ignore[no-untyped-def]
        self.name = name
        self.marker = f"marker{uuid.uuid4().hex}"
        assert api.put(f"/v1/namespaces/{name}").status_code == 201
        body = {"type": "Knowledge", "label": f"Note {self.marker}", "content": f"Secret plans {self.marker}"}
        self.node_id = api.post(f"/v1/namespaces/{name}/memories", json=body).json()["id"]
        turn = {"session_id": "s", "turn_id": "s:1", "speaker": "A", "text": f"Batch {self.marker}",
                "timestamp": "2024-05-15T10:00:00+00:00"}  # fmt: skip
        self.batch_id = api.post(f"/v1/namespaces/{name}/turns", json={"turns": [turn]}).json()["batch_id"]
        self.keys: dict[str, str] = {}
        self.key_ids: dict[str, str] = {}
        for role in ROLES:
            created = api.post("/v1/keys", json={"namespace": name, "role": role, "agent_id": f"{role}-{name}"}).json()
            self.keys[role], self.key_ids[role] = created["key"], created["id"]

    def secrets(self) -> list[str]:
        """What of this tenant must never appear in another tenant's answers."""
        return [self.marker, self.node_id, self.batch_id, *self.key_ids.values()]


def operations(api) -> list[tuple[str, str, dict[str, Any]]]:  # type: ignore[no-untyped-def]
    document = api.get("/openapi.json").json()
    found = [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        if path.startswith("/v1")
        for method, operation in item.items()
        if method in {"get", "post", "put", "patch", "delete"}
    ]
    assert len(found) >= 16
    return found


def request(
    api, method: str, path: str, operation: dict, tenant: Tenant, key: str | None, body_for: Tenant | None = None
):  # type: ignore[no-untyped-def]
    """Call an operation with its path filled from `tenant` (namespace, node, a key id)."""
    url = path.replace("{ns}", tenant.name).replace("{node_id}", tenant.node_id)
    url = url.replace("{key_id}", tenant.key_ids["reader"]).replace("{batch_id}", tenant.batch_id)
    url = url.replace("{dead_letter_id}", tenant.node_id)  # none: the control answers 404
    url = url.replace("{run_id}", "run-1")
    url = url.replace("/tools/{name}", "/tools/memory_search")  # a reader's tool; its role is tested in test_tools
    url = url.replace("{task_id}", "task:isolation")  # none: the control answers 404, never 401/403
    assert not re.search(r"\{\w+\}", url), f"no value for a path parameter of {path}: extend request()"
    json: Any = None
    if "requestBody" in operation:
        content = operation["requestBody"].get("content", {})
        json = {"namespace": (body_for or tenant).name, "role": "reader", "agent_id": "x"} if path == "/v1/keys" else {}
        if "application/json" not in content:
            json = None
    headers = bearer(key) if key is not None else {"Authorization": ""}
    return api.request(method, url, json=json, headers=headers)


@pytest.fixture
def tenants(api, namespace):  # type: ignore[no-untyped-def]
    return Tenant(api, f"{namespace}-a"), Tenant(api, f"{namespace}-b")


def test_every_route_refuses_what_the_key_may_not_do(api, tenants) -> None:  # type: ignore[no-untyped-def]
    a, b = tenants
    checked = 0
    for method, path, operation in operations(api):
        role = operation.get("x-required-role")
        assert role in RANK, f"{method} {path} declares no role: every /v1 route needs an access dependency"
        label = f"{method} {path}"
        refused: list[Any] = []

        for key in (None, "hg_unknown_" + uuid.uuid4().hex):
            response = request(api, method, path, operation, a, key)
            assert response.status_code == 401, (label, key, response.text)
            refused.append(response)
        if "{ns}" in path:
            response = request(api, method, path, operation, b, a.keys["reader"])
            assert response.status_code == 403, (label, "reader of A on B", response.text)
            refused.append(response)
        elif path == "/v1/keys" and method == "POST":
            response = request(api, method, path, operation, a, a.keys["admin"], body_for=b)
            assert response.status_code == 403, (label, "admin of A creating a key on B", response.text)
            refused.append(response)
        elif "{key_id}" in path:
            response = request(api, method, path, operation, b, a.keys["admin"])
            assert response.status_code == 403, (label, "admin of A on B's key", response.text)
            refused.append(response)
        if RANK[role] > RANK["reader"]:
            response = request(api, method, path, operation, a, a.keys["reader"])
            assert response.status_code == 403, (label, "reader on a write route", response.text)
            refused.append(response)
        if role == "admin":
            response = request(api, method, path, operation, a, a.keys["writer"])
            assert response.status_code == 403, (label, "writer on an admin route", response.text)
            refused.append(response)
        for response in refused:
            assert response.json()["error"]["code"] in {"unauthorized", "forbidden"}, label
            assert not any(secret in response.text for secret in b.secrets()), (label, response.text)

        # The control: the right key on a namespace of its own (destructive routes may run).
        control = Tenant(api, f"{a.name}-c{checked}")
        response = request(api, method, path, operation, control, control.keys[role if role != "key" else "reader"])
        assert response.status_code not in (401, 403), (label, "control", response.text)
        assert not any(secret in response.text for secret in b.secrets()), (label, response.text)
        checked += 1
    assert checked >= 16


def test_listing_keys_shows_only_the_callers_namespace(api, tenants) -> None:  # type: ignore[no-untyped-def]
    a, b = tenants
    for role in ROLES:
        listed = api.get("/v1/keys", headers=bearer(a.keys[role]))
        assert listed.status_code == 200
        ids = {item["id"] for item in listed.json()["items"]}
        assert ids and ids <= set(a.key_ids.values())
        assert not ids & set(b.key_ids.values())
        assert (ids == set(a.key_ids.values())) is (role == "admin")


def test_listing_namespaces_shows_only_the_keys_own(api, tenants) -> None:  # type: ignore[no-untyped-def]
    a, b = tenants
    for role in ROLES:
        listed = api.get("/v1/namespaces", headers=bearer(a.keys[role]))
        assert listed.status_code == 200, listed.text
        assert [item["name"] for item in listed.json()["items"]] == [a.name]
    everything = {item["name"] for item in api.get("/v1/namespaces").json()["items"]}  # the bootstrap admin
    assert {a.name, b.name} <= everything
