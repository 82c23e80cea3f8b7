"""Reading GraphML snapshots (the format is described in `graphml.py`): every document is validated,
and errors name the element (`nodes[i]`, `relationships[i]` in document order)."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.domain.inputs import OutOfRangeInt, parse_json_int
from app.domain.snapshot.document import (
    FORMAT,
    VERSION,
    PropertyValue,
    Snapshot,
    SnapshotFormatError,
    SnapshotNode,
    SnapshotRelationship,
    fail,
    parse_date,
    parse_datetime,
    scalar_kind,
    validated,
)
from app.domain.snapshot.graphml import GRAPHML_NS, HG_NS, RESERVED_KEYS, TEMPORAL_KINDS, Kind
from app.domain.snapshot.json_codec import json_type_name

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
    kind: Kind


class _NoDoctype(ET.TreeBuilder):
    # A snapshot never has a DTD; refusing one rules out entity tricks.
    def doctype(self, name: str, pubid: str, system: str) -> None:
        raise SnapshotFormatError("DOCTYPE declarations are not allowed")


def snapshot_from_graphml(text: str | bytes) -> Snapshot:
    root = _parse_xml(text)
    if root.tag != f"{_G}graphml":
        fail("", f"not GraphML: the root element is {root.tag!r}, expected <graphml> in {GRAPHML_NS}")
    graph = _single_graph(root)
    _check_graph_format(graph)
    namespace = graph.get("id")
    if namespace is None:
        fail("graph.id", "missing (it holds the namespace)")
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
            fail("graph", f"<{local}> is not supported")
    return validated(Snapshot(namespace, tuple(nodes), tuple(relationships)))


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
        fail("", f"expected exactly one <graph>, found {len(graphs)}")
    for child in root:
        if _graphml_local(child.tag) not in (None, "key", "graph", "desc"):
            fail("graphml", f"<{_graphml_local(child.tag)}> is not supported")
    return graphs[0]


def _check_graph_format(graph: ET.Element) -> None:
    fmt = graph.get(f"{_H}format")
    if fmt is None:
        fail("graph", "hg:format missing (not a Hippograph snapshot)")
    if fmt != FORMAT:
        fail("", f"unsupported format {fmt!r}")
    version = graph.get(f"{_H}version")
    if version is None:
        fail("graph", "hg:version missing")
    if version != str(VERSION):
        fail("", f"unsupported format version {version}")
    if graph.get("edgedefault") != "directed":
        fail("graph", f"edgedefault must be 'directed', got {graph.get('edgedefault')!r}")


def _read_keys(root: ET.Element) -> dict[str, _KeyDecl]:
    keys: dict[str, _KeyDecl] = {}
    for i, element in enumerate(root.iterfind(f"{_G}key")):
        key_id = element.get("id")
        if not key_id:
            fail(f"keys[{i}].id", "missing")
        if key_id in keys:
            fail(f"key {key_id!r}", "declared twice")
        keys[key_id] = _read_key(element, f"key {key_id!r}")
    return keys


def _read_key(element: ET.Element, where: str) -> _KeyDecl:
    domain = element.get("for")
    if domain not in RESERVED_KEYS:
        fail(where, f"unsupported domain {domain!r} (expected 'node' or 'edge')")
    attr_name = element.get("attr.name")
    if attr_name is None:
        fail(where, "attr.name missing")
    if element.find(f"{_G}default") is not None:
        fail(where, "<default> values are not supported")
    kind = _declared_kind(element, where)
    name = element.get(f"{_H}name")
    if name is None and attr_name == RESERVED_KEYS[domain]:
        if kind != Kind("string"):
            fail(where, f"the {attr_name} key must have attr.type 'string'")
        return _KeyDecl(domain, True, attr_name, kind)
    return _KeyDecl(domain, False, attr_name if name is None else name, kind)


def _declared_kind(element: ET.Element, where: str) -> Kind:
    attr_type = element.get("attr.type", "string")  # GraphML's default
    list_type = element.get("attr.list")
    hg_type = element.get(f"{_H}type")
    if attr_type not in _GRAPHML_TYPES:
        fail(where, f"unsupported attr.type {attr_type!r}")
    if list_type is not None:
        if list_type not in _GRAPHML_TYPES or attr_type != "string" or hg_type is not None:
            fail(where, f"unsupported list key (attr.type {attr_type!r}, attr.list {list_type!r})")
        return Kind(_GRAPHML_TYPES[list_type], is_list=True)
    if hg_type is not None:
        if hg_type not in TEMPORAL_KINDS or attr_type != "string":
            fail(where, f"unsupported hg:type {hg_type!r} on attr.type {attr_type!r}")
        return Kind(hg_type)
    return Kind(_GRAPHML_TYPES[attr_type])


def _read_node(element: ET.Element, where: str, keys: dict[str, _KeyDecl]) -> SnapshotNode:
    node_id = element.get("id")
    if node_id is None:
        fail(f"{where}.id", "missing")
    labels, properties = _read_data(element, where, "node", keys)
    if labels is None:
        fail(f"{where}.labels", "missing")
    _same_as_attribute(element, "labels", labels, f"{where}.labels")
    return SnapshotNode(node_id, _parse_labels(labels, f"{where}.labels"), properties)


def _read_edge(element: ET.Element, where: str, keys: dict[str, _KeyDecl]) -> SnapshotRelationship:
    source, target = element.get("source"), element.get("target")
    if source is None:
        fail(f"{where}.source", "missing")
    if target is None:
        fail(f"{where}.target", "missing")
    if element.get("directed", "true") != "true":
        fail(where, "undirected edges are not supported")
    rel_type, properties = _read_data(element, where, "edge", keys)
    if rel_type is None:
        fail(f"{where}.type", "missing")
    _same_as_attribute(element, "label", rel_type, f"{where}.type")
    return SnapshotRelationship(rel_type, source, target, properties)


def _same_as_attribute(element: ET.Element, attribute: str, data: str, where: str) -> None:
    # APOC writes labels/type twice, as attribute and as data; an edit to one alone is an error.
    value = element.get(attribute)
    if value is not None and value != data:
        fail(where, f"{attribute} attribute {value!r} differs from its data {data!r}")


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
            fail(where, f"<{local}> is not supported")
        key_id = child.get("key")
        decl = keys.get(key_id) if key_id else None
        if decl is None or decl.domain != domain:
            fail(where, f"data key {key_id!r} is not declared for {domain}s")
        if decl.reserved:
            path = f"{where}.{'labels' if domain == 'node' else 'type'}"
            if reserved is not None:
                fail(path, "given twice")
            reserved = _data_text(child, path)
        else:
            path = f"{where}.properties[{decl.name!r}]"
            if decl.name in properties:
                fail(path, "given twice")
            properties[decl.name] = _parse_data(child, decl.kind, path)
    return reserved, properties


def _data_text(data: ET.Element, where: str) -> str:
    if len(data):
        fail(where, "unexpected child elements in <data>")
    return data.text or ""


def _parse_labels(text: str, where: str) -> tuple[str, ...]:
    if not text:
        return ()
    if not text.startswith(":"):
        fail(where, f"expected ':Label1:Label2', got {text!r}")
    return tuple(text[1:].split(":"))


def _parse_data(data: ET.Element, kind: Kind, where: str) -> PropertyValue:
    text = _data_text(data, where)
    encoding = data.get(f"{_H}encoding")
    if encoding is not None:
        if encoding != "json" or kind != Kind("string"):
            fail(where, f"unsupported hg:encoding {encoding!r} on a {kind.suffix} key")
        return _json_string(text, where)
    if kind == Kind("string"):
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
        fail(where, f"expected a JSON string literal, got {text!r}")
    return value


def _parse_boolean(text: str, where: str) -> bool:
    if text not in _BOOLEANS:
        fail(where, f"invalid boolean {text!r}")
    return _BOOLEANS[text]


def _parse_long(text: str, where: str) -> int:
    if not _LONG.fullmatch(text):
        fail(where, f"invalid long {text!r}")
    if len(text.lstrip("+-").lstrip("0")) > 19:  # before int(): thousands of digits raise ValueError
        fail(where, f"integer of {len(text)} characters is outside the 64-bit range")
    return int(text)


def _parse_double(text: str, where: str) -> float:
    special = _SPECIAL_DOUBLES.get(text.lower())
    if special is not None:
        return special
    if not _DOUBLE.fullmatch(text):
        fail(where, f"invalid double {text!r}")
    return float(text)


_SCALAR_PARSERS: dict[str, Callable[[str, str], PropertyValue]] = {
    "boolean": _parse_boolean,
    "long": _parse_long,
    "double": _parse_double,
    "datetime": parse_datetime,
    "date": parse_date,
}


def _parse_list(text: str, scalar: str, where: str) -> PropertyValue:
    try:
        raw = json.loads(text, parse_int=parse_json_int)
    except json.JSONDecodeError as error:
        fail(where, f"invalid JSON array: {error}")
    if not isinstance(raw, list):
        fail(where, f"expected a JSON array, got {text!r}")
    return [_list_item(item, scalar, f"{where}[{i}]") for i, item in enumerate(raw)]


def _list_item(item: object, scalar: str, where: str) -> Any:
    if isinstance(item, OutOfRangeInt):  # parse_json_int kept it unconverted (thousands of digits)
        fail(where, f"integer of {item.digits} digits is outside the 64-bit range")
    kind = scalar_kind(item)
    if scalar == "double" and kind == "long":
        return float(item)  # type: ignore[arg-type]  # a tool may write 1 for 1.0
    if kind != scalar:
        fail(where, f"expected a {scalar} element, got {json_type_name(item)}")
    return item
