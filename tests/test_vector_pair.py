"""The default embedding, a pair of vectors per text (`app/domain/vector_pair.py`): the embedder's
halves, and a store of pairs on each backend (the embedded engine, in-process and in its child
process, and qdrant-client: a Qdrant server or its local mode)."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from app.domain.vector_pair import E5_VECTOR, MINILM_VECTOR, READ_BY_KEY, halves, is_english, on_minilm_scale
from app.embedding.encoder import Embedder
from app.embedding.pair import PairedEmbedder
from app.settings import PACKAGED_E5, PACKAGED_MINILM, PACKAGED_PAIR, Settings
from app.stores.vectors import VectorRecord, VectorStore
from app.stores.vectors.base import EmbeddingMismatchError
from app.stores.vectors.child_process import ChildProcessVectorStore
from app.stores.vectors.qdrant_edge import EdgeVectorStore
from app.stores.vectors.qdrant_server import QdrantClientVectorStore

TEXTS = {
    "cat": "Alice: I adopted a grey cat called Biscuit last weekend.",
    "car": "Bob: My car is a red Model Y.",
    "dali": "王磊：我现在已经住在大理了。",
    "tea": "王磊：我每天早上喝一杯绿茶。",
}


@pytest.fixture(scope="module")
def pair() -> PairedEmbedder:
    embedder = Embedder.from_settings(Settings())
    assert isinstance(embedder, PairedEmbedder)
    return embedder


@pytest.fixture(params=["qdrant-edge", "qdrant-edge-child-process", "qdrant-client"])
def store(request: pytest.FixtureRequest, services, tmp_path: Path, pair: PairedEmbedder) -> Iterator[VectorStore]:  # type: ignore[no-untyped-def]
    if request.param == "qdrant-edge":
        vector_store: VectorStore = EdgeVectorStore(tmp_path / "shard", pair.dimension, paired=True)
    elif request.param == "qdrant-edge-child-process":
        opener = functools.partial(EdgeVectorStore, tmp_path / "shard", pair.dimension, True)
        vector_store = ChildProcessVectorStore(opener, pair.dimension, EdgeVectorStore.backend, paired=True)
    else:
        client = QdrantClient(url=services.qdrant_url) if services.qdrant_url else QdrantClient(":memory:")
        vector_store = QdrantClientVectorStore(client, f"test_{uuid.uuid4().hex[:8]}", pair.dimension, paired=True)
    yield vector_store
    vector_store.close()


def _stored(store: VectorStore, pair: PairedEmbedder, namespace: str) -> dict[str, list[float]]:
    keys = list(TEXTS)
    vectors = pair.embed_passages([TEXTS[k] for k in keys])
    records = [VectorRecord(f"dialogue:{k}", v, {"type": "Dialogue"}) for k, v in zip(keys, vectors, strict=True)]
    store.upsert(namespace, records)
    return dict(zip(keys, vectors, strict=True))


def test_the_default_is_the_pair_whose_halves_are_each_models_vectors(pair: PairedEmbedder) -> None:
    assert Settings().embedding_model == PACKAGED_PAIR and pair.paired and pair.reads_chinese
    e5 = Embedder.from_settings(Settings(EMBEDDING_MODEL=PACKAGED_E5))
    minilm = Embedder.from_settings(Settings(EMBEDDING_MODEL=PACKAGED_MINILM))
    english, chinese = pair.embed_passages([TEXTS["cat"], TEXTS["dali"]])
    assert len(english) == pair.dimension == e5.dimension + minilm.dimension
    e5_half, minilm_half = halves(english)
    assert np.dot(e5_half, e5.embed_passages([TEXTS["cat"]])[0]) > 0.99
    assert minilm_half is not None and np.dot(minilm_half, minilm.embed_passages([TEXTS["cat"]])[0]) > 0.99
    assert halves(chinese)[1] is None and not any(chinese[e5.dimension :])  # no MiniLM vector of Chinese
    query = pair.embed_queries(["Which cat did Alice adopt?"])[0]
    assert np.dot(halves(query)[0], e5.embed_queries(["Which cat did Alice adopt?"])[0]) > 0.99  # e5's query prompt
    # The pair's identity is neither model's: a store of either is not mixed with it.
    assert pair.identity.model == PACKAGED_PAIR
    assert pair.identity.digest not in {e5.identity.digest, minilm.identity.digest}
    assert pair.token_counts(["hello world"]) == minilm.token_counts(["hello world"])
    # e5 reads as many word pieces as MiniLM (a long text's e5 vector costs half of its 512).
    assert pair.e5.encoder.tokenizer.truncation["max_length"] == minilm.encoder.exported.max_seq_length == 256


def test_english_means_no_cjk_character() -> None:
    assert is_english("Where does Wang Lei live?") and not is_english("Where does 王磊 live?")


def test_e5_cosines_are_put_on_minilms_scale_keeping_their_order() -> None:
    cosines = np.linspace(0.5, 1.0, 200)
    for passages in (False, True):
        for across in (False, True):
            scaled = [on_minilm_scale(float(c), passages, across) for c in cosines]
            assert all(a < b for a, b in zip(scaled, scaled[1:], strict=False))  # strictly monotone, past the knots
            assert scaled[-1] == pytest.approx(1.0)
    # The calibration's median pairs are unrelated ones on MiniLM's scale (~0.19), for each kind.
    assert on_minilm_scale(0.86) == pytest.approx(0.193) and on_minilm_scale(0.764, across=True) == pytest.approx(0.193)
    # Two Chinese texts sit higher than texts across languages, passages higher than queries.
    assert on_minilm_scale(0.86) < on_minilm_scale(0.86, across=True)
    assert on_minilm_scale(0.9, passages=True) < on_minilm_scale(0.9)


def test_an_english_pair_is_compared_by_minilm_any_other_by_calibrated_e5(
    store: VectorStore, pair: PairedEmbedder, namespace: str
) -> None:
    stored = _stored(store, pair, namespace)
    query = pair.embed_queries(["Which cat did Alice adopt?"])[0]
    hits = store.search(namespace, query, limit=4)
    assert hits[0].node_id == "dialogue:cat" and hits[0].payload[READ_BY_KEY] == MINILM_VECTOR
    assert {h.payload[READ_BY_KEY] for h in hits} == {MINILM_VECTOR, E5_VECTOR}  # Chinese memories too
    by_id = {h.node_id: h.score for h in hits}
    minilm_q, minilm_p = halves(query)[1], halves(stored["cat"])[1]
    assert minilm_q is not None and minilm_p is not None
    assert by_id["dialogue:cat"] == pytest.approx(float(np.dot(minilm_q, minilm_p)), abs=1e-3)
    e5_cosine = float(np.dot(halves(query)[0], halves(stored["dali"])[0]))
    assert by_id["dialogue:dali"] == pytest.approx(on_minilm_scale(e5_cosine, across=True), abs=1e-3)

    # A Chinese question: e5 over every point, across languages too.
    (chinese,) = pair.embed_queries(["王磊现在住在哪里？"])
    assert halves(chinese)[1] is None
    hits = store.search(namespace, chinese, limit=4)
    assert hits[0].node_id == "dialogue:dali" and len(hits) == 4
    by_id = {h.node_id: h.score for h in hits}
    e5_cosine = float(np.dot(halves(chinese)[0], halves(stored["cat"])[0]))
    assert by_id["dialogue:cat"] == pytest.approx(on_minilm_scale(e5_cosine, across=True), abs=1e-3)
    e5_cosine = float(np.dot(halves(chinese)[0], halves(stored["tea"])[0]))
    assert by_id["dialogue:tea"] == pytest.approx(on_minilm_scale(e5_cosine), abs=1e-3)  # both Chinese
    # An English question finds a Chinese memory through e5.
    (english,) = pair.embed_queries(["Where does Wang Lei live now?"])
    assert store.search(namespace, english, limit=4, match={READ_BY_KEY: E5_VECTOR})[0].node_id == "dialogue:dali"


def test_an_english_query_needs_no_e5_where_every_memory_is_english(
    store: VectorStore, pair: PairedEmbedder, namespace: str
) -> None:
    english = {k: TEXTS[k] for k in ("cat", "car")}
    vectors = pair.embed_passages(list(english.values()))
    store.upsert(namespace, [VectorRecord(f"dialogue:{k}", v) for k, v in zip(english, vectors, strict=True)])
    assert not store.reads_other_languages(namespace)
    query = "Which cat did Alice adopt?"
    (cheap,) = pair.embed_english_queries([query])
    assert not any(halves(cheap)[0]) and halves(cheap)[1] == pytest.approx(halves(pair.embed_queries([query])[0])[1])
    assert [(h.node_id, round(h.score, 4)) for h in store.search(namespace, cheap, 2)] == [
        (h.node_id, round(h.score, 4)) for h in store.search(namespace, pair.embed_queries([query])[0], 2)
    ]
    store.upsert(namespace, [VectorRecord("dialogue:dali", pair.embed_passages([TEXTS["dali"]])[0])])
    assert store.reads_other_languages(namespace) and store.count(namespace, {READ_BY_KEY: MINILM_VECTOR}) == 2


def test_neighbour_searches_use_the_passage_calibration_and_read_back_the_pair(
    store: VectorStore, pair: PairedEmbedder, namespace: str
) -> None:
    stored = _stored(store, pair, namespace)
    [hits] = store.search_many(namespace, [stored["tea"]], limit=4, passages=True)
    assert hits[0].node_id == "dialogue:tea" and hits[0].score == pytest.approx(1.0, abs=1e-3)
    e5_cosine = float(np.dot(halves(stored["tea"])[0], halves(stored["dali"])[0]))
    assert {h.node_id: h.score for h in hits}["dialogue:dali"] == pytest.approx(
        on_minilm_scale(e5_cosine, passages=True), abs=1e-3
    )
    found = store.vectors_of(namespace, ["dialogue:cat", "dialogue:dali"])
    assert found["dialogue:cat"] == pytest.approx(stored["cat"], abs=1e-4)
    assert found["dialogue:dali"] == pytest.approx(stored["dali"], abs=1e-4)  # MiniLM half: zeros


def test_a_store_of_one_layout_is_refused_by_the_other(services, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    EdgeVectorStore(tmp_path / "single", 8).close()
    with pytest.raises(EmbeddingMismatchError, match="python -m app.reembed"):
        EdgeVectorStore(tmp_path / "single", 8, paired=True)
    EdgeVectorStore(tmp_path / "pair", 8, paired=True).close()
    with pytest.raises(EmbeddingMismatchError, match="a pair of models"):
        EdgeVectorStore(tmp_path / "pair", 8)
    client = QdrantClient(url=services.qdrant_url) if services.qdrant_url else QdrantClient(":memory:")
    collection = f"test_{uuid.uuid4().hex[:8]}"
    try:
        QdrantClientVectorStore(client, collection, 8)
        with pytest.raises(EmbeddingMismatchError, match="python -m app.reembed"):
            QdrantClientVectorStore(client, collection, 8, paired=True)
    finally:
        client.close()
