"""GraphML follows Neo4j APOC's export (`apoc.export.graphml` with `useTypes`), so tools that read
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
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime

from app.domain.snapshot.document import (
    FORMAT,
    VERSION,
    PropertyValue,
    Snapshot,
    SnapshotNode,
    SnapshotRelationship,
    checked_name,
    fail,
    format_datetime,
    scalar_kind,
    validated,
    validated_node,
    validated_relationship,
)

# --- writing -------------------------------------------------------------------------------------

GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"
HG_NS = "https://hippograph.dev/graphml"
_XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
_SCHEMA_LOCATION = f"{GRAPHML_NS} http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd"
_XML_ILLEGAL = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

TEMPORAL_KINDS = ("datetime", "date")
RESERVED_KEYS = {"node": "labels", "edge": "label"}


@dataclass(frozen=True, order=True)
class Kind:
    scalar: str  # boolean | long | double | string | datetime | date
    is_list: bool = False

    @property
    def suffix(self) -> str:
        return f"{self.scalar}-list" if self.is_list else self.scalar


_EMPTY_LIST_DEFAULT = Kind("string", is_list=True)


def _kind_of(value: PropertyValue) -> Kind | None:
    """None for an empty list, whose element type is unknown."""
    if isinstance(value, list):
        return Kind(scalar_kind(value[0]) or "string", is_list=True) if value else None
    if isinstance(value, datetime):
        return Kind("datetime")
    if isinstance(value, date):
        return Kind("date")
    return Kind(scalar_kind(value) or "string")


@dataclass(frozen=True)
class _Key:
    id: str
    name: str
    attr_name: str
    kind: Kind


class _KeyPlan:
    """The `<key>`s of one domain: one per (property name, kind), as the module docstring says."""

    def __init__(self, domain: str, property_maps: Iterable[Mapping[str, PropertyValue]]) -> None:
        counts: dict[str, Counter[Kind]] = {}
        empty_lists: Counter[str] = Counter()
        for properties in property_maps:
            for name, value in properties.items():
                kind = _kind_of(value)
                if kind is None:
                    empty_lists[name] += 1
                else:
                    counts.setdefault(name, Counter())[kind] += 1
        self._empty_list_kind: dict[str, Kind] = {}
        for name, count in empty_lists.items():
            kinds = counts.setdefault(name, Counter())
            list_kinds = sorted((k for k in kinds if k.is_list), key=lambda k: (-kinds[k], k))
            self._empty_list_kind[name] = list_kinds[0] if list_kinds else _EMPTY_LIST_DEFAULT
            kinds[self._empty_list_kind[name]] += count
        ranked = {name: sorted(kinds, key=lambda k: (-kinds[k], k)) for name, kinds in sorted(counts.items())}
        self.keys = self._declare(domain, ranked)
        self._by_kind = {(key.name, key.kind): key for key in self.keys}

    @staticmethod
    def _declare(domain: str, ranked: dict[str, list[Kind]]) -> list[_Key]:
        reserved = RESERVED_KEYS[domain]
        used = {reserved}
        attr_names: dict[tuple[str, Kind], str] = {}
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
            fail(f"properties[{name!r}]", f"a {kind.suffix} value the key plan did not see (the data changed)")
        return key


def _unused(candidate: str, used: set[str]) -> str:
    name, n = candidate, 2
    while name in used:
        name, n = f"{candidate}.{n}", n + 1
    used.add(name)
    return name


def snapshot_to_graphml(snapshot: Snapshot) -> str:
    """Standard GraphML, UTF-8 when written out (the declaration says so)."""
    s = validated(snapshot)
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
    namespace = checked_name(namespace, "namespace")
    _xml_text(namespace, "namespace")
    node_keys = _KeyPlan("node", (n.properties for n in _graphml_nodes(nodes())))
    edge_keys = _KeyPlan("edge", (r.properties for r in _graphml_relationships(relationships())))
    # Namespace declarations as plain attributes: ElementTree's global prefix registry stays untouched.
    root = ET.Element(
        "graphml",
        {"xmlns": GRAPHML_NS, "xmlns:xsi": _XSI_NS, "xmlns:hg": HG_NS, "xsi:schemaLocation": _SCHEMA_LOCATION},
    )
    for domain, plan in (("node", node_keys), ("edge", edge_keys)):
        reserved = RESERVED_KEYS[domain]
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
        node = validated_node(raw, f"nodes[{i}]")
        _xml_text(node.id, f"nodes[{i}].id")
        for j, label in enumerate(node.labels):
            _xml_text(label, f"nodes[{i}].labels[{j}]")
            if ":" in label:
                fail(f"nodes[{i}].labels[{j}]", f"label {label!r} contains ':', which GraphML labels cannot carry")
        for name in node.properties:
            _xml_text(name, f"nodes[{i}].properties[{name!r}]")
        yield node


def _graphml_relationships(relationships: Iterable[SnapshotRelationship]) -> Iterator[SnapshotRelationship]:
    for i, raw in enumerate(relationships):
        rel = validated_relationship(raw, f"relationships[{i}]", None)
        _xml_text(rel.type, f"relationships[{i}].type")
        for name in rel.properties:
            _xml_text(name, f"relationships[{i}].properties[{name!r}]")
        yield rel


def _xml_text(text: str, where: str) -> None:
    if _XML_ILLEGAL.search(text):
        fail(where, f"{text!r} contains characters XML 1.0 cannot carry")


def _key_attributes(key: _Key, domain: str) -> dict[str, str]:
    attributes = {"id": key.id, "for": domain, "attr.name": key.attr_name}
    if key.kind.is_list:
        attributes |= {"attr.type": "string", "attr.list": key.kind.scalar}
    elif key.kind.scalar in TEMPORAL_KINDS:
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
        return format_datetime(value)
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
