"""Updates that supersede, on real engines (issue 39): an update read by the rules supersedes the
value in force with history kept, and recall answers a question about the current state with the
newer statement first, and one about the past with both."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

WEEK_AGO = datetime(2024, 5, 6, 9, tzinfo=UTC)
NOW = WEEK_AGO + timedelta(days=7)
OLD = "We use Postgres 15 for billing."
NEW = "Update: we upgraded billing to Postgres 16 yesterday."
OTHER = [
    "The billing dashboard is slow on Mondays.",
    "Lunch was great today, the new Thai place is good.",
    "I reviewed the frontend pull request this morning.",
]


def _post(api, ns: str, turns: list[tuple[str, str, datetime]]) -> None:  # type: ignore[no-untyped-def]
    api.put(f"/v1/namespaces/{ns}")
    body = [{"session_id": session, "turn_id": f"{session}:{i}", "speaker": "Alice", "text": text,
             "timestamp": at.isoformat()} for i, (session, text, at) in enumerate(turns)]  # fmt: skip
    response = api.post(f"/v1/namespaces/{ns}/turns", json={"turns": body, "wait": True})
    assert response.status_code == 200, response.text


def _recall(api, ns: str, query: str, **options) -> list[dict]:  # type: ignore[no-untyped-def]
    response = api.post(f"/v1/namespaces/{ns}/recall", json={"query": query, "now": NOW.isoformat(), **options})
    assert response.status_code == 200, response.text
    items: list[dict] = response.json()["items"]
    return items


def _billing(api, ns: str) -> None:  # type: ignore[no-untyped-def]
    later = [("s1", text, WEEK_AGO + timedelta(minutes=i + 1)) for i, text in enumerate(OTHER)]
    turns = [("s1", OLD, WEEK_AGO), *later]
    _post(api, ns, turns)
    _post(api, ns, [("s2", NEW, NOW - timedelta(hours=1))])


def test_the_upgrade_supersedes_the_database_in_force_and_keeps_history(api, worker, namespace) -> None:
    _billing(api, namespace)
    rows = api.post(
        f"/v1/namespaces/{namespace}/cypher",
        json={"query": "MATCH (k:Memory {namespace: $namespace}) WHERE k:Knowledge AND k.subject_key = 'billing' "
                       "AND k.slot = 'database' "
                       "RETURN k.value AS value, k.superseded_by AS by, k.valid_to AS until, k.id AS id "
                       "ORDER BY k.valid_from"},
    )  # fmt: skip
    assert rows.status_code == 200, rows.text
    versions = rows.json()["rows"]
    assert [v["value"] for v in versions] == ["Postgres 15", "Postgres 16"]
    assert versions[0]["by"] == versions[1]["id"] and versions[0]["until"] is not None
    assert versions[1]["by"] is None


def test_the_current_database_comes_first_and_the_past_one_is_told_when_asked(api, worker, namespace) -> None:
    _billing(api, namespace)
    items = _recall(api, namespace, "What database does billing use?", top_k=5)
    first = items[0]
    assert "Postgres 16" in first["summary"], [item["summary"] for item in items]
    # the superseded fact is not shown for the current state (its turn may be, after the new one)
    assert not [item for item in items if item["type"] == "Knowledge" and "Postgres 15" in item["summary"]], items
    # about the past: the superseded fact is shown beside the new one
    history = _recall(api, namespace, "What database did billing use before?", top_k=10)
    facts = [item for item in history if item["type"] == "Knowledge" and "database" in item["summary"]]
    assert {"Postgres 15", "Postgres 16"} <= {f["summary"].rsplit(": ", 1)[-1] for f in facts}, facts
    assert any(f.get("superseded_by") for f in facts)
