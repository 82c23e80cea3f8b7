"""Snapshot format of one namespace of the memory graph, in JSON and in GraphML, both lossless.

A snapshot is the backup and suspend/resume format: every node (labels, properties) and every
relationship (type, endpoints, properties) of one namespace. Both encodings give back every value
exactly, type included (1 stays an int, 1.0 a float, True a bool). `canonical` orders a snapshot so
that two snapshots compare equal regardless of order.

Values are what Neo4j stores and this graph uses: str, int (64-bit), float (NaN and infinities
included), bool, timezone-aware datetime, date, and homogeneous lists of str/int/float/bool (empty
lists too). The caller converts `neo4j.time` values first (`app.stores.graph.to_native`); the driver's conversion
keeps microseconds, so sub-microsecond digits are gone before a snapshot exists. Other Neo4j types
(LocalDateTime, Time, Duration, Point, lists of temporals) are refused, never exported lossily.

Datetimes are ISO 8601 with microseconds (when non-zero) and the UTC offset. A named time zone
(zoneinfo `key` or pytz `zone`, except plain UTC) follows in brackets as Neo4j prints it,
`2024-07-01T09:30:00+02:00[Europe/Berlin]`; reading takes the instant from the offset and the zone
from the brackets.

JSON: `{"format": "hippograph-namespace", "version": 1, "namespace", "nodes", "relationships"}`.
JSON-native values stay as they are; the others are one-key objects `{"$datetime": "..."}`,
`{"$date": "2024-05-10"}` and `{"$float": "NaN" | "Infinity" | "-Infinity"}`. A property value is
never an object, so the tags cannot be confused with data. Object keys must be unique.

GraphML follows Neo4j APOC's export (`apoc.export.graphml` with `useTypes`), so tools that read
APOC's GraphML read this too (tested with networkx):
- one `<graph id="<namespace>" edgedefault="directed">`, marked with `hg:format` and `hg:version`;
- `<node id="<node id>" labels=":A:B">` with data key `labels` holding `:A:B` (no labels: empty);
- `<edge source=".." target=".." label="TYPE">` with data key `label` holding the type;
- one `<key>` per (domain, property name, value kind): attr.type `boolean`, `long` (ints are
  64-bit), `double` or `string`; a list is a JSON array on a `string` key whose `attr.list` names
  the element type (an empty list goes to its name's most frequent list key, else a string list);
  datetimes and dates are ISO strings on `string` keys marked `hg:type="datetime"|"date"`;
- the extension attributes live in `xmlns:hg="https://hippograph.dev/graphml"`; tools skip them.

Mixed types under one property name (Neo4j allows them; APOC degrades them to strings) get one key
per kind: the most frequent kind keeps the plain `attr.name`, the others are named `<name>.<kind>`
(`score.long`, `tags.string-list`) with `hg:name="<name>"` carrying the property name. Tools see
distinct, consistently typed columns, and reading is exact. A property named like the reserved
`labels` (nodes) or `label` (edges) key is renamed the same way.

XML cannot carry every string. A carriage return in text would be read back as a newline, so it is
written as `&#13;`; a string with characters XML 1.0 forbids (most C0 controls, U+FFFE, U+FFFF) is
written as an ASCII JSON string literal on a `<data hg:encoding="json">`. Node ids, labels,
relationship types, property names and the namespace must be XML-representable, and labels cannot
contain `:` (the separator of `:A:B`); GraphML encoding refuses them.

Decoding validates and raises `SnapshotFormatError` naming the place in JSON-path style
(`nodes[3].labels: missing`, `relationships[2].target: unknown node 'x'`,
`unsupported format version 2`); for GraphML, `nodes[i]`/`relationships[i]` count `<node>`/`<edge>`
elements in document order. Encoding runs the same validation, so nothing that cannot be read back
is written.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, NoReturn, TypeAlias
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.domain.inputs import OutOfRangeInt, parse_json_int

__all__ = [
    "FORMAT",
    "GRAPHML_NS",
    "HG_NS",
    "VERSION",
    "PropertyValue",
    "Snapshot",
    "SnapshotFormatError",
    "SnapshotNode",
    "SnapshotRelationship",
    "canonical",
    "graphml_chunks",
    "json_chunks",
    "snapshot_from_graphml",
    "snapshot_from_json",
    "snapshot_to_graphml",
    "snapshot_to_json",
]

FORMAT = "hippograph-namespace"
VERSION = 1
GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"
HG_NS = "https://hippograph.dev/graphml"
_XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
_SCHEMA_LOCATION = f"{GRAPHML_NS} http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd"

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
_XML_ILLEGAL = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _fail(where: str, problem: str) -> NoReturn:
    raise SnapshotFormatError(f"{where}: {problem}" if where else problem)


def _scalar_kind(value: object) -> str | None:
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


def _validated(snapshot: Snapshot) -> Snapshot:
    """The snapshot with plain value types (str for a StrEnum member, ...), or SnapshotFormatError."""
    namespace = _name(snapshot.namespace, "namespace")
    nodes = tuple(_validated_node(node, f"nodes[{i}]") for i, node in enumerate(snapshot.nodes))
    node_ids: set[str] = set()
    for i, node in enumerate(nodes):
        if node.id in node_ids:
            _fail(f"nodes[{i}].id", f"duplicate node id {node.id!r}")
        node_ids.add(node.id)
    relationships = tuple(
        _validated_relationship(rel, f"relationships[{i}]", node_ids) for i, rel in enumerate(snapshot.relationships)
    )
    return Snapshot(namespace, nodes, relationships)


def _validated_node(node: SnapshotNode, where: str) -> SnapshotNode:
    node_id = _name(node.id, f"{where}.id")
    if not isinstance(node.labels, tuple | list):
        _fail(f"{where}.labels", f"expected a tuple of labels, got {type(node.labels).__name__}")
    labels = tuple(_name(label, f"{where}.labels[{j}]") for j, label in enumerate(node.labels))
    properties = _validated_properties(node.properties, where)
    if "id" in properties and properties["id"] != node_id:
        _fail(f"{where}.properties['id']", f"{properties['id']!r} differs from the node id {node_id!r}")
    return SnapshotNode(node_id, labels, properties)


def _validated_relationship(
    rel: SnapshotRelationship, where: str, node_ids: set[str] | None
) -> SnapshotRelationship:
    """`node_ids` None: the endpoints are the caller's to guarantee (a streamed export)."""
    rel_type = _name(rel.type, f"{where}.type")
    source = _name(rel.source, f"{where}.source")
    target = _name(rel.target, f"{where}.target")
    for end, node_id in (("source", source), ("target", target)):
        if node_ids is not None and node_id not in node_ids:
            _fail(f"{where}.{end}", f"unknown node {node_id!r}")
    return SnapshotRelationship(rel_type, source, target, _validated_properties(rel.properties, where))


