"""The vector side of a write: embed new nodes in one batch, store their vectors, and give each
SEMANTIC edges to its closest neighbours in the namespace (cosine above a threshold).

The write path starts this for a batch's turns in the background (`index_ahead`) while their graph
statements run: embedding and vector search use the cores Neo4j leaves idle meanwhile, and release
the interpreter lock. Their vectors are therefore stored a little before their graph nodes; recall
counts a vector hit only for a node that exists or a turn pending in the hot window, and a retried
task writes the same vectors again.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.domain.model import RelType
from app.domain.passages import passages
from app.embedding import Embedder
from app.memory.records import create_links, link_row
from app.stores.graph import GraphStore
from app.stores.vectors import VectorRecord, VectorStore

# Payload of a vector shared with its source node (see `NodeText.vector_of`).
VECTOR_OF_KEY = "vector_of"


@dataclass(frozen=True)
class SemanticLinking:
    threshold: float = 0.7
    max_neighbours: int = 3


# Word pieces per passage: all-MiniLM-L6-v2 was trained on texts of at most 128, and a shorter
# passage dilutes a sentence less in the mean pooling. No overlap (measured: docs/benchmarks.md).
# Every passage carries the "speaker: " prefix: what a passage says is still the speaker's, and a
# query naming the speaker matched the first passage only when only it had the name.
PASSAGE_TOKENS = 128


@dataclass(frozen=True)
class NodeText:
    id: str
    type: str
    text: str
    # A node drawn from the whole of another node of the same batch (a fact or event stated by a
    # one-sentence turn) shares that node's vector instead of embedding a near-copy of its text.
    vector_of: str | None = None
    # Embedded before the text, and before each passage of a long one ("speaker: " of a turn).
    prefix: str = ""


Vectors = dict[str, list[float]]  # node id -> its vector


@dataclass(frozen=True)
class IndexedAhead:
    """Nodes being embedded, stored and searched in the background (`SemanticIndexer.index_ahead`):
    their vectors by node id and their SEMANTIC link rows, to be written by `SemanticIndexer.index`."""

    result: Future[tuple[Vectors, list[dict[str, Any]], float]]  # ..., seconds it took

    @property
    def seconds(self) -> float:
        return self.result.result()[2]


def embedding_text(node: dict[str, Any]) -> str:
    return f"{node['label']}. {node['content']}" if node.get("label") else str(node["content"])


class SemanticIndexer:
    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        linking: SemanticLinking,
        embed_passages: bool = False,
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.linking = linking
        # A text longer than the model's window gets a vector per passage, not one of its head only.
        self.embed_passages = embed_passages
        # One background indexing at a time: its embedding uses every core already.
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="index-ahead")

    def store_vectors(self, namespace: str, nodes: Sequence[NodeText]) -> list[list[float]]:
        """Embed `nodes` in one batch and upsert their vectors (one per passage of a long text);
        returns each node's own vector (its first passage's)."""
        texts = self.passages_of(nodes)
        flat = iter(self.embedder.embed_passages([text for parts in texts for text in parts]))
        records: list[VectorRecord] = []
        own: list[list[float]] = []
        for node, parts in zip(nodes, texts, strict=True):
            vectors = [next(flat) for _ in parts]
            own.append(vectors[0])
            records += [VectorRecord(node.id, vector, {"type": node.type}, i) for i, vector in enumerate(vectors)]
        self.vectors.upsert(namespace, records)
        return own

    def passages_of(self, nodes: Sequence[NodeText]) -> list[list[str]]:
        """The texts to embed for each node: its prefixed text, or, when that is longer than the
        model's window, its passages of at most `PASSAGE_TOKENS`."""
        whole = [node.prefix + node.text for node in nodes]
        if not self.embed_passages:
            return [[text] for text in whole]
        window, count = self.embedder.window, self.embedder.token_counts
        size = min(window, PASSAGE_TOKENS)
        return [
            [text] if tokens <= window else passages(node.text, count, size, node.prefix, prefix_every=True)
            for node, text, tokens in zip(nodes, whole, count(whole), strict=True)
        ]

    def close(self) -> None:
        self._background.shutdown(cancel_futures=True)

    def index_ahead(self, namespace: str, nodes: Sequence[NodeText], now: datetime) -> IndexedAhead:
        """Start `index`'s vector work for `nodes` in the background (embed, store, find neighbours);
        pass the result to the `index` call that follows, which writes their SEMANTIC edges once
        the nodes exist in the graph."""

        def run() -> tuple[Vectors, list[dict[str, Any]], float]:
            start = time.perf_counter()
            return *self._vectors_and_links(namespace, nodes, now, {}), time.perf_counter() - start

        return IndexedAhead(self._background.submit(run))

    def index(self, namespace: str, nodes: Sequence[NodeText], now: datetime, ahead: IndexedAhead | None = None) -> int:
        """Embed, store and link `nodes` (and write the links of the nodes indexed `ahead`); returns
        the SEMANTIC edges created. Idempotent.

        A node with `vector_of` (its source in this batch or `ahead`) takes its source's vector and
        gets no neighbour search of its own: its neighbours are its source's, which it is linked to
        already. Such nodes are not linked to either (their vector is their source's: the source is linked)."""
        known, links, _ = ahead.result.result() if ahead is not None else ({}, [], 0.0)
        if nodes:
            links = links + self._vectors_and_links(namespace, nodes, now, known)[1]
        if not links:
            return 0
        rows = self.graph.write_transaction(lambda tx: create_links(tx, namespace, links))
        return sum(1 for row in rows if row["created"])

    def _vectors_and_links(
        self, namespace: str, nodes: Sequence[NodeText], now: datetime, known: Mapping[str, list[float]]
    ) -> tuple[Vectors, list[dict[str, Any]]]:
        """Store the vectors of `nodes` (`known` holds those of sources indexed earlier in the same
        write) and find their SEMANTIC link rows; returns the vectors by id and the rows."""
        in_batch = {node.id for node in nodes} | set(known)
        own = [node for node in nodes if node.vector_of not in in_batch]
        shared = [node for node in nodes if node.vector_of in in_batch]
        vectors = self.store_vectors(namespace, own)
        by_id = dict(known) | {node.id: vector for node, vector in zip(own, vectors, strict=True)}
        self.vectors.upsert(
            namespace,
            [
                VectorRecord(node.id, by_id[str(node.vector_of)], {"type": node.type, VECTOR_OF_KEY: node.vector_of})
                for node in shared
            ],
        )
        links: list[dict[str, Any]] = []
        if self.linking.max_neighbours > 0 and own:
            # Room for the nodes sharing a vector with each neighbour (a turn's fact and event).
            found = self.vectors.search_many(namespace, vectors, limit=4 * (self.linking.max_neighbours + 1))
            for node, hits in zip(own, found, strict=True):
                close = [
                    h
                    for h in hits
                    if h.node_id != node.id and not h.payload.get(VECTOR_OF_KEY) and h.score > self.linking.threshold
                ]
                links += [
                    link_row(RelType.SEMANTIC, node.id, hit.node_id, min(1.0, hit.score), now)
                    for hit in close[: self.linking.max_neighbours]
                ]
        return by_id, links
