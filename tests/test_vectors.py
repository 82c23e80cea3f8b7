"""Each vector backend, on real engines: Qdrant Edge in-process, and qdrant-client against a Qdrant
server (QDRANT_URL or testcontainers) or, where neither exists, qdrant-client's local mode."""

from __future__ import annotations

import functools
import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from app.errors import EngineUnavailable
from app.stores.vectors import VectorRecord, VectorStore
from app.stores.vectors.base import CONTEXT_PASSAGE, PASSAGE_DISCOUNT, VectorDimensionError, point_id
from app.stores.vectors.child_process import SEARCHES_PER_CALL, ChildProcessVectorStore
from app.stores.vectors.qdrant_edge import EdgeVectorStore
from app.stores.vectors.qdrant_server import QdrantClientVectorStore

SENTENCES = {
    "tea": "I like drinking green tea in the morning",
    "car": "My car is a red Model Y",
    "berlin": "I moved to Berlin last spring",
    "chinese-tea": "我每天早上喝绿茶",
}


@pytest.fixture(scope="module")
def embedder():  # type: ignore[no-untyped-def]
    """One model's vectors (a store of pairs: tests/test_vector_pair.py)."""
    from app.embedding.encoder import Embedder
    from app.settings import PACKAGED_MINILM, Settings

    return Embedder.from_settings(Settings(EMBEDDING_MODEL=PACKAGED_MINILM))


@pytest.fixture(params=["qdrant-edge", "qdrant-edge-child-process", "qdrant-client"])
def store(request: pytest.FixtureRequest, services, tmp_path: Path, embedder) -> Iterator[VectorStore]:
    if request.param == "qdrant-edge":
        vector_store: VectorStore = EdgeVectorStore(tmp_path / "shard", embedder.dimension)
    elif request.param == "qdrant-edge-child-process":  # how the embedded run uses it
        opener = functools.partial(EdgeVectorStore, tmp_path / "shard", embedder.dimension)
        vector_store = ChildProcessVectorStore(opener, embedder.dimension, EdgeVectorStore.backend)
    else:
        client = QdrantClient(url=services.qdrant_url) if services.qdrant_url else QdrantClient(":memory:")
        vector_store = QdrantClientVectorStore(client, f"test_{uuid.uuid4().hex[:8]}", embedder.dimension)
    yield vector_store
    vector_store.close()


def _records(embedder, keys: list[str], **payload: str) -> list[VectorRecord]:
    vectors = embedder.embed_passages([SENTENCES[k] for k in keys])
    return [
        VectorRecord(f"knowledge:{k}", v, {"type": "Knowledge", **payload}) for k, v in zip(keys, vectors, strict=True)
    ]


def test_upsert_then_search_finds_the_semantic_neighbour(store: VectorStore, embedder, namespace: str) -> None:
    store.upsert(namespace, _records(embedder, ["tea", "car", "berlin"]))
    hits = store.search(namespace, embedder.embed_queries(["What do I drink for breakfast?"])[0], limit=3)
    assert [h.node_id for h in hits][0] == "knowledge:tea"
    assert hits[0].score > hits[1].score >= hits[2].score
    assert hits[0].payload["namespace"] == namespace and hits[0].payload["type"] == "Knowledge"
    assert store.count(namespace) == 3


def test_search_many_answers_each_vector_in_order_within_the_namespace(
    store: VectorStore, embedder, namespace: str
) -> None:
    store.upsert(namespace, _records(embedder, ["tea", "car", "berlin"]))
    store.upsert(f"{namespace}-other", _records(embedder, ["tea"]))
    queries = embedder.embed_queries(["which car do I drive", "What do I drink for breakfast?"])
    found = store.search_many(namespace, queries, limit=2)
    assert [[h.node_id for h in hits][0] for hits in found] == ["knowledge:car", "knowledge:tea"]
    assert all(h.payload["namespace"] == namespace for hits in found for h in hits)
    assert [[h.node_id for h in hits] for hits in found] == [
        [h.node_id for h in store.search(namespace, query, limit=2)] for query in queries
    ]
    assert store.search_many(namespace, [], limit=2) == []


