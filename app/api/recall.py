"""v1 routes of the read path: recall (memory cards) and graded reads around a node."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from app.api.access import Access, Engines, ReadAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.api.memories import NodePath
from app.api.schemas import ChainBody, RecallBody
from app.domain.inputs import InputError
from app.runtime import Runtime
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


def recall_cards(access: Access, runtime: Runtime, body: RecallBody) -> dict[str, Any]:
    """The recall route's body (also the recall_memory tool)."""
    # `agent_id` only lifts that agent's memories into focus: unset, no agent is in focus (as before
    # keys existed); set, it must be the key's own agent.
    asking = access.writing_agent(body.agent_id) if body.agent_id is not None else None
    request = body.to_domain(agent_id=asking, viewer=access.viewer)
    result = runtime.recall.recall(access.namespace, request)
    if not result.cards:  # an unknown namespace never has cards; checked only then (one read fewer)
        runtime.namespaces.require(access.namespace)
    return {
        "items": [card.to_dict() for card in result.cards],
        "nothing_relevant": result.nothing_relevant,
        "note": result.note,
        "took_ms": result.stats["total_ms"],
        "stats": result.stats,
    }


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


def neighbourhood_of(
    access: Access,
    runtime: Runtime,
    node_id: str,
    depth: int,
    limit: int,
    edges: bool = False,
    fanout: int | None = None,
) -> dict[str, Any]:
    """The related route's body (also the discover_related tool)."""
    ns, viewer, around = access.namespace, access.viewer, runtime.neighbourhood
    runtime.namespaces.require(ns)
    result: dict[str, Any] = {"id": node_id}
    if fanout is None:
        result["items"] = around.related(ns, node_id, depth, limit, viewer)
    else:
        result.update(around.related_fanned_out(ns, node_id, depth, limit, fanout, viewer))
    if edges:  # among visible nodes only: the items passed the viewer's check
        ids = [node_id, *(item["id"] for item in result["items"])]
        result["edges"] = runtime.neighbourhood.relationships_among(access.namespace, ids)
    return result


@router.post("/{ns}/chain", response_model=PathResponse | TaskChainResponse, responses=error_responses(404))
def chain(access: ReadAccess, body: ChainBody, runtime: Engines) -> dict[str, Any]:
    """`from_id` + `to_id`: the shortest path between two nodes; `task_id`: the task's chain."""
    return follow_chain(access, runtime, body)


def follow_chain(access: Access, runtime: Runtime, body: ChainBody) -> dict[str, Any]:
    """The chain route's body (also the focus_on_chain tool)."""
    ns, viewer = access.namespace, access.viewer
    runtime.namespaces.require(ns)
    if body.task_id is not None:
        if body.from_id is not None or body.to_id is not None:
            raise InputError("task_id", "give either task_id or from_id and to_id, not both")
        items = runtime.neighbourhood.task_chain(ns, body.task_id, body.limit, viewer)
        return {"task_id": body.task_id, "items": items}
    if body.from_id is None or body.to_id is None:
        raise InputError("from_id" if body.from_id is None else "to_id", "required (or give task_id)")
    return runtime.neighbourhood.path(ns, body.from_id, body.to_id, viewer)
