"""Neo4j values of an analyst's query as JSON, and the second check that they stay in the namespace.

Nodes become maps of their properties plus `_labels`; relationships maps of their properties plus
`_type`, `_start` and `_end` (the `id` property of their end nodes); paths lists of those, node,
relationship, node, …; temporal values ISO 8601 text; points maps; bytes base64. No driver object
leaves this module.

The plan guard (`guard.py`) is the real check. This one is a seat belt: a node in a result that is
not a `:Memory` node of the namespace fails the whole request (`CypherRefused`); it should never
trigger.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable, Mapping
from typing import Any

import neo4j.graph
import neo4j.spatial
import neo4j.time

from app.analytics.guard import MEMORY_LABEL, CypherRefused
from app.domain.inputs import INTERNAL_PROPERTIES


class ValueConverter:
    """Converts the values of one result. Relationship ends the driver did not hydrate (a returned
    relationship without its nodes) are collected by element id and filled in by `fill_ends`."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self._ends: dict[str, list[tuple[dict[str, Any], str]]] = {}

    def convert(self, value: Any) -> Any:
        if value is None or isinstance(value, bool | int | str):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else str(value)
        # Before lists: a Duration and a Point are tuples.
        if isinstance(value, neo4j.time.DateTime | neo4j.time.Date | neo4j.time.Time | neo4j.time.Duration):
            return value.iso_format()
        if isinstance(value, neo4j.spatial.Point):
            return {"srid": value.srid, "coordinates": list(value)}
        if isinstance(value, list | tuple):
            return [self.convert(item) for item in value]
        if isinstance(value, Mapping) and not isinstance(value, neo4j.graph.Entity):
            return {str(key): self.convert(item) for key, item in value.items()}
        if isinstance(value, neo4j.graph.Node):
            return self.node(value)
        if isinstance(value, neo4j.graph.Relationship):
            return self.relationship(value)
        if isinstance(value, neo4j.graph.Path):
            return self.path(value)
        if isinstance(value, bytes | bytearray):
            return base64.b64encode(bytes(value)).decode("ascii")
        if hasattr(value, "isoformat"):  # Python datetimes, should the driver hand any over
            return value.isoformat()
        raise CypherRefused(f"a value of type {type(value).__name__} cannot be returned")

    def node(self, node: neo4j.graph.Node) -> dict[str, Any]:
        self.check_node(node.labels, node.get("namespace"))
        properties = {key: self.convert(item) for key, item in node.items() if key not in INTERNAL_PROPERTIES}
        return {**properties, "_labels": sorted(node.labels)}

    def check_node(self, labels: Iterable[str], namespace: Any) -> None:
        if MEMORY_LABEL not in set(labels) or namespace != self.namespace:
            raise CypherRefused("a node outside the namespace reached the result; the query is refused")

    def relationship(self, relationship: neo4j.graph.Relationship) -> dict[str, Any]:
        converted = {key: self.convert(item) for key, item in relationship.items()}
        converted["_type"] = relationship.type
        for key, end in (("_start", relationship.start_node), ("_end", relationship.end_node)):
            converted[key] = self._end_id(converted, key, end)
        return converted

    def _end_id(self, converted: dict[str, Any], key: str, end: neo4j.graph.Node | None) -> Any:
        if end is not None and end.labels:  # hydrated: the node is in the result too
            self.check_node(end.labels, end.get("namespace"))
            return end.get("id")
        if end is None:
            raise CypherRefused("a relationship without its end nodes cannot be returned")
        self._ends.setdefault(end.element_id, []).append((converted, key))
        return None

    def path(self, path: neo4j.graph.Path) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = [self.node(path.start_node)]
        for relationship, node in zip(path.relationships, path.nodes[1:], strict=True):
            items += [self.relationship(relationship), self.node(node)]
        return items

    def pending_ends(self) -> list[str]:
        """Element ids of relationship ends still to be looked up."""
        return list(self._ends)

    def fill_ends(self, ids_by_element_id: Mapping[str, str]) -> None:
        """Set `_start`/`_end` from the looked-up ids; an end not found among the namespace's memory
        nodes fails the request."""
        for element_id, places in self._ends.items():
            if element_id not in ids_by_element_id:
                raise CypherRefused("a relationship outside the namespace reached the result; the query is refused")
            for converted, key in places:
                converted[key] = ids_by_element_id[element_id]
        self._ends.clear()
