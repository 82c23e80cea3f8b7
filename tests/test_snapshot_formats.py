"""The namespace snapshot formats (JSON, GraphML): exact round trips, tool compatibility, errors."""

from __future__ import annotations

import io
import json
import math
import xml.etree.ElementTree as ET
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import networkx as nx
import pytest

from app.domain.model import NodeType
from app.domain.snapshot import (
    GRAPHML_NS,
    HG_NS,
    PropertyValue,
    Snapshot,
    SnapshotFormatError,
    SnapshotNode,
    SnapshotRelationship,
    canonical,
    snapshot_from_graphml,
    snapshot_from_json,
    snapshot_to_graphml,
    snapshot_to_json,
)

NAMESPACE = "team-alpha"
TRICKY_TEXT = '记忆：用户偏好 <b>&amp;</b> "double" \'single\' & <tag attr="x"/> ]]> 🧠'
CREATED = datetime(2024, 5, 15, 10, 0, 0, 123456, tzinfo=UTC)
IST = timezone(timedelta(hours=5, minutes=30))
G = f"{{{GRAPHML_NS}}}"
H = f"{{{HG_NS}}}"


def sample() -> Snapshot:
    knowledge = SnapshotNode(
        "knowledge:1",
        ("Memory", "Knowledge"),
        {
            "id": "knowledge:1",
            "namespace": NAMESPACE,
            "content": TRICKY_TEXT,
            "padded": "  leading and trailing \n\tspaces  ",
            "line_endings": "dos\r\nmac\rend\r",
            "control_chars": "bell\x07 nul\x00 \ufffe end",
            "empty": "",
            "access_count": 7,
            "int64_max": 2**63 - 1,
            "int64_min": -(2**63),
            "weight": 1.0,
            "activation": 0.1,
            "tiny": 5e-324,
            "pinned": True,
            "archived": False,
            "created_at": CREATED,
            "local_time": datetime(2024, 5, 15, 15, 30, 0, 1, tzinfo=IST),
            "valid_from": date(2024, 5, 10),
            "tags": ["记忆", "a<b&c", "", "ctl\x01"],
            "no_tags": [],
            "counts": [1, -2, 2**62],
            "scores": [1.0, 0.1, -2.5],
            "flags": [True, False],
        },
    )
    task = SnapshotNode(
        "task:2",
        ("Memory", "Task"),
        {"id": "task:2", "namespace": NAMESPACE, "score": 3, "no_tags": [], "created_at": CREATED},
    )
    person = SnapshotNode(
        "person:3",
        ("Memory", "Person"),
        {
            "id": "person:3",
            "score": 0.5,
            "labels": "a property named like the labels key",
            "met_at": datetime(2024, 7, 1, 9, 30, tzinfo=ZoneInfo("Europe/Berlin")),
        },
    )
    bare = SnapshotNode("concept:4", ("Concept",), {})
    unlabelled = SnapshotNode("orphan:5", (), {"id": "orphan:5"})
    relationships = (
        SnapshotRelationship(
            "SEMANTIC",
            "knowledge:1",
            "task:2",
            {"weight": 0.75, "created_at": CREATED, "label": "a property named like the label key"},
        ),
        SnapshotRelationship("CAUSAL", "knowledge:1", "task:2", {"weight": 1, "evidence": ["记忆"]}),
        SnapshotRelationship("HIERARCHY", "task:2", "knowledge:1", {}),
        SnapshotRelationship("TEMPORAL", "person:3", "person:3", {"since": date(2020, 2, 29)}),
    )
    return Snapshot(NAMESPACE, (knowledge, task, person, bare, unlabelled), relationships)


def typed(value: PropertyValue) -> Any:
    """A comparable form that also tells 1 from 1.0 from True, -0.0 from 0.0 and offsets apart."""
    if isinstance(value, list):
        return ("list", tuple(typed(item) for item in value))
    if isinstance(value, datetime):
        return (datetime, value.isoformat(), getattr(value.tzinfo, "key", None))
    if isinstance(value, float):
        return (float, repr(value))
    return (type(value), value)


