"""GET /v1/namespaces/{ns}/memories: the filtered, cursor-paginated listing (real Neo4j)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from app.domain.inputs import InputError
from app.domain.model import Importance
from app.recall.listing import at_least, decode_cursor, encode_cursor
from tests.conftest import bearer
from tests.query_plans import explained


def test_cursors_round_trip_and_refuse_anything_else() -> None:
    cursor = encode_cursor("2024-05-15T10:00:00.123456789Z", "knowledge:a")
    assert decode_cursor(cursor) == ("2024-05-15T10:00:00.123456789Z", "knowledge:a")
    assert "=" not in cursor
    for bad in ("", "%%%", encode_cursor("yesterday", "knowledge:a"), "WzEsMl0"):  # the last: [1,2]
        with pytest.raises(InputError) as raised:
            decode_cursor(bad)
        assert raised.value.field == "cursor"


# A cursor whose time Neo4j's datetime() refuses answered 500 (issue 37): the first is the issue's.
OUT_OF_RANGE_CURSORS = [
    "WyI5OTk5OS0wMS0wMVQwMDowMDowMFoiLCJ4Il0",  # ["99999-01-01T00:00:00Z","x"]
    encode_cursor("2024-13-01T00:00:00Z", "knowledge:a"),
    encode_cursor("2024-05-15T25:00:00Z", "knowledge:a"),
    encode_cursor("0000-01-01T00:00:00Z", "knowledge:a"),
    encode_cursor("2024-05-15T10:00:00+19:00", "knowledge:a"),
    encode_cursor("-2024-05-15T10:00:00Z", "knowledge:a"),
]


@pytest.mark.parametrize("cursor", OUT_OF_RANGE_CURSORS)
def test_a_cursor_with_a_time_out_of_range_is_refused(cursor: str) -> None:
    with pytest.raises(InputError) as raised:
        decode_cursor(cursor)
    assert raised.value.field == "cursor"


def test_cursors_at_the_edges_of_the_stored_range_are_read() -> None:
    for created_at in ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2024-05-15T10:00:00+18:00"):
        assert decode_cursor(encode_cursor(created_at, "knowledge:a")) == (created_at, "knowledge:a")


@pytest.mark.parametrize("cursor", [*OUT_OF_RANGE_CURSORS, "%%%", "bm90IGpzb24"])
def test_a_bad_cursor_is_a_422_naming_the_cursor(api, namespace: str, cursor: str) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    _save(api, namespace, "note")
    response = api.get(f"/v1/namespaces/{namespace}/memories", params={"cursor": cursor})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == "cursor"


def test_importance_filter_means_that_level_or_higher() -> None:
    assert at_least(Importance.FACT) == ["FACT", "IDENTITY", "MUST_REMEMBER"]
    assert at_least(Importance.TRIVIAL) == [level.value for level in Importance]


def _save(api, ns: str, label: str, headers: dict[str, str] | None = None, **fields: Any) -> str:  # type: ignore[no-untyped-def]
    body = {"type": "Knowledge", "label": label, "content": f"{label}: a note for the listing", **fields}
    response = api.post(f"/v1/namespaces/{ns}/memories", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def _list(api, ns: str, headers: dict[str, str] | None = None, **params: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    response = api.get(f"/v1/namespaces/{ns}/memories", params=params, headers=headers)
    assert response.status_code == 200, response.text
    return dict(response.json())


def _walk(api, ns: str, **params: Any) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = _list(api, ns, **params, **({"cursor": cursor} if cursor else {}))
        assert len(page["items"]) <= params.get("limit", 20)
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return items
        assert page["items"], "a page with a next cursor shows something"


def test_pagination_walks_every_memory_once_newest_first_even_with_equal_times(api, cypher, namespace) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    ids = [_save(api, namespace, f"note {i}") for i in range(23)]
    # A batch shares one created_at: ten nodes with the same time must still be listed once each.
    cypher("MATCH (m:Memory {namespace: $ns}) WHERE m.id IN $ids SET m.created_at = $at",
           ns=namespace, ids=ids[5:15], at=datetime(2024, 5, 15, 10, 0, tzinfo=UTC))  # fmt: skip
    walked = _walk(api, namespace, limit=4)
    assert sorted(item["id"] for item in walked) == sorted(ids)
    assert len(walked) == len(ids)
    keys = [(item["created_at"], item["id"]) for item in walked]
    stored = cypher("MATCH (m:Memory {namespace: $ns}) RETURN m.created_at AS at, m.id AS id", ns=namespace)
    expected = sorted(stored, key=lambda row: (row["at"], row["id"]), reverse=True)
    assert [item["id"] for item in walked] == [row["id"] for row in expected]
    assert len(set(keys)) == len(keys)
    card = walked[0]
    assert set(card) >= {"id", "type", "label", "summary", "importance", "tags", "created_at", "agent_id", "private"}
    assert "content" not in card
    # The last page says there is nothing after it; a limit above the count answers one page.
    whole = _list(api, namespace, limit=200)
    assert whole["next_cursor"] is None and len(whole["items"]) == 23


def test_filters_narrow_the_listing(api, cypher, namespace) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    old = _save(api, namespace, "old plan", tags=["plan", "beta"], importance="FACT")
    task = _save(api, namespace, "task", type="Task", tags=["plan"], importance="TRIVIAL")
    other = _save(api, namespace, "by another agent", agent_id="scout", importance="MUST_REMEMBER")
    faded = _save(api, namespace, "faded")
    cypher("MATCH (m:Memory {namespace: $ns, id: $id}) SET m.created_at = $at",
           ns=namespace, id=old, at=datetime(2023, 1, 1, tzinfo=UTC))  # fmt: skip
    cypher("MATCH (m:Memory {namespace: $ns, id: $id}) SET m.activation = 0.001", ns=namespace, id=faded)

    def ids(**params: Any) -> set[str]:
        return {item["id"] for item in _walk(api, namespace, **params)}

    assert ids() == {old, task, other}  # soft-forgotten: left out unless asked
    assert ids(include_forgotten=True) == {old, task, other, faded}
    assert ids(type="Task") == {task}
    assert ids(type=["Task", "Knowledge"]) == {old, task, other}
    assert ids(until="2024-01-01T00:00:00Z") == {old}
    assert ids(since="2024-01-01T00:00:00") == {task, other}  # no offset: UTC
    assert ids(since="2023-01-01T00:00:00Z", until="2023-01-01T00:00:01Z") == {old}  # since inclusive
    assert ids(agent_id="scout") == {other}
    assert ids(importance="FACT") == {old, other}
    assert ids(tags="plan") == {old, task}
    assert ids(tags=["plan", "beta"]) == {old}
    assert ids(tags=["plan"], type="Knowledge", importance="IMPORTANT") == {old}
    assert ids(limit=1, type="Knowledge") == {old, other}  # filters hold across pages


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"type": "Bogus"}, "type[0]"),
        ({"importance": "HUGE"}, "importance"),
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"since": "not a time"}, "since"),
        ({"since": "2024-02-01T00:00:00Z", "until": "2024-01-01T00:00:00Z"}, "until"),
        ({"cursor": "garbage"}, "cursor"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_filters_answer_422_naming_the_field(api, namespace, params, field) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    response = api.get(f"/v1/namespaces/{namespace}/memories", params=params)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == field


def test_unknown_namespace_is_404(api, namespace) -> None:  # type: ignore[no-untyped-def]
    response = api.get(f"/v1/namespaces/{namespace}/memories")
    assert response.status_code == 404 and response.json()["error"]["field"] == "namespace"


def test_other_agents_private_memories_are_not_listed(api, namespace) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    keys = {}
    for agent, role in (("alice", "writer"), ("bob", "reader"), ("boss", "admin")):
        created = api.post("/v1/keys", json={"namespace": namespace, "role": role, "agent_id": agent})
        keys[agent] = bearer(created.json()["key"])
    secret = _save(api, namespace, "alice's diary", headers=keys["alice"], private=True)
    shared = _save(api, namespace, "team note", headers=keys["alice"])

    def listed(agent: str) -> set[str]:
        return {item["id"] for item in _list(api, namespace, headers=keys[agent])["items"]}

    assert listed("alice") == {secret, shared}
    assert listed("bob") == {shared}
    assert listed("boss") == {secret, shared}
    assert {item["id"] for item in _list(api, namespace, headers=keys["bob"], agent_id="alice")["items"]} == {shared}


def test_the_listing_query_walks_the_created_at_index_in_order(runtime) -> None:  # type: ignore[no-untyped-def]
    """Index-backed: a range seek on (namespace, created_at) whose order the plan keeps (no full sort,
    only the tie-break on id), so a page reads about as many nodes as it shows."""
    found = explained(
        runtime,
        "recall.listing",
        namespace="x",
        since=datetime(1, 1, 1, tzinfo=UTC),
        until=datetime(9999, 1, 1, tzinfo=UTC),
        upper="9999-12-31T23:59:59Z",
        after_id=None,
        types=None,
        agent_id=None,
        importance=None,
        tags=[],
        include_forgotten=False,
        alive=0.05,
        viewer_agent=None,
        sees_private=True,
        limit=21,
    )
    names = [name for name, _ in found]
    seeks = [details for name, details in found if name == "NodeIndexSeek"]
    assert len(seeks) == 1 and "created_at" in seeks[0] and "namespace" in seeks[0], found
    assert "PartialTop" in names and not {"Sort", "Top"} & set(names), names
