"""`IngestQueue` (app/memory/ingest_queue.py) on Celery: the `ingest_turns` task, its result in the
result backend, the queue's Redis lists."""

from __future__ import annotations

from redis import Redis

from app.memory.ingest_queue import IngestOutcome
from jobs.celery_app import celery_app, queued_tasks
from jobs.celery_tasks import ingest_turns


class CeleryIngestQueue:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis  # the broker's Redis (the runtime's): for the queue's length

    def queue(self, namespace: str, keys: list[str], batch_id: str, request_id: str | None, link_inline: bool) -> None:
        kwargs = {"request_id": request_id, "link_inline": link_inline}
        ingest_turns.apply_async((namespace, keys), kwargs, task_id=batch_id)

    def outcome(self, batch_id: str) -> IngestOutcome | None:
        task = ingest_turns.AsyncResult(batch_id)
        if not task.ready():
            return None
        if task.failed():
            return IngestOutcome(error=repr(task.result))
        return IngestOutcome(report=task.result)

    def depth(self) -> int:
        return queued_tasks(self.redis, celery_app.conf.task_default_queue)
