"""The embedded run: a Celery worker and beat inside this process, on the real Redis broker."""

from __future__ import annotations

import time
import uuid

import pytest
import redis

from app.runtime import Runtime
from jobs.celery_app import (
    LINK_PRIORITY,
    PRIORITY_STEPS,
    WRITE_PRIORITY,
    celery_app,
    create_celery,
    queue_keys,
    queued_tasks,
)
from jobs.celery_tasks import OPTIMIZE_MAX_DEFER_S, OPTIMIZED_AT_KEY, optimize_due, optimize_vectors
from jobs.embedded import EmbeddedJobs
from jobs.engines import use_runtime


def test_embedded_worker_runs_tasks_and_beat_schedules_them(settings, embedder) -> None:
    celery = create_celery(settings)
    queue = f"test-{uuid.uuid4().hex[:8]}"  # a private queue: no other run's messages reach this worker
    counter_key = f"test:beat-ticks:{queue}"
    celery.conf.task_default_queue = queue
    celery.conf.beat_schedule = {"tick": {"task": "tests.tick", "schedule": 1.0}}

    @celery.task(name="tests.add")
    def add(x: int, y: int) -> int:
        return x + y

    @celery.task(name="tests.tick")
    def tick() -> None:
        redis.Redis.from_url(settings.redis_url).incr(counter_key)

    runtime = Runtime.open(settings, embedder=embedder)
    jobs = EmbeddedJobs(runtime, celery, resume_pending=False)
    jobs.start()
    client = redis.Redis.from_url(settings.redis_url)
    try:
        # Results are stored (the app was made current) and come back through the broker.
        assert add.delay(2, 3).get(timeout=30, disable_sync_subtasks=False) == 5
        deadline = time.monotonic() + 20
        while int(client.get(counter_key) or 0) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert int(client.get(counter_key) or 0) >= 2  # beat fired the schedule, the worker ran it
        replies = celery.control.ping(timeout=3)
        assert any(jobs.hostname in reply for reply in replies)
    finally:
        jobs.stop()
        runtime.close()
        client.delete(counter_key)
        client.close()


def test_embedded_worker_that_stops_by_itself_is_started_again(settings, embedder) -> None:
    """Finding (Redis SIGKILLed mid-load, tests/test_process_drills.py): Celery's worker stopped for good
    on an "unrecoverable error" of kombu's Redis transport, and the API kept acknowledging turns that no
    worker would write until a restart. The watchdog starts a new worker."""
    celery = create_celery(settings)
    celery.conf.task_default_queue = f"test-{uuid.uuid4().hex[:8]}"

    @celery.task(name="tests.mul")
    def mul(x: int, y: int) -> int:
        return x * y

    runtime = Runtime.open(settings, embedder=embedder)
    jobs = EmbeddedJobs(runtime, celery, resume_pending=False)
    jobs.start()
    try:
        assert mul.delay(2, 3).get(timeout=30, disable_sync_subtasks=False) == 6
        first = jobs._worker_thread
        assert first is not None
        jobs._worker.stop(in_sighandler=False)  # what Celery does after an unrecoverable error
        first.join(timeout=30)
        assert not first.is_alive()
        deadline = time.monotonic() + 30
        while jobs.worker_restarts == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert jobs.worker_restarts == 1 and jobs._worker_thread is not first
        assert mul.delay(4, 5).get(timeout=30, disable_sync_subtasks=False) == 20  # a new worker runs it
    finally:
        jobs.stop()
        runtime.close()


