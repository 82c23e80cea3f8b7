"""The snapshot's model: nodes, relationships, their property values, and the validation both encodings
run (so nothing that cannot be read back is written).

Values are what Neo4j stores and this graph uses: str, int (64-bit), float (NaN and infinities
included), bool, timezone-aware datetime, date, and homogeneous lists of str/int/float/bool (empty
lists too). The caller converts `neo4j.time` values first (`app.stores.graph.to_native`); the driver's conversion
keeps microseconds, so sub-microsecond digits are gone before a snapshot exists. Other Neo4j types
(LocalDateTime, Time, Duration, Point, lists of temporals) are refused, never exported lossily.

Datetimes are ISO 8601 with microseconds (when non-zero) and the UTC offset. A named time zone
(zoneinfo `key` or pytz `zone`, except plain UTC) follows in brackets as Neo4j prints it,
`2024-07-01T09:30:00+02:00[Europe/Berlin]`; reading takes the instant from the offset and the zone
from the brackets.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, NoReturn, TypeAlias
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

FORMAT = "hippograph-namespace"
VERSION = 1

PropertyValue: TypeAlias = str | int | float | bool | datetime | date | list[str] | list[int] | list[float] | list[bool]


class SnapshotFormatError(ValueError):
    """A snapshot that cannot be encoded, or a document that is not a valid snapshot."""


@dataclass(frozen=True)
class SnapshotNode:
    id: str
    labels: tuple[str, ...]
    properties: dict[str, PropertyValue] = field(default_factory=dict)


@dataclass(frozen=True)
class SnapshotRelationship:
    type: str
    source: str
    target: str
    properties: dict[str, PropertyValue] = field(default_factory=dict)


@dataclass(frozen=True)
class Snapshot:
    namespace: str
    nodes: tuple[SnapshotNode, ...]
    relationships: tuple[SnapshotRelationship, ...] = ()


def canonical(snapshot: Snapshot) -> Snapshot:
    """The snapshot with nodes by id, relationships by (type, source, target, properties), labels
    and property names sorted: equal content gives equal snapshots."""
    nodes = sorted(
        (SnapshotNode(n.id, tuple(sorted(n.labels)), _sorted_dict(n.properties)) for n in snapshot.nodes),
        key=lambda node: node.id,
    )
    relationships = sorted(
        (SnapshotRelationship(r.type, r.source, r.target, _sorted_dict(r.properties)) for r in snapshot.relationships),
        key=lambda r: (r.type, r.source, r.target, repr(sorted(r.properties.items()))),
    )
    return Snapshot(snapshot.namespace, tuple(nodes), tuple(relationships))


def _sorted_dict(properties: Mapping[str, PropertyValue]) -> dict[str, PropertyValue]:
    return dict(sorted(properties.items()))


# --- validation, shared by every encoder and decoder ---------------------------------------------

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


def fail(where: str, problem: str) -> NoReturn:
    raise SnapshotFormatError(f"{where}: {problem}" if where else problem)


def scalar_kind(value: object) -> str | None:
    """The GraphML scalar type of a list-able value; bool before int, since bool is an int."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    return None


def validated(snapshot: Snapshot) -> Snapshot:
    """The snapshot with plain value types (str for a StrEnum member, ...), or SnapshotFormatError."""
    namespace = checked_name(snapshot.namespace, "namespace")
    nodes = tuple(validated_node(node, f"nodes[{i}]") for i, node in enumerate(snapshot.nodes))
    node_ids: set[str] = set()
    for i, node in enumerate(nodes):
        if node.id in node_ids:
            fail(f"nodes[{i}].id", f"duplicate node id {node.id!r}")
        node_ids.add(node.id)
    relationships = tuple(
        validated_relationship(rel, f"relationships[{i}]", node_ids) for i, rel in enumerate(snapshot.relationships)
    )
    return Snapshot(namespace, nodes, relationships)


def validated_node(node: SnapshotNode, where: str) -> SnapshotNode:
    node_id = checked_name(node.id, f"{where}.id")
    if not isinstance(node.labels, tuple | list):
        fail(f"{where}.labels", f"expected a tuple of labels, got {type(node.labels).__name__}")
    labels = tuple(checked_name(label, f"{where}.labels[{j}]") for j, label in enumerate(node.labels))
    properties = _validated_properties(node.properties, where)
    if "id" in properties and properties["id"] != node_id:
        fail(f"{where}.properties['id']", f"{properties['id']!r} differs from the node id {node_id!r}")
    return SnapshotNode(node_id, labels, properties)


