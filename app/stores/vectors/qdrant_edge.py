"""Qdrant Edge backend: Qdrant's own engine in-process, the default when no server is configured.

Why this and not qdrant-client's local mode: measured at 100k x 384 on 2 cores, Edge answers a
filtered top-10 in ~2 ms (full scan ~20 ms) and is thread-safe; local mode takes 150-230 ms,
1.3 s filtered, and corrupts writes under threads. One process may own the shard folder.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import qdrant_edge as edge

from app.domain.embedding_identity import EmbeddingIdentity
from app.domain.vector_pair import E5_VECTOR, MINILM_VECTOR, READ_BY_KEY, joined
from app.stores.folder_users import describe, processes_using
from app.stores.vectors.base import (
    NAMESPACE_KEY,
    NODE_ID_KEY,
    NamedSearch,
    PayloadMatch,
    VectorDimensionError,
    VectorFolderInUse,
    VectorHit,
    VectorRecord,
    VectorStore,
    layout_mismatch,
    point_id,
)

_VECTOR_NAME = "dense"
# Candidates an HNSW search explores (scripts/bench_hnsw_ef.py). On real conversation text (LongMemEval
# dev's 28k turns) 128 finds 0.996 of the exact top 40 (160: 0.997, 256: 0.999, 512: 0.9997; its worst
# query 36 of 40). On the 100k recall benchmark, whose texts repeat (clusters of identical vectors),
# 256 found 0.947 (512: 0.976; Qdrant's default 100 missed most true neighbours of some queries). Edge
# holds the interpreter lock while it searches, so each halving of the work shows in the whole recall:
# 512 -> 256 took 29.7 -> 26.9 ms at p50; 256 -> 128 ~1.2 ms less in-process (a search 1.24 -> 0.80 ms).
# Segments without an index (below Qdrant's indexing threshold, or before `optimize`) are scanned exactly.
_SEARCH_EF = 128
# The embedding identity of the shard's vectors, a file of ours beside the engine's in its folder.
MARKER_FILE = "hippograph-embedding.json"


def in_use_message(path: Path) -> str:
    """Why the shard at `path` cannot be opened: which processes hold it, and what to do."""
    holders = "; ".join(describe(pid) for pid in processes_using(path)) or "a process this user cannot see"
    return (f"the embedded vector folder {path} is in use by {holders}. One process at a time opens it: "
            "stop that one (`make stop` stops the API `make run` started), give this one another "
            "HIPPOGRAPH_DATA_DIR, or share a Qdrant server (QDRANT_URL)")


def read_marker(path: Path) -> dict[str, Any] | None:
    """The shard folder's identity marker, readable while another process owns the shard."""
    marker = path / MARKER_FILE
    return json.loads(marker.read_text()) if marker.is_file() else None