def test_namespaces_never_see_each_other(store: VectorStore, embedder, namespace: str) -> None:
    other = f"{namespace}-other"
    store.upsert(namespace, _records(embedder, ["tea"]))
    store.upsert(other, _records(embedder, ["car"]))
    query = embedder.embed_queries([SENTENCES["tea"]])[0]
    assert [h.node_id for h in store.search(other, query, limit=5)] == ["knowledge:car"]
    store.delete_namespace(other)
    assert store.count(other) == 0
    assert store.count(namespace) == 1


def test_upserting_a_node_again_replaces_its_vector(store: VectorStore, embedder, namespace: str) -> None:
    store.upsert(namespace, _records(embedder, ["tea"]))
    replaced = VectorRecord("knowledge:tea", embedder.embed_passages([SENTENCES["car"]])[0], {"type": "Knowledge"})
    store.upsert(namespace, [replaced])
    assert store.count(namespace) == 1
    hit = store.search(namespace, embedder.embed_queries(["which car do I drive"])[0], limit=1)[0]
    assert hit.node_id == "knowledge:tea" and hit.score > 0.5


def test_payload_filters_and_delete(store: VectorStore, embedder, namespace: str) -> None:
    store.upsert(namespace, _records(embedder, ["tea", "car"], kind="a"))
    store.upsert(namespace, [VectorRecord("dialogue:b", embedder.embed_passages(["hello"])[0], {"type": "Dialogue"})])
    query = embedder.embed_queries(["anything"])[0]
    assert {h.node_id for h in store.search(namespace, query, 10, match={"type": "Dialogue"})} == {"dialogue:b"}
    assert len(store.search(namespace, query, 10, match={"type": ["Dialogue", "Knowledge"]})) == 3
    store.delete(namespace, ["knowledge:tea", "dialogue:b"])
    assert [h.node_id for h in store.search(namespace, query, 10)] == ["knowledge:car"]


def test_a_turns_context_point_answers_for_it_undiscounted_and_not_in_neighbour_searches(
    store: VectorStore, embedder, namespace: str
) -> None:
    tea, car, berlin = embedder.embed_passages([SENTENCES["tea"], SENTENCES["car"], SENTENCES["berlin"]])
    store.upsert(namespace, [VectorRecord("dialogue:a", tea, {"type": "Dialogue"}),
                             VectorRecord("dialogue:a", car, {"type": "Dialogue"}, passage=CONTEXT_PASSAGE),
                             VectorRecord("knowledge:berlin", berlin, {"type": "Knowledge"})])  # fmt: skip
    assert store.count(namespace) == 3
    [hit, *_] = store.search(namespace, car, limit=2)
    assert hit.node_id == "dialogue:a" and hit.payload["passage"] == CONTEXT_PASSAGE
    assert hit.score == pytest.approx(1.0, abs=1e-4)  # no passage discount
    assert store.vectors_of(namespace, ["dialogue:a"])["dialogue:a"] == pytest.approx(tea, abs=1e-4)  # its own
    [hits] = store.search_many(namespace, [car], limit=2, context=False)
    [own] = [hit for hit in hits if hit.node_id == "dialogue:a"]
    assert "passage" not in own.payload  # found by its own point only
    assert own.score == pytest.approx(sum(a * b for a, b in zip(car, tea, strict=True)), abs=1e-4)
    store.delete(namespace, ["dialogue:a"])
    assert store.count(namespace) == 1


def test_a_nodes_passages_answer_as_one_node_and_are_deleted_with_it(
    store: VectorStore, embedder, namespace: str
) -> None:
    tea, car, berlin = embedder.embed_passages([SENTENCES["tea"], SENTENCES["car"], SENTENCES["berlin"]])
    long_turn = [VectorRecord("dialogue:long", v, {"type": "Dialogue"}, passage=i) for i, v in enumerate([tea, car])]
    store.upsert(namespace, [*long_turn, VectorRecord("knowledge:berlin", berlin, {"type": "Knowledge"})])
    store.upsert(f"{namespace}-other", long_turn)
    assert store.count(namespace) == 3

    query = embedder.embed_queries(["which car do I drive"])[0]
    hits = store.search(namespace, query, limit=2)
    assert [h.node_id for h in hits] == ["dialogue:long", "knowledge:berlin"]  # by its second passage
    cosine = sum(a * b for a, b in zip(car, query, strict=True))
    assert hits[0].payload["passage"] == 1 and hits[0].score == pytest.approx(cosine - PASSAGE_DISCOUNT, abs=1e-4)
    first = store.search(namespace, tea, limit=1)[0]
    assert first.node_id == "dialogue:long" and "passage" not in first.payload  # the node's own point

    store.delete(namespace, ["dialogue:long"])
    assert store.count(namespace) == 1 and store.count(f"{namespace}-other") == 2
    assert [h.node_id for h in store.search(namespace, car, limit=5)] == ["knowledge:berlin"]
    store.delete_namespace(f"{namespace}-other")
    assert store.count(f"{namespace}-other") == 0


