"""v1 route of the write path: conversation turns into the hot window and the ingest task."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Response, status
from starlette.concurrency import run_in_threadpool

from app.api.access import Engines, Namespace
from app.api.errors import ApiError
from app.api.schemas import TurnsBody
from app.domain.turns import dialogue_id

router = APIRouter(prefix="/v1/namespaces", tags=["write path"])
WAIT_TIMEOUT_S = 600.0


@router.post("/{ns}/turns", status_code=status.HTTP_202_ACCEPTED)
async def post_turns(ns: Namespace, body: TurnsBody, runtime: Engines, response: Response) -> dict[str, Any]:
    """Turns land in the hot window at once (searchable before the tracks run); a task runs the
    tracks. 202 with the node ids; with `wait`, 200 once every track has run. Retrying the same
    (session_id, turn_id) creates nothing new."""
    await run_in_threadpool(runtime.namespaces.require, ns)
    now = datetime.now(UTC)
    turns = [turn.to_domain(now) for turn in body.turns]
    node_ids = [dialogue_id(t.session_id, t.turn_id) for t in turns]
    new = await run_in_threadpool(runtime.hot_window.add, ns, turns, node_ids)
    from jobs.tasks import ingest_turns

    task = await run_in_threadpool(ingest_turns.delay, ns, [t.key for t in turns])
    result: dict[str, Any] = {
        "task_id": task.id,
        "turns": [
            {"session_id": t.session_id, "turn_id": t.turn_id, "node_id": node_id, "new": is_new}
            for t, node_id, is_new in zip(turns, node_ids, new, strict=True)
        ],
    }
    if body.wait:
        result["report"] = await _wait_for(task)
        response.status_code = status.HTTP_200_OK
    return result


async def _wait_for(task: Any) -> Any:
    deadline = time.monotonic() + WAIT_TIMEOUT_S
    while not await run_in_threadpool(task.ready):
        if time.monotonic() > deadline:
            raise ApiError(504, "timeout", f"the write tracks did not finish within {WAIT_TIMEOUT_S:g} s")
        await asyncio.sleep(0.05)
    if task.failed():
        raise ApiError(503, "ingest_failed", f"the write tracks failed: {task.result!r}"[:300])
    return task.result