class EdgeVectorStore(VectorStore):
    backend = "qdrant-edge"

    def __init__(self, path: Path, dimension: int, paired: bool = False) -> None:
        super().__init__(dimension, paired)
        self.path = path
        names = {E5_VECTOR: dimension // 2, MINILM_VECTOR: dimension // 2} if paired else {_VECTOR_NAME: dimension}
        params = {name: edge.EdgeVectorParams(size=size, distance=edge.Distance.Cosine) for name, size in names.items()}
        config = edge.EdgeConfig(vectors=params)
        if path.exists() and any(path.iterdir()):
            try:
                self.shard = edge.EdgeShard.load(str(path), config)
            except Exception as exc:  # the engine reports mismatches as a generic runtime error
                if "storages with keys" in str(exc):  # other named vectors: a single model's, or a pair's
                    raise layout_mismatch(str(path), stored_pairs=not paired) from exc
                if "dimension" in str(exc).lower() or "size" in str(exc).lower():
                    raise VectorDimensionError(f"{path}: {exc}") from exc
                if "WouldBlock" in str(exc):  # its write-ahead log is locked by another process
                    raise VectorFolderInUse(in_use_message(path)) from exc
                raise
        else:
            path.mkdir(parents=True, exist_ok=True)
            self.shard = edge.EdgeShard.create(str(path), config)
        # Filtered searches by namespace; deletes by node id (every passage of a node). A shard made
        # before the node id index gets it here, once.
        indexed = self.shard.info().payload_schema
        for key in (NAMESPACE_KEY, NODE_ID_KEY):
            if key not in indexed:
                self.shard.update(edge.UpdateOperation.create_field_index(key, edge.PayloadSchemaType.Keyword))
        if paired and READ_BY_KEY not in indexed:  # an English query's e5 search: the other points
            self.shard.update(edge.UpdateOperation.create_field_index(READ_BY_KEY, edge.PayloadSchemaType.Keyword))

    @property
    def location(self) -> str:
        return str(self.path)

    def stored_identity(self) -> EmbeddingIdentity | None:
        return EmbeddingIdentity.from_dict(read_marker(self.path))

    def record_identity(self, identity: EmbeddingIdentity, complete: bool = True) -> None:
        staging = self.path / f".{MARKER_FILE}.tmp"
        staging.write_text(json.dumps({**identity.as_dict(), "complete": complete}))
        staging.replace(self.path / MARKER_FILE)

    def is_complete(self) -> bool:
        return bool((read_marker(self.path) or {}).get("complete", True))

    def is_empty(self) -> bool:
        return int(self.shard.count(edge.CountRequest(exact=True))) == 0

    def upsert(self, namespace: str, records: Sequence[VectorRecord]) -> None:
        if not records:
            return
        points = []
        for r in records:
            named: dict[str, Any] = self._named(r.vector) if self.paired else {_VECTOR_NAME: list(map(float, r.vector))}
            points.append(edge.Point(point_id(namespace, r.node_id, r.passage), named, self._payload(namespace, r)))
        self.shard.update(edge.UpdateOperation.upsert_points(points))

    def _query(self, namespace: str, searches: Sequence[NamedSearch], limit: int) -> list[list[VectorHit]]:
        params = edge.SearchParams(hnsw_ef=_SEARCH_EF)
        requests = [
            edge.QueryRequest(
                limit=limit,
                query=edge.Query.Nearest([float(x) for x in search.vector], using=search.using or _VECTOR_NAME),
                filter=_filter(namespace, search.match),
                with_payload=True,
                params=params,
            )
            for search in searches
        ]
        return [self._hits(points) for points in self.shard.query_batch(edge.QueryBatchRequest(requests))]

    def vectors_of(self, namespace: str, node_ids: Sequence[str]) -> dict[str, list[float]]:
        if not node_ids:
            return {}
        by_point = {point_id(namespace, node_id): node_id for node_id in node_ids}
        records = self.shard.retrieve(list(by_point), with_payload=False, with_vector=True)
        found: dict[str, list[float]] = {}
        for record in records:
            # A point of this store holds its one named dense vector, or one half of a pair (e5's or MiniLM's).
            named = cast(dict[str, list[float]], record.vector) if isinstance(record.vector, dict) else {}
            if self.paired and (E5_VECTOR in named or MINILM_VECTOR in named):
                found[by_point[str(record.id)]] = joined(
                    named.get(E5_VECTOR), named.get(MINILM_VECTOR), self.dimension // 2
                )
            elif not self.paired and isinstance(vector := named.get(_VECTOR_NAME), list):
                found[by_point[str(record.id)]] = [float(x) for x in vector]
        return found

    def optimize(self) -> bool:
        """Qdrant Edge runs no optimizer of its own: this builds the HNSW index of segments past the
        indexing threshold and merges small ones (blocking; searches and updates go on meanwhile;
        ~16 s for 100k points here, and a no-op when nothing changed)."""
        return bool(self.shard.optimize())

    def delete(self, namespace: str, node_ids: Sequence[str]) -> None:
        if node_ids:
            where = _filter(namespace, {NODE_ID_KEY: list(node_ids)})
            self.shard.update(edge.UpdateOperation.delete_points_by_filter(where))

    def delete_namespace(self, namespace: str) -> None:
        self.shard.update(edge.UpdateOperation.delete_points_by_filter(_filter(namespace)))

    def count(self, namespace: str, match: PayloadMatch | None = None) -> int:
        return int(self.shard.count(edge.CountRequest(exact=True, filter=_filter(namespace, match))))

    def any_point(self, namespace: str, match: PayloadMatch | None = None) -> bool:
        request = edge.ScrollRequest(limit=1, filter=_filter(namespace, match), with_payload=False, with_vector=False)
        return bool(self.shard.scroll(request)[0])

    def ping(self) -> None:
        self.shard.info()

    def close(self) -> None:
        self.shard.flush()
        self.shard.close()


def _filter(namespace: str, match: PayloadMatch | None = None) -> edge.Filter:
    must: list[Any] = [edge.FieldCondition(key=NAMESPACE_KEY, match=edge.MatchValue(namespace))]
    for key, value in (match or {}).items():
        condition = edge.MatchValue(value) if isinstance(value, str | int | bool) else edge.MatchAny(list(value))
        must.append(edge.FieldCondition(key=key, match=condition))
    return edge.Filter(must=must)
