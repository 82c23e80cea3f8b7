"""API keys, roles and agent provenance through the v1 API, on real engines."""

from __future__ import annotations

import logging
import stat
import time
from datetime import UTC, datetime, timedelta

import pytest

from app.auth.bootstrap import ADMIN_KEY_FILE, bootstrap_admin_key
from app.auth.keys import ApiKeys
from app.domain.keys import Caller, Role, Viewer, key_hash, new_key, same_secret
from tests.conftest import bearer, make_settings


def create_key(api, ns: str, role: str, agent_id: str, **fields: object) -> str:  # type: ignore[no-untyped-def]
    response = api.post("/v1/keys", json={"namespace": ns, "role": role, "agent_id": agent_id, **fields})
    assert response.status_code == 201, response.text
    return response.json()["key"]


# -- pure rules --------------------------------------------------------------------------------


def test_roles_include_the_smaller_ones_on_their_own_namespace_only() -> None:
    writer = Caller("k1", "bot", Role.WRITER, "team-a")
    assert writer.may(Role.READER, "team-a") and writer.may(Role.WRITER, "team-a")
    assert not writer.may(Role.ADMIN, "team-a")
    assert not writer.may(Role.READER, "team-b")
    assert writer.role_on("team-b") is None
    bootstrap = Caller("bootstrap", "admin", Role.ADMIN, None)
    assert bootstrap.is_bootstrap and bootstrap.may(Role.ADMIN, "anything")
    assert writer.expired(datetime.now(UTC)) is False
    soon = Caller("k2", "bot", Role.READER, "team-a", expires_at=datetime(2030, 1, 1, tzinfo=UTC))
    assert soon.expired(datetime(2030, 1, 1, tzinfo=UTC)) and not soon.expired(datetime(2029, 12, 31, tzinfo=UTC))


def test_keys_are_random_hashed_and_compared_in_constant_time() -> None:
    (id_a, key_a), (id_b, key_b) = new_key(), new_key()
    assert id_a != id_b and key_a != key_b
    assert key_a.startswith(f"hg_{id_a}_") and len(key_a) >= 3 + 24 + 1 + 43  # 256 random bits of secret
    assert key_hash(key_a) == key_hash(key_a) != key_hash(key_b)
    assert len(key_hash(key_a)) == 64
    assert same_secret("abc", "abc") and not same_secret("abc", "abd")


def test_a_private_memory_is_seen_by_its_agent_and_by_those_who_see_private_memories() -> None:
    private = {"private": True, "agent_id": "alice"}
    assert Viewer("alice", sees_private=False).sees(private)
    assert not Viewer("bob", sees_private=False).sees(private)
    assert Viewer("bob", sees_private=True).sees(private)
    assert Viewer("bob", sees_private=False).sees({"agent_id": "alice"})
    reader = Caller("k", "bob", Role.READER, "ns")
    assert not reader.viewer("ns").sees_private
    assert Caller("k", "bob", Role.ADMIN, "ns").viewer("ns").sees_private


def test_the_bootstrap_key_is_generated_once_into_the_data_folder(services, tmp_path, caplog) -> None:  # type: ignore[no-untyped-def]
    settings = make_settings(services, tmp_path, HIPPOGRAPH_ADMIN_KEY="")
    with caplog.at_level(logging.INFO):
        key = bootstrap_admin_key(settings)
    path = tmp_path / ADMIN_KEY_FILE
    assert path.read_text().strip() == key and key.startswith("hg_admin_") and len(key) > 40
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert str(path) in caplog.text and key not in caplog.text
    assert bootstrap_admin_key(settings) == key  # the next start reads the same key
    assert bootstrap_admin_key(make_settings(services, tmp_path, HIPPOGRAPH_ADMIN_KEY="given")) == "given"


# -- keys over the API ---------------------------------------------------------------------------


