"""Liveness and readiness probes."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.operations.errors import error_response
from hippograph.responses import HealthResponse, NotReadyBody, ReadinessResponse

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=HealthResponse)
def healthz() -> dict[str, str]:
    """The process is up; says nothing about the engines."""
    return {"status": "ok"}


# Returns its JSON itself (200 or 503): the models only document it.
@router.get(
    "/readyz",
    response_model=ReadinessResponse,
    responses={503: {"model": NotReadyBody, "description": "not_ready: an engine is down (`checks` says which)"}},
)
async def readyz(request: Request) -> JSONResponse:
    """200 when Neo4j, Redis and the vector tier all answer; else 503 naming what is down. Within
    `HIPPOGRAPH_READINESS_TIMEOUT` (2 s), even while requests hold every worker thread (async: it
    waits for the probes without one)."""
    statuses = await request.app.state.runtime.readiness_async()
    checks = {name: status.as_dict() for name, status in statuses.items()}
    down = {name: status.reason for name, status in statuses.items() if not status.ok}
    if not down:
        return JSONResponse({"status": "ok", "checks": checks})
    message = "; ".join(f"{name} down: {reason}" for name, reason in down.items())
    return error_response(request, 503, "not_ready", message, status="unavailable", checks=checks)
