"""The Celery application. Separate processes in production:

    celery -A jobs.celery_app worker      celery -A jobs.celery_app beat

In the embedded run (no QDRANT_URL) the API process hosts both, see `jobs/embedded.py`.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from celery.signals import setup_logging
from redis import Redis

from app.observability.logs import configure_logging
from app.settings import Settings, get_settings

# The Redis transport keeps one list per priority step of a queue and a worker pops them in step
# order: the bare queue name for 0, `<queue><sep><step>` for the others (kombu's default sep).
PRIORITY_STEPS = [0, 3, 6, 9]
PRIORITY_SEPARATOR = "\x06\x16"
# Writes of turns queue behind the periodic jobs (priority 0, the default): under a backlog of
# thousands of write tasks the minute jobs (resume of pending turns, activity, the vector index)
# used to wait in line until they expired, and none ran for the whole of a 10-minute load.
WRITE_PRIORITY = 6
# The SEMANTIC links of written nodes queue behind the writes: a backlog defers the links, not the turns.
LINK_PRIORITY = 9


def queue_keys(queue: str) -> list[str]:
    """The Redis lists holding a queue's messages, one per priority step, first served first."""
    return [queue if step == 0 else f"{queue}{PRIORITY_SEPARATOR}{step}" for step in PRIORITY_STEPS]


def queued_tasks(redis: Redis, queue: str) -> int:
    """Messages waiting in `queue`, all priorities (one round trip)."""
    pipe = redis.pipeline(transaction=False)
    for key in queue_keys(queue):
        pipe.llen(key)
    return sum(int(length) for length in pipe.execute())


def create_celery(settings: Settings) -> Celery:
    app = Celery("hippograph", broker=settings.redis_url, backend=settings.redis_url, include=["jobs.celery_tasks"])
    app.conf.update(
        task_serializer="json",
        accept_content=["json"],
        result_serializer="json",
        timezone="UTC",
        enable_utc=True,
        # A task is acknowledged only after it ran, and re-delivered if its worker dies: every
        # task must therefore be idempotent.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # Must exceed the longest task, or the broker re-delivers a task that is still running.
        broker_transport_options={
            "visibility_timeout": settings.task_visibility_timeout_s,
            "priority_steps": PRIORITY_STEPS,
            "sep": PRIORITY_SEPARATOR,
        },
        broker_connection_retry_on_startup=True,
        result_expires=3600,
        # Logs go through app/observability/logs.py (JSON lines), see `_configure_worker_logging`.
        worker_hijack_root_logger=False,
        beat_schedule_filename=str(settings.data_dir / "celerybeat-schedule"),
        beat_schedule={
            "flush-activity": {
                "task": "hippograph.flush_activity",
                "schedule": 60.0,
                "options": {"expires": 55},
            },
            "decay": {"task": "hippograph.decay", "schedule": 900.0, "options": {"expires": 800}},
            # The embedded vector engine has no optimizer of its own (a no-op with a Qdrant server).
            "optimize-vectors": {
                "task": "hippograph.optimize_vectors",
                "schedule": 120.0,
                "options": {"expires": 110},
            },
            # Pending turns whose task is gone (gave up after an outage, died) are queued again.
            "resume-pending": {
                "task": "hippograph.resume_pending",
                "schedule": 60.0,
                "options": {"expires": 55},
            },
            # After decay, so pruning ranks by fresh activations.
            "prune": {"task": "hippograph.prune", "schedule": 3600.0, "options": {"expires": 3000}},
        },
    )
    return app


@setup_logging.connect
def _configure_worker_logging(loglevel: Any = None, **_: Any) -> None:
    """A standalone worker or beat logs like the API (connected, this replaces Celery's own set-up;
    the embedded run's worker never configures logging: the API process has)."""
    configure_logging(get_settings().log_format, loglevel or "INFO")


celery_app = create_celery(get_settings())

import jobs.worker_metrics  # noqa: E402,F401  (connects the standalone worker's metrics server)
