"""The default embedding, each text by its language's model (`app/domain/vector_pair.py`): the
embedder's halves, and a store of pairs on each backend (the embedded engine, in-process and in its child
process, and qdrant-client: a Qdrant server or its local mode)."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from app.domain.cosine_scale import e5_on_reference
from app.domain.vector_pair import E5_VECTOR, MINILM_VECTOR, READ_BY_KEY, halves, is_english, joined, same_half
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


def test_the_default_embeds_each_text_by_its_languages_model(pair: PairedEmbedder) -> None:
    assert Settings().embedding_model == PACKAGED_PAIR and pair.paired and pair.reads_chinese
    e5 = Embedder.from_settings(Settings(EMBEDDING_MODEL=PACKAGED_E5))
    minilm = Embedder.from_settings(Settings(EMBEDDING_MODEL=PACKAGED_MINILM))
    english, chinese = pair.embed_passages([TEXTS["cat"], TEXTS["dali"]])
    assert len(english) == pair.dimension == e5.dimension + minilm.dimension
    # English: MiniLM's vector exactly (the English path is MiniLM alone), no e5 half.
    assert halves(english)[0] is None and english[minilm.dimension :] == minilm.embed_passages([TEXTS["cat"]])[0]
    # Chinese: e5's passage vector, no MiniLM half.
    e5_half, minilm_half = halves(chinese)
    assert minilm_half is None and e5_half is not None
    assert np.dot(e5_half, e5.embed_passages([TEXTS["dali"]])[0]) > 0.99
    # An English query has both halves (e5's query prompt), a Chinese one e5's only.
    english_query, chinese_query = pair.embed_queries(["Which cat did Alice adopt?", "王磊现在住在哪里？"])
    query_e5, query_minilm = halves(english_query)
    assert query_e5 is not None and np.dot(query_e5, e5.embed_queries(["Which cat did Alice adopt?"])[0]) > 0.99
    assert query_minilm == pytest.approx(minilm.embed_queries(["Which cat did Alice adopt?"])[0])
    assert halves(chinese_query)[1] is None
    # The pair's identity is neither model's: a store of either is not mixed with it.
    assert pair.identity.model == PACKAGED_PAIR
    assert pair.identity.digest not in {e5.identity.digest, minilm.identity.digest}
    assert pair.token_counts(["hello world"]) == minilm.token_counts(["hello world"]) and pair.window == minilm.window
    # e5 reads as many word pieces as MiniLM (a long text's e5 vector costs half of its 512).
    assert pair.e5.encoder.tokenizer.truncation["max_length"] == minilm.encoder.exported.max_seq_length == 256


def test_e5_is_loaded_only_for_its_first_text(pair: PairedEmbedder) -> None:
    fresh = PairedEmbedder(pair.minilm, *pair._e5_part)
    fresh.embed_passages([TEXTS["cat"], TEXTS["car"]])
    fresh.embed_english_queries(["Which cat did Alice adopt?"])
    assert fresh._e5 is None  # English alone: MiniLM's cost and memory
    fresh.embed_passages([TEXTS["dali"]])
    assert fresh._e5 is not None and fresh.identity == pair.identity


def test_english_means_no_cjk_character() -> None:
    assert is_english("Where does Wang Lei live?") and not is_english("Where does 王磊 live?")


def test_a_pair_is_its_halves_with_zeros_for_the_missing_one() -> None:
    e5_only, minilm_only = joined([0.6, 0.8], None, 2), joined(None, [1.0, 0.0], 2)
    assert e5_only == [0.6, 0.8, 0.0, 0.0] and minilm_only == [0.0, 0.0, 1.0, 0.0]
    assert halves(e5_only) == ([0.6, 0.8], None) and halves(minilm_only) == (None, [1.0, 0.0])
    assert halves(joined([0.6, 0.8], [1.0, 0.0], 2)) == ([0.6, 0.8], [1.0, 0.0])  # a query's, both
    # Context points sum only neighbours embedded by the turn's model.
    assert same_half(e5_only, joined([0.0, 1.0], None, 2)) and not same_half(e5_only, minilm_only)


def test_an_english_query_reads_english_by_minilm_and_chinese_by_calibrated_e5(
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
    assert by_id["dialogue:dali"] == pytest.approx(e5_on_reference(e5_cosine, "across"), abs=1e-3)

    # A Chinese question: e5 over the Chinese memories (the English ones have no e5 vector).
    (chinese,) = pair.embed_queries(["王磊现在住在哪里？"])
    hits = store.search(namespace, chinese, limit=4)
    assert [h.node_id for h in hits][0] == "dialogue:dali" and {h.payload[READ_BY_KEY] for h in hits} == {E5_VECTOR}
    assert len(hits) == 2
    e5_cosine = float(np.dot(halves(chinese)[0], halves(stored["tea"])[0]))
    assert {h.node_id: h.score for h in hits}["dialogue:tea"] == pytest.approx(
        e5_on_reference(e5_cosine, "chinese"), abs=1e-3
    )
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
    assert halves(cheap)[0] is None and halves(cheap)[1] == pytest.approx(halves(pair.embed_queries([query])[0])[1])
    assert [(h.node_id, round(h.score, 4)) for h in store.search(namespace, cheap, 2)] == [
        (h.node_id, round(h.score, 4)) for h in store.search(namespace, pair.embed_queries([query])[0], 2)
    ]
    store.upsert(namespace, [VectorRecord("dialogue:dali", pair.embed_passages([TEXTS["dali"]])[0])])
    assert store.reads_other_languages(namespace) and store.count(namespace, {READ_BY_KEY: MINILM_VECTOR}) == 2
    assert store.any_point(namespace, {READ_BY_KEY: E5_VECTOR}) and not store.any_point(f"{namespace}-other")


def test_neighbour_searches_use_the_passage_calibration_and_read_back_the_pair(
    store: VectorStore, pair: PairedEmbedder, namespace: str
) -> None:
    stored = _stored(store, pair, namespace)
    [hits] = store.search_many(namespace, [stored["tea"]], limit=4, passages=True)
    assert hits[0].node_id == "dialogue:tea" and hits[0].score == pytest.approx(1.0, abs=1e-3)
    assert {h.payload[READ_BY_KEY] for h in hits} == {E5_VECTOR}  # neighbours in the text's model only
    e5_cosine = float(np.dot(halves(stored["tea"])[0], halves(stored["dali"])[0]))
    assert {h.node_id: h.score for h in hits}["dialogue:dali"] == pytest.approx(
        e5_on_reference(e5_cosine, "chinese", passages=True), abs=1e-3
    )
    [hits] = store.search_many(namespace, [stored["cat"]], limit=4, passages=True)
    assert {h.payload[READ_BY_KEY] for h in hits} == {MINILM_VECTOR} and hits[0].node_id == "dialogue:cat"
    found = store.vectors_of(namespace, ["dialogue:cat", "dialogue:dali"])
    assert found["dialogue:cat"] == pytest.approx(stored["cat"], abs=1e-4)
    assert found["dialogue:dali"] == pytest.approx(stored["dali"], abs=1e-4)  # the other half: zeros


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
