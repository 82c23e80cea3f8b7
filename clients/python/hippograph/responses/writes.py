"""The write path's answers: accepted turns, ingest reports, batches, dead letters and the
background jobs' runs."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from hippograph.responses.base import ResponseBody

# -- write path ------------------------------------------------------------------------------------


class TurnAccepted(ResponseBody):
    """One turn of a batch, in the hot window."""

    session_id: str = Field(description="the turn's session")
    turn_id: str = Field(description="the turn's id within the session")
    node_id: str = Field(description="the Dialogue node the tracks write for it")
    new: bool = Field(description="false when this (session_id, turn_id) was sent before")


class IngestReport(ResponseBody):
    """What the write tracks did for a batch."""

    turns: int = Field(description="turns processed")
    dialogues_created: int = Field(description="Dialogue nodes created")
    facts_created: int = Field(description="fact nodes created")
    facts_superseded: int = Field(description="older facts superseded by new ones")
    inferences: int = Field(description="inferences drawn")
    inferences_withdrawn: int = Field(description="inferences withdrawn")
    events: int = Field(description="Experience events created")
    semantic_edges: int = Field(description="SEMANTIC relationships created")
    seconds_by_stage: dict[str, float] = Field(description="time per track, seconds")
    dead_lettered: list[str] = Field(
        default_factory=list,
        description="the dead letters (ids) of the batch's turns that could not be written: the others were",
    )


class TurnsAccepted(ResponseBody):
    """202: the turns are in the hot window; a task runs the write tracks."""

    task_id: str = Field(description="the ingest task's id (the same as `batch_id`)")
    batch_id: str = Field(description="the batch's id: GET `status_url` says whether its write tracks have run")
    status_url: str = Field(description="the path of the batch's status (GET /v1/namespaces/{ns}/batches/{batch_id})")
    turns: list[TurnAccepted] = Field(description="per turn, in the order sent")


class TurnsIngested(TurnsAccepted):
    """200 (`wait`): the turns are in, and the write tracks have run."""

    report: IngestReport = Field(description="what the write tracks did")


# -- write batches ------------------------------------------------------------------------------


class BatchStatus(ResponseBody):
    """What became of a write batch sent without `wait`."""

    batch_id: str = Field(description="the id from the `POST /turns` answer (also its ingest task's id)")
    namespace: str = Field(description="the namespace the batch was written to")
    status: Literal["queued", "running", "done", "failed"] = Field(
        description="queued: accepted, waiting for a worker; running: the write tracks run (again after a retry); "
        "done: every track ran (see `dead_lettered` for turns put aside); failed: the task gave up (its turns stay "
        "pending and are queued again)"
    )
    turns: int = Field(description="how many turns the batch carried")
    created_at: str = Field(description="when the API accepted the batch (ISO 8601)")
    started_at: str | None = Field(None, description="when a worker last started the batch's task")
    finished_at: str | None = Field(None, description="when the batch was done or failed")
    report: dict[str, Any] | None = Field(None, description="the ingest report (when done)")
    dead_lettered: list[str] | None = Field(
        None,
        description="done, but these turns (dead-letter ids: their node ids) could not be written and were put "
        "aside (GET /v1/namespaces/{ns}/dead-letters); every other turn of the batch was written",
    )
    error: str | None = Field(None, description="why the batch failed (when failed)")

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "batch_id": "6f1c0f5e-8a4b-4a57-9f3e-0d2a1c7b9e10", "namespace": "team-a", "status": "done", "turns": 2,
        "created_at": "2026-12-01T09:30:00+00:00", "started_at": "2026-12-01T09:30:00.120000+00:00",
        "finished_at": "2026-12-01T09:30:01.410000+00:00", "report": {"turns": 2},
    }]})  # fmt: skip


# -- dead letters ----------------------------------------------------------------------------------


class DeadLetterResponse(ResponseBody):
    """A turn the write tracks could not write, put aside with why."""

    id: str = Field(description="the dead letter's id: the turn's node id (`dialogue:…`), or `unreadable:…` for a "
                    "stored record that names none")  # fmt: skip
    error: str = Field(description="the class of the error the last try met (e.g. `ClientError`, `ValueError`)")
    message: str = Field(description="the error's message (at most 500 characters)")
    attempts: int = Field(description="how many times the turn's write was tried (its batch's try included)")
    failed_at: str = Field(description="when it was put aside (ISO 8601)")
    batch_id: str | None = Field(None, description="the task (batch) that put it aside")
    turn: dict[str, Any] = Field(description="the turn as it was stored when accepted (`unreadable`: the raw text)")


class DeadLetterList(ResponseBody):
    """The namespace's dead letters, oldest first."""

    dead_letters: list[DeadLetterResponse] = Field(description="the turns put aside")


class DeadLetterReplayed(ResponseBody):
    """202: the turn is pending again and a new batch writes it."""

    id: str = Field(description="the replayed dead letter's id (it is gone from the list)")
    batch_id: str = Field(description="the new batch that writes the turn")
    status_url: str = Field(description="the path of the new batch's status")


# -- background jobs ----------------------------------------------------------------------------------


class JobRunResponse(ResponseBody):
    """One run of a background job on the namespace (app/stores/job_runs.py)."""

    job: str = Field(description="the job: decay, prune, flush_activity or resume_pending")
    started_at: datetime = Field(description="when its work on this namespace started")
    finished_at: datetime = Field(description="when it ended")
    duration_ms: float = Field(description="how long it took on this namespace, ms")
    outcome: Literal["ok", "error"] = Field(description="ok, or error: the job failed on this namespace")
    error: str | None = Field(description="an error run: the exception's class and message (at most 300 characters)")
    counts: dict[str, int] = Field(
        description="what the run's report counted, nested fields as `outer.inner` (decay: nodes, edges, "
        "soft_forgotten; prune: before, after, deleted_nodes, deleted_edges; flush_activity: accesses, "
        "learning.pairs, …; resume_pending: turns); empty for a run that raised"
    )


class JobRunList(ResponseBody):
    """The namespace's recent job runs, newest first."""

    items: list[JobRunResponse] = Field(description="newest first, at most `limit` (each job keeps its newest 50)")
