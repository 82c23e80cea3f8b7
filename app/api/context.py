"""v1 route of the context builder: the minimum sufficient context for a goal within a token budget."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.api.access import Engines, ReadAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.context.builder import ContextRequest
from app.operations.context_bodies import ContextBody
from hippograph.responses import ContextResponse

router = APIRouter(prefix="/v1/namespaces", tags=["context management"], route_class=JsonBodyRoute)


@router.post("/{ns}/context", response_model=ContextResponse, responses=error_responses(404))
def build_context(access: ReadAccess, body: ContextBody, runtime: Engines) -> dict[str, Any]:
    """Memory cards for the goal in recall's rank order, summaries first and full content where the
    budget allows, never over `token_budget` (counted by `tokenizer`). With `run_id`, a run whose
    context pressure is above the breaker's limit (85 %) switches attention: completed tasks lose
    their details, the next step's neighbourhood is reloaded by spreading activation, and the answer
    lists what was dropped and added."""
    runtime.namespaces.require(access.namespace)
    request = ContextRequest(
        text=body.text,
        token_budget=body.token_budget,
        mode=body.mode,
        top_k=body.top_k,
        agent_id=access.writing_agent(body.agent_id),
        viewer=access.viewer,
        run_id=body.run_id,
        now=body.reference_time,
        agent_in_focus=body.agent_id is not None,
        min_score=body.min_score,
    )
    return runtime.context.build(access.namespace, request)