def _name(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        _fail(where, f"expected a non-empty string, got {value!r}")
    return _plain_str(value, where)


def _plain_str(value: str, where: str) -> str:
    if _SURROGATE.search(value):
        _fail(where, "string contains a lone surrogate (not encodable as UTF-8)")
    return str.__str__(value)  # a plain str, also for str subclasses such as StrEnum members


def _validated_properties(properties: object, where: str) -> dict[str, PropertyValue]:
    if not isinstance(properties, Mapping):
        _fail(f"{where}.properties", f"expected a mapping, got {type(properties).__name__}")
    checked: dict[str, PropertyValue] = {}
    for name, value in properties.items():
        if not isinstance(name, str) or not name:
            _fail(f"{where}.properties", f"invalid property name {name!r}")
        path = f"{where}.properties[{name!r}]"
        checked[_plain_str(name, path)] = _validated_value(value, path)
    return checked


def _validated_value(value: object, where: str) -> PropertyValue:
    if isinstance(value, list):
        return _validated_list(value, where)
    if isinstance(value, datetime):
        if value.utcoffset() is None:
            _fail(where, "datetime without a UTC offset (Neo4j LocalDateTime is not supported)")
        return value
    if isinstance(value, date):
        return value
    kind = _scalar_kind(value)
    if kind is None:
        hint = " (convert neo4j.time values with app.stores.graph.to_native())" if hasattr(value, "to_native") else ""
        _fail(where, f"unsupported value type {type(value).__name__}{hint}")
    return _validated_scalar(value, kind, where)


def _validated_scalar(value: Any, kind: str, where: str) -> str | int | float | bool:
    if kind == "boolean":
        return bool(value)
    if kind == "long":
        number = int(value)
        if not _INT64_MIN <= number <= _INT64_MAX:
            _fail(where, f"integer {number} is outside the 64-bit range")
        return number
    if kind == "double":
        return float(value)
    return _plain_str(value, where)


def _validated_list(values: list[object], where: str) -> PropertyValue:
    kinds: set[str] = set()
    items: list[Any] = []
    for i, item in enumerate(values):
        kind = _scalar_kind(item)
        if kind is None:
            _fail(f"{where}[{i}]", f"unsupported list element type {type(item).__name__}")
        kinds.add(kind)
        items.append(_validated_scalar(item, kind, f"{where}[{i}]"))
    if len(kinds) > 1:
        _fail(where, f"list mixes element types {', '.join(sorted(kinds))} (Neo4j lists are homogeneous)")
    return items


# --- temporal text, shared by both formats --------------------------------------------------------

_ZONED = re.compile(r"(?P<iso>[^\[\]]+)(?:\[(?P<zone>[^\[\]]+)\])?")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _format_datetime(value: datetime) -> str:
    text = datetime.isoformat(value)
    zone = getattr(value.tzinfo, "key", None) or getattr(value.tzinfo, "zone", None)  # zoneinfo, pytz
    return f"{text}[{zone}]" if isinstance(zone, str) and zone != "UTC" else text


def _parse_datetime(text: str, where: str) -> datetime:
    match = _ZONED.fullmatch(text)
    if match is None:
        _fail(where, f"invalid datetime {text!r}")
    try:
        value = datetime.fromisoformat(match["iso"])
    except ValueError:
        _fail(where, f"invalid datetime {text!r}")
    if value.utcoffset() is None:
        _fail(where, f"datetime {text!r} has no UTC offset")
    if match["zone"] is None:
        return value
    try:
        return value.astimezone(ZoneInfo(match["zone"]))
    except (ZoneInfoNotFoundError, ValueError):
        _fail(where, f"unknown time zone {match['zone']!r}")


def _parse_date(text: str, where: str) -> date:
    if _ISO_DATE.fullmatch(text):
        try:
            return date.fromisoformat(text)
        except ValueError:
            pass
    _fail(where, f"invalid date {text!r}")


# --- JSON ----------------------------------------------------------------------------------------

_JSON_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_JSON_TYPES: dict[str, type] = {"string": str, "array": list, "object": dict}


def snapshot_to_json(snapshot: Snapshot) -> str:
    s = _validated(snapshot)
    return "".join(json_chunks(s.namespace, s.nodes, s.relationships))


def json_chunks(
    namespace: str, nodes: Iterable[SnapshotNode], relationships: Iterable[SnapshotRelationship]
) -> Iterator[str]:
    """The JSON encoding piece by piece, one pass, in memory bounded by the largest node: each node
    and relationship is validated on its own; unique node ids and known endpoints are the caller's
    to guarantee (`snapshot_to_json` checks them, an export reads them from the graph)."""
    head = {"format": FORMAT, "version": VERSION, "namespace": _name(namespace, "namespace")}
    yield _json_text(head)[: -len("\n}")] + ',\n  "nodes": '
    yield from _json_array(_json_node(_validated_node(n, f"nodes[{i}]")) for i, n in enumerate(nodes))
    yield ',\n  "relationships": '
    yield from _json_array(
        _json_relationship(_validated_relationship(r, f"relationships[{i}]", None))
        for i, r in enumerate(relationships)
    )
    yield "\n}\n"


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=2)


