"""A runtime and the job system in one process: the embedded run (`make run`, the evaluation and
benchmark scripts) and the API's composition root (`create_app` takes its `IngestQueue` here). app/
never imports jobs/: what it needs of them it is handed from this module."""

from __future__ import annotations

from app.embedding.encoder import Embedder
from app.memory.ingest_queue import IngestQueue
from app.runtime import Runtime
from app.settings import Settings
from jobs.embedded import EmbeddedJobs
from jobs.ingest_queue import CeleryIngestQueue


def open_runtime(settings: Settings, host_jobs: bool | None = None, embedder: Embedder | None = None) -> Runtime:
    """`Runtime.open`, then the Celery worker and beat in this process when `host_jobs` (by default:
    the embedded run, no Qdrant server — the process owning the vector folder must run the tasks
    that write vectors). They stop with `Runtime.close`."""
    runtime = Runtime.open(settings, embedder=embedder)
    if settings.embedded_vectors if host_jobs is None else host_jobs:
        jobs = EmbeddedJobs(runtime, concurrency=settings.worker_concurrency)
        runtime.jobs = jobs
        jobs.start()
    return runtime


def ingest_queue(runtime: Runtime) -> IngestQueue:
    """The ingest tasks' queue, on the runtime's Redis (Celery's broker)."""
    return CeleryIngestQueue(runtime.redis)
