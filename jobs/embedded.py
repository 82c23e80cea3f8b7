"""Host the Celery worker and beat inside the API process (the embedded run).

The embedded vector engine admits one owning process, so in that run the process that owns it
must also run the tasks that write vectors. Pitfalls this handles (infra-notes §4): the app must be
made current or results are never stored; `WorkController` (not `Worker`) because signal handlers
are main-thread only; a thread pool, never prefork inside uvicorn; beat as a thread.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import TYPE_CHECKING, Any

from celery import Celery
from celery.beat import EmbeddedService

from jobs.engines import use_runtime

if TYPE_CHECKING:
    from app.runtime import Runtime

log = logging.getLogger(__name__)
EMBEDDED_SWITCH_INTERVAL_S = 0.001

# How often the watchdog looks at the worker thread. Celery's worker can stop for good on an error it
# calls unrecoverable (kombu's Redis transport, closing its channel after a broker crash, fails to
# restore unacked messages: `'NoneType' object has no attribute 'hostname'`); a standalone worker
# exits and its supervisor restarts it, the embedded one would leave the API without a worker.
WORKER_WATCH_INTERVAL_S = 2.0


class EmbeddedJobs:
    def __init__(
        self, runtime: Runtime, celery: Celery | None = None, concurrency: int = 2, resume_pending: bool = True
    ) -> None:
        if celery is None:
            from jobs.celery_app import celery_app

            celery = celery_app
        self.runtime = runtime
        self.celery: Celery = celery
        self.settings = runtime.settings
        self.concurrency = concurrency
        # Turns left pending by a previous run of this process (it died mid-batch) are queued again at
        # start once their claims have run out, instead of waiting for the first `resume_pending` run
        # or the broker's visibility timeout (an hour by default); turns a live task holds are left to it.
        self.resume_pending = resume_pending
        self.hostname = f"embedded-{self.settings.port}@hippograph"
        self._worker_thread: threading.Thread | None = None
        self._worker: Any = None  # celery.worker.WorkController (created in start)
        self._beat: EmbeddedService | None = None
        self._stopping = threading.Event()
        self._watchdog: threading.Thread | None = None
        self.worker_restarts = 0

    def start(self) -> None:
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        # The worker's threads share the interpreter lock with the API's: a request thread waking
        # from I/O waits for the running thread's switch interval (5 ms by default) at each step, so
        # a recall beside a write batch paid it many times over. 1 ms hands the lock back sooner.
        sys.setswitchinterval(EMBEDDED_SWITCH_INTERVAL_S)
        use_runtime(self.runtime)  # the tasks share this process's engines (one owner of the vector folder)
        self.celery.finalize()
        self.celery.set_current()
        self.celery.set_default()
        self._start_worker()
        self._stopping.clear()
        self._watchdog = threading.Thread(target=self._watch_worker, name="celery-worker-watchdog", daemon=True)
        self._watchdog.start()
        self._beat = EmbeddedService(
            self.celery,
            thread=True,
            schedule_filename=str(self.settings.data_dir / "celerybeat-schedule"),
        )
        self._beat.start()
        log.info("embedded Celery worker %s and beat started", self.hostname)
        if self.resume_pending:
            self._resume_pending()

    def _start_worker(self) -> None:
        self._worker = self.celery.WorkController(
            hostname=self.hostname,
            pool_cls="threads",
            concurrency=self.concurrency,
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
            loglevel="WARNING",
        )
        self._worker_thread = threading.Thread(target=self._worker.start, name="celery-worker", daemon=True)
        self._worker_thread.start()

    def _watch_worker(self) -> None:
        """Start a new worker when the running one stopped by itself (not through `stop`)."""
        while not self._stopping.wait(WORKER_WATCH_INTERVAL_S):
            thread = self._worker_thread
            if thread is not None and not thread.is_alive() and not self._stopping.is_set():
                log.error("the embedded Celery worker stopped (exit code %s); starting a new one",
                          getattr(self._worker, "exitcode", None))  # fmt: skip
                try:
                    self._start_worker()
                except Exception:  # the broker may still be down: try again at the next look
                    log.exception("the embedded Celery worker could not be started again")
                    continue
                # Counted once the new worker's thread is in place, so a reader never sees the
                # count ahead of the thread it counts.
                self.worker_restarts += 1

    def _resume_pending(self) -> None:
        from jobs.celery_tasks import resume_pending_turns

        try:
            queued = resume_pending_turns(self.runtime)
        except Exception as exc:  # engines not up yet: the broker's re-delivery still covers it
            log.warning("pending turns not resumed at start-up: %s", exc)
            return
        if queued:
            log.info("queued the write tracks again for %d pending turns", queued)

    def stop(self) -> None:
        self._stopping.set()
        if self._watchdog is not None:
            self._watchdog.join(timeout=10)
        if self._beat is not None:
            self._beat.stop()
        if self._worker is not None:
            self._worker.stop(in_sighandler=False)
        if self._worker_thread is not None:
            self._worker_thread.join(timeout=10)
        use_runtime(None)
