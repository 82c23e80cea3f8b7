"""The vector side of a write: embed new nodes in one batch, store their vectors, and give each
SEMANTIC edges to its closest neighbours in the namespace (cosine above a threshold).

The write path starts this for a batch's turns in the background (`index_ahead`) while their graph
statements run: embedding uses the cores Neo4j leaves idle meanwhile, and releases the interpreter
lock. Their vectors are therefore stored a little before their graph nodes; recall counts a vector
hit only for a node that exists or a turn pending in the hot window, and a retried task writes the
same vectors again.

The neighbour search can be deferred (`link=False`): the nodes are embedded and stored, and their
ids come back as `Indexed.unlinked`, for `link` to search and link later (the write task queues
`hippograph.link_semantic` behind the writes). Qdrant Edge holds the interpreter lock for the whole
of a search, and over a namespace's not yet indexed points each search is a scan: inline, under many
writers, these searches were the largest share of the lock (docs/benchmarks.md).

Context points (`store_context`): a turn is also stored with the normalized sum of its vector and
the vectors of the turns before and after it in its session (`context_vector`), as one more point
of the turn. A reply ("Yes, I loved it!") says little without what it answers, and a question's
words are often split over neighbouring turns; the cold path finds the turn by either point. No
embedding is added: the vectors exist already. Every short turn (`CONTEXT_MAX_CHARS`) of a session of
two or more has one, so no short turn is favoured by having more points than another (a session's
first turn once had none, and lost its rank to turns that had). Measured: docs/benchmarks.md,
"Speaker names and context points".

Sentence points (`passages_of`): a turn of two or more sentences of five words or more is also
stored with a vector per such sentence (`app/domain/passages.sentence_passages`), as its passages
1..n. A turn's one vector mean-pools all it says; a sentence's finds it by the one thing a question
asks about (docs/benchmarks.md, "Sentence points").
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.domain.model import NodeType, RelType
from app.domain.passages import passages, sentence_passages
from app.domain.vector_pair import same_half
from app.embedding.encoder import Embedder
from app.memory.records import create_links, link_row
from app.stores.graph import GraphStore
from app.stores.queries.ingest_queries import IngestQueries
from app.stores.vectors import VectorRecord, VectorStore
from app.stores.vectors.base import CONTEXT_PASSAGE

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
class Stored:
    """Nodes embedded and stored (`SemanticIndexer._store_and_search`)."""

    vectors: Vectors  # by node id
    links: list[dict[str, Any]]  # SEMANTIC link rows found for them
    unlinked: list[str]  # nodes of their own vector whose neighbours were not searched (deferred)


@dataclass(frozen=True)
class Indexed:
    """What `SemanticIndexer.index` did: SEMANTIC edges created, and the nodes left to `link`."""

    edges: int
    unlinked: list[str]


@dataclass(frozen=True)
class IndexedAhead:
    """Nodes being embedded, stored (and searched) in the background (`SemanticIndexer.index_ahead`),
    for `SemanticIndexer.index` to write their links."""

    result: Future[tuple[Stored, float]]  # ..., seconds it took

    @property
    def seconds(self) -> float:
        return self.result.result()[1]


def embedding_text(node: dict[str, Any]) -> str:
    return f"{node['label']}. {node['content']}" if node.get("label") else str(node["content"])


def context_vector(turn: Sequence[float], *neighbours: Sequence[float]) -> list[float]:
    """The unit vector along the sum of a turn's vector and its neighbours' vectors."""
    summed = [sum(values) for values in zip(turn, *neighbours, strict=True)]
    norm = math.sqrt(sum(x * x for x in summed))
    return [x / norm for x in summed] if norm else summed


# A turn longer than this (characters) gets no context point: a sentence or two says little on its
# own, a longer turn carries its own context, and the sum of two long turns' vectors lies close to
# many queries (LongMemEval dev R@10 0.921 without context points, 0.893 with one for every turn,
# 0.911 with this limit; LoCoMo dev 0.751, 0.775, 0.776: docs/benchmarks.md, "Speaker names and
# context points").
CONTEXT_MAX_CHARS = 200


class SemanticIndexer:
    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        linking: SemanticLinking,
        embed_passages: bool = False,
        context_points: bool = True,
        sentence_points: bool = True,
    ) -> None:
        self.graph = graph
        self.queries = IngestQueries(graph)
        self.vectors = vectors
        self.embedder = embedder
        self.linking = linking
        # A text longer than the model's window gets a vector per passage, not one of its head only.
        self.embed_passages = embed_passages
        # Each short turn also stored with the turns around it (`store_context`); off only for ablations.
        self.context_points = context_points
        # A turn of several sentences also stored with a vector per sentence (`passages_of`); off only
        # for ablations.
        self.sentence_points = sentence_points
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
        """The texts to embed for each node, its own vector's first: a turn of several sentences, its
        prefixed text and then each sentence (`sentence_passages`; they cover a turn longer than the
        model's window too); any other node, its prefixed text, or, with `embed_passages` when that is
        longer than the window, its passages of at most `PASSAGE_TOKENS`."""
        whole = [node.prefix + node.text for node in nodes]
        said = [
            sentence_passages(node.text, node.prefix)
            if self.sentence_points and node.type == NodeType.DIALOGUE.value
            else []
            for node in nodes
        ]
        if not self.embed_passages:
            return [[text, *sentences] for text, sentences in zip(whole, said, strict=True)]
        window, count = self.embedder.window, self.embedder.token_counts
        size = min(window, PASSAGE_TOKENS)
        return [
            [text, *sentences]
            if sentences or tokens <= window
            else passages(node.text, count, size, node.prefix, prefix_every=True)
            for node, text, sentences, tokens in zip(nodes, whole, said, count(whole), strict=True)
        ]

    def close(self) -> None:
        self._background.shutdown(cancel_futures=True)

    def index_ahead(self, namespace: str, nodes: Sequence[NodeText], now: datetime, link: bool = True) -> IndexedAhead:
        """Start `index`'s vector work for `nodes` in the background (embed, store, and with `link`
        find their neighbours); pass the result to the `index` call that follows, which writes their
        SEMANTIC edges once the nodes exist in the graph."""

        def run() -> tuple[Stored, float]:
            start = time.perf_counter()
            return self._store_and_search(namespace, nodes, now, {}, link), time.perf_counter() - start

        return IndexedAhead(self._background.submit(run))

    def index(
        self,
        namespace: str,
        nodes: Sequence[NodeText],
        now: datetime,
        ahead: IndexedAhead | None = None,
        link: bool = True,
    ) -> Indexed:
        """Embed, store and (with `link`) link `nodes`, and write the links of the nodes indexed
        `ahead`. Idempotent. Without `link` no neighbour is searched: the nodes to link later come
        back as `unlinked` (pass the same `link` to `index_ahead`).

        A node with `vector_of` (its source in this batch or `ahead`) takes its source's vector and
        gets no neighbour search of its own: its neighbours are its source's, which it is linked to
        already. Such nodes are not linked to either (their vector is their source's: the source is linked)."""
        first = ahead.result.result()[0] if ahead is not None else Stored({}, [], [])
        links, unlinked = first.links, first.unlinked
        if nodes:
            rest = self._store_and_search(namespace, nodes, now, first.vectors, link)
            links, unlinked = links + rest.links, unlinked + rest.unlinked
        return Indexed(self._write_links(namespace, links), unlinked)

    def link(self, namespace: str, node_ids: Sequence[str], now: datetime) -> int:
        """SEMANTIC edges for nodes stored earlier without them (`index(..., link=False)`), from their
        stored vectors; returns the edges created. Idempotent; a node gone since is skipped."""
        stored = self.vectors.vectors_of(namespace, node_ids)
        found = [node_id for node_id in dict.fromkeys(node_ids) if node_id in stored]
        return self._write_links(namespace, self._neighbour_links(namespace, found, [stored[i] for i in found], now))

    def store_context(self, namespace: str, turn_ids: Sequence[str]) -> int:
        """The context points of the short turns around `turn_ids` (theirs, and their neighbours', whose
        window the new turns change), from the stored vectors; returns how many were stored.
        Idempotent: a turn's context point has a fixed id."""
        if not self.context_points or not turn_ids:
            return 0
        windows = self.queries.turn_windows(namespace=namespace, ids=list(dict.fromkeys(turn_ids)))
        ids = {node for row in windows for node in (row["turn"], row["previous"], row["next"]) if node}
        stored = self.vectors.vectors_of(namespace, sorted(ids))
        records = []
        for row in windows:
            if row["turn"] not in stored or row["chars"] > CONTEXT_MAX_CHARS:
                continue
            turn = stored[row["turn"]]
            neighbours = [stored[node] for node in (row["previous"], row["next"]) if node and node in stored]
            if self.embedder.paired:  # only neighbours embedded by the turn's model (its language's)
                neighbours = [vector for vector in neighbours if same_half(vector, turn)]
            if neighbours:
                vector = context_vector(turn, *neighbours)
                records.append(VectorRecord(row["turn"], vector, {"type": NodeType.DIALOGUE.value}, CONTEXT_PASSAGE))
        self.vectors.upsert(namespace, records)
        return len(records)

    def _write_links(self, namespace: str, links: list[dict[str, Any]]) -> int:
        if not links:
            return 0
        rows = self.graph.write_transaction(lambda tx: create_links(tx, namespace, links))
        return sum(1 for row in rows if row["created"])

    def _store_and_search(
        self, namespace: str, nodes: Sequence[NodeText], now: datetime, known: Mapping[str, list[float]], link: bool
    ) -> Stored:
        """Store the vectors of `nodes` (`known` holds those of sources indexed earlier in the same
        write) and, with `link`, find their SEMANTIC link rows."""
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
        own_ids = [node.id for node in own]
        if not link:
            return Stored(by_id, [], own_ids if self.linking.max_neighbours > 0 else [])
        return Stored(by_id, self._neighbour_links(namespace, own_ids, vectors, now), [])

    def _neighbour_links(
        self, namespace: str, node_ids: Sequence[str], vectors: Sequence[Sequence[float]], now: datetime
    ) -> list[dict[str, Any]]:
        """SEMANTIC link rows from each node to its closest neighbours (cosine above the threshold),
        all nodes' searches in one call to the engine."""
        if self.linking.max_neighbours <= 0 or not node_ids:
            return []
        # Room for the nodes sharing a vector with each neighbour (a turn's fact and event).
        found = self.vectors.search_many(
            namespace, vectors, limit=4 * (self.linking.max_neighbours + 1), context=False, passages=True
        )
        links: list[dict[str, Any]] = []
        for node_id, hits in zip(node_ids, found, strict=True):
            # Threshold and edge weight on the reference scale, whichever model embeds.
            close = [
                (h.node_id, cosine)
                for h in hits
                if h.node_id != node_id
                and not h.payload.get(VECTOR_OF_KEY)
                and (cosine := self.embedder.scale.of_passages(h.score)) > self.linking.threshold
            ]
            links += [
                link_row(RelType.SEMANTIC, node_id, neighbour, min(1.0, cosine), now)
                for neighbour, cosine in close[: self.linking.max_neighbours]
            ]
        return links
