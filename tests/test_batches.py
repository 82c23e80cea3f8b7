"""Batch status of writes sent without `wait`, on real engines: queued, running/done, failed, 404s."""

from __future__ import annotations

import time
import uuid

from app.domain.inputs import stable_digest
from app.stores.hot import namespace_key
from tests.test_keys import bearer, create_key

TURNS = [
    {"session_id": "s1", "turn_id": "s1:1", "speaker": "Alice", "text": "I moved to Berlin.",
     "timestamp": "2024-05-15T10:00:00+00:00"},
    {"session_id": "s1", "turn_id": "s1:2", "speaker": "Bob", "text": "My car is a Model Y.",
     "timestamp": "2024-05-15T10:01:00+00:00"},
]  # fmt: skip


def _post(api, ns: str, wait: bool = False) -> dict:  # type: ignore[no-untyped-def]
    response = api.post(f"/v1/namespaces/{ns}/turns", json={"turns": TURNS, "wait": wait})
    assert response.status_code == (200 if wait else 202), response.text
    return response.json()


def _settled(api, url: str, timeout_s: float = 60.0) -> dict:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while True:
        batch = api.get(url).json()
        if batch["status"] in ("done", "failed") or time.monotonic() > deadline:
            return batch
        time.sleep(0.05)


def test_a_batch_is_queued_until_a_worker_runs_it(api, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    answer = _post(api, namespace)
    assert answer["batch_id"] == answer["task_id"]
    assert answer["status_url"] == f"/v1/namespaces/{namespace}/batches/{answer['batch_id']}"
    batch = api.get(answer["status_url"])
    assert batch.status_code == 200
    body = batch.json()
    assert body["status"] == "queued" and body["turns"] == 2 and body["namespace"] == namespace
    assert set(body) == {"batch_id", "namespace", "status", "turns", "created_at"}
    assert body["batch_id"] == answer["batch_id"]


def test_a_batch_is_done_with_its_report_once_the_worker_ran(api, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    answer = _post(api, namespace)
    batch = _settled(api, answer["status_url"])
    assert batch["status"] == "done", batch
    assert batch["report"]["turns"] == 2
    assert batch["created_at"] <= batch["started_at"] <= batch["finished_at"]
    assert "error" not in batch
    # With `wait` the batch is done by the time the answer comes back, with the same report.
    waited = _post(api, namespace, wait=True)
    assert api.get(waited["status_url"]).json()["report"] == waited["report"]


def test_a_batch_whose_stored_turns_are_unreadable_is_done_with_them_put_aside(api, runtime, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    worker.stop()  # queue first, then break the stored turns, then run it
    answer = _post(api, namespace)
    pending = namespace_key(namespace, "hot", "pending")
    keys = sorted(runtime.redis.hkeys(pending))
    for key in keys:
        runtime.redis.hset(pending, key, "{}")  # a record without its fields: no retry can read it
    worker.start()
    batch = _settled(api, answer["status_url"])
    assert batch["status"] == "done", batch
    ids = sorted(f"unreadable:{stable_digest(key)}" for key in keys)
    assert sorted(batch["dead_lettered"]) == sorted(batch["report"]["dead_lettered"]) == ids
    assert batch["report"]["turns"] == 0 and runtime.redis.hlen(pending) == 0
    letters = api.get(f"/v1/namespaces/{namespace}/dead-letters").json()["dead_letters"]
    assert sorted(letter["id"] for letter in letters) == ids
    assert {(letter["error"], letter["message"], letter["attempts"]) for letter in letters} == {
        ("KeyError", "'session_id'", 1)
    }
    assert all(letter["turn"] == {} and letter["batch_id"] == answer["batch_id"] for letter in letters)


def test_a_batch_whose_task_fails_is_failed_with_the_reason(api, runtime, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    worker.stop()
    answer = _post(api, namespace)
    runtime.redis.delete(namespace_key(namespace, "hot", "claims"))
    runtime.redis.set(namespace_key(namespace, "hot", "claims"), "not a hash", ex=600)  # Redis refuses the claim
    worker.start()
    batch = _settled(api, answer["status_url"])
    assert batch["status"] == "failed", batch
    assert batch["error"].startswith("ResponseError: ") and "WRONGTYPE" in batch["error"]
    assert "report" not in batch and batch["finished_at"] >= batch["created_at"]
    assert runtime.redis.hlen(namespace_key(namespace, "hot", "pending")) == 2  # still pending, for a resume


def test_unknown_batches_and_other_namespaces_batches_are_404(api, namespace) -> None:
    other = f"{namespace}-b"
    api.put(f"/v1/namespaces/{namespace}")
    api.put(f"/v1/namespaces/{other}")
    url = _post(api, namespace)["status_url"]
    batch_id = url.rsplit("/", 1)[1]
    for path in (f"/v1/namespaces/{namespace}/batches/{uuid.uuid4()}", f"/v1/namespaces/{other}/batches/{batch_id}",
                 f"/v1/namespaces/{namespace}/batches/{batch_id[:8]}*"):  # fmt: skip
        response = api.get(path)
        assert response.status_code == 404, path
        assert response.json()["error"]["field"] == "batch_id"
    # Another namespace's key reads neither the batch through its own namespace nor this namespace.
    reader = create_key(api, other, "reader", "bob")
    assert api.get(f"/v1/namespaces/{other}/batches/{batch_id}", headers=bearer(reader)).status_code == 404
    assert api.get(url, headers=bearer(reader)).status_code == 403
    own = create_key(api, namespace, "reader", "carol")
    assert api.get(url, headers=bearer(own)).json()["status"] == "queued"