def test_vectors_of_reads_each_nodes_own_vector_within_the_namespace(
    store: VectorStore, embedder, namespace: str
) -> None:
    tea, car = embedder.embed_passages([SENTENCES["tea"], SENTENCES["car"]])
    store.upsert(namespace, [VectorRecord("dialogue:long", v, {"type": "Dialogue"}, passage=i)
                             for i, v in enumerate([tea, car])])  # fmt: skip
    store.upsert(f"{namespace}-other", [VectorRecord("knowledge:car", car, {"type": "Knowledge"})])
    found = store.vectors_of(namespace, ["dialogue:long", "knowledge:car", "dialogue:missing"])
    assert list(found) == ["dialogue:long"]  # the other namespace's node is not this one's
    assert found["dialogue:long"] == pytest.approx(list(tea), abs=1e-5)  # its first passage's, not the second's
    assert store.vectors_of(namespace, []) == {}


def test_passages_of_one_node_do_not_crowd_others_out_of_the_limit(
    store: VectorStore, embedder, namespace: str
) -> None:
    tea = embedder.embed_passages([SENTENCES["tea"]])[0]
    store.upsert(namespace, [VectorRecord("dialogue:tea", tea, passage=i) for i in range(9)])
    store.upsert(namespace, _records(embedder, ["car", "berlin"]))
    hits = store.search(namespace, tea, limit=3)
    assert [h.node_id for h in hits][0] == "dialogue:tea" and len({h.node_id for h in hits}) == 3
    assert [len(found) for found in store.search_many(namespace, [tea, tea], limit=2)] == [2, 2]


def test_cross_lingual_text_is_stored_and_found(store: VectorStore, embedder, namespace: str) -> None:
    store.upsert(namespace, _records(embedder, ["chinese-tea", "car"]))
    hits = store.search(namespace, embedder.embed_queries(["我每天早上喝绿茶"])[0], limit=1)
    # Not 1: with int8 embeddings a text's vector varies a little with its batch (app/embedding/onnx_export.py).
    assert hits[0].node_id == "knowledge:chinese-tea" and hits[0].score > 0.97


def test_wrong_dimension_is_refused(store: VectorStore, namespace: str) -> None:
    with pytest.raises(VectorDimensionError, match="expected 384"):
        store.upsert(namespace, [VectorRecord("knowledge:x", [0.1, 0.2])])


def test_edge_shard_keeps_vectors_across_reopen(tmp_path: Path, embedder, namespace: str) -> None:
    path = tmp_path / "shard"
    first = EdgeVectorStore(path, embedder.dimension)
    first.upsert(namespace, _records(embedder, ["tea", "berlin"]))
    first.close()
    reopened = EdgeVectorStore(path, embedder.dimension)
    try:
        assert reopened.count(namespace) == 2
        hits = reopened.search(namespace, embedder.embed_queries(["where do I live now"])[0], limit=1)
        assert hits[0].node_id == "knowledge:berlin"
    finally:
        reopened.close()


def test_point_ids_are_stable_and_namespace_scoped() -> None:
    assert point_id("a", "knowledge:1") == point_id("a", "knowledge:1")
    assert point_id("a", "knowledge:1") != point_id("b", "knowledge:1")
    assert str(uuid.UUID(point_id("a", "knowledge:1"))) == point_id("a", "knowledge:1")
    # A node's first passage keeps the id every node had before passages (stored vectors stay
    # addressable); its other passages have ids of their own.
    assert point_id("a", "knowledge:1", 0) == "28f22be2-867d-5a51-b803-705461a4504d"
    assert len({point_id("a", "knowledge:1", i) for i in range(3)}) == 3