def typed_snapshot(snapshot: Snapshot) -> Any:
    s = canonical(snapshot)
    return (
        s.namespace,
        [(n.id, n.labels, {k: typed(v) for k, v in n.properties.items()}) for n in s.nodes],
        [(r.type, r.source, r.target, {k: typed(v) for k, v in r.properties.items()}) for r in s.relationships],
    )


def assert_exactly_equal(actual: Snapshot, expected: Snapshot) -> None:
    assert canonical(actual) == canonical(expected)
    assert typed_snapshot(actual) == typed_snapshot(expected)


def test_typed_comparison_tells_what_plain_equality_misses() -> None:
    original = sample()
    knowledge = original.nodes[0]
    as_int = replace(knowledge, properties={**knowledge.properties, "weight": 1})
    changed = replace(original, nodes=(as_int, *original.nodes[1:]))
    assert canonical(changed) == canonical(original)  # 1 == 1.0 in Python
    assert typed_snapshot(changed) != typed_snapshot(original)


def test_canonical_ignores_order() -> None:
    s = sample()
    shuffled = Snapshot(
        s.namespace,
        tuple(replace(n, labels=tuple(reversed(n.labels))) for n in reversed(s.nodes)),
        tuple(reversed(s.relationships)),
    )
    assert shuffled != s
    assert canonical(shuffled) == canonical(s)
    ordered = canonical(s).nodes
    assert [n.id for n in ordered] == ["concept:4", "knowledge:1", "orphan:5", "person:3", "task:2"]
    assert ordered[1].labels == ("Knowledge", "Memory")


# --- JSON ----------------------------------------------------------------------------------------


def test_json_round_trip_is_exact() -> None:
    s = sample()
    assert_exactly_equal(snapshot_from_json(snapshot_to_json(s)), s)


def test_json_document_shape_and_tags() -> None:
    document = json.loads(snapshot_to_json(sample()))
    assert (document["format"], document["version"], document["namespace"]) == ("hippograph-namespace", 1, NAMESPACE)
    node = document["nodes"][0]
    assert (node["id"], node["labels"]) == ("knowledge:1", ["Memory", "Knowledge"])
    props = node["properties"]
    assert props["created_at"] == {"$datetime": "2024-05-15T10:00:00.123456+00:00"}
    assert props["local_time"] == {"$datetime": "2024-05-15T15:30:00.000001+05:30"}
    assert props["valid_from"] == {"$date": "2024-05-10"}
    assert type(props["weight"]) is float and type(props["access_count"]) is int
    assert props["content"] == TRICKY_TEXT
    assert document["nodes"][2]["properties"]["met_at"] == {"$datetime": "2024-07-01T09:30:00+02:00[Europe/Berlin]"}
    assert document["relationships"][0] == {
        "type": "SEMANTIC",
        "source": "knowledge:1",
        "target": "task:2",
        "properties": {
            "weight": 0.75,
            "created_at": {"$datetime": "2024-05-15T10:00:00.123456+00:00"},
            "label": "a property named like the label key",
        },
    }


def test_json_keeps_chinese_readable() -> None:
    text = snapshot_to_json(sample())
    assert "记忆：用户偏好" in text
    assert "\\u8bb0" not in text


def test_non_finite_and_signed_zero_floats_round_trip() -> None:
    values: dict[str, PropertyValue] = {
        "nan": math.nan,
        "inf": math.inf,
        "ninf": -math.inf,
        "nzero": -0.0,
        "list": [math.inf, -0.0, 1.5],
    }
    s = Snapshot("ns", (SnapshotNode("a", ("A",), values),))
    document = json.loads(snapshot_to_json(s))
    assert document["nodes"][0]["properties"]["nan"] == {"$float": "NaN"}
    for decoded in (snapshot_from_json(snapshot_to_json(s)), snapshot_from_graphml(snapshot_to_graphml(s))):
        assert typed_snapshot(decoded) == typed_snapshot(s)