def test_periodic_jobs_run_before_queued_writes(settings, embedder) -> None:
    """Finding (scripts/load.py, 2026-12-02): under a backlog of thousands of write tasks, no periodic
    job ran for the whole 10-minute load: resume_pending, flush_activity and optimize_vectors queued
    behind the writes and expired there. Writes are queued at a lower priority than the jobs."""
    assert celery_app.tasks["hippograph.ingest_turns"].priority == WRITE_PRIORITY
    assert celery_app.tasks["hippograph.enrich_turns"].priority == WRITE_PRIORITY
    # The SEMANTIC links of written turns come after the writes: a backlog defers them, not the turns.
    assert celery_app.tasks["hippograph.link_semantic"].priority == LINK_PRIORITY > WRITE_PRIORITY
    for entry in celery_app.conf.beat_schedule.values():  # the jobs keep the first-served priority
        assert not celery_app.tasks[entry["task"]].priority and not entry.get("options", {}).get("priority")

    celery = create_celery(settings)
    queue = f"test-{uuid.uuid4().hex[:8]}"
    celery.conf.task_default_queue = queue
    order_key = f"test:order:{queue}"
    client = redis.Redis.from_url(settings.redis_url, decode_responses=True)

    @celery.task(name="tests.write", priority=WRITE_PRIORITY)
    def write(n: int) -> None:
        client.rpush(order_key, f"write-{n}")

    @celery.task(name="tests.job")
    def job() -> None:
        client.rpush(order_key, "job")

    for n in range(5):
        write.delay(n)
    job.delay()
    assert queued_tasks(client, queue) == 6 and client.llen(queue) == 1  # the job has the first-served list
    runtime = Runtime.open(settings, embedder=embedder)
    jobs = EmbeddedJobs(runtime, celery, concurrency=1, resume_pending=False)
    jobs.start()
    try:
        deadline = time.monotonic() + 30
        while client.llen(order_key) < 6 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.lrange(order_key, 0, -1) == ["job"] + [f"write-{n}" for n in range(5)]
        assert queued_tasks(client, queue) == 0
    finally:
        jobs.stop()
        runtime.close()
        client.delete(order_key)
        client.close()


def test_an_index_build_runs_when_nothing_is_queued_or_it_waited_long_enough() -> None:
    assert optimize_due(0, 0.0)
    assert not optimize_due(1, 0.0) and not optimize_due(500, OPTIMIZE_MAX_DEFER_S - 0.001)
    assert optimize_due(500, OPTIMIZE_MAX_DEFER_S) and optimize_due(3, 60.0, max_defer_s=60.0)


def test_the_index_build_waits_while_writes_are_queued_but_not_for_ever(runtime) -> None:
    """The embedded engine holds the interpreter lock for a whole index build (seconds): under a write
    backlog it waits, up to `OPTIMIZE_MAX_DEFER_S` since the last build."""
    queue = f"test-{uuid.uuid4().hex[:8]}"  # no worker consumes it: the placeholder stays queued
    run_queue, celery_app.conf.task_default_queue = celery_app.conf.task_default_queue, queue
    write_list = queue_keys(queue)[PRIORITY_STEPS.index(WRITE_PRIORITY)]
    use_runtime(runtime)
    hot = runtime.redis
    try:
        hot.delete(OPTIMIZED_AT_KEY)
        hot.lpush(write_list, "a queued write")
        deferred = optimize_vectors()
        assert deferred["skipped"] == "1 tasks queued" and deferred["since_last_s"] == pytest.approx(0.0, abs=5)
        first_deferral = float(hot.get(OPTIMIZED_AT_KEY))
        assert optimize_vectors()["skipped"] == "1 tasks queued"  # the clock is not reset by deferring
        assert float(hot.get(OPTIMIZED_AT_KEY)) == first_deferral
        hot.set(OPTIMIZED_AT_KEY, time.time() - OPTIMIZE_MAX_DEFER_S - 1)
        overdue = optimize_vectors()
        assert "optimized" in overdue and float(hot.get(OPTIMIZED_AT_KEY)) > time.time() - 5
        hot.delete(write_list)
        assert "optimized" in optimize_vectors()  # nothing queued: right away
    finally:
        hot.delete(write_list, OPTIMIZED_AT_KEY)
        use_runtime(None)
        celery_app.conf.task_default_queue = run_queue
