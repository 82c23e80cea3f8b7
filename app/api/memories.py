"""v1 routes of the memory graph: namespaces, memories, links, nodes.

Layers of one concept (one file name): `app/api/memories.py` (the routes);
`app/operations/memories.py` (the bodies the tools share)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request, Response, status
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from app.api.access import AdminAccess, AnyKey, Engines, ReadAccess, WriteAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.domain.decay import SOFT_FORGET_THRESHOLD, projected_activations
from app.domain.model import Importance
from app.operations.errors import ApiError
from app.operations.memories import search_memories, store_memory, visible_node
from app.operations.schemas import LinkBody, MemoryBody, MemorySearchQuery, NamespaceBody, NodePatchBody
from hippograph.responses import (
    DecayCurve,
    ImportResponse,
    MemoryListing,
    NamespaceDeleted,
    NamespaceDetail,
    NamespaceList,
    NamespaceResponse,
    NodeDetail,
    NodeResponse,
    Relationship,
)

router = APIRouter(prefix="/v1/namespaces", tags=["memory graph"], route_class=JsonBodyRoute)

NodePath = Annotated[str, Path(description="the node's id, '<type>:<key>' (e.g. `knowledge:ab12…`)")]
Format = Literal["json", "graphml"]
FormatQuery = Annotated[Format, Query(description="json (the default) or graphml")]


@router.get("", response_model=NamespaceList)
def list_namespaces(caller: AnyKey, runtime: Engines) -> dict[str, Any]:
    """The namespaces this key may see: every one for the bootstrap admin, else the key's own."""
    return {"items": runtime.namespaces.listing(None if caller.is_bootstrap else caller.namespace)}


@router.put(
    "/{ns}",
    status_code=status.HTTP_200_OK,
    response_model=NamespaceResponse,
    responses={201: {"model": NamespaceResponse, "description": "created"}},
)
def put_namespace(
    access: AdminAccess, runtime: Engines, response: Response, body: NamespaceBody | None = None
) -> dict[str, Any]:
    """Create a namespace (201; only the bootstrap admin key) or update its settings (200; an admin
    of the namespace). Idempotent."""
    body = body or NamespaceBody()
    ns = access.namespace
    if not access.caller.is_bootstrap and not runtime.namespaces.exists(ns):
        raise ApiError(403, "forbidden", f"creating namespace {ns!r} needs the bootstrap admin key")
    namespace, created = runtime.namespaces.put(ns, body.capacity, body.low_water_ratio)
    if created:
        response.status_code = status.HTTP_201_CREATED
    return namespace


@router.get("/{ns}", response_model=NamespaceDetail, responses=error_responses(404))
def get_namespace(access: ReadAccess, runtime: Engines) -> dict[str, Any]:
    """The namespace's settings and its node counts per type."""
    return runtime.namespaces.show(access.namespace)


@router.delete("/{ns}", response_model=NamespaceDeleted, responses=error_responses(404))
def delete_namespace(access: AdminAccess, runtime: Engines) -> dict[str, Any]:
    """Erase the namespace's graph, vectors and hot state, and revoke its keys (nothing else)."""
    runtime.namespaces.require(access.namespace)
    # Keys first: if the erase fails half-way, no key outlives its namespace into a later one of
    # the same name (the bootstrap admin makes new keys).
    keys = runtime.keys.revoke_namespace(access.namespace)
    deleted = runtime.namespaces.delete(access.namespace)
    runtime.suspensions.files.erase_namespace(access.namespace)  # suspended task trees' files
    return {"deleted": {**deleted, "keys": keys}}


@router.get("/{ns}/memories", response_model=MemoryListing, responses=error_responses(404))
def list_memories(access: ReadAccess, runtime: Engines, query: Annotated[MemorySearchQuery, Query()]) -> dict[str, Any]:
    """The namespace's memories as compact cards, newest first (by created_at, then id), filtered by
    type, created_at range (`since` inclusive, `until` exclusive), agent, minimum importance and tags
    (all of them); soft-forgotten memories only with `include_forgotten`. Cursor-paginated: pass
    `next_cursor` back as `cursor`. Other agents' private memories are not listed (except to admins)."""
    return search_memories(access, runtime, query)


@router.post(
    "/{ns}/memories",
    status_code=status.HTTP_201_CREATED,
    response_model=NodeResponse,
    responses={200: {"model": NodeResponse, "description": "already saved: unchanged"}, **error_responses(404, 409)},
)
def save_memory(access: WriteAccess, body: MemoryBody, runtime: Engines, response: Response) -> dict[str, Any]:
    """Save a memory of any of the nine types (201); the same memory again answers 200 and changes nothing.
    It is recorded under the key's agent; `private: true` hides it from the namespace's other agents.
    A Person or Concept is one node per name in the namespace: saved again under a name it holds (or
    an alias), it answers that node; `aliases` bind more names to it (409 when another node holds one)."""
    node, created = store_memory(access, runtime, body)
    if not created:
        response.status_code = status.HTTP_200_OK
    return node


@router.post(
    "/{ns}/links",
    status_code=status.HTTP_201_CREATED,
    response_model=Relationship,
    responses={200: {"model": Relationship, "description": "already there: unchanged"}, **error_responses(404)},
)
def add_link(access: WriteAccess, body: LinkBody, runtime: Engines, response: Response) -> dict[str, Any]:
    """Add a relationship between two nodes (201); an existing one answers 200 unchanged. The
    relationship records the key's agent (`agent_id`)."""
    link, created = runtime.nodes.link(
        access.namespace, body.type, body.source_id, body.target_id, body.weight, agent_id=access.caller.agent_id
    )
    if not created:
        response.status_code = status.HTTP_200_OK
    return link


