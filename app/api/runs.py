"""v1 routes of the circuit breaker: an agent reports each step of a run and is told to go on, heed
a warning, or stop; a stopped run is read and resumed with its token.

Layers of one concept (one file name): `app/context/runs.py` (runs and their breaker);
`app/stores/runs.py` (run states in Redis); `app/api/runs.py` (the routes)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from app.api.access import Engines, ReadAccess, WriteAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.operations.context_bodies import RunResumeBody, RunStepBody
from app.operations.fields import Text
from hippograph.responses import RunStatus, RunStepResult

router = APIRouter(prefix="/v1/namespaces", tags=["context management"], route_class=JsonBodyRoute)

RUN_ID_PATTERN = r"^[A-Za-z0-9._-]{1,128}$"
RunIdPath = Annotated[str, Path(pattern=RUN_ID_PATTERN, description="the agent's run: 1-128 letters, digits, '.-_'")]
AgentQuery = Annotated[
    Text | None, Query(description="default: the key's agent; only the bootstrap admin may name another")
]


@router.post("/{ns}/runs/{run_id}/steps", response_model=RunStepResult,
             responses=error_responses(404))  # fmt: skip
def report_step(access: WriteAccess, run_id: RunIdPath, body: RunStepBody, runtime: Engines) -> dict[str, Any]:
    """Report one step of a run (the first creates it): the six signals are read on the run's recent
    history and the state moves GREEN -> YELLOW (a warning to inject) -> RED (stop: the run's state
    and a resume token). A step of a stopped run changes nothing and answers RED again."""
    runtime.namespaces.require(access.namespace)
    agent = access.writing_agent(body.agent_id)
    view, verdict = runtime.runs.step(access.namespace, agent, run_id, body.to_domain())
    answer: dict[str, Any] = {
        "run_id": run_id,
        "agent_id": agent,
        "step": view.state.steps,
        "state": verdict.level,
        "fired": verdict.fired if verdict.readings else [s["name"] for s in view.state.signals if s["fired"]],
        "signals": [reading.to_dict() for reading in verdict.readings],
        "stop": verdict.stopped,
    }
    if verdict.warning is not None:
        answer["warning"] = verdict.warning
    if verdict.stopped:
        answer["resume_token"] = view.state.resume_token
        answer["run"] = view.to_dict()
    return answer


@router.get("/{ns}/runs/{run_id}", response_model=RunStatus,
            responses=error_responses(404))  # fmt: skip
def get_run(access: ReadAccess, run_id: RunIdPath, runtime: Engines, agent_id: AgentQuery = None) -> dict[str, Any]:
    """A run's state: its level, last signals, recent calls, context use; a stopped run's reason and
    resume token. Runs are kept `HIPPOGRAPH_BREAKER_RUN_TTL` after their last step."""
    runtime.namespaces.require(access.namespace)
    return runtime.runs.show(access.namespace, access.writing_agent(agent_id), run_id).to_dict()


@router.post("/{ns}/runs/{run_id}/resume", response_model=RunStatus,
             responses=error_responses(404, 409))  # fmt: skip
def resume_run(access: WriteAccess, run_id: RunIdPath, body: RunResumeBody, runtime: Engines) -> dict[str, Any]:
    """Resume a stopped (RED) run with its token: GREEN again, its call history, streak and clock
    cleared. Retrying with the same token changes nothing; 409 when the run is not stopped."""
    runtime.namespaces.require(access.namespace)
    agent = access.writing_agent(body.agent_id)
    return runtime.runs.resume(access.namespace, agent, run_id, body.resume_token).to_dict()