def validated_relationship(rel: SnapshotRelationship, where: str, node_ids: set[str] | None) -> SnapshotRelationship:
    """`node_ids` None: the endpoints are the caller's to guarantee (a streamed export)."""
    rel_type = checked_name(rel.type, f"{where}.type")
    source = checked_name(rel.source, f"{where}.source")
    target = checked_name(rel.target, f"{where}.target")
    for end, node_id in (("source", source), ("target", target)):
        if node_ids is not None and node_id not in node_ids:
            fail(f"{where}.{end}", f"unknown node {node_id!r}")
    return SnapshotRelationship(rel_type, source, target, _validated_properties(rel.properties, where))


def checked_name(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        fail(where, f"expected a non-empty string, got {value!r}")
    return _plain_str(value, where)


def _plain_str(value: str, where: str) -> str:
    if _SURROGATE.search(value):
        fail(where, "string contains a lone surrogate (not encodable as UTF-8)")
    return str.__str__(value)  # a plain str, also for str subclasses such as StrEnum members


def _validated_properties(properties: object, where: str) -> dict[str, PropertyValue]:
    if not isinstance(properties, Mapping):
        fail(f"{where}.properties", f"expected a mapping, got {type(properties).__name__}")
    checked: dict[str, PropertyValue] = {}
    for name, value in properties.items():
        if not isinstance(name, str) or not name:
            fail(f"{where}.properties", f"invalid property name {name!r}")
        path = f"{where}.properties[{name!r}]"
        checked[_plain_str(name, path)] = _validated_value(value, path)
    return checked


def _validated_value(value: object, where: str) -> PropertyValue:
    if isinstance(value, list):
        return _validated_list(value, where)
    if isinstance(value, datetime):
        if value.utcoffset() is None:
            fail(where, "datetime without a UTC offset (Neo4j LocalDateTime is not supported)")
        return value
    if isinstance(value, date):
        return value
    kind = scalar_kind(value)
    if kind is None:
        hint = " (convert neo4j.time values with app.stores.graph.to_native())" if hasattr(value, "to_native") else ""
        fail(where, f"unsupported value type {type(value).__name__}{hint}")
    return _validated_scalar(value, kind, where)


def _validated_scalar(value: Any, kind: str, where: str) -> str | int | float | bool:
    if kind == "boolean":
        return bool(value)
    if kind == "long":
        number = int(value)
        if not _INT64_MIN <= number <= _INT64_MAX:
            fail(where, f"integer {number} is outside the 64-bit range")
        return number
    if kind == "double":
        return float(value)
    return _plain_str(value, where)


def _validated_list(values: list[object], where: str) -> PropertyValue:
    kinds: set[str] = set()
    items: list[Any] = []
    for i, item in enumerate(values):
        kind = scalar_kind(item)
        if kind is None:
            fail(f"{where}[{i}]", f"unsupported list element type {type(item).__name__}")
        kinds.add(kind)
        items.append(_validated_scalar(item, kind, f"{where}[{i}]"))
    if len(kinds) > 1:
        fail(where, f"list mixes element types {', '.join(sorted(kinds))} (Neo4j lists are homogeneous)")
    return items


# --- temporal text, shared by both formats --------------------------------------------------------

_ZONED = re.compile(r"(?P<iso>[^\[\]]+)(?:\[(?P<zone>[^\[\]]+)\])?")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def format_datetime(value: datetime) -> str:
    text = datetime.isoformat(value)
    zone = getattr(value.tzinfo, "key", None) or getattr(value.tzinfo, "zone", None)  # zoneinfo, pytz
    return f"{text}[{zone}]" if isinstance(zone, str) and zone != "UTC" else text


def parse_datetime(text: str, where: str) -> datetime:
    match = _ZONED.fullmatch(text)
    if match is None:
        fail(where, f"invalid datetime {text!r}")
    try:
        value = datetime.fromisoformat(match["iso"])
    except ValueError:
        fail(where, f"invalid datetime {text!r}")
    if value.utcoffset() is None:
        fail(where, f"datetime {text!r} has no UTC offset")
    if match["zone"] is None:
        return value
    try:
        return value.astimezone(ZoneInfo(match["zone"]))
    except (ZoneInfoNotFoundError, ValueError):
        fail(where, f"unknown time zone {match['zone']!r}")


def parse_date(text: str, where: str) -> date:
    if _ISO_DATE.fullmatch(text):
        try:
            return date.fromisoformat(text)
        except ValueError:
            pass
    fail(where, f"invalid date {text!r}")
