"""Background jobs: the write tracks, activity flush, decay, pruning. Each is idempotent; the periodic
ones are single-flight."""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from celery import Task
from celery.signals import task_failure, task_retry, task_success

from app.extract.llm import LlmUnavailable
from app.memory.batch_writer import OUTAGE_ERRORS
from app.memory.dead_letters import dead_letter_id
from app.memory.ingest import IngestReport
from app.memory.learning import FlushReport
from app.stores.hot import single_flight
from app.stores.job_runs import JobRun
from hippograph.vocabulary import MAX_TURNS_PER_BATCH
from jobs.celery_app import LINK_PRIORITY, WRITE_PRIORITY, celery_app, queued_tasks
from jobs.engines import current_runtime, registered_runtime

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
        reports = {name: _logged_run(runtime, job, name, work) for name in names}
        _job_done(runtime, job, time.perf_counter() - start, sum(items(report) for report in reports.values()))
        return {name: asdict(report) for name, report in reports.items()}


def _logged_run(runtime: Runtime, job: str, namespace: str, work: Any) -> Any:
    """`work` on one namespace, recorded in the namespace's job log (`GET …/jobs/runs`) whether it
    returns or raises (then raised again, as before)."""
    started = datetime.now(UTC)
    try:
        report = work(runtime, namespace)
    except Exception as exc:
        runtime.job_runs.record(namespace, JobRun.failed(job, started, datetime.now(UTC), exc))
        raise
    runtime.job_runs.record(namespace, JobRun.finished(job, started, datetime.now(UTC), report))
    return report


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


# The embedded engine holds the interpreter lock for the whole of an index build (5-12 s per ~10k
# new points here): every request of the process waits that long. So a build waits while writes
# are queued (the process is busy), but never longer than this, or searches would scan ever more
# unindexed points.
OPTIMIZE_MAX_DEFER_S = 900.0
OPTIMIZED_AT_KEY = "hg:vectors:optimized_at"


def optimize_due(queued_tasks_now: int, since_last_s: float, max_defer_s: float = OPTIMIZE_MAX_DEFER_S) -> bool:
    """Whether an index build runs now: when no task is queued, or the last one (or, before any, the
    first deferral) is `max_defer_s` old."""
    return queued_tasks_now == 0 or since_last_s >= max_defer_s


@celery_app.task(name="hippograph.optimize_vectors")
def optimize_vectors() -> dict[str, Any]:
    """Index the vectors added since the last run (HNSW), so vector search stays fast as memory grows;
    deferred while writes are queued (`optimize_due`)."""
    runtime = current_runtime()
    with single_flight(runtime.redis, "optimize_vectors", LOCK_TTL_S) as acquired:
        if not acquired:
            return {"skipped": "another run holds the lock"}
        now = time.time()
        # Set once when missing, so the first deferral starts the clock too.
        runtime.redis.set(OPTIMIZED_AT_KEY, now, nx=True)
        since_last = now - float(runtime.redis.get(OPTIMIZED_AT_KEY) or now)
        queued = queued_tasks(runtime.redis, celery_app.conf.task_default_queue)
        if not optimize_due(queued, since_last):
            return {"skipped": f"{queued} tasks queued", "since_last_s": round(since_last, 1)}
        start = time.perf_counter()
        changed = runtime.vectors.optimize()
        seconds = time.perf_counter() - start
        runtime.redis.set(OPTIMIZED_AT_KEY, time.time())
        _job_done(runtime, "optimize_vectors", seconds, int(changed))
        return {"optimized": changed, "seconds": round(seconds, 3)}


def batch_report(report: IngestReport) -> dict[str, Any]:
    """An ingest report as a batch's record keeps it: without `unlinked` (the link task's business)."""
    return {name: value for name, value in asdict(report).items() if name != "unlinked"}


# How long a running ingest task holds its turns without renewing its claim (it renews a third of
# the way): a task that died lets them go after this, for the `resume_pending` job.
CLAIM_LEASE_S = 60.0
RETRY_BASE_DELAY_S = 1.0
# While another running task writes turns it took over from a task's batch (`coalesce`), the task
# looks again after this long (a retry: it holds no worker thread meanwhile), at most this often.
TAKEN_OVER_RECHECK_S = 1.0
TAKEN_OVER_CHECKS = 1800