@router.get("/{ns}/nodes/{node_id}", response_model=NodeDetail, responses=error_responses(404))
def get_node(access: ReadAccess, node_id: NodePath, runtime: Engines) -> dict[str, Any]:
    """A node with its full content, derived tags and relationships."""
    return visible_node(access, node_id, runtime)


@router.get("/{ns}/nodes/{node_id}/decay", response_model=DecayCurve, responses=error_responses(404))
def project_decay(
    access: ReadAccess,
    node_id: NodePath,
    runtime: Engines,
    days: Annotated[int, Query(ge=1, le=90, description="how many days ahead, 1-90")] = 14,
) -> dict[str, Any]:
    """The node's activation over the next `days` (4 points a day) if nothing recalls it, by the decay
    formula from its anchor, with the soft-forget threshold: what the memory explorer draws."""
    node = visible_node(access, node_id, runtime, with_relationships=False)
    importance = Importance(node["importance"])
    curve = projected_activations(
        node["activation_base"], node["last_accessed"], datetime.now(UTC), importance, days
    )
    return {
        "id": node_id,
        "importance": importance,
        "half_life_hours": importance.half_life_hours,
        "activation_base": node["activation_base"],
        "last_accessed": node["last_accessed"],
        "soft_forget_threshold": SOFT_FORGET_THRESHOLD,
        "points": [{"hours": hours, "activation": activation} for hours, activation in curve],
    }


@router.patch("/{ns}/nodes/{node_id}", response_model=NodeResponse, responses=error_responses(404))
def patch_node(access: WriteAccess, node_id: NodePath, body: NodePatchBody, runtime: Engines) -> dict[str, Any]:
    """Raise importance (never lower) and/or replace tags."""
    visible_node(access, node_id, runtime)  # another agent's private memory is not there for this key
    return runtime.nodes.raise_importance_and_tags(access.namespace, node_id, body.importance, body.tags)


@router.delete(
    "/{ns}/nodes/{node_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=error_responses(404),
)
def forget_node(access: AdminAccess, node_id: NodePath, runtime: Engines) -> Response:
    """Forget a node: it, its relationships and its vector are erased."""
    runtime.nodes.forget(access.namespace, node_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


MEDIA_TYPES = {"json": "application/json", "graphml": "application/graphml+xml"}
# The two formats as OpenAPI content: `app/domain/snapshot/` defines them (JSON: format, version,
# namespace, nodes {id, labels, properties}, relationships {type, source, target, properties}).
SNAPSHOT_JSON_EXAMPLE = {
    "format": "hippograph-namespace",
    "version": 1,
    "namespace": "team-a",
    "nodes": [
        {"id": "knowledge:db", "labels": ["Memory", "Knowledge"],
         "properties": {"label": "Database", "content": "We use Postgres 16", "importance": "FACT"}},
    ],
    "relationships": [],
}  # fmt: skip
SNAPSHOT_CONTENT = {
    MEDIA_TYPES["json"]: {
        "schema": {"type": "object", "description": "a namespace snapshot: format, version, namespace, nodes, "
                   "relationships (app/domain/snapshot/)"},
        "example": SNAPSHOT_JSON_EXAMPLE,
    },
    MEDIA_TYPES["graphml"]: {
        "schema": {"type": "string", "description": "the same snapshot as GraphML"},
        "example": '<?xml version="1.0" encoding="UTF-8"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">…</graphml>',
    },
}  # fmt: skip


@router.get(
    "/{ns}/export",
    response_class=Response,
    responses={200: {"description": "the snapshot, as an attachment", "content": SNAPSHOT_CONTENT},
               **error_responses(404)},
)  # fmt: skip
def export_namespace(access: ReadAccess, runtime: Engines, format: FormatQuery = "json") -> Response:  # noqa: A002
    """Every node, relationship and property of the namespace, as JSON or GraphML (without other
    agents' private memories, unless the key is an admin of the namespace)."""
    chunks = runtime.transfer.export(access.namespace, format, access.viewer)
    filename = f"{access.namespace}.{format}"
    # Streamed (read and encoded page by page as it is sent): an error after the first bytes can only
    # cut the body short, which a reader sees as an incomplete file.
    return StreamingResponse(chunks, media_type=MEDIA_TYPES[format],
                             headers={"Content-Disposition": f'attachment; filename="{filename}"'})  # fmt: skip


@router.post(
    "/{ns}/import",
    status_code=status.HTTP_201_CREATED,
    response_model=ImportResponse,
    responses=error_responses(404, 409),
    # The route reads the raw body (either format), so FastAPI cannot see it: declared here.
    openapi_extra={"requestBody": {"required": True, "content": SNAPSHOT_CONTENT}},
)
async def import_namespace(
    access: AdminAccess,
    request: Request,
    runtime: Engines,
    format: FormatQuery = "json",  # noqa: A002
) -> dict[str, Any]:
    """Load an export (same formats) into an existing, empty namespace; all or nothing."""
    body = await request.body()
    return {"imported": await run_in_threadpool(runtime.transfer.import_text, access.namespace, body, format)}
