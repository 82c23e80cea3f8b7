"""The read path's bodies: recall, a node's neighbourhood, chains (routes and tools alike).

Layers of one concept (one file name): `app/api/recall.py` (the routes); `app/operations/recall.py`
(the bodies the tools share)."""

from __future__ import annotations

from typing import Any

from app.domain.inputs import InputError
from app.operations.access import Access
from app.operations.schemas import ChainBody, RecallBody
from app.runtime import Runtime


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
    return dict(runtime.neighbourhood.path(ns, body.from_id, body.to_id, viewer))
