"""A turn that cannot be written is put aside (a dead letter) and takes none of its batch-mates down;
engine outages are retried instead; pending turns whose task is gone resume without a restart.
Real engines throughout.

The poison turns are made by rewriting a turn's stored record after the API accepted it (as a bug
in an older version, or a restored backup, could leave it), so the tests do not depend on what the
API refuses at the door: a timestamp offset of +19:00, which Neo4j cannot store (it refuses the
statement), and a speaker that is only blanks, which the write tracks refuse.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from app.domain.turns import Turn, dialogue_id
from app.errors import EngineUnavailable
from app.memory.batch_writer import SOLO_ATTEMPTS, BatchWriter
from app.memory.ingest import Ingestor
from app.stores.graph import GraphStore
from tests.conftest import bearer
from tests.test_keys import create_key

S1 = "2024-05-15T10:00:00+00:00"


def _turn(turn_id: str, text: str, speaker: str = "Alice") -> dict[str, Any]:
    return {"session_id": "s1", "turn_id": turn_id, "speaker": speaker, "text": text, "timestamp": S1}


def _wait(condition: Callable[[], Any], timeout_s: float = 60.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
    return value


def _settled(api, url: str) -> dict:  # type: ignore[no-untyped-def]
    return _wait(lambda: (b := api.get(url).json())["status"] in ("done", "failed") and b, what=url)


def _key(turn_id: str) -> str:
    """The hot window's key of turn `turn_id` of session s1."""
    return Turn("s1", turn_id, "Alice", "-", datetime.now(UTC)).key


def _poison(runtime, ns: str, key: str, **fields: str) -> None:  # type: ignore[no-untyped-def]
    """Rewrite the pending record of `key` (after the door let it in)."""
    pending = runtime.hot_window.pending_key(ns)
    record = json.loads(runtime.redis.hget(pending, key))
    runtime.redis.hset(pending, key, json.dumps(record | fields))


def _dialogues(cypher, ns: str) -> list[str]:  # type: ignore[no-untyped-def]
    rows = cypher("MATCH (d:Dialogue {namespace: $ns}) RETURN d.turn_id AS t ORDER BY t", ns=ns)
    return [row["t"] for row in rows]