def test_key_lifecycle_secret_shown_once_and_stored_only_as_a_hash(api, cypher, namespace) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    response = api.post(
        "/v1/keys",
        json={"namespace": namespace, "role": "writer", "agent_id": "planner", "label": "the planning agent"},
    )
    assert response.status_code == 201, response.text
    created = response.json()
    key = created["key"]
    assert created["namespace"] == namespace and created["role"] == "writer" and created["agent_id"] == "planner"
    stored = cypher("MATCH (k:ApiKey {id: $id}) RETURN properties(k) AS p", id=created["id"])[0]["p"]
    assert stored["key_hash"] == key_hash(key)
    assert key not in {str(value) for value in stored.values()}
    assert "namespace" not in stored  # keys live outside the memory graph's namespace scoping

    listed = api.get("/v1/keys").json()["items"]
    mine = [item for item in listed if item["id"] == created["id"]]
    assert len(mine) == 1 and "key" not in mine[0] and "key_hash" not in mine[0]
    assert key not in api.get("/v1/keys").text

    # The key works; a reader or writer lists only its own key.
    assert api.get(f"/v1/namespaces/{namespace}", headers=bearer(key)).status_code == 200
    other = create_key(api, namespace, "reader", "watcher")
    own = api.get("/v1/keys", headers=bearer(other)).json()["items"]
    assert [item["agent_id"] for item in own] == ["watcher"]

    # Revoked: refused at once by this process.
    assert api.delete(f"/v1/keys/{created['id']}").json() == {"revoked": created["id"]}
    refused = api.get(f"/v1/namespaces/{namespace}", headers=bearer(key))
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
    assert api.delete(f"/v1/keys/{created['id']}").status_code == 404


def test_me_answers_the_calling_keys_role_namespace_and_agent(api, namespace) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    created = api.post("/v1/keys", json={"namespace": namespace, "role": "reader", "agent_id": "watcher"}).json()
    me = api.get("/v1/me", headers=bearer(created["key"]))
    assert me.status_code == 200, me.text
    assert me.json() == {"key_id": created["id"], "namespace": namespace, "role": "reader", "agent_id": "watcher",
                         "expires_at": None}  # fmt: skip
    admin = api.get("/v1/me").json()  # the bootstrap admin: every namespace
    assert admin["namespace"] is None and admin["role"] == "admin" and admin["key_id"] == "bootstrap"
    assert api.get("/v1/me", headers=bearer("hg_unknown_key")).status_code == 401


def test_missing_unknown_expired_and_malformed_keys_answer_401(api, namespace) -> None:  # type: ignore[no-untyped-def]
    api.put(f"/v1/namespaces/{namespace}")
    url = f"/v1/namespaces/{namespace}"
    for headers in ({"Authorization": ""}, {"Authorization": "Basic abc"}, bearer("hg_nope_nope"), bearer("")):
        response = api.get(url, headers=headers)
        assert response.status_code == 401, headers
        assert response.json()["error"]["code"] == "unauthorized"
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    # Expired: accepted when created with a future expiry, refused once it has passed.
    expiring = create_key(
        api, namespace, "reader", "short", expires_at=(datetime.now(UTC) + timedelta(seconds=2)).isoformat()
    )
    assert api.get(url, headers=bearer(expiring)).status_code == 200
    time.sleep(2.2)
    assert api.get(url, headers=bearer(expiring)).status_code == 401
    past = api.post("/v1/keys", json={"namespace": namespace, "role": "reader", "agent_id": "x",
                                      "expires_at": "2020-01-01T00:00:00Z"})  # fmt: skip
    assert past.status_code == 422 and past.json()["error"]["field"] == "expires_at"


