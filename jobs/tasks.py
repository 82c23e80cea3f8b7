"""Background jobs: learning flush, decay, pruning. Each is idempotent and single-flight."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from app.stores.hot import single_flight
from jobs.celery_app import celery_app
from jobs.context import current_runtime

LOCK_TTL_S = 3600


def _each_namespace(job: str, namespace: str | None, work: Any) -> dict[str, Any]:
    runtime = current_runtime()
    with single_flight(runtime.redis, job, LOCK_TTL_S) as acquired:
        if not acquired:
            return {"skipped": "another run holds the lock"}
        names = [namespace] if namespace else runtime.namespaces.names()
        return {name: asdict(work(runtime, name)) for name in names}


@celery_app.task(name="hippograph.flush_learning")
def flush_learning(namespace: str | None = None) -> dict[str, Any]:
    """Turn recorded co-activations into ASSOCIATION edges and reinforcements."""
    now = datetime.now(UTC)
    return _each_namespace("flush_learning", namespace, lambda rt, ns: rt.learning.flush(ns, now))


@celery_app.task(name="hippograph.decay")
def decay(namespace: str | None = None) -> dict[str, Any]:
    """Recompute activations and learned-edge weights (soft-forgets nodes below the threshold)."""
    now = datetime.now(UTC)
    return _each_namespace("decay", namespace, lambda rt, ns: rt.forgetting.decay(ns, now))


@celery_app.task(name="hippograph.prune")
def prune(namespace: str | None = None) -> dict[str, Any]:
    """Bring namespaces over capacity down to their low-water mark; drop weak learned edges."""
    return _each_namespace("prune", namespace, lambda rt, ns: rt.forgetting.prune(ns))