class Score(float):
    def __repr__(self) -> str:  # like numpy's np.float64(0.1)
        return f"Score({float(self)})"


def test_subclasses_come_back_as_plain_types() -> None:
    s = node_with(type=NodeType.TASK, kinds=[NodeType.FILE], score=Score(0.1))
    for decoded in (snapshot_from_json(snapshot_to_json(s)), snapshot_from_graphml(snapshot_to_graphml(s))):
        props = decoded.nodes[0].properties
        assert type(props["type"]) is str and props["type"] == "Task"
        kinds = props["kinds"]
        assert isinstance(kinds, list) and kinds == ["File"] and type(kinds[0]) is str
        assert type(props["score"]) is float and props["score"] == 0.1


# --- GraphML -------------------------------------------------------------------------------------


def test_graphml_round_trip_is_exact() -> None:
    s = sample()
    assert_exactly_equal(snapshot_from_graphml(snapshot_to_graphml(s)), s)


def test_graphml_keeps_named_time_zone() -> None:
    decoded = snapshot_from_graphml(snapshot_to_graphml(sample()))
    met_at = decoded.nodes[2].properties["met_at"]
    assert isinstance(met_at, datetime)
    assert getattr(met_at.tzinfo, "key", None) == "Europe/Berlin"


def test_json_to_graphml_to_json_is_exact() -> None:
    first = snapshot_to_json(sample())
    again = snapshot_to_json(snapshot_from_graphml(snapshot_to_graphml(snapshot_from_json(first))))
    assert again == first


def test_graphml_encoding_is_stable() -> None:
    text = snapshot_to_graphml(sample())
    assert snapshot_to_graphml(snapshot_from_graphml(text)) == text


def test_graphml_opens_in_networkx() -> None:
    graph = nx.read_graphml(io.BytesIO(snapshot_to_graphml(sample()).encode("utf-8")))
    assert graph.number_of_nodes() == 5
    assert graph.number_of_edges() == 4  # two parallel edges knowledge:1 -> task:2 and a self-loop
    node = graph.nodes["knowledge:1"]
    assert node["labels"] == ":Memory:Knowledge"
    assert graph.nodes["orphan:5"]["labels"] == ""
    assert node["content"] == TRICKY_TEXT
    assert node["access_count"] == 7 and type(node["access_count"]) is int
    assert node["weight"] == 1.0 and type(node["weight"]) is float
    assert node["pinned"] is True and node["archived"] is False
    assert node["created_at"] == "2024-05-15T10:00:00.123456+00:00"
    assert json.loads(node["tags"]) == ["记忆", "a<b&c", "", "ctl\x01"]
    edge_types = sorted(data["label"] for _, _, data in graph.edges(data=True))
    assert edge_types == ["CAUSAL", "HIERARCHY", "SEMANTIC", "TEMPORAL"]