def test_roles_gate_routes_and_namespaces(api, namespace) -> None:  # type: ignore[no-untyped-def]
    other = f"{namespace}-b"
    for ns in (namespace, other):
        assert api.put(f"/v1/namespaces/{ns}").status_code == 201
    reader, writer, admin = (
        create_key(api, namespace, role, f"agent-{role}") for role in ("reader", "writer", "admin")
    )
    memory = {"type": "Knowledge", "label": "Car", "content": "The team car is a red Model Y"}

    denied = api.post(f"/v1/namespaces/{namespace}/memories", json=memory, headers=bearer(reader))
    assert denied.status_code == 403 and "'writer'" in denied.json()["error"]["message"]
    saved = api.post(f"/v1/namespaces/{namespace}/memories", json=memory, headers=bearer(writer))
    assert saved.status_code == 201 and saved.json()["agent_id"] == "agent-writer"
    node_id = saved.json()["id"]
    assert api.delete(f"/v1/namespaces/{namespace}/nodes/{node_id}", headers=bearer(writer)).status_code == 403
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{node_id}", headers=bearer(reader)).status_code == 200

    # Another namespace: 403 for every role, and nothing of it in the answer.
    for key in (reader, writer, admin):
        response = api.get(f"/v1/namespaces/{other}", headers=bearer(key))
        assert response.status_code == 403 and other in response.json()["error"]["message"]
    # Keys: an admin creates keys on its own namespace only; only the bootstrap admin creates namespaces.
    assert api.post("/v1/keys", headers=bearer(admin),
                    json={"namespace": other, "role": "reader", "agent_id": "x"}).status_code == 403  # fmt: skip
    assert api.post("/v1/keys", headers=bearer(writer),
                    json={"namespace": namespace, "role": "reader", "agent_id": "x"}).status_code == 403  # fmt: skip
    assert (
        create_key(api, namespace, "reader", "made-by-admin")
        and api.post(
            "/v1/keys", headers=bearer(admin), json={"namespace": namespace, "role": "reader", "agent_id": "y"}
        ).status_code
        == 201
    )
    assert api.put(f"/v1/namespaces/{namespace}-new", headers=bearer(admin)).status_code == 403
    assert api.put(f"/v1/namespaces/{namespace}", headers=bearer(admin), json={"capacity": 500}).status_code == 200
    assert api.put(f"/v1/namespaces/{namespace}", headers=bearer(writer), json={"capacity": 600}).status_code == 403

    # Deleting the namespace revokes its keys.
    assert api.delete(f"/v1/namespaces/{namespace}", headers=bearer(admin)).json()["deleted"]["keys"] >= 4
    assert api.get("/v1/keys", headers=bearer(reader)).status_code == 401


def test_a_revoked_key_stops_working_in_other_processes_within_the_cache_ttl(runtime, api, namespace) -> None:  # type: ignore[no-untyped-def]
    """A second ApiKeys over the same Neo4j stands for another API process (its own cache)."""
    api.put(f"/v1/namespaces/{namespace}")
    key = create_key(api, namespace, "reader", "cached")
    ttl = 0.5
    elsewhere = ApiKeys(runtime.graph, "another-bootstrap-key", cache_ttl_s=ttl)
    assert elsewhere.authenticate(key) is not None  # cached from now on
    key_id = next(item["id"] for item in api.get("/v1/keys").json()["items"] if item["agent_id"] == "cached")
    api.delete(f"/v1/keys/{key_id}")
    revoked_at = time.monotonic()
    while elsewhere.authenticate(key) is not None:
        assert time.monotonic() - revoked_at <= ttl + 0.2, "still accepted after the cache TTL"
        time.sleep(0.02)
    assert time.monotonic() - revoked_at <= ttl + 0.2


# -- agent provenance and private memories -------------------------------------------------------


