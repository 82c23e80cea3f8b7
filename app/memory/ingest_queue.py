"""What the app needs of the background job system to write a batch: queue its ingest task, read
the task's outcome (a caller that waits), and count the tasks waiting (`/metrics`). Owned here, so
the routes do not import the job system; `jobs/ingest_queue.py` implements it with Celery and the
composition roots (`create_app`, `jobs/host.py`) hand it in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class IngestOutcome:
    """A finished ingest task: its report (`IngestReport` as a dict), or why it failed."""

    report: dict[str, Any] | None = None
    error: str | None = None


class IngestQueue(Protocol):
    def queue(self, namespace: str, keys: list[str], batch_id: str, request_id: str | None, link_inline: bool) -> None:
        """Queue the ingest task `batch_id` for the pending turns `keys` (already claimed for it).
        `link_inline`: the task writes the SEMANTIC edges before it ends (a caller waits for it)."""
        ...

    def outcome(self, batch_id: str) -> IngestOutcome | None:
        """The outcome of the ingest task `batch_id`; None while it is queued or running."""
        ...

    def depth(self) -> int:
        """Tasks waiting in the queue, all priorities."""
        ...
