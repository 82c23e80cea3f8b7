"""Background jobs: the write tracks, activity flush, decay, pruning. Each is idempotent; the periodic
ones are single-flight."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import neo4j.exceptions
import redis.exceptions
from celery import Task
from celery.signals import task_failure, task_retry, task_success

from app.api.schemas import MAX_TURNS_PER_BATCH
from app.domain.turns import dialogue_id
from app.errors import EngineUnavailable
from app.extract.llm import LlmUnavailable
from app.memory.ingest import SequencedTurn
from app.memory.learning import FlushReport
from app.stores.hot import single_flight
from jobs.celery_app import celery_app
from jobs.context import current_runtime, registered_runtime

if TYPE_CHECKING:
    from app.runtime import Runtime

LOCK_TTL_S = 3600
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ActivityReport:
    accesses: int
    learning: FlushReport


def _each_namespace(job: str, namespace: str | None, work: Any, items: Callable[[Any], int]) -> dict[str, Any]:
    """Run `work` on each namespace under the job's lock; `items` says what a report counts as
    processed (`hippograph_job_items_total`)."""
    runtime = current_runtime()
    with single_flight(runtime.redis, job, LOCK_TTL_S) as acquired:
        if not acquired:
            log.info("job %s skipped: another run holds the lock", job, extra={"job": job})
            return {"skipped": "another run holds the lock"}
        start = time.perf_counter()
        names = [namespace] if namespace else runtime.namespaces.names()
        reports = {name: work(runtime, name) for name in names}
        _job_done(runtime, job, time.perf_counter() - start, sum(items(report) for report in reports.values()))
        return {name: asdict(report) for name, report in reports.items()}


def _job_done(runtime: Runtime, job: str, seconds: float, items: int) -> None:
    runtime.metrics.observe_job(job, seconds, items)
    log.info("job %s done", job, extra={"job": job, "items": items, "duration_ms": round(seconds * 1000, 2)})


@celery_app.task(name="hippograph.flush_activity")
def flush_activity(namespace: str | None = None) -> dict[str, Any]:
    """Apply what recalls recorded in Redis: accesses (activation, promotion), then co-activations
    (ASSOCIATION edges and reinforcement)."""
    now = datetime.now(UTC)

    def flush(runtime: Runtime, name: str) -> ActivityReport:
        return ActivityReport(accesses=runtime.accesses.flush(name, now), learning=runtime.learning.flush(name, now))

    return _each_namespace("flush_activity", namespace, flush, lambda report: report.accesses + report.learning.pairs)


@celery_app.task(name="hippograph.decay")
def decay(namespace: str | None = None) -> dict[str, Any]:
    """Recompute activations and learned-edge weights (soft-forgets nodes below the threshold)."""
    now = datetime.now(UTC)
    return _each_namespace(
        "decay", namespace, lambda rt, ns: rt.forgetting.decay(ns, now), lambda report: report.nodes + report.edges
    )


@celery_app.task(name="hippograph.prune")
def prune(namespace: str | None = None) -> dict[str, Any]:
    """Bring namespaces over capacity down to their low-water mark; drop weak learned edges."""
    return _each_namespace(
        "prune",
        namespace,
        lambda rt, ns: rt.forgetting.prune(ns),
        lambda report: report.deleted_nodes + report.deleted_edges,
    )


@celery_app.task(name="hippograph.optimize_vectors")
def optimize_vectors() -> dict[str, Any]:
    """Index the vectors added since the last run (HNSW), so vector search stays fast as memory grows."""
    runtime = current_runtime()
    with single_flight(runtime.redis, "optimize_vectors", LOCK_TTL_S) as acquired:
        if not acquired:
            return {"skipped": "another run holds the lock"}
        start = time.perf_counter()
        changed = runtime.vectors.optimize()
        seconds = time.perf_counter() - start
        _job_done(runtime, "optimize_vectors", seconds, int(changed))
        return {"optimized": changed, "seconds": round(seconds, 3)}


# Engine errors worth retrying: the task is idempotent, so a retry after a partial run is safe. The
# stores raise EngineUnavailable for an engine that is down (as the API answers 503); transient Neo4j
# errors (deadlocks) and driver errors raised outside the stores are retried as well.
RETRYABLE = (
    EngineUnavailable,
    neo4j.exceptions.ServiceUnavailable,
    neo4j.exceptions.TransientError,
    redis.exceptions.ConnectionError,
)


class IngestTask(Task):  # type: ignore[misc]
    """Marks the task's batch failed once Celery gives up (not on a retry: `on_failure` runs only
    after the last attempt)."""

    def on_failure(self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        namespace = args[0] if args else kwargs.get("namespace")
        if isinstance(namespace, str):
            current_runtime().batches.failed(namespace, task_id, f"{type(exc).__name__}: {exc}", datetime.now(UTC))


@celery_app.task(
    name="hippograph.ingest_turns",
    base=IngestTask,
    autoretry_for=RETRYABLE,
    retry_backoff=True,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=8,
)
def ingest_turns(namespace: str, turn_keys: list[str], request_id: str | None = None) -> dict[str, Any]:
    """Run the write tracks for turns already in the hot window (passed by key, not by value).
    `request_id`: the API request that queued them, for the log lines."""
    runtime = current_runtime()
    batch_id = ingest_turns.request.id
    fields = {"request_id": request_id, "namespace": namespace, "task_id": batch_id}
    start = time.perf_counter()
    if batch_id:
        runtime.batches.running(namespace, batch_id, datetime.now(UTC))
    try:
        # A turn stays pending until its tracks have run, however far the hot window has moved on.
        stored = runtime.hot_window.pending(namespace, turn_keys)
        batch = [SequencedTurn(turn, meta["seq"]) for turn, meta in stored]
        report = runtime.ingestor.ingest(namespace, batch, datetime.now(UTC))
        runtime.hot_window.ingested(namespace, [turn.key for turn, _ in stored])
    except Exception as exc:
        log.warning("ingest_turns failed: %s", type(exc).__name__, extra={**fields, "error": type(exc).__name__})
        raise
    seconds = time.perf_counter() - start
    runtime.metrics.observe_ingest(namespace, len(batch), report.seconds_by_stage)
    log.info(
        "ingest_turns done",
        extra={**fields, "turns": len(batch), "duration_ms": round(seconds * 1000, 2)},
    )
    result = asdict(report)
    if batch_id:
        runtime.batches.done(namespace, batch_id, result, datetime.now(UTC))
    if runtime.llm is not None and batch:  # after the rule tracks, and never in the write's way
        enrich_turns.delay(namespace, [dialogue_id(item.turn.session_id, item.turn.turn_id) for item in batch])
    return result


@celery_app.task(
    name="hippograph.enrich_turns",
    autoretry_for=(*RETRYABLE, LlmUnavailable),
    retry_backoff=5,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=3,
)
def enrich_turns(namespace: str, dialogue_ids: list[str]) -> dict[str, Any]:
    """The optional LLM enricher: facts the rules missed, from turns whose tracks have run."""
    runtime = current_runtime()
    if runtime.llm is None:
        return {"skipped": "no LLM configured"}
    turns = runtime.ingestor.turns_of(namespace, dialogue_ids)
    facts = runtime.llm.extract(turns)
    report = runtime.ingestor.enrich(namespace, facts, datetime.now(UTC), runtime.llm.name)
    return {"facts_found": len(facts), **asdict(report)}


def resume_pending_turns(runtime: Runtime) -> int:
    """Queue the write tracks again for every turn still pending, e.g. after the process that ran
    them died; returns how many turns were queued. Safe to repeat (the task is idempotent, and a
    turn done meanwhile is no longer pending when the task reads it), but only the embedded run
    calls it: there the API process is the one worker, so nothing pending can be in progress elsewhere."""
    queued = 0
    for namespace in runtime.namespaces.names():
        keys = runtime.hot_window.pending_keys(namespace)
        for start in range(0, len(keys), MAX_TURNS_PER_BATCH):
            ingest_turns.delay(namespace, keys[start : start + MAX_TURNS_PER_BATCH])
        queued += len(keys)
    return queued


# Task outcomes (`hippograph_task_outcomes_total`), from Celery's signals in the process that runs the
# task; recorded into the runtime the tasks use (none registered yet: nothing to record into).
def _task_outcome(task: Any, outcome: str) -> None:
    name = getattr(task, "name", None)
    runtime = registered_runtime()
    if runtime is not None and isinstance(name, str) and name.startswith("hippograph."):
        runtime.metrics.observe_task(name, outcome)


@task_success.connect
def _on_task_success(sender: Any = None, **_: Any) -> None:
    _task_outcome(sender, "success")


@task_retry.connect
def _on_task_retry(sender: Any = None, **_: Any) -> None:
    _task_outcome(sender, "retry")


@task_failure.connect
def _on_task_failure(sender: Any = None, **_: Any) -> None:
    _task_outcome(sender, "failure")