# Retries of a link task an engine outage stopped: 5, 10, 20, 40 s, then every 60 s (~17 min in all).
LINK_MAX_RETRIES = 20


def retry_schedule(window_s: float, base_s: float = RETRY_BASE_DELAY_S, cap_s: float = 60.0) -> list[float]:
    """The delays before each retry of a batch an engine outage stopped: exponential from `base_s`,
    capped at `cap_s`, as many as it takes for them to add up to `window_s` (a realistic outage
    lasts minutes). Empty for a window of 0: no retry."""
    delays: list[float] = []
    while sum(delays) < window_s:
        delays.append(min(cap_s, base_s * 2 ** len(delays)))
    return delays


class IngestTask(Task):  # type: ignore[misc]
    """Once Celery gives up (not on a retry: `on_failure` runs only after the last attempt), marks
    the task's batch failed and lets go of its turns: they stay pending, for `resume_pending`."""

    def on_failure(self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        namespace = args[0] if args else kwargs.get("namespace")
        keys = args[1] if len(args) > 1 else kwargs.get("turn_keys")
        if isinstance(namespace, str):
            runtime = current_runtime()
            batch_id = kwargs.get("batch") or task_id  # a resumed task fails the batch it wrote for
            runtime.batches.failed(namespace, batch_id, f"{type(exc).__name__}: {exc}", datetime.now(UTC))
            if isinstance(keys, list):
                with contextlib.suppress(Exception):  # Redis down (or the failure was Redis's): they expire anyway
                    runtime.hot_window.release(namespace, keys, task_id)


@contextlib.contextmanager
def _claim_renewed(runtime: Runtime, namespace: str, keys: list[str], owner: str) -> Iterator[None]:
    """Renew `owner`'s claim on `keys` every third of the lease while the block runs."""
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(CLAIM_LEASE_S / 3):
            with contextlib.suppress(Exception):  # an outage: the write fails and retries anyway
                runtime.hot_window.claim(namespace, keys, owner, CLAIM_LEASE_S, time.time())

    thread = threading.Thread(target=renew, name=f"claim-{owner}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()


def _write(
    runtime: Runtime, namespace: str, keys: list[str], owner: str, batch_id: str | None, link: bool
) -> tuple[list[tuple[str, str]], IngestReport]:
    """Write the pending turns `owner` holds under `keys`, renewing its claim meanwhile."""
    with _claim_renewed(runtime, namespace, keys, owner):
        records = runtime.hot_window.pending_records(namespace, keys)
        return records, runtime.batch_writer.write(namespace, records, datetime.now(UTC), batch_id, link)


def _close_taken_over(runtime: Runtime, namespace: str, batches: set[str], writer: str) -> None:
    """Mark done the queued `batches` this task took turns over from and none of whose turns is
    pending any more: their own task may have died with its process (the broker re-delivers it only
    after its visibility timeout, an hour), and the batch would read `running` meanwhile. A task
    still alive finds its batch done and leaves the record as it is."""
    for batch in sorted(batches):
        keys = runtime.batches.open_keys(namespace, batch)
        if keys is not None and not runtime.hot_window.pending_records(namespace, keys):
            report = {**batch_report(IngestReport()), "written_by": writer}  # nothing its own task wrote
            runtime.batches.done(namespace, batch, report, datetime.now(UTC))


def _own_queue(task: Task) -> str | None:
    """The queue `task` was delivered from: its follow-up tasks go there too, to the workers that
    serve it (None: the default queue)."""
    routing_key = (task.request.delivery_info or {}).get("routing_key")
    return routing_key if isinstance(routing_key, str) and routing_key else None


def _queue_links(namespace: str, node_ids: list[str], queue: str | None, fields: dict[str, Any]) -> None:
    """Queue `link_semantic` for nodes written without their SEMANTIC edges. The turns are written
    whatever happens here: if the broker fails now, these nodes stay without those edges (derived
    data: recall finds them by their vectors all the same), and the batch is not failed for it."""
    try:
        link_semantic.apply_async((namespace, node_ids), queue=queue)
    except Exception as exc:
        log.warning("SEMANTIC links not queued: %s", type(exc).__name__,
                    extra={**fields, "error": type(exc).__name__, "nodes": len(node_ids)})  # fmt: skip


@celery_app.task(name="hippograph.ingest_turns", base=IngestTask, bind=True, max_retries=None, priority=WRITE_PRIORITY)
def ingest_turns(
    self: Task,
    namespace: str,
    turn_keys: list[str],
    request_id: str | None = None,
    outage_retries: int = 0,
    checks: int = 0,
    link_inline: bool = False,
    batch: str | None = None,
) -> dict[str, Any]:
    """Run the write tracks for turns already in the hot window (passed by key, not by value), those
    this task can claim (another live task may hold some: it writes them), and, when it claimed any,
    up to `HIPPOGRAPH_INGEST_COALESCE` turns in all that later batches queued. A turn that cannot be
    written becomes a dead letter (app/memory/batch_writer.py); an engine outage retries the batch
    on `retry_schedule` (`outage_retries` so far). While a running task writes turns it took over
    from this batch, the task looks again every `TAKEN_OVER_RECHECK_S` (`checks` so far), and is
    done once they are written; it writes them itself if that task died. Its report counts what its
    last run wrote. `request_id`: the API request that queued them, for the log lines. The new
    nodes' SEMANTIC edges follow in a `link_semantic` task queued behind the writes, or before this
    task ends with `link_inline` (a caller waiting for the whole write). `batch`: the batch whose
    turns these are when it is not this task's own (`resume_pending` writing the turns of a task that
    died with its process): its record is the one updated."""
    runtime = current_runtime()
    owner = self.request.id or f"local-{uuid.uuid4()}"
    batch_id = batch or self.request.id
    fields = {"request_id": request_id, "namespace": namespace, "task_id": batch_id}
    start = time.perf_counter()
    try:
        if batch_id:
            runtime.batches.running(namespace, batch_id, datetime.now(UTC))
        # A turn stays pending until its tracks have run, however far the hot window has moved on.
        claimed = runtime.hot_window.claim(namespace, turn_keys, owner, CLAIM_LEASE_S, time.time())
        # Turns later batches queued, written with these (their tasks find them written). Only by a
        # task that has turns of its own to write: one whose turns were all written or taken over is
        # done at once, so the queue behind a long write drains instead of each task writing again.
        emptied: set[str] = set()  # the queued batches whose turns this task took over
        if claimed:
            room = runtime.settings.ingest_coalesce_max - len(claimed)
            coalesced = runtime.hot_window.coalesce(namespace, owner, CLAIM_LEASE_S, time.time(), room)
            emptied = runtime.hot_window.taken_from(namespace, coalesced)
            claimed += coalesced
        records, report = _write(runtime, namespace, claimed, owner, batch_id, link_inline)
        _close_taken_over(runtime, namespace, emptied - {batch_id}, batch_id or owner)
        # This batch's turns another running task took over: done once they are written.
        taken_over = runtime.hot_window.taken_over(namespace, turn_keys, owner)
    except OUTAGE_ERRORS as exc:
        log.warning("ingest_turns failed: %s", type(exc).__name__, extra={**fields, "error": type(exc).__name__})
        settings = runtime.settings
        delays = retry_schedule(settings.ingest_retry_window_s, cap_s=settings.ingest_retry_max_delay_s)
        if outage_retries >= len(delays):
            raise
        delay = delays[outage_retries] * (1 + random.random() / 10)  # jitter: spread the herd
        with contextlib.suppress(Exception):  # hold the turns through the wait (Redis may be down)
            runtime.hot_window.claim(namespace, turn_keys, owner, delay + CLAIM_LEASE_S, time.time())
        again = {"request_id": request_id, "outage_retries": outage_retries + 1, "checks": checks,
                 "link_inline": link_inline, "batch": batch}  # fmt: skip
        raise self.retry(exc=exc, countdown=delay, kwargs=again) from exc
    except Exception as exc:
        log.warning("ingest_turns failed: %s", type(exc).__name__, extra={**fields, "error": type(exc).__name__})
        raise
    runtime.metrics.observe_ingest(namespace, report.turns, report.seconds_by_stage)
    if report.unlinked:
        _queue_links(namespace, report.unlinked, _own_queue(self), fields)
    # A written turn's dead-letter id would have been its node id.
    written = [node_id for node_id in (dead_letter_id(*record) for record in records)
               if node_id not in report.dead_lettered]  # fmt: skip
    if runtime.llm is not None and written:  # after the rule tracks, and never in the write's way
        enrich_turns.apply_async((namespace, written), queue=_own_queue(self))
    if taken_over and checks < TAKEN_OVER_CHECKS:
        again = {"request_id": request_id, "outage_retries": outage_retries, "checks": checks + 1,
                 "link_inline": link_inline, "batch": batch}  # fmt: skip
        raise self.retry(countdown=TAKEN_OVER_RECHECK_S, kwargs=again)
    seconds = time.perf_counter() - start
    log.info("ingest_turns done", extra={**fields, "turns": report.turns, "duration_ms": round(seconds * 1000, 2)})
    result = batch_report(report)
    if batch_id:
        runtime.batches.done(namespace, batch_id, result, datetime.now(UTC))
    return result


@celery_app.task(
    name="hippograph.link_semantic",
    priority=LINK_PRIORITY,
    autoretry_for=OUTAGE_ERRORS,
    retry_backoff=5,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=LINK_MAX_RETRIES,
)
def link_semantic(namespace: str, node_ids: list[str]) -> dict[str, Any]:
    """SEMANTIC edges of nodes a write stored without them (`SemanticIndexer.link`): the neighbour
    searches run here, behind the queued writes, not in the write's way. Idempotent."""
    edges = current_runtime().semantic.link(namespace, node_ids, datetime.now(UTC))
    return {"nodes": len(node_ids), "semantic_edges": edges}


@celery_app.task(
    name="hippograph.enrich_turns",
    priority=WRITE_PRIORITY,
    autoretry_for=(*OUTAGE_ERRORS, LlmUnavailable),
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


@dataclass(frozen=True)
class ResumeReport:
    turns: int  # pending turns queued again
    error: str | None = None  # why the namespace's turns could not be looked at (the next run tries again)


def resume_namespace(runtime: Runtime, namespace: str) -> ResumeReport:
    """Queue the write tracks again for the namespace's pending turns that no live task holds (their
    task gave up after its retries, died with its process, or was never queued): claimed for a new
    task each, so a task still running (or still queued) on them skips them. Never raises: one
    namespace's trouble must not stop the others'."""
    try:
        now = time.time()
        queued = 0
        for last_batch, keys in runtime.hot_window.unclaimed_by_batch(namespace, now).items():
            # The turns of a batch still queued or running (its task died with its process: the
            # broker re-delivers it only after its visibility timeout, an hour) are written for it,
            # so it reads done once they are; a failed batch stays failed.
            batch = last_batch if last_batch and runtime.batches.is_open(namespace, last_batch) else None
            for start in range(0, len(keys), MAX_TURNS_PER_BATCH):
                task_id = str(uuid.uuid4())
                chunk = keys[start : start + MAX_TURNS_PER_BATCH]
                # Held like a queued batch: if this message is lost too, the next run takes them again.
                lease = runtime.settings.pending_resume_after_s
                claimed = runtime.hot_window.claim(namespace, chunk, task_id, lease, now, queued=True)
                if claimed:
                    ingest_turns.apply_async((namespace, claimed), {"batch": batch}, task_id=task_id)
                    queued += len(claimed)
    except Exception as exc:
        log.warning("pending turns of a namespace not resumed: %s", exc, extra={"namespace": namespace})
        return ResumeReport(0, f"{type(exc).__name__}: {exc}"[:300])
    if queued:
        log.info("queued the write tracks again for %d pending turns", queued, extra={"namespace": namespace})
    return ResumeReport(queued)


def resume_pending_turns(runtime: Runtime) -> int:
    """`resume_namespace` for every namespace (the embedded run calls it at start-up, so what its
    previous life left does not wait for the first `resume_pending` run); returns the turns queued."""
    return sum(resume_namespace(runtime, namespace).turns for namespace in runtime.namespaces.names())


@celery_app.task(name="hippograph.resume_pending")
def resume_pending(namespace: str | None = None) -> dict[str, Any]:
    """Pending turns resume once the engines are back, without a restart: `resume_namespace` per
    namespace (single-flight; scheduled every minute)."""
    return _each_namespace("resume_pending", namespace, resume_namespace, lambda report: report.turns)


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
