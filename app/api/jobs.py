"""v1 route of the background jobs' log: their recent runs on a namespace (read-only)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from app.api.access import Engines, ReadAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from hippograph.responses import JobRunList

router = APIRouter(prefix="/v1/namespaces", tags=["jobs"], route_class=JsonBodyRoute)


@router.get("/{ns}/jobs/runs", response_model=JobRunList, responses=error_responses(404))
def list_job_runs(
    access: ReadAccess,
    runtime: Engines,
    limit: Annotated[int, Query(ge=1, le=200, description="how many runs, 1-200")] = 20,
    job: Annotated[
        str | None, Query(pattern=r"^[a-z_]{1,40}$", description="only this job's runs (e.g. decay, prune)")
    ] = None,
) -> dict[str, Any]:
    """The background jobs' recent runs on the namespace, newest first: decay, prune, flush_activity and
    resume_pending, each with its start, duration, outcome (an error with its reason) and what it
    counted. Each job keeps its newest 50 runs per namespace."""
    runtime.namespaces.require(access.namespace)
    return {"items": runtime.job_runs.recent(access.namespace, limit, job)}
