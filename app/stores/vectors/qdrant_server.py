"""qdrant-client backend: a Qdrant server in production; qdrant-client's local mode in tests."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import cast

import httpx
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from app.domain.embedding_identity import EmbeddingIdentity
from app.domain.vector_pair import E5_VECTOR, MINILM_VECTOR, READ_BY_KEY, joined
from app.errors import EngineUnavailable, short_reason
from app.stores.vectors.base import (
    NAMESPACE_KEY,
    NODE_ID_KEY,
    NamedSearch,
    PayloadMatch,
    VectorDimensionError,
    VectorHit,
    VectorRecord,
    VectorStore,
    layout_mismatch,
    point_id,
)


class QdrantClientVectorStore(VectorStore):
    backend = "qdrant-client"

    def __init__(self, client: QdrantClient, collection: str, dimension: int, paired: bool = False) -> None:
        super().__init__(dimension, paired)
        self.client = client
        self.collection = collection
        # qdrant-client's local mode is not thread-safe (infra-notes §2); a server client is.
        self._lock = threading.Lock() if _is_local(client) else None
        self._ensure_collection()

    @contextmanager
    def _serialized(self) -> Iterator[None]:
        """Every call to the client runs in here: one at a time in local mode, and a server that cannot
        be reached raises `EngineUnavailable("vectors")`."""
        with self._lock or nullcontext():
            try:
                yield
            except Exception as exc:
                if _unavailable(exc):
                    raise EngineUnavailable("vectors", _reason(exc)) from exc
                raise

    def _ensure_collection(self) -> None:
        with self._serialized():
            indexed: set[str] = set()
            half = models.VectorParams(size=self.dimension // 2, distance=models.Distance.COSINE)
            if self.client.collection_exists(self.collection):
                info = self.client.get_collection(self.collection)
                params = info.config.params.vectors
                if isinstance(params, dict) != self.paired:  # named vectors: a pair's
                    raise layout_mismatch(self.location, stored_pairs=isinstance(params, dict))
                sizes = (
                    [p.size for p in params.values()]
                    if isinstance(params, dict)
                    else [params.size if isinstance(params, models.VectorParams) else None]
                )
                if sum(size or 0 for size in sizes) != self.dimension:
                    raise VectorDimensionError(
                        f"collection {self.collection} holds {sizes}-d vectors, the model gives {self.dimension}"
                    )
                indexed = set(info.payload_schema)
            else:
                self.client.create_collection(
                    self.collection,
                    vectors_config={E5_VECTOR: half, MINILM_VECTOR: half}
                    if self.paired
                    else models.VectorParams(size=self.dimension, distance=models.Distance.COSINE),
                )
            if _is_local(self.client):  # local mode ignores payload indexes (and warns)
                return
            # The tenant key of every search; the node id of deletes (every passage of a node). A
            # collection made before the node id index gets it here, once.
            if NAMESPACE_KEY not in indexed:
                self.client.create_payload_index(
                    self.collection,
                    NAMESPACE_KEY,
                    models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
                )
            if NODE_ID_KEY not in indexed:
                self.client.create_payload_index(self.collection, NODE_ID_KEY, models.PayloadSchemaType.KEYWORD)
            if self.paired and READ_BY_KEY not in indexed:  # an English query's e5 search: the other points
                self.client.create_payload_index(self.collection, READ_BY_KEY, models.PayloadSchemaType.KEYWORD)

    @property
    def location(self) -> str:
        return f"collection {self.collection}"

    def stored_identity(self) -> EmbeddingIdentity | None:
        return EmbeddingIdentity.from_dict(self._identity())

    def record_identity(self, identity: EmbeddingIdentity, complete: bool = True) -> None:
        with self._serialized():
            self.client.update_collection(
                self.collection, metadata={IDENTITY_KEY: {**identity.as_dict(), "complete": complete}}
            )

    def is_complete(self) -> bool:
        return bool((self._identity() or {}).get("complete", True))

    def is_empty(self) -> bool:
        with self._serialized():
            return self.client.count(self.collection, exact=True).count == 0

    def _identity(self) -> dict[str, object] | None:
        with self._serialized():
            metadata = self.client.get_collection(self.collection).config.metadata or {}
        value = metadata.get(IDENTITY_KEY)
        return value if isinstance(value, dict) else None

    def upsert(self, namespace: str, records: Sequence[VectorRecord]) -> None:
        if not records:
            return
        points = [
            models.PointStruct(
                id=point_id(namespace, r.node_id, r.passage),
                vector=self._named(r.vector) if self.paired else [float(x) for x in r.vector],
                payload=self._payload(namespace, r),
            )
            for r in records
        ]
        with self._serialized():
            self.client.upsert(self.collection, points=points, wait=True)

    def _query(self, namespace: str, searches: Sequence[NamedSearch], limit: int) -> list[list[VectorHit]]:
        requests = [
            models.QueryRequest(
                query=[float(x) for x in search.vector],
                using=search.using,
                filter=_filter(namespace, search.match),
                limit=limit,
                with_payload=True,
            )
            for search in searches
        ]
        with self._serialized():
            responses = self.client.query_batch_points(self.collection, requests=requests)
        return [self._hits(response.points) for response in responses]

    def vectors_of(self, namespace: str, node_ids: Sequence[str]) -> dict[str, list[float]]:
        if not node_ids:
            return {}
        by_point = {point_id(namespace, node_id): node_id for node_id in node_ids}
        with self._serialized():
            records = self.client.retrieve(self.collection, ids=list(by_point), with_payload=False, with_vectors=True)
        if self.paired:  # one half of a pair: e5's (a text with CJK characters) or MiniLM's
            named = [(r.id, cast(dict[str, list[float]], r.vector)) for r in records if isinstance(r.vector, dict)]
            half = self.dimension // 2
            return {by_point[str(id_)]: joined(vector.get(E5_VECTOR), vector.get(MINILM_VECTOR), half)
                    for id_, vector in named if E5_VECTOR in vector or MINILM_VECTOR in vector}  # fmt: skip
        # The collection's one unnamed dense vector: a list of floats.
        return {by_point[str(r.id)]: [float(x) for x in cast(list[float], r.vector)]
                for r in records if isinstance(r.vector, list)}  # fmt: skip

    def delete(self, namespace: str, node_ids: Sequence[str]) -> None:
        if not node_ids:
            return
        with self._serialized():
            self.client.delete(
                self.collection,
                points_selector=models.FilterSelector(filter=_filter(namespace, {NODE_ID_KEY: list(node_ids)})),
                wait=True,
            )

    def delete_namespace(self, namespace: str) -> None:
        with self._serialized():
            self.client.delete(
                self.collection, points_selector=models.FilterSelector(filter=_filter(namespace)), wait=True
            )

    def count(self, namespace: str, match: PayloadMatch | None = None) -> int:
        with self._serialized():
            return self.client.count(self.collection, count_filter=_filter(namespace, match), exact=True).count

    def any_point(self, namespace: str, match: PayloadMatch | None = None) -> bool:
        with self._serialized():
            where = _filter(namespace, match)
            points, _ = self.client.scroll(self.collection, scroll_filter=where, limit=1, with_vectors=False)
        return bool(points)

    def ping(self) -> None:
        with self._serialized():
            self.client.collection_exists(self.collection)

    def close(self) -> None:
        self.client.close()


# What a server that is down, restarting or overloaded looks like to qdrant-client: REST transport
# errors (refused, reset, timed out) wrapped in ResponseHandlingException, a gateway's 502/503/504,
# and gRPC's UNAVAILABLE / DEADLINE_EXCEEDED.
_UNAVAILABLE_HTTP_STATUS = frozenset({502, 503, 504})
# The collection metadata key of the vectors' embedding identity.
IDENTITY_KEY = "hippograph_embedding"


def _unavailable(exc: BaseException) -> bool:
    if isinstance(exc, ResponseHandlingException):
        return isinstance(exc.source, httpx.TransportError)
    if isinstance(exc, httpx.TransportError):
        return True
    if isinstance(exc, UnexpectedResponse):
        return exc.status_code in _UNAVAILABLE_HTTP_STATUS
    try:
        import grpc
    except ImportError:  # pragma: no cover - qdrant-client depends on grpcio
        return False
    if isinstance(exc, grpc.RpcError) and isinstance(exc, grpc.Call):
        return exc.code() in {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
    return False


def _reason(exc: BaseException) -> str:
    source = getattr(exc, "source", None)
    if isinstance(source, BaseException):  # ResponseHandlingException: the transport error it wraps
        return short_reason(source)
    if callable(code := getattr(exc, "code", None)) and callable(details := getattr(exc, "details", None)):
        return f"gRPC {code().name}: {details()}"[:200]  # a grpc.Call
    return short_reason(exc)


def _is_local(client: QdrantClient) -> bool:
    from qdrant_client.local.qdrant_local import QdrantLocal

    return isinstance(getattr(client, "_client", None), QdrantLocal)


def _filter(namespace: str, match: PayloadMatch | None = None) -> models.Filter:
    must: list[models.Condition] = [models.FieldCondition(key=NAMESPACE_KEY, match=models.MatchValue(value=namespace))]
    for key, value in (match or {}).items():
        condition: models.Match = (
            models.MatchValue(value=value) if isinstance(value, str | int | bool) else models.MatchAny(any=list(value))
        )
        must.append(models.FieldCondition(key=key, match=condition))
    return models.Filter(must=must)
