"""Response models of the v1 routes: what `/docs` and the clients are told comes back."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class BatchStatus(BaseModel):
    """What became of a write batch sent without `wait`."""

    batch_id: str = Field(description="the id from the `POST /turns` answer (also its ingest task's id)")
    namespace: str = Field(description="the namespace the batch was written to")
    status: Literal["queued", "running", "done", "failed"] = Field(
        description="queued: accepted, waiting for a worker; running: the write tracks run (again after a retry); "
        "done: every track ran; failed: the task gave up"
    )
    turns: int = Field(description="how many turns the batch carried")
    created_at: str = Field(description="when the API accepted the batch (ISO 8601)")
    started_at: str | None = Field(None, description="when a worker last started the batch's task")
    finished_at: str | None = Field(None, description="when the batch was done or failed")
    report: dict[str, Any] | None = Field(None, description="the ingest report (when done)")
    error: str | None = Field(None, description="why the batch failed (when failed)")

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "batch_id": "6f1c0f5e-8a4b-4a57-9f3e-0d2a1c7b9e10", "namespace": "team-a", "status": "done", "turns": 2,
        "created_at": "2026-12-01T09:30:00+00:00", "started_at": "2026-12-01T09:30:00.120000+00:00",
        "finished_at": "2026-12-01T09:30:01.410000+00:00", "report": {"turns": 2},
    }]})  # fmt: skip