def test_an_edge_shard_made_before_the_node_id_index_gets_it(tmp_path: Path, embedder, namespace: str) -> None:
    import qdrant_edge as edge

    path = tmp_path / "shard"
    path.mkdir()
    params = edge.EdgeVectorParams(size=embedder.dimension, distance=edge.Distance.Cosine)
    old = edge.EdgeShard.create(str(path), edge.EdgeConfig(vectors={"dense": params}))
    old.update(edge.UpdateOperation.create_field_index("namespace", edge.PayloadSchemaType.Keyword))
    old.close()
    store = EdgeVectorStore(path, embedder.dimension)
    try:
        assert set(store.shard.info().payload_schema) == {"namespace", "node_id"}
    finally:
        store.close()


def test_edge_optimize_indexes_the_shard_and_search_stays_exact(tmp_path: Path, namespace: str) -> None:
    """`optimize` builds the HNSW index (the embedded engine has no optimizer of its own); searches
    through the index find the exact neighbours, and upserts made while it runs are kept."""
    import threading

    import numpy as np
    import qdrant_edge as edge

    rng = np.random.default_rng(7)
    dimension, n = 384, 10_000  # 15 MB: past the indexing threshold (~10 MB), so the segment gets an index
    vectors = rng.normal(size=(n + 500, dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store = EdgeVectorStore(tmp_path / "shard", dimension)
    try:
        for start in range(0, n, 5_000):
            store.upsert(namespace, [VectorRecord(f"n{i}", vectors[i].tolist()) for i in range(start, start + 5_000)])
        assert store.shard.info().indexed_vectors_count == 0

        optimizing = threading.Thread(target=store.optimize)
        optimizing.start()
        store.upsert(namespace, [VectorRecord(f"n{i}", vectors[i].tolist()) for i in range(n, n + 500)])
        optimizing.join()
        assert store.shard.info().indexed_vectors_count > 0
        assert store.count(namespace) == n + 500
        assert store.optimize() is False  # nothing new: a no-op

        # Random vectors in 384 dimensions are the hard case for HNSW (every point nearly equidistant):
        # at the search's ef (128) it finds 0.845 of the exact ten here (ef 256: 0.92; real conversation
        # text at 128: 0.996 of the exact 40, scripts/bench_hnsw_ef.py). A query near a stored point
        # must find that point first and most of its neighbours.
        found = 0
        for i in rng.choice(n + 500, size=200, replace=False):  # 200: the share varies little run to run
            q = vectors[i] + rng.normal(scale=0.5 / np.sqrt(dimension), size=dimension)
            exact = [f"n{j}" for j in np.argsort(-(vectors @ q))[:10]]
            hits = [h.node_id for h in store.search(namespace, q.tolist(), limit=10)]
            assert hits[0] == exact[0] == f"n{i}"
            found += len(set(hits) & set(exact))
        assert found >= 0.8 * 200 * 10, found
        assert isinstance(store.shard, edge.EdgeShard)
    finally:
        store.close()


def test_the_child_process_store_opens_and_reopens_the_shard_and_reports_its_death(
    tmp_path: Path, embedder, namespace: str
) -> None:
    path = tmp_path / "shard"
    opener = functools.partial(EdgeVectorStore, path, embedder.dimension)
    first = ChildProcessVectorStore(opener, embedder.dimension, EdgeVectorStore.backend)
    first.upsert(namespace, _records(embedder, ["tea", "berlin", "car"]))
    queries = embedder.embed_queries(["where do I live now"] * (2 * SEARCHES_PER_CALL + 1))  # several round trips
    assert [hits[0].node_id for hits in first.search_many(namespace, queries, 1)] == ["knowledge:berlin"] * len(queries)
    first.close()  # the shard is closed and released: it opens again (in this process, too)
    reopened = EdgeVectorStore(path, embedder.dimension)
    assert reopened.count(namespace) == 3
    reopened.close()
    with pytest.raises(VectorDimensionError):  # the child's opening error reaches the caller
        ChildProcessVectorStore(functools.partial(EdgeVectorStore, path, 8), 8, EdgeVectorStore.backend)
    second = ChildProcessVectorStore(opener, embedder.dimension, EdgeVectorStore.backend)
    try:
        os.kill(second._process.pid, signal.SIGKILL)  # type: ignore[arg-type]
        second._process.join(10)
        with pytest.raises(EngineUnavailable) as raised:
            second.count(namespace)
        assert raised.value.engine == "vectors"
        with pytest.raises(EngineUnavailable):  # readiness sees it too
            second.ping()
    finally:
        second.close()
