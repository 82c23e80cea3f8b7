"""v1 routes of the memory graph: namespaces, memories, links, nodes."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request, Response, status
from starlette.concurrency import run_in_threadpool

from app.api.access import Engines, Namespace
from app.api.schemas import LinkBody, MemoryBody, NamespaceBody, NodePatchBody

router = APIRouter(prefix="/v1/namespaces", tags=["memory graph"])


@router.put("/{ns}", status_code=status.HTTP_200_OK)
def put_namespace(
    ns: Namespace, runtime: Engines, response: Response, body: NamespaceBody | None = None
) -> dict[str, Any]:
    """Create a namespace (201) or update its settings (200). Idempotent."""
    body = body or NamespaceBody()
    namespace, created = runtime.namespaces.put(ns, body.capacity, body.low_water_ratio)
    if created:
        response.status_code = status.HTTP_201_CREATED
    return namespace


@router.get("/{ns}")
def get_namespace(ns: Namespace, runtime: Engines) -> dict[str, Any]:
    """The namespace's settings and its node counts per type."""
    return runtime.namespaces.show(ns)


@router.delete("/{ns}")
def delete_namespace(ns: Namespace, runtime: Engines) -> dict[str, Any]:
    """Erase the namespace's graph, vectors and hot state (and nothing else)."""
    return {"deleted": runtime.namespaces.delete(ns)}


@router.post("/{ns}/memories", status_code=status.HTTP_201_CREATED)
def save_memory(ns: Namespace, body: MemoryBody, runtime: Engines, response: Response) -> dict[str, Any]:
    """Save a memory of any of the nine types (201); the same memory again answers 200 and changes nothing."""
    node, created = runtime.nodes.save(ns, body.to_domain())
    if not created:
        response.status_code = status.HTTP_200_OK
    return node


@router.post("/{ns}/links", status_code=status.HTTP_201_CREATED)
def add_link(ns: Namespace, body: LinkBody, runtime: Engines, response: Response) -> dict[str, Any]:
    """Add a relationship between two nodes (201); an existing one answers 200 unchanged."""
    link, created = runtime.nodes.link(ns, body.type, body.source_id, body.target_id, body.weight)
    if not created:
        response.status_code = status.HTTP_200_OK
    return link


@router.get("/{ns}/nodes/{node_id}")
def get_node(ns: Namespace, node_id: str, runtime: Engines) -> dict[str, Any]:
    """A node with its full content, derived tags and relationships."""
    return runtime.nodes.get(ns, node_id)


@router.patch("/{ns}/nodes/{node_id}")
def patch_node(ns: Namespace, node_id: str, body: NodePatchBody, runtime: Engines) -> dict[str, Any]:
    """Raise importance (never lower) and/or replace tags."""
    return runtime.nodes.raise_importance_and_tags(ns, node_id, body.importance, body.tags)


@router.delete("/{ns}/nodes/{node_id}", status_code=status.HTTP_204_NO_CONTENT)
def forget_node(ns: Namespace, node_id: str, runtime: Engines) -> Response:
    """Forget a node: it, its relationships and its vector are erased."""
    runtime.nodes.forget(ns, node_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


MEDIA_TYPES = {"json": "application/json", "graphml": "application/graphml+xml"}


@router.get(
    "/{ns}/export", response_class=Response, responses={200: {"content": {t: {} for t in MEDIA_TYPES.values()}}}
)
def export_namespace(
    ns: Namespace,
    runtime: Engines,
    format: Literal["json", "graphml"] = Query("json"),  # noqa: A002
) -> Response:
    """Every node, relationship and property of the namespace, as JSON or GraphML."""
    body = runtime.transfer.export(ns, format)
    filename = f"{ns}.{format}"
    return Response(body, media_type=MEDIA_TYPES[format],
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})  # fmt: skip


@router.post("/{ns}/import", status_code=status.HTTP_201_CREATED)
async def import_namespace(
    ns: Namespace,
    request: Request,
    runtime: Engines,
    format: Literal["json", "graphml"] = Query("json"),  # noqa: A002
) -> dict[str, Any]:
    """Load an export (same formats) into an existing, empty namespace; all or nothing."""
    body = await request.body()
    return {"imported": await run_in_threadpool(runtime.transfer.import_text, ns, body, format)}
