"""v1 routes of the memory graph: namespaces, memories, links, nodes."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request, Response, status
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from app.api.access import AdminAccess, AnyKey, Engines, ReadAccess, WriteAccess
from app.api.errors import ApiError
from app.api.schemas import LinkBody, MemoryBody, NamespaceBody, NodePatchBody
from app.memory.errors import NotFoundError

router = APIRouter(prefix="/v1/namespaces", tags=["memory graph"])


@router.get("")
def list_namespaces(caller: AnyKey, runtime: Engines) -> dict[str, Any]:
    """The namespaces this key may see: every one for the bootstrap admin, else the key's own."""
    return {"items": runtime.namespaces.listing(None if caller.is_bootstrap else caller.namespace)}


@router.put("/{ns}", status_code=status.HTTP_200_OK)
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


@router.get("/{ns}")
def get_namespace(access: ReadAccess, runtime: Engines) -> dict[str, Any]:
    """The namespace's settings and its node counts per type."""
    return runtime.namespaces.show(access.namespace)


@router.delete("/{ns}")
def delete_namespace(access: AdminAccess, runtime: Engines) -> dict[str, Any]:
    """Erase the namespace's graph, vectors and hot state, and revoke its keys (nothing else)."""
    runtime.namespaces.require(access.namespace)
    # Keys first: if the erase fails half-way, no key outlives its namespace into a later one of
    # the same name (the bootstrap admin makes new keys).
    keys = runtime.keys.revoke_namespace(access.namespace)
    return {"deleted": {**runtime.namespaces.delete(access.namespace), "keys": keys}}


@router.post("/{ns}/memories", status_code=status.HTTP_201_CREATED)
def save_memory(access: WriteAccess, body: MemoryBody, runtime: Engines, response: Response) -> dict[str, Any]:
    """Save a memory of any of the nine types (201); the same memory again answers 200 and changes nothing.
    It is recorded under the key's agent; `private: true` hides it from the namespace's other agents."""
    memory = body.to_domain(agent_id=access.writing_agent(body.agent_id))
    node, created = runtime.nodes.save(access.namespace, memory)
    if not created:
        response.status_code = status.HTTP_200_OK
    return node


@router.post("/{ns}/links", status_code=status.HTTP_201_CREATED)
def add_link(access: WriteAccess, body: LinkBody, runtime: Engines, response: Response) -> dict[str, Any]:
    """Add a relationship between two nodes (201); an existing one answers 200 unchanged. The
    relationship records the key's agent (`agent_id`)."""
    link, created = runtime.nodes.link(
        access.namespace, body.type, body.source_id, body.target_id, body.weight, agent_id=access.caller.agent_id
    )
    if not created:
        response.status_code = status.HTTP_200_OK
    return link


@router.get("/{ns}/nodes/{node_id}")
def get_node(access: ReadAccess, node_id: str, runtime: Engines) -> dict[str, Any]:
    """A node with its full content, derived tags and relationships."""
    return _visible_node(access, node_id, runtime)


def _visible_node(access: ReadAccess, node_id: str, runtime: Engines) -> dict[str, Any]:
    node = runtime.nodes.get(access.namespace, node_id)
    if not access.viewer.sees(node):  # another agent's private memory: as if it did not exist
        raise NotFoundError("id", f"node {node_id!r} does not exist")
    return node


@router.patch("/{ns}/nodes/{node_id}")
def patch_node(access: WriteAccess, node_id: str, body: NodePatchBody, runtime: Engines) -> dict[str, Any]:
    """Raise importance (never lower) and/or replace tags."""
    _visible_node(access, node_id, runtime)  # another agent's private memory is not there for this key
    return runtime.nodes.raise_importance_and_tags(access.namespace, node_id, body.importance, body.tags)


@router.delete("/{ns}/nodes/{node_id}", status_code=status.HTTP_204_NO_CONTENT)
def forget_node(access: AdminAccess, node_id: str, runtime: Engines) -> Response:
    """Forget a node: it, its relationships and its vector are erased."""
    runtime.nodes.forget(access.namespace, node_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


MEDIA_TYPES = {"json": "application/json", "graphml": "application/graphml+xml"}


@router.get(
    "/{ns}/export", response_class=Response, responses={200: {"content": {t: {} for t in MEDIA_TYPES.values()}}}
)
def export_namespace(
    access: ReadAccess,
    runtime: Engines,
    format: Literal["json", "graphml"] = Query("json"),  # noqa: A002
) -> Response:
    """Every node, relationship and property of the namespace, as JSON or GraphML (without other
    agents' private memories, unless the key is an admin of the namespace)."""
    chunks = runtime.transfer.export(access.namespace, format, access.viewer)
    filename = f"{access.namespace}.{format}"
    # Streamed (read and encoded page by page as it is sent): an error after the first bytes can only
    # cut the body short, which a reader sees as an incomplete file.
    return StreamingResponse(chunks, media_type=MEDIA_TYPES[format],
                             headers={"Content-Disposition": f'attachment; filename="{filename}"'})  # fmt: skip


@router.post("/{ns}/import", status_code=status.HTTP_201_CREATED)
async def import_namespace(
    access: AdminAccess,
    request: Request,
    runtime: Engines,
    format: Literal["json", "graphml"] = Query("json"),  # noqa: A002
) -> dict[str, Any]:
    """Load an export (same formats) into an existing, empty namespace; all or nothing."""
    body = await request.body()
    return {"imported": await run_in_threadpool(runtime.transfer.import_text, access.namespace, body, format)}
