"""The vector-store interface shared by every backend.

One collection holds every namespace (Qdrant's multitenancy pattern): each point carries
`namespace` and `node_id` in its payload and every call filters on the namespace. The point id is a
UUID derived from (namespace, node id), so upserting the same node twice replaces its vector.

A node whose text is longer than the embedding model's window, and a turn of several sentences
(its sentence points), has one point per passage (`app/domain/passages.py`): the first keeps the
node's point id, passage i > 0 has an id derived from (namespace, node id, i) and `passage: i` in
its payload. Searches return one hit per node (its best passage) and deletes remove every point of
a node (by `node_id`, a payload index).
A short turn also has a context point (`passage: CONTEXT_PASSAGE`): its vector summed with the
vectors of the turns around it (`app/memory/semantic.py`, `store_context`); searches count it as one
of the turn's passages, without the discount, and neighbour searches leave it out (`context=False`).

The vectors' embedding identity (model and model digest, `EmbeddingIdentity`) is stored with them
(collection metadata on a Qdrant server, a marker file in the embedded shard's folder): MiniLM and
multilingual-e5-small both give 384 dimensions, so the dimension check alone would let a changed
EMBEDDING_MODEL mix two models' vectors silently. `bind` refuses that at start-up; `app/reembed.py`
builds a store for the new model beside the old one (`rebuild_location`), which the process opens
once it is complete.

A store of pairs (`paired`, the default embedder's: `app/domain/vector_pair.py`) keeps each point's
vector as one of two named vectors, `e5` for a text with CJK characters, `minilm` for the others,
and the payload key `read_by` naming it. A search by a pair asks the engine once per half that is
set, in the same batch (an English query in a namespace with Chinese memories: MiniLM over the
English points, e5 over the Chinese ones); e5's cosines are put on MiniLM's scale
(`app/domain/cosine_scale.py`) and the hits merged by score, so a SEMANTIC threshold or a relevance
reads both alike.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.domain.cosine_scale import Kind, e5_on_reference
from app.domain.embedding_identity import EmbeddingIdentity
from app.domain.vector_pair import E5_VECTOR, MINILM_VECTOR, READ_BY_KEY, halves
from app.settings import PACKAGED_MINILM

# Fixed namespace for point ids; changing it would orphan every stored vector.
_POINT_ID_NAMESPACE = uuid.UUID("6f1d4c52-9a57-4a43-9d1c-7d5b3f0e2a11")

NAMESPACE_KEY = "namespace"
NODE_ID_KEY = "node_id"
PASSAGE_KEY = "passage"

# A search whose `limit` hits hold fewer than `limit` nodes (passages of one node crowd out others)
# asks again for this many times more hits. A search meeting no passage is the engine's own query,
# unchanged; a node scored by a discounted passage near the limit may rank slightly off.
REFETCH = 4
# Subtracted from the cosine of a passage after a node's first: a long text has many passages, and
# the best of many scores is a chance match more often than one text's single score is
# (docs/benchmarks.md: a long pasted document displaced a short answer turn through one passage).
PASSAGE_DISCOUNT = 0.05
# The passage number of a turn's context point (never a passage of its text, which count from 0).
CONTEXT_PASSAGE = -1

# Equality filters on payload keys: a value matches exactly, a sequence matches any of its values.
PayloadMatch = Mapping[str, str | int | bool | Sequence[str]]


def point_id(namespace: str, node_id: str, passage: int = 0) -> str:
    key = f"{namespace}\x1f{node_id}" + (f"\x1f{passage}" if passage else "")
    return str(uuid.uuid5(_POINT_ID_NAMESPACE, key))


@dataclass(frozen=True)
class VectorRecord:
    node_id: str
    vector: Sequence[float]
    payload: Mapping[str, Any] = field(default_factory=dict)
    passage: int = 0  # which passage of the node's text (0: the node's own point)


@dataclass(frozen=True)
class NamedSearch:
    """One nearest-neighbour query to the engine: `using` names the vector of a store of pairs (None:
    a store's one vector)."""

    vector: Sequence[float]
    using: str | None
    match: PayloadMatch | None


@dataclass(frozen=True)
class VectorHit:
    node_id: str
    score: float
    payload: dict[str, Any]


class VectorDimensionError(ValueError):
    pass


class VectorFolderInUse(RuntimeError):
    """Another process holds the embedded vector folder (one process at a time may open it)."""


class EmbeddingMismatchError(RuntimeError):
    """The store holds vectors of another model than the one this process embeds with."""


REEMBED_COMMAND = "python -m app.reembed"


class VectorStore(ABC):
    """Namespace-scoped cosine search over the vectors of memory nodes (one per node, or one per
    passage of a long text), answering with nodes."""

    backend: str

    def __init__(self, dimension: int, paired: bool = False) -> None:
        self.dimension = dimension  # of a pair, both halves'
        self.paired = paired

    def _payload(self, namespace: str, record: VectorRecord) -> dict[str, Any]:
        if len(record.vector) != self.dimension:
            raise VectorDimensionError(
                f"vector for {record.node_id} has {len(record.vector)} dimensions, expected {self.dimension}"
            )
        passage = {PASSAGE_KEY: record.passage} if record.passage else {}
        pair = {READ_BY_KEY: next(iter(self._named(record.vector)))} if self.paired else {}
        return {**record.payload, **passage, **pair, NAMESPACE_KEY: namespace, NODE_ID_KEY: record.node_id}

    def _named(self, vector: Sequence[float]) -> dict[str, list[float]]:
        """A pair's named vectors (a point of a store of pairs): the half that is set."""
        e5, minilm = halves(vector)
        if (e5 is None) == (minilm is None):
            raise VectorDimensionError("a stored text's pair has exactly one half set (e5's or MiniLM's)")
        return {E5_VECTOR: e5} if e5 is not None else {MINILM_VECTOR: minilm}  # type: ignore[dict-item]

    # -- embedding identity ---------------------------------------------------------------------

    @abstractmethod
    def stored_identity(self) -> EmbeddingIdentity | None:
        """The identity recorded with the vectors; None for a store made before identities were."""

    @abstractmethod
    def record_identity(self, identity: EmbeddingIdentity, complete: bool = True) -> None:
        """Record whose vectors these are; `complete` False while a re-embedding fills the store."""

    @abstractmethod
    def is_complete(self) -> bool:
        """False while a re-embedding (`app/reembed.py`) is still filling this store."""

    @abstractmethod
    def is_empty(self) -> bool:
        """No point in any namespace."""

    def bind(self, identity: EmbeddingIdentity) -> None:
        """Serve vectors of `identity` only: record it in a new store, refuse a store of another model.
        A store made before identities were recorded holds the packaged MiniLM's vectors (the only
        packaged model then): it is adopted by that model, or when empty."""
        stored = self.stored_identity()
        if stored is None:
            if identity.model == PACKAGED_MINILM or self.is_empty():
                self.record_identity(identity)
                return
            stored = EmbeddingIdentity(PACKAGED_MINILM, "unrecorded")
        if stored.digest != identity.digest:
            raise mismatch(self.location, str(stored), identity, stored.model)
        if not self.is_complete():
            raise EmbeddingMismatchError(
                f"the vector store {self.location} for {identity} is still being filled by `{REEMBED_COMMAND}`: "
                "run it to the end (it resumes), or set EMBEDDING_MODEL back to the previous model."
            )

    @property
    @abstractmethod
    def location(self) -> str:
        """Where the vectors are, for messages (a collection, a folder)."""

    @abstractmethod
    def upsert(self, namespace: str, records: Sequence[VectorRecord]) -> None: ...

    def search(
        self, namespace: str, vector: Sequence[float], limit: int, match: PayloadMatch | None = None
    ) -> list[VectorHit]:
        """The `limit` best nodes of a query's vector."""
        return self.search_many(namespace, [vector], limit, match)[0]

    def search_many(
        self,
        namespace: str,
        vectors: Sequence[Sequence[float]],
        limit: int,
        match: PayloadMatch | None = None,
        context: bool = True,
        passages: bool = False,
        first_fetch: int | None = None,
    ) -> list[list[VectorHit]]:
        """The `limit` best nodes of each vector (a node scored by its best passage), in order, from
        one call to the engine (the write path searches the neighbours of a whole batch at once).
        Without `context` the turns' context points are left out (what a node says on its own).
        `passages`: the vectors are stored texts' (neighbours of new nodes), not queries' (which
        calibration of e5's cosines applies, in a store of pairs). `first_fetch`: hits asked of the
        engine at first (default `limit`; more where passages often crowd the hits, as a second search
        costs a whole one)."""
        results: list[list[VectorHit]] = [[] for _ in vectors]
        pending, fetch = list(range(len(vectors))), max(limit, first_fetch or limit)
        while pending:
            found = self._search_batch(namespace, [vectors[i] for i in pending], fetch, match, passages)
            short = []
            for index, hits in zip(pending, found, strict=True):
                kept = hits if context else [hit for hit in hits if hit.payload.get(PASSAGE_KEY) != CONTEXT_PASSAGE]
                results[index] = best_per_node(kept)[:limit]
                if len(results[index]) < limit and len(hits) == fetch:  # passages crowded out nodes
                    short.append(index)
            pending, fetch = short, REFETCH * fetch
        return results

    def _search_batch(
        self,
        namespace: str,
        vectors: Sequence[Sequence[float]],
        limit: int,
        match: PayloadMatch | None,
        passages: bool = False,
    ) -> list[list[VectorHit]]:
        """`search_many` for at least one vector, at most `limit` hits each: one batch query to the
        engine (of a store of pairs, one search per half that is set: see the module's notes)."""
        if not self.paired:
            return self._query(namespace, [NamedSearch(vector, None, match) for vector in vectors], limit)
        searches: list[NamedSearch] = []
        owners: list[tuple[int, Kind]] = []  # each search's vector, and the kind of its e5 pairs
        for index, vector in enumerate(vectors):
            e5, minilm = halves(vector)
            searches += [
                NamedSearch(half, name, match) for half, name in ((e5, E5_VECTOR), (minilm, MINILM_VECTOR)) if half
            ]
            owners += [(index, "across" if minilm else "chinese")] * (len(searches) - len(owners))
        merged: list[list[VectorHit]] = [[] for _ in vectors]
        for search, (owner, kind), hits in zip(searches, owners, self._query(namespace, searches, limit), strict=True):
            if search.using == E5_VECTOR:  # only texts with CJK characters have an e5 vector
                hits = [VectorHit(h.node_id, e5_on_reference(h.score, kind, passages), h.payload) for h in hits]
            merged[owner] += hits
        return [sorted(hits, key=lambda hit: -hit.score)[:limit] for hits in merged]

    @abstractmethod
    def _query(self, namespace: str, searches: Sequence[NamedSearch], limit: int) -> list[list[VectorHit]]:
        """The `limit` best points of each search in the namespace; each backend's batch query."""

    @staticmethod
    def _hits(points: Iterable[Any]) -> list[VectorHit]:
        """Scored points of either engine (`.score`, `.payload`) as hits. `.payload` is read once a
        point: Qdrant Edge builds a new dict at each read (three reads were ~0.3 ms a recall)."""
        return [
            VectorHit(node_id=str(payload[NODE_ID_KEY]), score=float(p.score), payload=dict(payload))
            for p in points
            if (payload := p.payload)
        ]

    @abstractmethod
    def vectors_of(self, namespace: str, node_ids: Sequence[str]) -> dict[str, list[float]]:
        """The own vector (its first passage's) of each of these nodes that has one, by node id
        (the deferred SEMANTIC linking reads the vectors the write stored)."""

    @abstractmethod
    def delete(self, namespace: str, node_ids: Sequence[str]) -> None:
        """Every point of these nodes (all their passages)."""

    @abstractmethod
    def delete_namespace(self, namespace: str) -> None: ...

    @abstractmethod
    def count(self, namespace: str, match: PayloadMatch | None = None) -> int:
        """Points of the namespace (all passages of every node), those matching `match` only."""

    def reads_other_languages(self, namespace: str) -> bool:
        """Whether an English query's e5 vector may find anything: a store of pairs holding a point of
        the namespace without a MiniLM vector (a text with CJK characters)."""
        return self.paired and self.any_point(namespace, {READ_BY_KEY: E5_VECTOR})

    @abstractmethod
    def any_point(self, namespace: str, match: PayloadMatch | None = None) -> bool:
        """Whether the namespace has a point matching `match`: one point read, where an exact count
        reads every match (13 ms over 55k Chinese points of bench_recall, on every English query)."""

    def optimize(self) -> bool:
        """Build search indexes for what was added since the last call; True when anything was done.
        Only the embedded engine needs this (a Qdrant server optimizes by itself): see the
        `hippograph.optimize_vectors` job."""
        return False

    @abstractmethod
    def ping(self) -> None:
        """Raise when the engine cannot serve requests."""

    @abstractmethod
    def close(self) -> None: ...


def layout_mismatch(location: str, stored_pairs: bool) -> EmbeddingMismatchError:
    """The error of a store whose named vectors are of the other layout (a pair's, or one model's)."""
    layout = "a pair of models" if stored_pairs else "another model (not a pair)"
    return EmbeddingMismatchError(
        f"the vector store {location} holds vectors of {layout}: re-embed every node with `{REEMBED_COMMAND}` "
        "(EMBEDDING_MODEL set to the new model), or set EMBEDDING_MODEL back"
    )


def mismatch(location: str, stored: str, identity: EmbeddingIdentity, previous: str) -> EmbeddingMismatchError:
    """The error of a store holding vectors of `stored` (a model, or a layout) opened by a process
    embedding with `identity`; `previous` is the EMBEDDING_MODEL that made them."""
    return EmbeddingMismatchError(
        f"the vector store {location} holds vectors of {stored}, but this process embeds with "
        f"{identity}: searching one model's vectors with the other's would silently return wrong "
        f"memories. Re-embed every node with `{REEMBED_COMMAND}` (EMBEDDING_MODEL set to the new model; "
        f"recall keeps working meanwhile), or set EMBEDDING_MODEL back to {previous!r}."
    )


def best_per_node(hits: Sequence[VectorHit]) -> list[VectorHit]:
    """The best hit of each node, best first: a node's passages count once, by their best score,
    passages after the first less `PASSAGE_DISCOUNT` (not a turn's context point)."""
    return strongest_per_node(_discounted(hit) for hit in hits)


def _discounted(hit: VectorHit) -> VectorHit:
    """A passage's hit less `PASSAGE_DISCOUNT`; a node's own vector (and a context point) as it is."""
    if hit.payload.get(PASSAGE_KEY, 0) > 0:
        return VectorHit(hit.node_id, hit.score - PASSAGE_DISCOUNT, hit.payload)
    return hit


def strongest_per_node(hits: Iterable[VectorHit]) -> list[VectorHit]:
    """Each node's highest-scoring hit, best first, the scores taken as they are (so the results of
    several searches, each already `best_per_node`, merge without discounting a passage twice)."""
    best: dict[str, VectorHit] = {}
    for hit in hits:
        if hit.node_id not in best or hit.score > best[hit.node_id].score:
            best[hit.node_id] = hit
    return sorted(best.values(), key=lambda hit: -hit.score)
