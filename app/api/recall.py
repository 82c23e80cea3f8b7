"""v1 routes of the read path: recall (memory cards) and graded reads around a node.

Layers of one concept (one file name): `app/api/recall.py` (the routes); `app/operations/recall.py`
(the bodies the tools share)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from app.api.access import Engines, ReadAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.api.memories import NodePath
from app.operations.recall import follow_chain, neighbourhood_of, recall_cards
from app.operations.schemas import ChainBody, RecallBody
from hippograph.responses import PathResponse, RecallResponse, RelatedResponse, TaskChainResponse

router = APIRouter(prefix="/v1/namespaces", tags=["read path"], route_class=JsonBodyRoute)


# Returns its pre-encoded JSON (see below): `response_model` only documents it.
@router.post("/{ns}/recall", response_model=RecallResponse, responses=error_responses(404))
def recall(access: ReadAccess, body: RecallBody, runtime: Engines) -> JSONResponse:
    """Memory cards for a query, best first: full-text, entity and hot-window seeds spread through the
    graph, fused with vector hits. Each card carries `source_turn_ids` and the parts of its score.
    Other agents' private memories are never shown (except to admins); `agent_ids` keeps only the
    memories of those agents."""
    # Already JSON values: a JSONResponse skips FastAPI's generic encoder (~1 ms per recall, measured).
    return JSONResponse(recall_cards(access, runtime, body))


@router.get("/{ns}/nodes/{node_id}/related", response_model=RelatedResponse, responses=error_responses(404))
def related(
    access: ReadAccess,
    node_id: NodePath,
    runtime: Engines,
    depth: Annotated[int, Query(description="hops, 1-3")] = 1,
    limit: Annotated[int, Query(description="nodes, 1-200")] = 20,
    edges: Annotated[bool, Query(description="also the relationships among the node and its neighbours")] = False,
    fanout: Annotated[
        int | None,
        Query(
            description="1-200, depth 1-2: expand at most this many neighbours per node and hop, the strongest "
            "relationship first, then the most activated (answers `neighbours` and `truncated`); unset: "
            "every path within `depth` is ranked"
        ),
    ] = None,
) -> dict[str, Any]:
    """The node's neighbourhood, nearest and strongest first, with the relationship types on the way
    (and, with `edges`, every relationship among them: the graph the memory explorer draws). With
    `fanout` the expansion is bounded per node, so a hub with thousands of neighbours answers as fast as
    any node, and the answer says how many neighbours it has and whether some were left out."""
    return neighbourhood_of(access, runtime, node_id, depth, limit, edges, fanout)


@router.post("/{ns}/chain", response_model=PathResponse | TaskChainResponse, responses=error_responses(404))
def chain(access: ReadAccess, body: ChainBody, runtime: Engines) -> dict[str, Any]:
    """`from_id` + `to_id`: the shortest path between two nodes; `task_id`: the task's chain."""
    return follow_chain(access, runtime, body)


