"""The Celery application. Separate processes in production:

    celery -A jobs.celery_app worker      celery -A jobs.celery_app beat

In the embedded run (no QDRANT_URL) the API process hosts both, see `jobs/embedded.py`.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from celery.signals import setup_logging

from app.observability.logs import configure_logging
from app.settings import Settings, get_settings


def create_celery(settings: Settings) -> Celery:
    app = Celery("hippograph", broker=settings.redis_url, backend=settings.redis_url, include=["jobs.tasks"])
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
        broker_transport_options={"visibility_timeout": settings.task_visibility_timeout_s},
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