def test_graphml_structure_follows_apoc() -> None:
    text = snapshot_to_graphml(sample())
    root = ET.fromstring(text)
    assert root.tag == f"{G}graphml"
    graph = root.find(f"{G}graph")
    assert graph is not None
    assert (graph.get("id"), graph.get("edgedefault")) == (NAMESPACE, "directed")
    keys = {(k.get("for"), k.get("attr.name")): k.attrib for k in root.iter(f"{G}key")}
    assert keys[("node", "labels")]["attr.type"] == "string" and f"{H}name" not in keys[("node", "labels")]
    assert keys[("edge", "label")]["attr.type"] == "string"
    assert keys[("node", "access_count")]["attr.type"] == "long"
    assert keys[("node", "weight")]["attr.type"] == "double"
    assert keys[("node", "pinned")]["attr.type"] == "boolean"
    assert (keys[("node", "tags")]["attr.type"], keys[("node", "tags")]["attr.list"]) == ("string", "string")
    assert keys[("node", "counts")]["attr.list"] == "long"
    assert keys[("node", "scores")]["attr.list"] == "double"
    assert keys[("node", "created_at")][f"{H}type"] == "datetime"
    assert keys[("node", "valid_from")][f"{H}type"] == "date"
    # mixed types under one name: the most frequent (a tie here: double sorts first) keeps the name
    assert keys[("node", "score")]["attr.type"] == "double"
    assert keys[("node", "score.long")]["attr.type"] == "long"
    assert keys[("node", "score.long")][f"{H}name"] == "score"
    assert keys[("node", "labels.string")][f"{H}name"] == "labels"
    assert keys[("edge", "label.string")][f"{H}name"] == "label"
    first = graph.find(f"{G}node")
    assert first is not None and first.get("id") == "knowledge:1" and first.get("labels") == ":Memory:Knowledge"
    edge = graph.find(f"{G}edge")
    assert edge is not None and (edge.get("source"), edge.get("target"), edge.get("label")) == (
        "knowledge:1",
        "task:2",
        "SEMANTIC",
    )


def test_graphml_key_names_stay_unique() -> None:
    s = Snapshot(
        "ns",
        (SnapshotNode("a", ("A",), {"w": 1}), SnapshotNode("b", ("B",), {"w": 1.5, "w.long": "a real property"})),
    )
    text = snapshot_to_graphml(s)
    names = [k.get("attr.name", "") for k in ET.fromstring(text).iter(f"{G}key") if k.get("for") == "node"]
    assert sorted(names) == ["labels", "w", "w.long", "w.long.2"]
    assert_exactly_equal(snapshot_from_graphml(text), s)


def test_graphml_text_escaping() -> None:
    text = snapshot_to_graphml(sample())
    assert "记忆：用户偏好" in text  # UTF-8 text, not character references
    assert "&lt;b&gt;&amp;amp;&lt;/b&gt;" in text
    assert "\r" not in text and "dos&#13;\nmac&#13;end&#13;" in text
    assert '"bell\\u0007 nul\\u0000 \\ufffe end"' in text  # XML 1.0 cannot carry these characters


def test_graphml_from_utf8_bytes() -> None:
    s = sample()
    assert_exactly_equal(snapshot_from_graphml(snapshot_to_graphml(s).encode("utf-8")), s)


# --- encoding refuses what it could not read back ------------------------------------------------


def node_with(**properties: Any) -> Snapshot:
    return Snapshot("ns", (SnapshotNode("a", ("A",), properties),))


@pytest.mark.parametrize(
    ("snapshot", "message"),
    [
        (node_with(at=datetime(2024, 1, 1)), "nodes[0].properties['at']: datetime without a UTC offset"),
        (node_with(at=time(10, 0)), "nodes[0].properties['at']: unsupported value type time"),
        (node_with(meta={"a": 1}), "nodes[0].properties['meta']: unsupported value type dict"),
        (node_with(xs=[1, "a"]), "nodes[0].properties['xs']: list mixes element types long, string"),
        (node_with(xs=[True, 1]), "nodes[0].properties['xs']: list mixes element types boolean, long"),
        (node_with(xs=[[1]]), "nodes[0].properties['xs'][0]: unsupported list element type list"),
        (node_with(n=2**63), "nodes[0].properties['n']: integer 9223372036854775808 is outside the 64-bit range"),
        (node_with(id="b"), "nodes[0].properties['id']: 'b' differs from the node id 'a'"),
        (
            Snapshot("ns", (SnapshotNode("a", ("A",)),), (SnapshotRelationship("T", "a", "ghost"),)),
            "relationships[0].target: unknown node 'ghost'",
        ),
        (Snapshot("ns", (SnapshotNode("a", ("A",)), SnapshotNode("a", ("B",)))), "nodes[1].id: duplicate node id 'a'"),
        (Snapshot("", ()), "namespace: expected a non-empty string"),
    ],
)
def test_encoding_refuses_invalid_snapshots(snapshot: Snapshot, message: str) -> None:
    for encode in (snapshot_to_json, snapshot_to_graphml):
        with pytest.raises(SnapshotFormatError) as error:
            encode(snapshot)
        assert str(error.value).startswith(message)


