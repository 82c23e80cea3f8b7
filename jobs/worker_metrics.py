"""The metrics of a standalone Celery worker, served on `HIPPOGRAPH_WORKER_METRICS_PORT`.

The API serves its process's metrics at `/metrics` (in the embedded run that includes the jobs). A
standalone worker (`celery -A jobs.celery_app worker`) is another process, and with Celery's default
prefork pool (docker-compose's) its tasks run in child processes, each with its own runtime and so
its own `Metrics`. prometheus-client's multiprocess mode has every process of the worker write its
samples to files in one folder; the main worker process serves their sum. The folder
(`<temp dir>/hippograph-worker-metrics-<port>`, or `PROMETHEUS_MULTIPROC_DIR` if set; never the
shared data volume, which other workers may use) is emptied at start, so a previous run's samples
are not added in. The same works for the solo and threads pools.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from celery.signals import celeryd_init, worker_process_shutdown
from prometheus_client import CollectorRegistry, multiprocess, start_http_server, values

from app.settings import Settings, get_settings

log = logging.getLogger(__name__)


def metrics_dir(port: int) -> Path:
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return Path(given) if given else Path(tempfile.gettempdir()) / f"hippograph-worker-metrics-{port}"


def serve_worker_metrics(settings: Settings) -> int | None:
    """In the main worker process, before any task runs: every metric made from now on (the runtimes
    of this process and of the pool's children) writes to the shared folder, and an HTTP server on
    the port serves their sum. Returns the port, None when not configured."""
    port = settings.worker_metrics_port
    if port is None:
        return None
    directory = metrics_dir(port)
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(directory)  # inherited by the pool's children
    # prometheus-client picks its value class when imported; metrics are made later (a runtime opens
    # on a task's first use), so switching it here covers every one of them.
    values.ValueClass = values.get_value_class()
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(directory))
    start_http_server(port, addr=settings.host, registry=registry)
    log.info("worker metrics on %s:%d/metrics", settings.host, port, extra={"port": port})
    return port


@celeryd_init.connect
def _on_worker_start(**_: Any) -> None:
    """Sent once, in the main process of `celery worker` (never in the embedded run, whose metrics
    the API serves)."""
    serve_worker_metrics(get_settings())


@worker_process_shutdown.connect
def _on_child_exit(pid: int | None = None, **_: Any) -> None:
    """A pool child that exits leaves its counters in the folder (they still count); its live
    gauges go."""
    if pid is not None and "PROMETHEUS_MULTIPROC_DIR" in os.environ:
        multiprocess.mark_process_dead(pid)
