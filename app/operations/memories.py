"""The memory routes' bodies the tools share: listing, saving, reading one node.

Layers of one concept (one file name): `app/api/memories.py` (the routes);
`app/operations/memories.py` (the bodies the tools share)."""

from __future__ import annotations

from typing import Any

from app.memory.errors import NotFoundError
from app.operations.access import Access
from app.operations.schemas import MemoryBody, MemorySearchQuery
from app.runtime import Runtime


def search_memories(access: Access, runtime: Runtime, query: MemorySearchQuery) -> dict[str, Any]:
    """The listing route's body (also the memory_search tool)."""
    page = runtime.listing.page(access.namespace, query.to_domain(), query.cursor, query.limit, access.viewer)
    if not page["items"]:  # an unknown namespace lists nothing; checked only then (one read fewer)
        runtime.namespaces.require(access.namespace)
    return page


def store_memory(access: Access, runtime: Runtime, body: MemoryBody) -> tuple[dict[str, Any], bool]:
    """The save route's body (also the save_memory_note tool): (node, created)."""
    memory = body.to_domain(agent_id=access.writing_agent(body.agent_id))
    return runtime.nodes.save(access.namespace, memory)


def visible_node(access: Access, node_id: str, runtime: Runtime, with_relationships: bool = True) -> dict[str, Any]:
    """The node route's body (also the read_memory_node tool)."""
    node = runtime.nodes.get(access.namespace, node_id, with_relationships)
    if not access.viewer.sees(node):  # another agent's private memory: as if it did not exist
        raise NotFoundError("id", f"node {node_id!r} does not exist")
    return node
