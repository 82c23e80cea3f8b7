"""v1 routes of forgetting on request: forget what a filter names (writers: their own agent's; admins:
anything in their namespace), and read the audit of past forgettings (admins).

Layers of one concept (one file name): `app/api/forget.py` (the routes); `app/operations/forget.py`
(the body the route and the forget_memories tool share)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from app.api.access import AdminAccess, Engines, WriteAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.memory.erasure import AUDIT_LIMIT
from app.operations.forget import run_forget
from app.operations.schemas import ForgetBody
from hippograph.responses import ForgetAuditList, ForgetResult

router = APIRouter(prefix="/v1/namespaces", tags=["forgetting"], route_class=JsonBodyRoute)


@router.post(
    "/{ns}/forget", response_model=ForgetResult, response_model_exclude_none=True, responses=error_responses(404)
)
def forget(access: WriteAccess, body: ForgetBody, runtime: Engines) -> dict[str, Any]:
    """Forget the turns and memories the filter names (every field given must hold) and everything
    derived from them alone: facts, events, inferences, sessions, speakers no one else names, vectors,
    hot-window entries, dead letters, relationships. A fact a surviving turn also states stays, without
    the forgotten turns' provenance. A writer key forgets only what its own agent wrote; an admin
    anything in the namespace. `dry_run` counts without changing anything. Each forgetting leaves an
    audit record (`GET …/forget/audit`). Repeating it finds nothing more to forget."""
    return run_forget(access, runtime, body)


AuditLimit = Annotated[int, Query(ge=1, le=AUDIT_LIMIT, description=f"records at most (1-{AUDIT_LIMIT})")]


@router.get("/{ns}/forget/audit", response_model=ForgetAuditList, responses=error_responses(404))
def forget_audit(access: AdminAccess, runtime: Engines, limit: AuditLimit = 50) -> dict[str, Any]:
    """The namespace's forgettings, newest first: who (role, agent, key id), when, the filter, the counts."""
    runtime.namespaces.require(access.namespace)
    return {"records": runtime.erasure.audit(access.namespace, limit)}
