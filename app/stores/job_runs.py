"""The recent runs of the background jobs on each namespace (what the memory explorer's overview shows).

One Redis list per namespace and job, `hg:{<namespace>}:jobs:runs:<job>`, newest first, one JSON entry
per run of the job on the namespace (`JobRun`), cut to the newest `kept` in the same transaction as each
push; the job names go to the set `hg:{<namespace>}:jobs:names`. No TTL: the caps bound it, and erasing
the namespace erases it with its other hot state. A list per job, so the jobs that run every minute
(flush_activity, resume_pending) do not push the hourly prune out of sight.

Recording never raises: a job must not fail because its log could not be written (Redis down).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, is_dataclass
from datetime import datetime
from typing import Any, Literal

import redis

from app.errors import short_reason
from app.stores.hot import namespace_key

DEFAULT_KEPT = 50
MAX_REASON = 300  # app/errors.py short_reason cuts an exception's to 200
Outcome = Literal["ok", "error"]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobRun:
    job: str  # the Celery task's short name: decay, prune, flush_activity, resume_pending
    started_at: datetime
    finished_at: datetime
    outcome: Outcome
    error: str | None = None  # why, for an error: "<exception class>: <message's first line>", cut to MAX_REASON
    counts: dict[str, int] = field(default_factory=dict)  # what the run's report counted

    @classmethod
    def finished(cls, job: str, started_at: datetime, finished_at: datetime, report: Any) -> JobRun:
        """A run that returned `report` (a dataclass); a report with an `error` (a namespace the job
        could not work on, without raising) is an error run."""
        error = getattr(report, "error", None)
        outcome: Outcome = "error" if error else "ok"
        return cls(job, started_at, finished_at, outcome, str(error)[:MAX_REASON] if error else None, counts_of(report))

    @classmethod
    def failed(cls, job: str, started_at: datetime, finished_at: datetime, exc: BaseException) -> JobRun:
        return cls(job, started_at, finished_at, "error", short_reason(exc))

    @property
    def duration_ms(self) -> float:
        return round((self.finished_at - self.started_at).total_seconds() * 1000, 3)

    def to_json(self) -> str:
        return json.dumps({
            "job": self.job,
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat(),
            "duration_ms": self.duration_ms,
            "outcome": self.outcome,
            "error": self.error,
            "counts": self.counts,
        })  # fmt: skip


def counts_of(report: Any) -> dict[str, int]:
    """The whole-number fields of a job's report, nested ones named `outer.inner`
    (ActivityReport(accesses=2, learning=FlushReport(pairs=1, …)) -> {"accesses": 2, "learning.pairs": 1, …})."""
    values = asdict(report) if is_dataclass(report) and not isinstance(report, type) else report
    counts: dict[str, int] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping):
            for name, inner in value.items():
                walk(f"{prefix}{name}.", inner)
        elif isinstance(value, int) and not isinstance(value, bool):
            counts[prefix.rstrip(".")] = value

    walk("", values if isinstance(values, Mapping) else {})
    return counts


class JobRunLog:
    def __init__(self, client: redis.Redis, kept: int = DEFAULT_KEPT) -> None:
        self.client = client
        self.kept = kept  # per job and namespace

    @staticmethod
    def _runs(namespace: str, job: str) -> str:
        return namespace_key(namespace, "jobs", "runs", job)

    @staticmethod
    def _names(namespace: str) -> str:
        return namespace_key(namespace, "jobs", "names")

    def record(self, namespace: str, run: JobRun) -> bool:
        """Add the run, newest first, keeping the job's newest `kept`; False (logged) when it could
        not be written. Never raises."""
        try:
            pipe = self.client.pipeline(transaction=True)
            pipe.sadd(self._names(namespace), run.job)
            pipe.lpush(self._runs(namespace, run.job), run.to_json())
            pipe.ltrim(self._runs(namespace, run.job), 0, self.kept - 1)
            pipe.execute()
            return True
        except Exception as exc:  # the job's own work is done: its log must not fail it
            log.warning("job run not recorded: %s", type(exc).__name__, extra={"namespace": namespace, "job": run.job})
            return False

    def recent(self, namespace: str, limit: int, job: str | None = None) -> list[dict[str, Any]]:
        """The newest `limit` runs (of `job`, or of every job), newest first, as recorded (JSON objects)."""
        names: Any = [job] if job is not None else sorted(self.client.smembers(self._names(namespace)))  # type: ignore[arg-type]
        pipe = self.client.pipeline(transaction=False)
        for name in names:
            pipe.lrange(self._runs(namespace, name), 0, limit - 1)
        runs = [json.loads(entry) for entries in pipe.execute() for entry in entries]
        runs.sort(key=lambda run: datetime.fromisoformat(run["started_at"]), reverse=True)
        return runs[:limit]
