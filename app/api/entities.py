"""v1 routes that merge two entity nodes into one and split them again (admin).

Layers of one concept (one file name): `app/domain/entities.py` (the pure name rules);
`app/memory/entities.py` (resolution over the graph); `app/api/entities.py` (the merge and split
routes); `app/evaluation/entities.py` (scoring resolution on a labelled set)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status
from pydantic import ConfigDict, Field, model_validator

from app.api.access import AdminAccess, Engines
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.operations.fields import Strict, Text
from hippograph.responses import EntityMergeResponse


class EntityMergeBody(Strict):
    """Two Person or Concept nodes that are one: `merged_id` goes into `keep_id`."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"keep_id": "person:f1a1…", "merged_id": "person:2bd8…"}]}
    )

    keep_id: Text = Field(description="the node that stays")
    merged_id: Text = Field(description="the node merged into it (its id then answers the survivor)")


class EntitySplitBody(Strict):
    """Undo a merge from its record: give `merge_id` (what the merge answered) or `merged_id`."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"merge_id": "merge:9c0e…"}]})

    merge_id: Text | None = Field(None, description="the merge record's id")
    merged_id: Text | None = Field(None, description="or: the merged node's id (its merge in force)")

    @model_validator(mode="after")
    def _one_of(self) -> EntitySplitBody:
        if (self.merge_id is None) == (self.merged_id is None):
            raise ValueError("give exactly one of merge_id and merged_id")
        return self


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
