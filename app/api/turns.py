"""v1 route of the write path: conversation turns into the hot window and the ingest task.

Layers of one concept (one file name): `app/domain/turns.py` (the turn and its ids, pure);
`app/api/turns.py` (the write route)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, Any

import kombu.exceptions
from fastapi import APIRouter, Path, Request, Response, status
from starlette.concurrency import run_in_threadpool

from app.api.access import Engines, IngestTasks, ReadAccess, WriteAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.domain.turns import dialogue_id
from app.errors import EngineUnavailable
from app.memory.hot_window import BatchHold
from app.memory.ingest_queue import IngestQueue
from app.operations.errors import ApiError
from app.operations.schemas import TurnsBody
from app.runtime import Runtime
from app.stores.hot import UNAVAILABLE_ERRORS as REDIS_UNAVAILABLE_ERRORS
from hippograph.responses import BatchStatus, TurnsAccepted, TurnsIngested

router = APIRouter(prefix="/v1/namespaces", tags=["write path"], route_class=JsonBodyRoute)
WAIT_TIMEOUT_S = 600.0


# Two bodies by status, so they are documented per status (no `response_model`, which would drop
# the 200's report from the 202's shape).
@router.post(
    "/{ns}/turns",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=None,
    responses={
        202: {"model": TurnsAccepted, "description": "the turns are in the hot window; a task runs the tracks"},
        200: {"model": TurnsIngested, "description": "`wait`: the tracks have run"},
        **error_responses(404, 409, 504),
    },
)
async def post_turns(
    access: WriteAccess, body: TurnsBody, runtime: Engines, queue: IngestTasks, request: Request, response: Response
) -> dict[str, Any]:
    """Turns land in the hot window at once (searchable before the tracks run); a task runs the
    tracks. 202 with the node ids; with `wait`, 200 once every track has run. Retrying the same
    (session_id, turn_id) creates nothing new; the same key with another text or speaker answers 409
    naming the field, unless the turn says `"replace": true` (a correction). Each turn records the
    key's agent."""
    ns = access.namespace
    await run_in_threadpool(runtime.namespaces.require_known, ns)  # Redis: no Neo4j on this path
    now = datetime.now(UTC)
    turns = [turn.to_domain(now, access.caller.agent_id) for turn in body.turns]
    node_ids = [dialogue_id(t.session_id, t.turn_id) for t in turns]
    # The batch id is the ingest task's id; its record exists before the task is queued, so a
    # worker always finds it and a 202 always has a readable batch. Its task holds the turns from
    # the moment they are stored; a caller that waits keeps them for it (no running task takes them
    # over: the report it waits for is of its own turns, SEMANTIC edges included).
    batch_id = str(uuid.uuid4())
    hold = BatchHold(batch_id, time.time() + runtime.settings.pending_resume_after_s, queued=not body.wait)
    new = await run_in_threadpool(runtime.hot_window.add, ns, turns, node_ids, hold)
    await run_in_threadpool(runtime.batches.queued, ns, batch_id, [t.key for t in turns], now)
    await run_in_threadpool(queue_ingest, runtime, queue, ns, [t.key for t in turns], batch_id, request, body.wait)
    result: dict[str, Any] = {
        "task_id": batch_id,
        "batch_id": batch_id,
        "status_url": request.app.url_path_for("get_batch", ns=ns, batch_id=batch_id),
        "turns": [
            {"session_id": t.session_id, "turn_id": t.turn_id, "node_id": node_id, "new": is_new}
            for t, node_id, is_new in zip(turns, node_ids, new, strict=True)
        ],
    }
    if body.wait:
        with broker_unavailable():  # the result backend is the same Redis
            result["report"] = await _wait_for(queue, batch_id)
        response.status_code = status.HTTP_200_OK
    return result


def queue_ingest(
    runtime: Runtime,
    queue: IngestQueue,
    ns: str,
    keys: list[str],
    batch_id: str,
    request: Request,
    link_inline: bool = False,
) -> None:
    """Queue the ingest task `batch_id` for the pending `keys`, claimed for it first: the
    `resume_pending` job leaves them to it for `HIPPOGRAPH_PENDING_RESUME_AFTER` (it may wait in a
    backlog), then takes them for a new task if it has not claimed them itself by then (the message
    was lost). Until its task runs, a running task of the namespace may take them over and write them
    with its own (`HIPPOGRAPH_INGEST_COALESCE`), unless the caller waits (`link_inline`: for the task,
    SEMANTIC edges included, `ingest_turns`). Also the replay of a dead letter."""
    lease = runtime.settings.pending_resume_after_s
    runtime.hot_window.claim(ns, keys, batch_id, lease, time.time(), queued=not link_inline)
    with broker_unavailable():  # the turns are in the hot window; a retry stores nothing twice
        queue.queue(ns, keys, batch_id, getattr(request.state, "request_id", None), link_inline)


BatchIdPath = Annotated[str, Path(description="the `batch_id` of a POST …/turns answer")]


@router.get(
    "/{ns}/batches/{batch_id}", response_model=BatchStatus, response_model_exclude_none=True,
    responses=error_responses(404),
)  # fmt: skip
def get_batch(access: ReadAccess, batch_id: BatchIdPath, runtime: Engines) -> dict[str, Any]:
    """The status of a write batch (the `batch_id` of a `POST /turns` answer): queued, running, done
    with its ingest report, or failed with the reason. Kept for `HIPPOGRAPH_BATCH_TTL` (7 days)."""
    return runtime.batches.status(access.namespace, batch_id)


@contextmanager
def broker_unavailable() -> Iterator[None]:
    """Celery's broker and result backend are Redis: a publish that fails after kombu's own retries
    (OperationalError), or a result read that cannot connect, is `EngineUnavailable("redis")` (503)."""
    try:
        yield
    except (kombu.exceptions.OperationalError, *REDIS_UNAVAILABLE_ERRORS) as exc:
        raise EngineUnavailable.wrapping("redis", exc) from exc


async def _wait_for(queue: IngestQueue, batch_id: str) -> dict[str, Any] | None:
    deadline = time.monotonic() + WAIT_TIMEOUT_S
    while (outcome := await run_in_threadpool(queue.outcome, batch_id)) is None:
        if time.monotonic() > deadline:
            raise ApiError(504, "timeout", f"the write tracks did not finish within {WAIT_TIMEOUT_S:g} s")
        await asyncio.sleep(0.05)
    if outcome.error is not None:
        raise ApiError(503, "ingest_failed", f"the write tracks failed: {outcome.error}"[:300])
    return outcome.report
