"""Snapshot format of one namespace of the memory graph, in JSON and in GraphML, both lossless.

A snapshot is the backup and suspend/resume format: every node (labels, properties) and every
relationship (type, endpoints, properties) of one namespace. Both encodings give back every value
exactly, type included (1 stays an int, 1.0 a float, True a bool). `canonical` orders a snapshot so
that two snapshots compare equal regardless of order.

The model and its validation are in `model.py`, the encodings in `json_codec.py`, `graphml.py` (the
format's description and writing) and `graphml_read.py`; this package exports their public names.

Decoding validates and raises `SnapshotFormatError` naming the place in JSON-path style
(`nodes[3].labels: missing`, `relationships[2].target: unknown node 'x'`,
`unsupported format version 2`); for GraphML, `nodes[i]`/`relationships[i]` count `<node>`/`<edge>`
elements in document order. Encoding runs the same validation, so nothing that cannot be read back
is written.
"""

from app.domain.snapshot.document import (
    FORMAT,
    VERSION,
    PropertyValue,
    Snapshot,
    SnapshotFormatError,
    SnapshotNode,
    SnapshotRelationship,
    canonical,
)
from app.domain.snapshot.graphml import GRAPHML_NS, HG_NS, graphml_chunks, snapshot_to_graphml
from app.domain.snapshot.graphml_read import snapshot_from_graphml
from app.domain.snapshot.json_codec import json_chunks, snapshot_from_json, snapshot_to_json

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
