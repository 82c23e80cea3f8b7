"""v1 routes that merge two entity nodes into one and split them again (admin)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status

from app.api.access import AdminAccess, Engines
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.api.responses import EntityMergeResponse
from app.api.schemas import EntityMergeBody, EntitySplitBody

router = APIRouter(prefix="/v1/namespaces", tags=["memory graph"], route_class=JsonBodyRoute)


@router.post(
    "/{ns}/entities/merge",
    status_code=status.HTTP_201_CREATED,
    response_model=EntityMergeResponse,
    responses={200: {"model": EntityMergeResponse, "description": "merged already: unchanged"},
               **error_responses(404, 409)},
)  # fmt: skip
def merge_entities(access: AdminAccess, body: EntityMergeBody, runtime: Engines, response: Response) -> dict[str, Any]:
    """Merge two Person (or two Concept) nodes: `merged_id`'s relationships (facts, turns, task links),
    source turns, name and aliases move to `keep_id`, and `merged_id` answers the survivor from then
    on (`GET …/nodes/{merged_id}` says `redirected_from`). One transaction; the same merge again
    answers 200 unchanged. The record it answers (`merge_id`) undoes it: `POST …/entities/split`."""
    answer = runtime.entity_merges.merge(access.namespace, body.keep_id, body.merged_id, access.caller.agent_id)
    if not answer["changed"]:
        response.status_code = status.HTTP_200_OK
    return answer


@router.post(
    "/{ns}/entities/split",
    response_model=EntityMergeResponse,
    responses=error_responses(404, 409),
)
def split_entities(access: AdminAccess, body: EntitySplitBody, runtime: Engines) -> dict[str, Any]:
    """Undo a merge from its record: the merged node comes back with its properties, relationships
    and aliases, and the survivor loses what the merge gave it (what reached it since stays).
    Idempotent: a split merge answers `changed: false`."""
    return runtime.entity_merges.split(access.namespace, body.merge_id, body.merged_id, access.caller.agent_id)