def test_writes_record_the_keys_agent_and_nobody_poses_as_another(api, worker, cypher, namespace) -> None:  # type: ignore[no-untyped-def]
    api.put(f"/v1/namespaces/{namespace}")
    writer = create_key(api, namespace, "writer", "scribe")
    reader = create_key(api, namespace, "reader", "asker")
    turns = {"wait": True, "turns": [{"session_id": "s1", "turn_id": "1", "speaker": "Alice",
                                      "text": "My car is a Model Y. I moved to Berlin last week.",
                                      "timestamp": "2024-05-15T10:00:00Z"}]}  # fmt: skip
    assert api.post(f"/v1/namespaces/{namespace}/turns", json=turns, headers=bearer(writer)).status_code == 200
    agents = cypher(
        "MATCH (m:Memory {namespace: $ns}) WHERE m:Dialogue OR m.slot IS NOT NULL OR m.event_time IS NOT NULL "
        "RETURN DISTINCT m.agent_id AS agent",
        ns=namespace,
    )
    assert agents == [{"agent": "scribe"}]

    posing = {"type": "Knowledge", "label": "x", "content": "y", "agent_id": "someone-else"}
    refused = api.post(f"/v1/namespaces/{namespace}/memories", json=posing, headers=bearer(writer))
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "agent_id"
    recall = {"query": "car", "agent_id": "scribe"}
    assert api.post(f"/v1/namespaces/{namespace}/recall", json=recall, headers=bearer(reader)).status_code == 403
    # The bootstrap admin may write on an agent's behalf (imports, tools).
    assert api.post(f"/v1/namespaces/{namespace}/memories", json=posing).json()["agent_id"] == "someone-else"

    a = api.post(f"/v1/namespaces/{namespace}/memories", headers=bearer(writer),
                 json={"type": "Concept", "label": "A", "content": "Concept A"}).json()["id"]  # fmt: skip
    b = api.post(f"/v1/namespaces/{namespace}/memories", headers=bearer(writer),
                 json={"type": "Concept", "label": "B", "content": "Concept B"}).json()["id"]  # fmt: skip
    link = api.post(f"/v1/namespaces/{namespace}/links", headers=bearer(writer),
                    json={"type": "CAUSAL", "source_id": a, "target_id": b}).json()  # fmt: skip
    assert link["properties"]["agent_id"] == "scribe"


def test_private_memories_and_the_agent_filter(api, cypher, namespace) -> None:  # type: ignore[no-untyped-def]
    api.put(f"/v1/namespaces/{namespace}")
    alice, bob = create_key(api, namespace, "writer", "alice"), create_key(api, namespace, "writer", "bob")
    admin = create_key(api, namespace, "admin", "lead")

    def save(key: str, label: str, content: str, private: bool = False) -> str:
        body = {"type": "Knowledge", "label": label, "content": content, "private": private}
        response = api.post(f"/v1/namespaces/{namespace}/memories", json=body, headers=bearer(key))
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    secret = save(alice, "Gift", "The surprise gift for the launch party is a telescope", private=True)
    shared = save(bob, "Party", "The launch party for the telescope project is on Friday")
    api.post(f"/v1/namespaces/{namespace}/links", headers=bearer(bob),
             json={"type": "ASSOCIATION", "source_id": shared, "target_id": secret})  # fmt: skip

    def recalled(key: str, **extra: object) -> set[str]:
        body = {"query": "telescope launch party gift", "top_k": 10, **extra}
        response = api.post(f"/v1/namespaces/{namespace}/recall", json=body, headers=bearer(key))
        assert response.status_code == 200, response.text
        return {card["id"] for card in response.json()["items"]}

    assert secret in recalled(alice) and secret in recalled(admin)
    assert secret not in recalled(bob) and shared in recalled(bob)
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{secret}", headers=bearer(bob)).status_code == 404
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{secret}", headers=bearer(alice)).status_code == 200
    related = api.get(f"/v1/namespaces/{namespace}/nodes/{shared}/related", headers=bearer(bob)).json()["items"]
    assert secret not in {item["id"] for item in related}
    related = api.get(f"/v1/namespaces/{namespace}/nodes/{shared}/related", headers=bearer(alice)).json()["items"]
    assert secret in {item["id"] for item in related}
    chain = api.post(
        f"/v1/namespaces/{namespace}/chain", headers=bearer(bob), json={"from_id": shared, "to_id": secret}
    )
    assert chain.status_code == 404
    exported = api.get(f"/v1/namespaces/{namespace}/export", headers=bearer(bob)).text
    assert secret not in exported and "telescope" in exported
    assert secret in api.get(f"/v1/namespaces/{namespace}/export", headers=bearer(admin)).text

    # agent_ids keeps the named agents' memories only.
    only_bob = recalled(admin, agent_ids=["bob"])
    assert shared in only_bob and secret not in only_bob
    assert recalled(admin, agent_ids=["nobody"]) == set()


@pytest.mark.parametrize("route", ["/openapi.json", "/docs", "/healthz", "/readyz"])
def test_probes_and_the_api_description_stay_open(api, route: str) -> None:  # type: ignore[no-untyped-def]
    assert api.get(route, headers={"Authorization": ""}).status_code in (200, 503)