def _json_array(items: Iterable[dict[str, Any]]) -> Iterator[str]:
    """A JSON array at the document's second level, as `json.dumps(indent=2)` lays it out."""
    separator = "[\n    "
    for item in items:
        yield separator + _json_text(item).replace("\n", "\n    ")
        separator = ",\n    "
    yield "[]" if separator.startswith("[") else "\n  ]"


def _json_node(n: SnapshotNode) -> dict[str, Any]:
    return {"id": n.id, "labels": list(n.labels), "properties": _json_properties(n.properties)}


def _json_relationship(r: SnapshotRelationship) -> dict[str, Any]:
    return {"type": r.type, "source": r.source, "target": r.target, "properties": _json_properties(r.properties)}


def _json_properties(properties: Mapping[str, PropertyValue]) -> dict[str, Any]:
    return {name: _json_value(value) for name, value in properties.items()}


def _json_value(value: PropertyValue) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    if isinstance(value, datetime):
        return {"$datetime": _format_datetime(value)}
    if isinstance(value, date):
        return {"$date": date.isoformat(value)}
    if isinstance(value, list):
        return [_json_value(item) for item in value]
    return value


def snapshot_from_json(text: str | bytes) -> Snapshot:
    document = _load_json(text)
    if not isinstance(document, dict):
        _fail("document", f"expected an object, got {_json_type(document)}")
    if "format" not in document:
        _fail("format", "missing")
    if document["format"] != FORMAT:
        _fail("", f"unsupported format {document['format']!r}")
    if "version" not in document:
        _fail("version", "missing")
    version = document["version"]
    if type(version) is not int or version != VERSION:
        _fail("", f"unsupported format version {version!r}")
    _no_unknown_fields(document, {"format", "version", "namespace", "nodes", "relationships"}, "document")
    namespace = _member(document, "namespace", "", "string")
    nodes = tuple(_node_from_json(raw, f"nodes[{i}]") for i, raw in enumerate(_member(document, "nodes", "", "array")))
    relationships = tuple(
        _relationship_from_json(raw, f"relationships[{i}]")
        for i, raw in enumerate(_member(document, "relationships", "", "array"))
    )
    return _validated(Snapshot(namespace, nodes, relationships))


def _load_json(text: str | bytes) -> Any:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise SnapshotFormatError(f"not UTF-8: {error}") from error
    try:
        document = json.loads(
            text, object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_int=parse_json_int
        )
    except json.JSONDecodeError as error:
        raise SnapshotFormatError(f"not valid JSON: {error}") from error
    except RecursionError:  # the C decoder stops at the interpreter's recursion limit (~1000 levels)
        raise SnapshotFormatError("not a snapshot: JSON nested about 1000 levels deep") from None
    return document  # an integer too long to be 64-bit is an OutOfRangeInt: refused where it is read


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            _fail("", f"duplicate key {key!r} in a JSON object")
        obj[key] = value
    return obj


def _no_constant(token: str) -> NoReturn:
    _fail("", f'{token} is not valid JSON; non-finite floats are written {{"$float": "{token}"}}')


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return next((name for name, kind in _JSON_TYPES.items() if isinstance(value, kind)), type(value).__name__)


