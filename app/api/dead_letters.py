"""v1 routes of dead letters: turns the write tracks could not write, put aside (admin only).

Layers of one concept (one file name): `app/api/dead_letters.py` (the routes);
`app/memory/dead_letters.py` (turns put aside and replayed)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response, status

from app.api.access import AdminAccess, Engines, IngestTasks
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.api.turns import queue_ingest
from hippograph.responses import DeadLetterList, DeadLetterReplayed

router = APIRouter(prefix="/v1/namespaces", tags=["write path"], route_class=JsonBodyRoute)
DeadLetterPath = Annotated[str, Path(description="the dead letter's id (the turn's node id, `dialogue:…`)")]


@router.get("/{ns}/dead-letters", response_model=DeadLetterList, responses=error_responses(404))
def list_dead_letters(access: AdminAccess, runtime: Engines) -> dict[str, Any]:
    """The turns of the namespace the write tracks could not write (after their retries), with why,
    how many tries, and the turn as accepted. Their batch-mates were written."""
    runtime.namespaces.require(access.namespace)
    return {"dead_letters": [letter.as_api() for letter in runtime.dead_letters.list(access.namespace)]}


@router.post(
    "/{ns}/dead-letters/{dead_letter_id}/replay",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=DeadLetterReplayed,
    responses=error_responses(404),
)
def replay_dead_letter(
    access: AdminAccess, dead_letter_id: DeadLetterPath, runtime: Engines, queue: IngestTasks, request: Request
) -> dict[str, Any]:
    """Queue the turn again, as accepted (after a fix): it leaves the list and a new batch writes it;
    if it fails again it is put aside again."""
    ns = access.namespace
    runtime.namespaces.require(ns)
    waiting = runtime.dead_letters.get(ns, dead_letter_id)  # 404 before any batch is recorded
    batch_id = str(uuid.uuid4())
    runtime.batches.queued(ns, batch_id, [waiting.turn_key], datetime.now(UTC))
    letter = runtime.dead_letters.requeue(ns, dead_letter_id)
    queue_ingest(runtime, queue, ns, [letter.turn_key], batch_id, request)
    url = request.app.url_path_for("get_batch", ns=ns, batch_id=batch_id)
    return {"id": letter.id, "batch_id": batch_id, "status_url": url}


@router.delete(
    "/{ns}/dead-letters/{dead_letter_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=error_responses(404),
)
def discard_dead_letter(access: AdminAccess, dead_letter_id: DeadLetterPath, runtime: Engines) -> Response:
    """Drop the dead letter for good (the turn is never written)."""
    runtime.namespaces.require(access.namespace)
    runtime.dead_letters.discard(access.namespace, dead_letter_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