def test_a_poison_turn_is_put_aside_and_its_batch_mates_land(api, runtime, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    worker.stop()  # accept first, then poison two stored turns, then run the batch
    turns = [_turn("1", "I moved to Berlin."), _turn("2", "My car is a Model Y."),
             _turn("3", "Far east of the date line."), _turn("4", "Who said this?"), _turn("5", "Thanks!")]  # fmt: skip
    answer = api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": turns})
    assert answer.status_code == 202, answer.text
    node = {t["turn_id"]: t["node_id"] for t in answer.json()["turns"]}
    _poison(runtime, namespace, _key("3"), timestamp="2024-05-15T10:00:00+19:00")
    _poison(runtime, namespace, _key("4"), speaker="   ")
    worker.start()

    batch = _settled(api, answer.json()["status_url"])
    assert batch["status"] == "done", batch
    assert sorted(batch["dead_lettered"]) == sorted([node["3"], node["4"]])
    assert batch["report"]["turns"] == batch["report"]["dialogues_created"] == 3
    for turn_id in ("1", "2", "5"):
        assert api.get(f"/v1/namespaces/{namespace}/nodes/{node[turn_id]}").status_code == 200
    for turn_id in ("3", "4"):
        assert api.get(f"/v1/namespaces/{namespace}/nodes/{node[turn_id]}").status_code == 404
    assert _dialogues(cypher, namespace) == ["1", "2", "5"]  # each once
    assert runtime.hot_window.pending_keys(namespace) == []

    listed = api.get(f"/v1/namespaces/{namespace}/dead-letters").json()["dead_letters"]
    letters = {letter["id"]: letter for letter in listed}
    assert set(letters) == {node["3"], node["4"]}
    offset, blank = letters[node["3"]], letters[node["4"]]
    assert offset["error"] == "ClientError" and offset["message"]  # Neo4j refused the statement
    assert blank["error"] == "ValueError" and blank["message"] == "speaker must not be blank"
    assert offset["attempts"] == blank["attempts"] == 1 + SOLO_ATTEMPTS
    assert offset["turn"]["timestamp"] == "2024-05-15T10:00:00+19:00" and offset["turn"]["text"] == turns[2]["text"]
    assert blank["turn"]["speaker"] == "   " and offset["batch_id"] == answer.json()["batch_id"]

    # The next batch flows.
    after = api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": [_turn("6", "Next one.")], "wait": True})
    assert after.status_code == 200, after.text
    assert after.json()["report"]["dialogues_created"] == 1 and after.json()["report"]["dead_lettered"] == []
    assert _dialogues(cypher, namespace) == ["1", "2", "5", "6"]


class BuggyIngestor(Ingestor):
    """A write path with a bug: it fails on turns that mention "kaboom"."""

    def _turn_row(self, item, now):  # type: ignore[no-untyped-def]
        if "kaboom" in item.turn.text:
            raise RuntimeError("a bug met kaboom")
        return super()._turn_row(item, now)


def test_a_dead_letter_is_replayed_after_a_fix_or_discarded(api, runtime, cypher, worker, namespace) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    fixed = runtime.batch_writer.ingestor
    runtime.batch_writer.ingestor = BuggyIngestor(fixed.graph, fixed.semantic, fixed.importance_rules,
                                                  fixed.inference_rules)  # fmt: skip
    try:
        turns = [_turn("1", "kaboom, said the bug."), _turn("2", "kaboom again."), _turn("3", "Fine.")]
        answer = api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": turns, "wait": True})
        assert answer.status_code == 200, answer.text
    finally:
        runtime.batch_writer.ingestor = fixed  # the fix is deployed
    node = {t["turn_id"]: t["node_id"] for t in answer.json()["turns"]}
    assert sorted(answer.json()["report"]["dead_lettered"]) == sorted([node["1"], node["2"]])
    url = f"/v1/namespaces/{namespace}/dead-letters"
    letters = api.get(url).json()["dead_letters"]
    assert {(x["id"], x["error"], x["message"]) for x in letters} == {
        (node["1"], "RuntimeError", "a bug met kaboom"),
        (node["2"], "RuntimeError", "a bug met kaboom"),
    }

    # Admins only; another namespace has none of them.
    writer = create_key(api, namespace, "writer", "bot")
    assert api.get(url, headers=bearer(writer)).status_code == 403
    assert api.post(f"{url}/{node['1']}/replay", headers=bearer(writer)).status_code == 403
    other = f"{namespace}-b"
    api.put(f"/v1/namespaces/{other}")
    assert api.get(f"/v1/namespaces/{other}/dead-letters").json() == {"dead_letters": []}
    assert api.post(f"/v1/namespaces/{other}/dead-letters/{node['1']}/replay").status_code == 404

    replayed = api.post(f"{url}/{node['1']}/replay")
    assert replayed.status_code == 202, replayed.text
    assert replayed.json()["id"] == node["1"]
    batch = _settled(api, replayed.json()["status_url"])
    assert batch["status"] == "done" and batch["turns"] == 1 and "dead_lettered" not in batch, batch
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{node['1']}").status_code == 200
    assert _dialogues(cypher, namespace) == ["1", "3"]
    assert [x["id"] for x in api.get(url).json()["dead_letters"]] == [node["2"]]

    assert api.delete(f"{url}/{node['2']}").status_code == 204
    assert api.get(url).json() == {"dead_letters": []}
    assert runtime.hot_window.pending_keys(namespace) == []
    for missing in (node["2"], "dialogue:0123", "not an id"):
        for response in (api.delete(f"{url}/{missing}"), api.post(f"{url}/{missing}/replay")):
            assert response.status_code == 404, missing
            assert response.json()["error"]["field"] == "dead_letter_id"


def test_an_engine_outage_is_retried_not_put_aside(runtime, settings, namespace, unused_port: int) -> None:
    runtime.namespaces.put(namespace)
    turns = [Turn("s1", str(i), "Alice", f"note {i}", datetime(2024, 5, 15, 10, i, tzinfo=UTC)) for i in range(3)]
    runtime.hot_window.add(namespace, turns, [dialogue_id(t.session_id, t.turn_id) for t in turns])
    down = GraphStore.connect(settings.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{unused_port}"}))
    try:
        ingestor = runtime.ingestor
        writer = BatchWriter(Ingestor(down, ingestor.semantic, ingestor.importance_rules, ingestor.inference_rules),
                             runtime.hot_window, runtime.dead_letters)  # fmt: skip
        with pytest.raises(EngineUnavailable) as raised:
            writer.write(namespace, runtime.hot_window.pending_records(namespace, [t.key for t in turns]),
                         datetime.now(UTC))  # fmt: skip
        assert raised.value.engine == "neo4j"
    finally:
        down.close()
    assert runtime.dead_letters.list(namespace) == []
    assert runtime.hot_window.pending_keys(namespace) == sorted(t.key for t in turns)


def test_the_outage_retry_schedule_outlasts_the_window() -> None:
    from jobs.celery_tasks import retry_schedule

    schedule = retry_schedule(900.0, 1.0, 60.0)
    assert schedule == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0] + [60.0] * 14
    assert sum(schedule) == 903.0
    assert retry_schedule(10.0, 1.0, 60.0) == [1.0, 2.0, 4.0, 8.0]
    assert retry_schedule(100.0, 2.0, 10.0) == [2.0, 4.0, 8.0] + [10.0] * 9
    assert retry_schedule(0.0) == []


def test_the_default_retry_window_is_fifteen_minutes(settings) -> None:
    from jobs.celery_tasks import retry_schedule

    assert settings.ingest_retry_window_s == 900.0 and settings.ingest_retry_max_delay_s == 60.0
    assert sum(retry_schedule(settings.ingest_retry_window_s, cap_s=settings.ingest_retry_max_delay_s)) >= 900.0


def test_claims_give_a_pending_turn_to_one_live_task_at_a_time(runtime, namespace) -> None:
    window = runtime.hot_window
    turns = [Turn("s", str(i), "Alice", f"note {i}", datetime(2024, 5, 15, 10, i, tzinfo=UTC)) for i in range(3)]
    keys = [t.key for t in turns]
    window.add(namespace, turns, [f"dialogue:{i}" for i in range(3)])
    now = time.time()
    assert window.unclaimed(namespace, now) == sorted(keys)
    assert window.claim(namespace, keys[:2], "task-a", 60, now) == keys[:2]
    assert window.claim(namespace, keys, "task-b", 60, now) == keys[2:]  # a's are live
    assert window.claim(namespace, keys[:2], "task-a", 60, now + 30) == keys[:2]  # renewed
    assert window.unclaimed(namespace, now + 59) == []
    assert window.unclaimed(namespace, now + 61) == sorted(keys[2:])  # b's lease ran out; a renewed
    assert window.claim(namespace, keys[2:], "task-c", 60, now + 61) == keys[2:]  # b died: c takes over
    assert window.release(namespace, keys, "task-a") == 2
    assert window.unclaimed(namespace, now) == sorted(keys[:2])
    assert window.claim(namespace, ["s\x1fnot-pending"], "task-a", 60, now) == []
    window.ingested(namespace, keys[2:])
    assert runtime.redis.hkeys(window.claims_key(namespace)) == []


def test_pending_turns_whose_task_is_gone_resume_without_a_restart(runtime, cypher, worker, namespace) -> None:
    from jobs.celery_app import celery_app
    from jobs.celery_tasks import ingest_turns, resume_pending

    assert celery_app.conf.beat_schedule["resume-pending"]["task"] == resume_pending.name
    runtime.namespaces.put(namespace)
    turns = [Turn("s", str(i), "Alice", f"note {i}", datetime(2024, 5, 15, 10, i, tzinfo=UTC)) for i in range(4)]
    keys = [t.key for t in turns]
    # Written to the hot window, never queued (a lost message), and two held by a live task.
    runtime.hot_window.add(namespace, turns, [dialogue_id(t.session_id, t.turn_id) for t in turns])
    live = f"live-{uuid.uuid4()}"
    runtime.hot_window.claim(namespace, keys[2:], live, 600, time.time())

    assert resume_pending(namespace) == {namespace: {"turns": 2, "error": None}}
    # Done when they leave the pending hash: their Dialogue nodes exist early, the task runs on for seconds.
    _wait(lambda: runtime.hot_window.pending_keys(namespace) == sorted(keys[2:]), what="the resumed turns")
    assert _dialogues(cypher, namespace) == ["0", "1"]
    assert resume_pending(namespace) == {namespace: {"turns": 0, "error": None}}  # held by the live task
    # Queued again while their task still holds them: the second task skips them, nothing twice.
    queued = ingest_turns.apply_async((namespace, keys[2:]))
    skipped = queued.get(timeout=60, disable_sync_subtasks=False)  # (the embedded worker shares the process)
    assert skipped["turns"] == 0 and runtime.hot_window.pending_keys(namespace) == sorted(keys[2:])
    # Their task gave up (after its retries): released, they resume at the next run.
    runtime.hot_window.release(namespace, keys[2:], live)
    assert resume_pending(namespace) == {namespace: {"turns": 2, "error": None}}
    _wait(lambda: not runtime.hot_window.pending_keys(namespace), what="the released turns")
    assert _dialogues(cypher, namespace) == ["0", "1", "2", "3"]


def test_one_namespaces_trouble_does_not_stop_the_resume_of_the_others(runtime, worker, namespace) -> None:
    from jobs.celery_tasks import resume_namespace

    broken, fine = f"{namespace}-broken", f"{namespace}-fine"
    runtime.redis.set(runtime.hot_window.pending_key(broken), "not a hash", ex=600)
    runtime.namespaces.put(fine)
    turn = Turn("s", "1", "Alice", "note", datetime(2024, 5, 15, 10, tzinfo=UTC))
    runtime.hot_window.add(fine, [turn], [dialogue_id("s", "1")])
    report = resume_namespace(runtime, broken)
    assert report.turns == 0 and report.error is not None
    assert report.error.startswith("ResponseError: ") and "WRONGTYPE" in report.error
    assert resume_namespace(runtime, fine).turns == 1
    _wait(lambda: not runtime.hot_window.pending_keys(fine), what="the fine namespace's turn")