def test_encoding_hints_at_to_native() -> None:
    class DateTime:  # stands in for neo4j.time.DateTime
        def to_native(self) -> datetime:
            return CREATED

    with pytest.raises(SnapshotFormatError, match=r"unsupported value type DateTime \(convert .*to_native"):
        snapshot_to_json(node_with(at=DateTime()))


def test_graphml_refuses_labels_with_colons() -> None:
    s = Snapshot("ns", (SnapshotNode("a", ("A:B",)),))
    with pytest.raises(SnapshotFormatError, match=r"nodes\[0\]\.labels\[0\]: label 'A:B' contains ':'"):
        snapshot_to_graphml(s)
    assert snapshot_from_json(snapshot_to_json(s)) == s


# --- decoding validates --------------------------------------------------------------------------


def small() -> Snapshot:
    return Snapshot(
        "ns",
        (SnapshotNode("a", ("A",), {"n": 1, "xs": [1, 2]}), SnapshotNode("b", ("B",))),
        (SnapshotRelationship("T", "a", "b"),),
    )


def edited_json(edit: Any) -> str:
    document = json.loads(snapshot_to_json(small()))
    edit(document)
    return json.dumps(document)


def _set(path: list[Any], value: Any) -> Any:
    def edit(document: Any) -> None:
        for step in path[:-1]:
            document = document[step]
        document[path[-1]] = value

    return edit


