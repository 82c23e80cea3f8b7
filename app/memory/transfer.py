"""Export a namespace to a snapshot (JSON or GraphML) and import one into an empty namespace.

Import is one transaction: it validates every label and relationship type against the fixed
enums first, writes all or nothing, then re-embeds the nodes for the vector tier (vectors are
derived data and are not part of the file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
from typing import Any, Literal, TypeVar

from app.domain.inputs import InputError, check_namespace, check_node_id, namespace_term, public_properties
from app.domain.keys import EVERYTHING, Viewer
from app.domain.model import MEMORY_LABEL, NodeType, RelType
from app.domain.snapshot import (
    Snapshot,
    SnapshotFormatError,
    SnapshotNode,
    SnapshotRelationship,
    graphml_chunks,
    json_chunks,
    snapshot_from_graphml,
    snapshot_from_json,
)
from app.memory.errors import ConflictError, NotFoundError
from app.memory.namespaces import Namespaces
from app.memory.records import NODE_PROPERTIES, RELATIONSHIP_PROPERTIES, check_properties
from app.memory.semantic import NodeText, SemanticIndexer, embedding_text
from app.stores.graph import GraphStore, GraphTx
from app.stores.queries.namespace_queries import NamespaceQueries
from app.stores.queries.transfer_queries import ImportNode, ImportRelationship, TransferQueries

Format = Literal["json", "graphml"]
EMBED_BATCH = 256
EXPORT_PAGE = 1000  # nodes per export query (a source node's relationships come with it)
CHUNK_CHARS = 1 << 16

Row = TypeVar("Row", bound=Mapping[str, Any])  # a row of a keyset-paged export query


class Transfer:
    def __init__(self, graph: GraphStore, semantic: SemanticIndexer, namespaces: Namespaces) -> None:
        self.graph = graph
        self.semantic = semantic
        self.namespaces = namespaces

    def snapshot(self, namespace: str, viewer: Viewer = EVERYTHING) -> Snapshot:
        """The namespace in memory, as the viewer sees it (see `nodes`): for tests and small namespaces;
        `export` streams."""
        self.namespaces.require(namespace)
        cut = ExportCut(self, namespace, viewer)
        return Snapshot(namespace, tuple(cut.nodes()), tuple(cut.relationships()))

    def nodes(self, namespace: str, viewer: Viewer = EVERYTHING) -> Iterator[SnapshotNode]:
        """The nodes by id, a page at a time; another agent's private memories are left out unless the
        viewer sees private memories."""
        for row in self._pages(TransferQueries(self.graph).export_nodes, namespace, "id"):
            if viewer.sees(row["properties"]):
                # `namespace_term` derives from the namespace: import sets the one of the namespace it fills.
                yield SnapshotNode(row["id"], tuple(row["labels"]), public_properties(row["properties"]))

    def relationships(self, namespace: str, viewer: Viewer = EVERYTHING) -> Iterator[SnapshotRelationship]:
        """The relationships by source id, then type and target; those touching a node the viewer does
        not see are left out, as that node is."""
        for row in self._pages(TransferQueries(self.graph).export_relationships, namespace, "source"):
            if not viewer.sees(row["visibility"]):
                continue
            for rel in sorted(row["relationships"], key=lambda rel: (rel["type"], rel["target"])):
                if viewer.sees(rel["visibility"]):
                    yield SnapshotRelationship(rel["type"], row["source"], rel["target"], rel["properties"])

    def _pages(self, page: Callable[..., list[Row]], namespace: str, cursor: str) -> Iterator[Row]:
        """Rows of a keyset-paged query (`$after`, `$limit`), one page in memory at a time."""
        after = ""
        while True:
            rows = page(namespace=namespace, after=after, limit=EXPORT_PAGE)
            yield from rows
            if len(rows) < EXPORT_PAGE:
                return
            after = max(row[cursor] for row in rows)

    def export(self, namespace: str, fmt: Format, viewer: Viewer = EVERYTHING) -> Iterator[str]:
        """The export as text chunks of about `CHUNK_CHARS`, read and encoded as they are sent: the
        namespace is never in memory whole. Checks the namespace at once (a 404 before any byte);
        GraphML reads the namespace twice (its keys come before the graph)."""
        self.namespaces.require(namespace)
        cut = ExportCut(self, namespace, viewer)
        if fmt == "graphml":
            chunks = graphml_chunks(namespace, cut.nodes, cut.relationships)
        else:
            chunks = json_chunks(namespace, cut.nodes(), cut.relationships())
        return _joined(chunks, CHUNK_CHARS)

    def import_text(self, namespace: str, text: str | bytes, fmt: Format) -> dict[str, int]:
        try:
            snapshot = snapshot_from_graphml(text) if fmt == "graphml" else snapshot_from_json(text)
        except SnapshotFormatError as exc:
            raise InputError("body", str(exc)) from exc
        return self.import_snapshot(namespace, snapshot)

    def import_snapshot(self, namespace: str, snapshot: Snapshot) -> dict[str, int]:
        check_namespace(namespace)
        nodes = [_node_row(node, index, namespace) for index, node in enumerate(snapshot.nodes)]
        relationships = [_relationship_row(rel, index) for index, rel in enumerate(snapshot.relationships)]

        def work(tx: GraphTx) -> None:
            namespaces, transfer = NamespaceQueries(tx), TransferQueries(tx)
            if not namespaces.get(namespace=namespace):
                raise NotFoundError("namespace", f"namespace {namespace!r} does not exist")
            if namespaces.count_memories(namespace=namespace)[0]["count"]:
                raise ConflictError("namespace", f"namespace {namespace!r} is not empty; import needs an empty one")
            transfer.import_nodes(namespace=namespace, nodes=nodes)
            transfer.import_relationships(namespace=namespace, relationships=relationships)

        # No transaction timeout: an import is one transaction however large (its size is bounded by
        # HIPPOGRAPH_MAX_BATCH_BODY_BYTES), and 100,000 nodes outlast the default 60 s.
        self.graph.write_transaction(work, timeout_s=0)
        self.embed(namespace, snapshot.nodes)
        return {"nodes": len(nodes), "relationships": len(relationships)}

    def embed(self, namespace: str, nodes: Iterable[SnapshotNode]) -> int:
        """Store the vectors of `nodes` with text, `EMBED_BATCH` at a time (an import; a re-embedding,
        `app/reembed.py`), then the turns' context points; vectors only: the graph already holds the
        SEMANTIC edges. Returns how many nodes."""
        done, with_text = 0, (node for node in nodes if node.properties.get("content"))
        turns: list[str] = []
        while batch := list(islice(with_text, EMBED_BATCH)):
            texts = [_node_text(node) for node in batch]
            self.semantic.store_vectors(namespace, texts)
            turns += [text.id for text in texts if text.type == NodeType.DIALOGUE.value]
            done += len(batch)
        for start in range(0, len(turns), EMBED_BATCH):  # every turn's vector is stored by now
            self.semantic.store_context(namespace, turns[start : start + EMBED_BATCH])
        return done


class ExportCut:
    """One consistent snapshot out of reads that are not one: nodes and relationships are read in
    separate keyset-paged queries while writers go on (and Neo4j's read transactions are READ
    COMMITTED, so even one transaction would not hold still). A relationship is given only when both
    its ends were given by the node pass before it, so the file never names an unknown node and
    always imports. Each call of `nodes` is one pass; a second pass (GraphML writes after planning its
    keys) gives only nodes the first one gave, so no node, and none of its property kinds, appears
    between planning and writing. Memory: the ids given (~100 bytes each, 10 MB per 100,000 nodes)."""

    def __init__(self, transfer: Transfer, namespace: str, viewer: Viewer) -> None:
        self.transfer, self.namespace, self.viewer = transfer, namespace, viewer
        self.given: set[str] | None = None  # the ids the last node pass gave; None before the first

    def nodes(self) -> Iterator[SnapshotNode]:
        before, given = self.given, set[str]()
        self.given = given
        for node in self.transfer.nodes(self.namespace, self.viewer):
            if before is None or node.id in before:
                given.add(node.id)
                yield node

    def relationships(self) -> Iterator[SnapshotRelationship]:
        given = self.given or set()
        for rel in self.transfer.relationships(self.namespace, self.viewer):
            if rel.source in given and rel.target in given:
                yield rel


def _node_type(node: SnapshotNode, index: int) -> NodeType:
    types = [label for label in node.labels if label != MEMORY_LABEL]
    if MEMORY_LABEL not in node.labels or len(types) != 1 or types[0] not in NodeType.__members__.values():
        raise InputError(f"nodes[{index}].labels", "must be 'Memory' plus exactly one of the nine node types")
    return NodeType(types[0])


def _node_text(node: SnapshotNode) -> NodeText:
    """What the write path embeds for a node: a turn as "speaker: content" (`ingest._dialogue_text`)."""
    node_type = _node_type(node, 0)
    speaker = node.properties.get("speaker")
    if node_type is NodeType.DIALOGUE and speaker:
        return NodeText(node.id, node_type.value, str(node.properties["content"]), prefix=f"{speaker}: ")
    return NodeText(node.id, node_type.value, embedding_text(dict(node.properties)))


def _joined(chunks: Iterator[str], size: int) -> Iterator[str]:
    """Small chunks joined into pieces of at least `size` characters (one send per piece, not per node)."""
    pending: list[str] = []
    length = 0
    for chunk in chunks:
        pending.append(chunk)
        length += len(chunk)
        if length >= size:
            yield "".join(pending)
            pending, length = [], 0
    if pending:
        yield "".join(pending)


def _node_row(node: SnapshotNode, index: int, namespace: str) -> ImportNode:
    """The node as import writes it, checked as strictly as the routes that write nodes: reads,
    recall and decay would fail on a value of the wrong kind for good (issue 20)."""
    node_type = _node_type(node, index)
    check_node_id(node.id, f"nodes[{index}].id", node_type)
    for required in ("content", "importance", "activation_base", "last_accessed"):
        if required not in node.properties:
            raise InputError(f"nodes[{index}].properties.{required}", "missing")
    check_properties(node.properties, NODE_PROPERTIES, f"nodes[{index}].properties")
    properties = {**node.properties, "id": node.id, "namespace": namespace, "namespace_term": namespace_term(namespace)}
    return {"type": node_type.value, "properties": properties}


def _relationship_row(rel: SnapshotRelationship, index: int) -> ImportRelationship:
    if rel.type not in RelType.__members__.values():
        raise InputError(f"relationships[{index}].type", "must be one of the seven relationship types")
    check_properties(rel.properties, RELATIONSHIP_PROPERTIES, f"relationships[{index}].properties")
    return {"type": rel.type, "source": rel.source, "target": rel.target, "properties": dict(rel.properties)}
