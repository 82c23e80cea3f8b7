"""Graded reads around one node: its neighbourhood, the path between two nodes, a task's chain."""

from __future__ import annotations

from typing import Any

from app.domain.inputs import InputError, check_node_id
from app.domain.keys import EVERYTHING, Viewer
from app.memory.errors import NotFoundError
from app.stores.graph import GraphStore
from app.stores.queries.recall_queries import FanOutRow, PathRow, RecallQueries, RelatedRow, SeenBy, TaskChainRow
from app.stores.queries.task_queries import TaskQueries

MAX_DEPTH = 3
MAX_LIMIT = 200
# A fan-out keeps distances exact by excluding the centre's neighbours past the first hop: up to 2 hops.
MAX_FANOUT_DEPTH = 2


class Neighbourhood:
    def __init__(self, graph: GraphStore) -> None:
        self.graph = graph
        self.queries = RecallQueries(graph)

    def _require(self, namespace: str, node_id: str, field: str, viewer: Viewer) -> None:
        """The node exists and the viewer may see it (another agent's private memory is "missing")."""
        check_node_id(node_id, field)
        if self.queries.hidden_ids(namespace=namespace, ids=[node_id], **seen_by(viewer))[0]["hidden"]:
            raise NotFoundError(field, f"node {node_id!r} does not exist")

    def related(
        self, namespace: str, node_id: str, depth: int, limit: int, viewer: Viewer = EVERYTHING
    ) -> list[RelatedRow]:
        """Nodes within `depth` hops (both directions), nearest and strongest first."""
        _check_bounds(depth, limit)
        self._require(namespace, node_id, "id", viewer)
        q = self.queries  # one query per depth (cypher/recall.cypher)
        related = {1: q.related_1, 2: q.related_2, 3: q.related_3}[depth]
        return related(namespace=namespace, id=node_id, limit=limit, **seen_by(viewer))

    def related_fanned_out(
        self, namespace: str, node_id: str, depth: int, limit: int, fanout: int, viewer: Viewer = EVERYTHING
    ) -> dict[str, Any]:
        """Nodes within `depth` hops (1 or 2), expanded hop by hop with at most `fanout` neighbours per
        node (the strongest relationship first, then the most activated), ranked like `related`:
        nearest, then strongest (the product of weights along the path found), then id. Its cost is
        bounded by the fan-out, not by the busiest node's degree squared. Returns `items`, `neighbours`
        (the visible nodes one hop away, shown or not) and `truncated` (whether the fan-out or the limit
        left nodes within `depth` out; also true when the limit was reached before the last hop, whose
        nodes are then not looked for)."""
        _check_bounds(depth, limit)
        if not 1 <= fanout <= MAX_LIMIT:
            raise InputError("fanout", f"must be between 1 and {MAX_LIMIT}")
        if depth > MAX_FANOUT_DEPTH:
            raise InputError("fanout", f"bounds a neighbourhood of depth 1 to {MAX_FANOUT_DEPTH}; depth is {depth}")
        self._require(namespace, node_id, "id", viewer)
        found: dict[str, dict[str, Any]] = {}
        frontier: list[dict[str, Any]] = [{"id": node_id, "strength": 1.0, "via": []}]
        neighbours, truncated = 0, False
        for hop in range(1, depth + 1):
            # Past the first hop, nodes next to the centre are excluded unless all of them are `seen`
            # already (the first hop kept them all): a check per candidate, costly between two hubs.
            centre = node_id if hop > 1 and truncated else None
            rows = self.queries.fan_out(
                namespace=namespace, frontier=[item["id"] for item in frontier],
                seen=[node_id, *found], centre=centre, fanout=fanout, **seen_by(viewer),
            )  # fmt: skip
            if hop == 1:
                neighbours = rows[0]["reachable"] if rows else 0
            truncated = truncated or any(row["reachable"] > len(row["neighbours"]) for row in rows)
            reached = reached_in_hop(frontier, rows, hop)
            found.update(reached)
            frontier = sorted(reached.values(), key=rank)
            if not frontier:
                break
            if len(found) >= limit and hop < depth:  # nearest first: no deeper node would be shown (whether
                truncated = True  # there are any is not looked for)
                break
        items = sorted(found.values(), key=rank)
        return {"items": items[:limit], "neighbours": neighbours, "truncated": truncated or len(items) > limit}

    def relationships_among(self, namespace: str, ids: list[str]) -> list[dict[str, Any]]:
        """The relationships with both ends among `ids` (ids the caller has already checked), in the
        shape of the node view's relationships."""
        rows = TaskQueries(self.graph).relationships_among(namespace=namespace, ids=ids)
        return [
            {"type": r["type"], "source_id": r["source"], "target_id": r["target"], "properties": r["properties"]}
            for r in rows
        ]

    def path(self, namespace: str, from_id: str, to_id: str, viewer: Viewer = EVERYTHING) -> PathRow:
        """The shortest path (at most 6 hops) from one node to another; 404 when there is none."""
        self._require(namespace, from_id, "from_id", viewer)
        self._require(namespace, to_id, "to_id", viewer)
        rows = self.queries.path(namespace=namespace, from_id=from_id, to_id=to_id, **seen_by(viewer))
        if not rows:
            raise NotFoundError("to_id", f"no path of at most 6 hops from {from_id!r} to {to_id!r}")
        return rows[0]

    def task_chain(self, namespace: str, task_id: str, limit: int, viewer: Viewer = EVERYTHING) -> list[TaskChainRow]:
        """What the task belongs to, the task, then its subtasks, dependencies and successors."""
        self._require(namespace, task_id, "task_id", viewer)
        return self.queries.task_chain(namespace=namespace, id=task_id, limit=limit, **seen_by(viewer))


def _check_bounds(depth: int, limit: int) -> None:
    if not 1 <= depth <= MAX_DEPTH:
        raise InputError("depth", f"must be between 1 and {MAX_DEPTH}")
    if not 1 <= limit <= MAX_LIMIT:
        raise InputError("limit", f"must be between 1 and {MAX_LIMIT}")


def rank(item: dict[str, Any]) -> tuple[int, float, str]:
    """`related`'s order: nearest, then strongest, then by id."""
    return item["distance"], -item["strength"], item["id"]


def reached_in_hop(frontier: list[dict[str, Any]], rows: list[FanOutRow], hop: int) -> dict[str, dict[str, Any]]:
    """The nodes one `recall.fan_out` hop reached from `frontier` (items with `id`, `strength` and
    `via`; the starting node has strength 1 and no `via`), by id: each at distance `hop`, with the
    strength of its strongest parent times the relationship's weight and the parent's `via` plus that
    relationship's type (on a tie, the parent earlier in `frontier`)."""
    rows_by_id = {row["id"]: row for row in rows}
    reached: dict[str, dict[str, Any]] = {}
    for parent in frontier:
        row = rows_by_id.get(parent["id"])
        for neighbour in row["neighbours"] if row is not None else []:
            strength = parent["strength"] * neighbour["weight"]
            known = reached.get(neighbour["id"])
            if known is None or strength > known["strength"]:
                node = {name: value for name, value in neighbour.items() if name != "weight"}
                reached[neighbour["id"]] = {**node, "distance": hop, "strength": strength,
                                            "via": [*parent["via"], neighbour["via"]]}  # fmt: skip
    return reached


def seen_by(viewer: Viewer) -> SeenBy:
    """The parameters of the `visible` fragment of cypher/recall.cypher."""
    return {"viewer_agent": viewer.agent_id, "sees_private": viewer.sees_private}
