"""Graded reads around one node: its neighbourhood, the path between two nodes, a task's chain."""

from __future__ import annotations

from typing import Any

from app.domain.inputs import InputError, check_node_id
from app.domain.keys import EVERYTHING, Viewer
from app.memory.errors import NotFoundError
from app.stores.graph import GraphStore

MAX_DEPTH = 3
MAX_LIMIT = 200


class Neighbourhood:
    def __init__(self, graph: GraphStore) -> None:
        self.graph = graph

    def _require(self, namespace: str, node_id: str, field: str, viewer: Viewer) -> None:
        """The node exists and the viewer may see it (another agent's private memory is "missing")."""
        check_node_id(node_id, field)
        if self.graph.read("recall.hidden_ids", namespace=namespace, ids=[node_id], **seen_by(viewer))[0]["hidden"]:
            raise NotFoundError(field, f"node {node_id!r} does not exist")

    def related(
        self, namespace: str, node_id: str, depth: int, limit: int, viewer: Viewer = EVERYTHING
    ) -> list[dict[str, Any]]:
        """Nodes within `depth` hops (both directions), nearest and strongest first."""
        if not 1 <= depth <= MAX_DEPTH:
            raise InputError("depth", f"must be between 1 and {MAX_DEPTH}")
        if not 1 <= limit <= MAX_LIMIT:
            raise InputError("limit", f"must be between 1 and {MAX_LIMIT}")
        self._require(namespace, node_id, "id", viewer)
        query = f"recall.related_{depth}"  # one query per depth (cypher/recall.cypher)
        return self.graph.read(query, namespace=namespace, id=node_id, limit=limit, **seen_by(viewer))

    def relationships_among(self, namespace: str, ids: list[str]) -> list[dict[str, Any]]:
        """The relationships with both ends among `ids` (ids the caller has already checked), in the
        shape of the node view's relationships."""
        rows = self.graph.read("tasks.relationships_among", namespace=namespace, ids=ids)
        return [
            {"type": r["type"], "source_id": r["source"], "target_id": r["target"], "properties": r["properties"]}
            for r in rows
        ]

    def path(self, namespace: str, from_id: str, to_id: str, viewer: Viewer = EVERYTHING) -> dict[str, Any]:
        """The shortest path (at most 6 hops) from one node to another; 404 when there is none."""
        self._require(namespace, from_id, "from_id", viewer)
        self._require(namespace, to_id, "to_id", viewer)
        rows = self.graph.read("recall.path", namespace=namespace, from_id=from_id, to_id=to_id, **seen_by(viewer))
        if not rows:
            raise NotFoundError("to_id", f"no path of at most 6 hops from {from_id!r} to {to_id!r}")
        return rows[0]

    def task_chain(self, namespace: str, task_id: str, limit: int, viewer: Viewer = EVERYTHING) -> list[dict[str, Any]]:
        """What the task belongs to, the task, then its subtasks, dependencies and successors."""
        self._require(namespace, task_id, "task_id", viewer)
        return self.graph.read("recall.task_chain", namespace=namespace, id=task_id, limit=limit, **seen_by(viewer))


def seen_by(viewer: Viewer) -> dict[str, Any]:
    """The parameters of the `visible` fragment of cypher/recall.cypher."""
    return {"viewer_agent": viewer.agent_id, "sees_private": viewer.sees_private}