def _member(obj: dict[str, Any], name: str, where: str, json_type: str) -> Any:
    path = f"{where}.{name}" if where else name
    if name not in obj:
        _fail(path, "missing")
    value = obj[name]
    if not isinstance(value, _JSON_TYPES[json_type]):
        _fail(path, f"expected {json_type}, got {_json_type(value)}")
    return value


def _no_unknown_fields(obj: dict[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(obj) - known)
    if unknown:
        _fail(where, f"unknown field {unknown[0]!r}")


def _json_object(raw: object, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        _fail(where, f"expected object, got {_json_type(raw)}")
    return raw


def _node_from_json(raw: object, where: str) -> SnapshotNode:
    obj = _json_object(raw, where)
    _no_unknown_fields(obj, {"id", "labels", "properties"}, where)
    node_id = _member(obj, "id", where, "string")
    labels = tuple(_member(obj, "labels", where, "array"))
    return SnapshotNode(node_id, labels, _properties_from_json(obj, where))


def _relationship_from_json(raw: object, where: str) -> SnapshotRelationship:
    obj = _json_object(raw, where)
    _no_unknown_fields(obj, {"type", "source", "target", "properties"}, where)
    rel_type = _member(obj, "type", where, "string")
    source = _member(obj, "source", where, "string")
    target = _member(obj, "target", where, "string")
    return SnapshotRelationship(rel_type, source, target, _properties_from_json(obj, where))


def _properties_from_json(obj: dict[str, Any], where: str) -> dict[str, PropertyValue]:
    raw = _member(obj, "properties", where, "object")
    return {name: _value_from_json(value, f"{where}.properties[{name!r}]") for name, value in raw.items()}


def _value_from_json(raw: object, where: str) -> Any:
    """Tags become typed values; the shape of lists and scalars is checked by `_validated`."""
    if raw is None:
        _fail(where, "null is not a property value")
    if isinstance(raw, list):
        return [_list_item_from_json(item, f"{where}[{i}]") for i, item in enumerate(raw)]
    if isinstance(raw, OutOfRangeInt):
        _fail(where, f"integer of {raw.digits} digits is outside the 64-bit range")
    if not isinstance(raw, dict):
        return raw
    if len(raw) != 1 or not isinstance(next(iter(raw.values())), str):
        _fail(where, 'expected a value or one of {"$datetime": str}, {"$date": str}, {"$float": str}')
    ((tag, text),) = raw.items()
    if tag == "$datetime":
        return _parse_datetime(text, where)
    if tag == "$date":
        return _parse_date(text, where)
    if tag == "$float" and text in _JSON_FLOATS:
        return _JSON_FLOATS[text]
    _fail(where, f"unknown tagged value {tag!r}: {text!r}")


def _list_item_from_json(raw: object, where: str) -> Any:
    # A list holds scalars only: refused here, a list of lists ~1000 deep would exhaust the stack.
    if isinstance(raw, list):
        _fail(where, "a list inside a list is not a property value")
    return _value_from_json(raw, where)


# --- GraphML: writing ----------------------------------------------------------------------------

_TEMPORAL_KINDS = ("datetime", "date")
_RESERVED_KEYS = {"node": "labels", "edge": "label"}


@dataclass(frozen=True, order=True)
class _Kind:
    scalar: str  # boolean | long | double | string | datetime | date
    is_list: bool = False

    @property
    def suffix(self) -> str:
        return f"{self.scalar}-list" if self.is_list else self.scalar


_EMPTY_LIST_DEFAULT = _Kind("string", is_list=True)


def _kind_of(value: PropertyValue) -> _Kind | None:
    """None for an empty list, whose element type is unknown."""
    if isinstance(value, list):
        return _Kind(_scalar_kind(value[0]) or "string", is_list=True) if value else None
    if isinstance(value, datetime):
        return _Kind("datetime")
    if isinstance(value, date):
        return _Kind("date")
    return _Kind(_scalar_kind(value) or "string")


@dataclass(frozen=True)
class _Key:
    id: str
    name: str
    attr_name: str
    kind: _Kind


class _KeyPlan:
    """The `<key>`s of one domain: one per (property name, kind), as the module docstring says."""

    def __init__(self, domain: str, property_maps: Iterable[Mapping[str, PropertyValue]]) -> None:
        counts: dict[str, Counter[_Kind]] = {}
        empty_lists: Counter[str] = Counter()
        for properties in property_maps:
            for name, value in properties.items():
                kind = _kind_of(value)
                if kind is None:
                    empty_lists[name] += 1
                else:
                    counts.setdefault(name, Counter())[kind] += 1
        self._empty_list_kind: dict[str, _Kind] = {}
        for name, count in empty_lists.items():
            kinds = counts.setdefault(name, Counter())
            list_kinds = sorted((k for k in kinds if k.is_list), key=lambda k: (-kinds[k], k))
            self._empty_list_kind[name] = list_kinds[0] if list_kinds else _EMPTY_LIST_DEFAULT
            kinds[self._empty_list_kind[name]] += count
        ranked = {name: sorted(kinds, key=lambda k: (-kinds[k], k)) for name, kinds in sorted(counts.items())}
        self.keys = self._declare(domain, ranked)
        self._by_kind = {(key.name, key.kind): key for key in self.keys}

    @staticmethod
    def _declare(domain: str, ranked: dict[str, list[_Kind]]) -> list[_Key]:
        reserved = _RESERVED_KEYS[domain]
        used = {reserved}
        attr_names: dict[tuple[str, _Kind], str] = {}
        # Plain names first, so that a suffixed name never takes a real property's plain name.
        for name, kinds in ranked.items():
            if name != reserved:
                attr_names[(name, kinds[0])] = name
                used.add(name)
        for name, kinds in ranked.items():
            for kind in kinds:
                if (name, kind) not in attr_names:
                    attr_names[(name, kind)] = _unused(f"{name}.{kind.suffix}", used)
        prefix = domain[0]
        return [
            _Key(f"{prefix}{i}", name, attr_names[(name, kind)], kind)
            for i, (name, kind) in enumerate((name, kind) for name, kinds in ranked.items() for kind in kinds)
        ]

    def key_for(self, name: str, value: PropertyValue) -> _Key:
        kind = _kind_of(value) or self._empty_list_kind.get(name, _EMPTY_LIST_DEFAULT)
        key = self._by_kind.get((name, kind))
        if key is None:  # only a streamed source read twice can get here
            _fail(f"properties[{name!r}]", f"a {kind.suffix} value the key plan did not see (the data changed)")
        return key


def _unused(candidate: str, used: set[str]) -> str:
    name, n = candidate, 2
    while name in used:
        name, n = f"{candidate}.{n}", n + 1
    used.add(name)
    return name


def snapshot_to_graphml(snapshot: Snapshot) -> str:
    """Standard GraphML, UTF-8 when written out (the declaration says so)."""
    s = _validated(snapshot)
    return "".join(graphml_chunks(s.namespace, lambda: s.nodes, lambda: s.relationships))


_GRAPH_BODY = "\x00graph body\x00"  # a placeholder no XML text can contain


def graphml_chunks(
    namespace: str,
    nodes: Callable[[], Iterable[SnapshotNode]],
    relationships: Callable[[], Iterable[SnapshotRelationship]],
) -> Iterator[str]:
    """The GraphML encoding piece by piece, in memory bounded by the largest node and the number of
    distinct property names. GraphML declares every `<key>` before the graph, so each source is read
    twice (called once per pass): the first pass plans the keys, the second writes. Validation is per
    item, as for `json_chunks`. A property whose kind the first pass did not see (the data changed
    between the passes) stops the encoding with SnapshotFormatError rather than write it wrongly."""
    namespace = _name(namespace, "namespace")
    _xml_text(namespace, "namespace")
    node_keys = _KeyPlan("node", (n.properties for n in _graphml_nodes(nodes())))
    edge_keys = _KeyPlan("edge", (r.properties for r in _graphml_relationships(relationships())))
    # Namespace declarations as plain attributes: ElementTree's global prefix registry stays untouched.
    root = ET.Element(
        "graphml",
        {"xmlns": GRAPHML_NS, "xmlns:xsi": _XSI_NS, "xmlns:hg": HG_NS, "xsi:schemaLocation": _SCHEMA_LOCATION},
    )
    for domain, plan in (("node", node_keys), ("edge", edge_keys)):
        reserved = _RESERVED_KEYS[domain]
        ET.SubElement(root, "key", {"id": reserved, "for": domain, "attr.name": reserved, "attr.type": "string"})
        for key in plan.keys:
            ET.SubElement(root, "key", _key_attributes(key, domain))
    graph = ET.SubElement(
        root,
        "graph",
        {"id": namespace, "edgedefault": "directed", "hg:format": FORMAT, "hg:version": str(VERSION)},
    )
    graph.text = _GRAPH_BODY
    head, tail = _xml(root).split(_GRAPH_BODY)
    yield f'<?xml version="1.0" encoding="UTF-8"?>\n{head}'
    for node in _graphml_nodes(nodes()):
        yield "\n    " + _xml(_node_element(node, node_keys), level=2)
    for rel in _graphml_relationships(relationships()):
        yield "\n    " + _xml(_edge_element(rel, edge_keys), level=2)
    yield f"\n  {tail}\n"


def _xml(element: ET.Element, level: int = 0) -> str:
    ET.indent(element, level=level)
    # A raw CR in text would be read back as LF; attributes already have theirs escaped by ElementTree.
    return ET.tostring(element, encoding="unicode").replace("\r", "&#13;")


def _graphml_nodes(nodes: Iterable[SnapshotNode]) -> Iterator[SnapshotNode]:
    for i, raw in enumerate(nodes):
        node = _validated_node(raw, f"nodes[{i}]")
        _xml_text(node.id, f"nodes[{i}].id")
        for j, label in enumerate(node.labels):
            _xml_text(label, f"nodes[{i}].labels[{j}]")
            if ":" in label:
                _fail(f"nodes[{i}].labels[{j}]", f"label {label!r} contains ':', which GraphML labels cannot carry")
        for name in node.properties:
            _xml_text(name, f"nodes[{i}].properties[{name!r}]")
        yield node


def _graphml_relationships(relationships: Iterable[SnapshotRelationship]) -> Iterator[SnapshotRelationship]:
    for i, raw in enumerate(relationships):
        rel = _validated_relationship(raw, f"relationships[{i}]", None)
        _xml_text(rel.type, f"relationships[{i}].type")
        for name in rel.properties:
            _xml_text(name, f"relationships[{i}].properties[{name!r}]")
        yield rel


def _xml_text(text: str, where: str) -> None:
    if _XML_ILLEGAL.search(text):
        _fail(where, f"{text!r} contains characters XML 1.0 cannot carry")


def _key_attributes(key: _Key, domain: str) -> dict[str, str]:
    attributes = {"id": key.id, "for": domain, "attr.name": key.attr_name}
    if key.kind.is_list:
        attributes |= {"attr.type": "string", "attr.list": key.kind.scalar}
    elif key.kind.scalar in _TEMPORAL_KINDS:
        attributes |= {"attr.type": "string", "hg:type": key.kind.scalar}
    else:
        attributes["attr.type"] = key.kind.scalar
    if key.attr_name != key.name:
        attributes["hg:name"] = key.name
    return attributes


def _labels_text(labels: tuple[str, ...]) -> str:
    return "".join(f":{label}" for label in labels)


def _node_element(node: SnapshotNode, keys: _KeyPlan) -> ET.Element:
    labels = _labels_text(node.labels)
    element = ET.Element("node", {"id": node.id} | ({"labels": labels} if labels else {}))
    ET.SubElement(element, "data", {"key": "labels"}).text = labels
    for name, value in node.properties.items():
        _add_data(element, keys.key_for(name, value).id, value)
    return element


def _edge_element(rel: SnapshotRelationship, keys: _KeyPlan) -> ET.Element:
    element = ET.Element("edge", {"source": rel.source, "target": rel.target, "label": rel.type})
    ET.SubElement(element, "data", {"key": "label"}).text = rel.type
    for name, value in rel.properties.items():
        _add_data(element, keys.key_for(name, value).id, value)
    return element


def _add_data(parent: ET.Element, key_id: str, value: PropertyValue) -> None:
    data = ET.SubElement(parent, "data", {"key": key_id})
    if isinstance(value, str) and _XML_ILLEGAL.search(value):
        data.set("hg:encoding", "json")
        data.text = json.dumps(value)  # ASCII escapes make every character representable
    else:
        data.text = _graphml_text(value)


def _graphml_text(value: PropertyValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _xsd_double(value)
    if isinstance(value, str):
        return value
    if isinstance(value, datetime):
        return _format_datetime(value)
    if isinstance(value, date):
        return date.isoformat(value)
    text = json.dumps(value, ensure_ascii=False)
    return json.dumps(value) if _XML_ILLEGAL.search(text) else text


def _xsd_double(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "INF" if value > 0 else "-INF"
    return repr(value)  # the shortest text that reads back as the same float


# --- GraphML: reading ----------------------------------------------------------------------------

_G = f"{{{GRAPHML_NS}}}"
_H = f"{{{HG_NS}}}"
_GRAPHML_TYPES = {
    "boolean": "boolean",
    "int": "long",
    "long": "long",
    "float": "double",
    "double": "double",
    "string": "string",
}
_BOOLEANS = {"true": True, "false": False, "1": True, "0": False}
_LONG = re.compile(r"[+-]?[0-9]+")
_DOUBLE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# XSD spells them INF, -INF and NaN; Python and networkx write inf and nan.
_SPECIAL_DOUBLES = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan}


@dataclass(frozen=True)
class _KeyDecl:
    domain: str  # node | edge
    reserved: bool  # the labels (node) or type (edge) key
    name: str
    kind: _Kind


class _NoDoctype(ET.TreeBuilder):
    # A snapshot never has a DTD; refusing one rules out entity tricks.
    def doctype(self, name: str, pubid: str, system: str) -> None:
        raise SnapshotFormatError("DOCTYPE declarations are not allowed")


def snapshot_from_graphml(text: str | bytes) -> Snapshot:
    root = _parse_xml(text)
    if root.tag != f"{_G}graphml":
        _fail("", f"not GraphML: the root element is {root.tag!r}, expected <graphml> in {GRAPHML_NS}")
    graph = _single_graph(root)
    _check_graph_format(graph)
    namespace = graph.get("id")
    if namespace is None:
        _fail("graph.id", "missing (it holds the namespace)")
    keys = _read_keys(root)
    nodes: list[SnapshotNode] = []
    relationships: list[SnapshotRelationship] = []
    for child in graph:
        local = _graphml_local(child.tag)
        if local == "node":
            nodes.append(_read_node(child, f"nodes[{len(nodes)}]", keys))
        elif local == "edge":
            relationships.append(_read_edge(child, f"relationships[{len(relationships)}]", keys))
        elif local not in (None, "desc"):
            _fail("graph", f"<{local}> is not supported")
    return _validated(Snapshot(namespace, tuple(nodes), tuple(relationships)))


def _parse_xml(text: str | bytes) -> ET.Element:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise SnapshotFormatError(f"not UTF-8: {error}") from error
    parser = ET.XMLParser(target=_NoDoctype())
    try:
        parser.feed(text)
        root: ET.Element = parser.close()
    except ET.ParseError as error:
        raise SnapshotFormatError(f"ill-formed XML: {error}") from error
    except UnicodeError as error:
        raise SnapshotFormatError(f"not encodable text: {error}") from error
    return root


def _graphml_local(tag: str) -> str | None:
    """The local name of an element in the GraphML namespace; None for extension elements."""
    return tag[len(_G) :] if tag.startswith(_G) else None


def _single_graph(root: ET.Element) -> ET.Element:
    graphs = [child for child in root if child.tag == f"{_G}graph"]
    if len(graphs) != 1:
        _fail("", f"expected exactly one <graph>, found {len(graphs)}")
    for child in root:
        if _graphml_local(child.tag) not in (None, "key", "graph", "desc"):
            _fail("graphml", f"<{_graphml_local(child.tag)}> is not supported")
    return graphs[0]


def _check_graph_format(graph: ET.Element) -> None:
    fmt = graph.get(f"{_H}format")
    if fmt is None:
        _fail("graph", "hg:format missing (not a Hippograph snapshot)")
    if fmt != FORMAT:
        _fail("", f"unsupported format {fmt!r}")
    version = graph.get(f"{_H}version")
    if version is None:
        _fail("graph", "hg:version missing")
    if version != str(VERSION):
        _fail("", f"unsupported format version {version}")
    if graph.get("edgedefault") != "directed":
        _fail("graph", f"edgedefault must be 'directed', got {graph.get('edgedefault')!r}")


def _read_keys(root: ET.Element) -> dict[str, _KeyDecl]:
    keys: dict[str, _KeyDecl] = {}
    for i, element in enumerate(root.iterfind(f"{_G}key")):
        key_id = element.get("id")
        if not key_id:
            _fail(f"keys[{i}].id", "missing")
        if key_id in keys:
            _fail(f"key {key_id!r}", "declared twice")
        keys[key_id] = _read_key(element, f"key {key_id!r}")
    return keys


def _read_key(element: ET.Element, where: str) -> _KeyDecl:
    domain = element.get("for")
    if domain not in _RESERVED_KEYS:
        _fail(where, f"unsupported domain {domain!r} (expected 'node' or 'edge')")
    attr_name = element.get("attr.name")
    if attr_name is None:
        _fail(where, "attr.name missing")
    if element.find(f"{_G}default") is not None:
        _fail(where, "<default> values are not supported")
    kind = _declared_kind(element, where)
    name = element.get(f"{_H}name")
    if name is None and attr_name == _RESERVED_KEYS[domain]:
        if kind != _Kind("string"):
            _fail(where, f"the {attr_name} key must have attr.type 'string'")
        return _KeyDecl(domain, True, attr_name, kind)
    return _KeyDecl(domain, False, attr_name if name is None else name, kind)


def _declared_kind(element: ET.Element, where: str) -> _Kind:
    attr_type = element.get("attr.type", "string")  # GraphML's default
    list_type = element.get("attr.list")
    hg_type = element.get(f"{_H}type")
    if attr_type not in _GRAPHML_TYPES:
        _fail(where, f"unsupported attr.type {attr_type!r}")
    if list_type is not None:
        if list_type not in _GRAPHML_TYPES or attr_type != "string" or hg_type is not None:
            _fail(where, f"unsupported list key (attr.type {attr_type!r}, attr.list {list_type!r})")
        return _Kind(_GRAPHML_TYPES[list_type], is_list=True)
    if hg_type is not None:
        if hg_type not in _TEMPORAL_KINDS or attr_type != "string":
            _fail(where, f"unsupported hg:type {hg_type!r} on attr.type {attr_type!r}")
        return _Kind(hg_type)
    return _Kind(_GRAPHML_TYPES[attr_type])


def _read_node(element: ET.Element, where: str, keys: dict[str, _KeyDecl]) -> SnapshotNode:
    node_id = element.get("id")
    if node_id is None:
        _fail(f"{where}.id", "missing")
    labels, properties = _read_data(element, where, "node", keys)
    if labels is None:
        _fail(f"{where}.labels", "missing")
    _same_as_attribute(element, "labels", labels, f"{where}.labels")
    return SnapshotNode(node_id, _parse_labels(labels, f"{where}.labels"), properties)


def _read_edge(element: ET.Element, where: str, keys: dict[str, _KeyDecl]) -> SnapshotRelationship:
    source, target = element.get("source"), element.get("target")
    if source is None:
        _fail(f"{where}.source", "missing")
    if target is None:
        _fail(f"{where}.target", "missing")
    if element.get("directed", "true") != "true":
        _fail(where, "undirected edges are not supported")
    rel_type, properties = _read_data(element, where, "edge", keys)
    if rel_type is None:
        _fail(f"{where}.type", "missing")
    _same_as_attribute(element, "label", rel_type, f"{where}.type")
    return SnapshotRelationship(rel_type, source, target, properties)


def _same_as_attribute(element: ET.Element, attribute: str, data: str, where: str) -> None:
    # APOC writes labels/type twice, as attribute and as data; an edit to one alone is an error.
    value = element.get(attribute)
    if value is not None and value != data:
        _fail(where, f"{attribute} attribute {value!r} differs from its data {data!r}")


def _read_data(
    element: ET.Element, where: str, domain: str, keys: dict[str, _KeyDecl]
) -> tuple[str | None, dict[str, PropertyValue]]:
    """The text of the reserved key (labels or type), if given, and the properties."""
    reserved: str | None = None
    properties: dict[str, PropertyValue] = {}
    for child in element:
        local = _graphml_local(child.tag)
        if local in (None, "desc"):
            continue
        if local != "data":
            _fail(where, f"<{local}> is not supported")
        key_id = child.get("key")
        decl = keys.get(key_id) if key_id else None
        if decl is None or decl.domain != domain:
            _fail(where, f"data key {key_id!r} is not declared for {domain}s")
        if decl.reserved:
            path = f"{where}.{'labels' if domain == 'node' else 'type'}"
            if reserved is not None:
                _fail(path, "given twice")
            reserved = _data_text(child, path)
        else:
            path = f"{where}.properties[{decl.name!r}]"
            if decl.name in properties:
                _fail(path, "given twice")
            properties[decl.name] = _parse_data(child, decl.kind, path)
    return reserved, properties


def _data_text(data: ET.Element, where: str) -> str:
    if len(data):
        _fail(where, "unexpected child elements in <data>")
    return data.text or ""


def _parse_labels(text: str, where: str) -> tuple[str, ...]:
    if not text:
        return ()
    if not text.startswith(":"):
        _fail(where, f"expected ':Label1:Label2', got {text!r}")
    return tuple(text[1:].split(":"))


def _parse_data(data: ET.Element, kind: _Kind, where: str) -> PropertyValue:
    text = _data_text(data, where)
    encoding = data.get(f"{_H}encoding")
    if encoding is not None:
        if encoding != "json" or kind != _Kind("string"):
            _fail(where, f"unsupported hg:encoding {encoding!r} on a {kind.suffix} key")
        return _json_string(text, where)
    if kind == _Kind("string"):
        return text
    text = text.strip()  # XSD collapses whitespace around non-string values
    if kind.is_list:
        return _parse_list(text, kind.scalar, where)
    return _SCALAR_PARSERS[kind.scalar](text, where)


def _json_string(text: str, where: str) -> str:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, str):
        _fail(where, f"expected a JSON string literal, got {text!r}")
    return value


def _parse_boolean(text: str, where: str) -> bool:
    if text not in _BOOLEANS:
        _fail(where, f"invalid boolean {text!r}")
    return _BOOLEANS[text]


def _parse_long(text: str, where: str) -> int:
    if not _LONG.fullmatch(text):
        _fail(where, f"invalid long {text!r}")
    if len(text.lstrip("+-").lstrip("0")) > 19:  # before int(): thousands of digits raise ValueError
        _fail(where, f"integer of {len(text)} characters is outside the 64-bit range")
    return int(text)


def _parse_double(text: str, where: str) -> float:
    special = _SPECIAL_DOUBLES.get(text.lower())
    if special is not None:
        return special
    if not _DOUBLE.fullmatch(text):
        _fail(where, f"invalid double {text!r}")
    return float(text)


_SCALAR_PARSERS: dict[str, Callable[[str, str], PropertyValue]] = {
    "boolean": _parse_boolean,
    "long": _parse_long,
    "double": _parse_double,
    "datetime": _parse_datetime,
    "date": _parse_date,
}


def _parse_list(text: str, scalar: str, where: str) -> PropertyValue:
    try:
        raw = json.loads(text, parse_int=parse_json_int)
    except json.JSONDecodeError as error:
        _fail(where, f"invalid JSON array: {error}")
    if not isinstance(raw, list):
        _fail(where, f"expected a JSON array, got {text!r}")
    return [_list_item(item, scalar, f"{where}[{i}]") for i, item in enumerate(raw)]


def _list_item(item: object, scalar: str, where: str) -> Any:
    if isinstance(item, OutOfRangeInt):  # parse_json_int kept it unconverted (thousands of digits)
        _fail(where, f"integer of {item.digits} digits is outside the 64-bit range")
    kind = _scalar_kind(item)
    if scalar == "double" and kind == "long":
        return float(item)  # type: ignore[arg-type]  # a tool may write 1 for 1.0
    if kind != scalar:
        _fail(where, f"expected a {scalar} element, got {_json_type(item)}")
    return item
