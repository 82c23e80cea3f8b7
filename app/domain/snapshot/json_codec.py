"""JSON: `{"format": "hippograph-namespace", "version": 1, "namespace", "nodes", "relationships"}`.
JSON-native values stay as they are; the others are one-key objects `{"$datetime": "..."}`,
`{"$date": "2024-05-10"}` and `{"$float": "NaN" | "Infinity" | "-Infinity"}`. A property value is
never an object, so the tags cannot be confused with data. Object keys must be unique.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from datetime import date, datetime
from typing import Any, NoReturn

from app.domain.inputs import OutOfRangeInt, parse_json_int
from app.domain.snapshot.document import (
    FORMAT,
    VERSION,
    PropertyValue,
    Snapshot,
    SnapshotFormatError,
    SnapshotNode,
    SnapshotRelationship,
    checked_name,
    fail,
    format_datetime,
    parse_date,
    parse_datetime,
    validated,
    validated_node,
    validated_relationship,
)

_JSON_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_JSON_TYPES: dict[str, type] = {"string": str, "array": list, "object": dict}


def snapshot_to_json(snapshot: Snapshot) -> str:
    s = validated(snapshot)
    return "".join(json_chunks(s.namespace, s.nodes, s.relationships))


def json_chunks(
    namespace: str, nodes: Iterable[SnapshotNode], relationships: Iterable[SnapshotRelationship]
) -> Iterator[str]:
    """The JSON encoding piece by piece, one pass, in memory bounded by the largest node: each node
    and relationship is validated on its own; unique node ids and known endpoints are the caller's
    to guarantee (`snapshot_to_json` checks them, an export reads them from the graph)."""
    head = {"format": FORMAT, "version": VERSION, "namespace": checked_name(namespace, "namespace")}
    yield _json_text(head)[: -len("\n}")] + ',\n  "nodes": '
    yield from _json_array(_json_node(validated_node(n, f"nodes[{i}]")) for i, n in enumerate(nodes))
    yield ',\n  "relationships": '
    yield from _json_array(
        _json_relationship(validated_relationship(r, f"relationships[{i}]", None)) for i, r in enumerate(relationships)
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
        return {"$datetime": format_datetime(value)}
    if isinstance(value, date):
        return {"$date": date.isoformat(value)}
    if isinstance(value, list):
        return [_json_value(item) for item in value]
    return value


def snapshot_from_json(text: str | bytes) -> Snapshot:
    document = _load_json(text)
    if not isinstance(document, dict):
        fail("document", f"expected an object, got {json_type_name(document)}")
    if "format" not in document:
        fail("format", "missing")
    if document["format"] != FORMAT:
        fail("", f"unsupported format {document['format']!r}")
    if "version" not in document:
        fail("version", "missing")
    version = document["version"]
    if type(version) is not int or version != VERSION:
        fail("", f"unsupported format version {version!r}")
    _no_unknown_fields(document, {"format", "version", "namespace", "nodes", "relationships"}, "document")
    namespace = _member(document, "namespace", "", "string")
    nodes = tuple(_node_from_json(raw, f"nodes[{i}]") for i, raw in enumerate(_member(document, "nodes", "", "array")))
    relationships = tuple(
        _relationship_from_json(raw, f"relationships[{i}]")
        for i, raw in enumerate(_member(document, "relationships", "", "array"))
    )
    return validated(Snapshot(namespace, nodes, relationships))


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
            fail("", f"duplicate key {key!r} in a JSON object")
        obj[key] = value
    return obj


def _no_constant(token: str) -> NoReturn:
    fail("", f'{token} is not valid JSON; non-finite floats are written {{"$float": "{token}"}}')


def json_type_name(value: object) -> str:
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
        fail(path, "missing")
    value = obj[name]
    if not isinstance(value, _JSON_TYPES[json_type]):
        fail(path, f"expected {json_type}, got {json_type_name(value)}")
    return value


def _no_unknown_fields(obj: dict[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(obj) - known)
    if unknown:
        fail(where, f"unknown field {unknown[0]!r}")


def _json_object(raw: object, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        fail(where, f"expected object, got {json_type_name(raw)}")
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
    """Tags become typed values; the shape of lists and scalars is checked by `validated`."""
    if raw is None:
        fail(where, "null is not a property value")
    if isinstance(raw, list):
        return [_list_item_from_json(item, f"{where}[{i}]") for i, item in enumerate(raw)]
    if isinstance(raw, OutOfRangeInt):
        fail(where, f"integer of {raw.digits} digits is outside the 64-bit range")
    if not isinstance(raw, dict):
        return raw
    if len(raw) != 1 or not isinstance(next(iter(raw.values())), str):
        fail(where, 'expected a value or one of {"$datetime": str}, {"$date": str}, {"$float": str}')
    ((tag, text),) = raw.items()
    if tag == "$datetime":
        return parse_datetime(text, where)
    if tag == "$date":
        return parse_date(text, where)
    if tag == "$float" and text in _JSON_FLOATS:
        return _JSON_FLOATS[text]
    fail(where, f"unknown tagged value {tag!r}: {text!r}")


def _list_item_from_json(raw: object, where: str) -> Any:
    # A list holds scalars only: refused here, a list of lists ~1000 deep would exhaust the stack.
    if isinstance(raw, list):
        fail(where, "a list inside a list is not a property value")
    return _value_from_json(raw, where)
