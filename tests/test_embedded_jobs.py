"""The embedded run: a Celery worker and beat inside this process, on the real Redis broker."""

from __future__ import annotations

import time
import uuid

import redis

from app.runtime import Runtime
from jobs.celery_app import create_celery
from jobs.embedded import EmbeddedJobs


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

    runtime = Runtime.open(settings, host_jobs=False, embedder=embedder)
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

    runtime = Runtime.open(settings, host_jobs=False, embedder=embedder)
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
