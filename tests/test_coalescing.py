"""Many small batches through fewer, larger writes: a running ingest task takes over the turns of
batches still queued behind it (their claims are marked queued), and their own tasks, when they
run, find them written (or wait while the other task writes them) — every turn exactly once."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from app.domain.turns import Turn, dialogue_id
from app.memory.hot_window import BatchHold


def _turns(session: str, count: int) -> list[Turn]:
    return [Turn(session, str(i), "Alice", f"note {session} {i}", datetime(2024, 5, 15, 10, i, tzinfo=UTC))
            for i in range(count)]  # fmt: skip


def _add(runtime, namespace: str, turns: list[Turn], hold: BatchHold | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    runtime.hot_window.add(namespace, turns, [dialogue_id(t.session_id, t.turn_id) for t in turns], hold)
    return [t.key for t in turns]


@pytest.fixture
def tasks_runtime(runtime) -> Iterator:  # type: ignore[no-untyped-def]
    from jobs.engines import use_runtime

    use_runtime(runtime)
    yield runtime
    use_runtime(None)


def test_a_running_task_takes_over_queued_turns_only(runtime, namespace: str) -> None:  # type: ignore[no-untyped-def]
    window = runtime.hot_window
    now = time.time()
    queued = _add(runtime, namespace, _turns("a", 3))
    live = _add(runtime, namespace, _turns("b", 2))
    loose = _add(runtime, namespace, _turns("c", 1))
    assert window.claim(namespace, queued, "batch-a", 600, now, queued=True) == queued
    assert window.claim(namespace, live, "task-b", 60, now) == live  # a running task's
    taken = window.coalesce(namespace, "task-x", 60, now, 10)
    assert sorted(taken) == sorted(queued + loose)  # not the running task's
    assert window.taken_over(namespace, queued, "batch-a") == queued
    assert window.claim(namespace, queued, "batch-a", 60, now) == []  # task-x holds them now
    assert window.coalesce(namespace, "task-y", 60, now, 10) == []
    window.ingested(namespace, queued)
    assert window.taken_over(namespace, queued, "batch-a") == []
    assert runtime.redis.hkeys(window.stolen_key(namespace)) == []


def test_a_batch_holds_its_turns_from_the_moment_they_are_stored(runtime, namespace: str) -> None:  # type: ignore[no-untyped-def]
    """No gap between storing a batch's turns and its claim, in which `resume_pending` or a running
    task would take them as turns nobody holds (a waiting caller then got a report of 0 turns)."""
    window = runtime.hot_window
    now = time.time()
    queued = _add(runtime, namespace, _turns("q", 2), BatchHold("batch-q", now + 600))
    waited = _add(runtime, namespace, _turns("w", 2), BatchHold("batch-w", now + 600, queued=False))
    assert window.unclaimed_by_batch(namespace, now) == {}  # nothing for `resume_pending`
    # A running task takes over the queued batch's turns, never those a caller waits for.
    assert sorted(window.coalesce(namespace, "task-x", 60, now, 10)) == sorted(queued)
    assert window.claim(namespace, waited, "batch-w", 60, now) == waited
    # Stored again (a retried request): the claim in force is kept.
    _add(runtime, namespace, _turns("w", 2), BatchHold("batch-2", now + 600))
    assert window.claim(namespace, waited, "batch-2", 60, now) == []


def test_a_queued_batch_s_own_task_takes_its_claim_back(runtime, namespace: str) -> None:  # type: ignore[no-untyped-def]
    window = runtime.hot_window
    now = time.time()
    keys = _add(runtime, namespace, _turns("a", 2))
    assert window.claim(namespace, keys, "batch-a", 600, now, queued=True) == keys
    assert window.claim(namespace, keys, "batch-z", 60, now) == []  # another owner: still held
    assert window.claim(namespace, keys, "batch-a", 60, now) == keys  # its task runs
    assert window.coalesce(namespace, "task-x", 60, now, 10) == []  # running: not taken over
    assert window.coalesce(namespace, "task-x", 60, now, 0) == []


def test_the_first_task_writes_the_batches_queued_behind_it(tasks_runtime, cypher, namespace: str) -> None:  # type: ignore[no-untyped-def]
    from jobs.celery_tasks import ingest_turns

    runtime = tasks_runtime
    runtime.namespaces.put(namespace)
    batches = {f"batch-{name}": _add(runtime, namespace, _turns(name, 4)) for name in "abc"}
    for batch_id, keys in batches.items():
        runtime.batches.queued(namespace, batch_id, keys, datetime.now(UTC))
        runtime.hot_window.claim(namespace, keys, batch_id, 600, time.time(), queued=True)

    first = ingest_turns.apply((namespace, batches["batch-a"]), task_id="batch-a").get(disable_sync_subtasks=False)
    assert first["turns"] == 12 and first["dialogues_created"] == 12  # all three batches
    # The batches it emptied read done at once: their own tasks may have died with their process.
    for batch_id in ("batch-b", "batch-c"):
        closed = runtime.batches.status(namespace, batch_id)
        assert closed["status"] == "done" and closed["report"]["written_by"] == "batch-a", closed
        assert closed["report"]["turns"] == 0 and runtime.batches.open_keys(namespace, batch_id) is None
    for batch_id in ("batch-b", "batch-c"):
        later = ingest_turns.apply((namespace, batches[batch_id]), task_id=batch_id).get(disable_sync_subtasks=False)
        assert later["turns"] == 0  # found written
        assert runtime.batches.status(namespace, batch_id)["status"] == "done"
    rows = cypher("MATCH (d:Dialogue {namespace: $ns}) RETURN d.id AS id, count(*) AS n", ns=namespace)
    assert len(rows) == 12 and all(row["n"] == 1 for row in rows)
    assert runtime.hot_window.pending_keys(namespace) == []


def test_a_task_whose_turns_were_taken_over_writes_them_if_that_task_died(
    runtime, worker, cypher, namespace: str
) -> None:  # type: ignore[no-untyped-def]
    from jobs.celery_tasks import TAKEN_OVER_RECHECK_S, ingest_turns

    runtime.namespaces.put(namespace)
    keys = _add(runtime, namespace, _turns("a", 3))
    batch_id = f"batch-{uuid.uuid4()}"
    runtime.hot_window.claim(namespace, keys, batch_id, 600, time.time(), queued=True)
    # A task took them over, then died: its lease (2 s here) runs out.
    assert sorted(runtime.hot_window.coalesce(namespace, "task-dead", 2, time.time(), 10)) == sorted(keys)
    start = time.monotonic()
    report = ingest_turns.apply_async((namespace, keys), task_id=batch_id).get(timeout=60, disable_sync_subtasks=False)
    # It looked again (a retry, holding no thread) until the lease ran out, then wrote them.
    assert report["turns"] == 3 and time.monotonic() - start >= 1.5
    assert time.monotonic() - start < 2 + 3 * TAKEN_OVER_RECHECK_S + 10
    rows = cypher("MATCH (d:Dialogue {namespace: $ns}) RETURN count(d) AS n", ns=namespace)
    assert rows == [{"n": 3}]
    assert runtime.hot_window.pending_keys(namespace) == []


def test_a_batch_partly_taken_over_stays_open(tasks_runtime, namespace: str) -> None:  # type: ignore[no-untyped-def]
    from jobs.celery_tasks import ingest_turns

    runtime = tasks_runtime
    runtime.namespaces.put(namespace)
    mine = _add(runtime, namespace, _turns("m", 1))
    theirs = _add(runtime, namespace, _turns("t", 3))
    runtime.batches.queued(namespace, "batch-t", theirs, datetime.now(UTC))
    assert runtime.hot_window.claim(namespace, theirs[:1], "task-live", 60, time.time()) == theirs[:1]  # running
    assert runtime.hot_window.claim(namespace, theirs, "batch-t", 600, time.time(), queued=True) == theirs[1:]
    runtime.batches.queued(namespace, "batch-m", mine, datetime.now(UTC))
    report = ingest_turns.apply((namespace, mine), task_id="batch-m").get(disable_sync_subtasks=False)
    assert report["turns"] == 3  # its own and the two it could take
    assert runtime.batches.status(namespace, "batch-t")["status"] == "queued"  # one of its turns still pending
    assert runtime.batches.open_keys(namespace, "batch-t") == theirs
    assert runtime.batches.status(namespace, "batch-m")["status"] == "done"
