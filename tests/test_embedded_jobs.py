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