def _delete(path: list[Any]) -> Any:
    def edit(document: Any) -> None:
        for step in path[:-1]:
            document = document[step]
        del document[path[-1]]

    return edit


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (edited_json(_set(["version"], 2)), "unsupported format version 2"),
        (edited_json(_set(["version"], True)), "unsupported format version True"),
        (edited_json(_delete(["version"])), "version: missing"),
        (edited_json(_set(["format"], "other")), "unsupported format 'other'"),
        (edited_json(_delete(["nodes", 0, "labels"])), "nodes[0].labels: missing"),
        (edited_json(_set(["nodes", 0, "labels"], "A")), "nodes[0].labels: expected array, got string"),
        (edited_json(_set(["nodes", 0, "labels"], [""])), "nodes[0].labels[0]: expected a non-empty string"),
        (edited_json(_delete(["relationships", 0, "type"])), "relationships[0].type: missing"),
        (edited_json(_set(["relationships", 0, "target"], "x")), "relationships[0].target: unknown node 'x'"),
        (edited_json(_set(["nodes", 1, "id"], "a")), "nodes[1].id: duplicate node id 'a'"),
        (edited_json(_set(["nodes", 0, "extra"], 1)), "nodes[0]: unknown field 'extra'"),
        (edited_json(_set(["nodes", 0, "properties", "n"], None)), "nodes[0].properties['n']: null is not"),
        (edited_json(_set(["nodes", 0, "properties", "n"], [1, 2.5])), "nodes[0].properties['n']: list mixes"),
        (edited_json(_set(["nodes", 0, "properties", "n"], 2**64)), "nodes[0].properties['n']: integer"),
        (
            edited_json(_set(["nodes", 0, "properties", "n"], {"$datetime": "2024-05-15T10:00:00"})),
            "nodes[0].properties['n']: datetime '2024-05-15T10:00:00' has no UTC offset",
        ),
        (
            edited_json(_set(["nodes", 0, "properties", "n"], {"$date": "15.05.2024"})),
            "nodes[0].properties['n']: invalid date '15.05.2024'",
        ),
        (
            edited_json(_set(["nodes", 0, "properties", "n"], {"$time": "10:00"})),
            "nodes[0].properties['n']: unknown tagged value '$time'",
        ),
        (
            edited_json(_set(["nodes", 0, "properties", "n"], {"$datetime": "2024-05-15T10:00:00+00:00[Mars/Base]"})),
            "nodes[0].properties['n']: unknown time zone 'Mars/Base'",
        ),
        ('{"format": "hippograph-namespace", "format": "x"}', "duplicate key 'format' in a JSON object"),
        ('{"nodes": [NaN]}', "NaN is not valid JSON"),
        ("[]", "document: expected an object, got array"),
        ("{", "not valid JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_json_decoding_errors(text: str | bytes, message: str) -> None:
    with pytest.raises(SnapshotFormatError) as error:
        snapshot_from_json(text)
    assert str(error.value).startswith(message)


def edited_graphml(old: str, new: str) -> str:
    text = snapshot_to_graphml(small())
    assert old in text, f"{old!r} is not in the GraphML of small()"
    return text.replace(old, new, 1)


def test_edited_graphml_sees_the_written_text() -> None:
    with pytest.raises(AssertionError, match="is not in the GraphML"):
        edited_graphml("no such text", "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (lambda: edited_graphml('hg:version="1"', 'hg:version="2"'), "unsupported format version 2"),
        (lambda: edited_graphml(' hg:format="hippograph-namespace"', ""), "graph: hg:format missing"),
        (lambda: edited_graphml('edgedefault="directed"', 'edgedefault="undirected"'), "graph: edgedefault must"),
        (lambda: edited_graphml('target="b"', 'target="ghost"'), "relationships[0].target: unknown node 'ghost'"),
        (lambda: edited_graphml('<node id="b"', '<node id="a"'), "nodes[1].id: duplicate node id 'a'"),
        (lambda: edited_graphml('<data key="labels">:A</data>', ""), "nodes[0].labels: missing"),
        (lambda: edited_graphml('<data key="label">T</data>', ""), "relationships[0].type: missing"),
        (lambda: edited_graphml('labels=":A"', 'labels=":X"'), "nodes[0].labels: labels attribute ':X' differs"),
        (
            lambda: edited_graphml('<data key="n0">1</data>', '<data key="n0">one</data>'),
            "nodes[0].properties['n']: invalid long 'one'",
        ),
        (
            lambda: edited_graphml('<data key="n0">1</data>', '<data key="n9">1</data>'),
            "nodes[0]: data key 'n9' is not declared",
        ),
        (
            lambda: edited_graphml("[1, 2]", '["x"]'),
            "nodes[0].properties['xs'][0]: expected a long element, got string",
        ),
        (lambda: edited_graphml("[1, 2]", "[1, 2.5]"), "nodes[0].properties['xs'][1]: expected a long element"),
        (lambda: edited_graphml("[1, 2]", "{}"), "nodes[0].properties['xs']: expected a JSON array"),
        (
            lambda: edited_graphml('attr.type="long"', 'attr.type="decimal"'),
            "key 'n0': unsupported attr.type 'decimal'",
        ),
        (lambda: edited_graphml('<graph id="ns" ', "<graph "), "graph.id: missing"),
        (lambda: edited_graphml("</graph>", "</graph><graph />"), "expected exactly one <graph>, found 2"),
        (
            lambda: edited_graphml("<graph ", "<hypergraph ").replace("</graph>", "</hypergraph>"),
            "expected exactly one <graph>",
        ),
        (lambda: "<graphml><graph/></graphml>", "not GraphML: the root element is 'graphml'"),
        (lambda: edited_graphml("</node>", ""), "ill-formed XML"),
        (
            lambda: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><graphml/>',
            "DOCTYPE declarations are not allowed",
        ),
        (lambda: snapshot_to_graphml(small()).encode("utf-16"), "not UTF-8"),
        (lambda: b"<graphml>\xff</graphml>", "not UTF-8"),
    ],
)
def test_graphml_decoding_errors(text: Any, message: str) -> None:
    with pytest.raises(SnapshotFormatError) as error:
        snapshot_from_graphml(text())
    assert str(error.value).startswith(message)
