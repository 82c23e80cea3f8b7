"""The ONNX Runtime embedder against sentence-transformers itself (the reference), and its export cache."""

from __future__ import annotations

import functools
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from app.embedding.encoder import Embedder, EmbeddingModelError, batch_bounds, resolve_model_path
from app.embedding.onnx_export import ensure_exported, export_folder
from app.settings import PACKAGED_MINILM, Settings

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TEXTS = [
    "What car does Alice drive?",
    "我上周五去了北京，和朋友一起吃了烤鸭。",
    "  ok  ",
    "I moved to Berlin last March; my sister Anna still lives in Munich and visits every other weekend. " * 12,
    "混合 text: 我的车是 Model Y, and I like it.",
]


def reference(model_path: Path, texts: list[str]) -> np.ndarray:
    return np.asarray(reference_model(model_path).encode(texts, normalize_embeddings=True, convert_to_numpy=True))


@functools.lru_cache(maxsize=1)
def reference_model(model_path: Path) -> SentenceTransformer:
    """sentence-transformers' model of a folder; the last one stays loaded (the exact and the
    quantized tests, one after the other, compare with the same one)."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_path), device="cpu")


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """MiniLM's int8 export (the default pair: tests/test_vector_pair.py)."""
    return Embedder(resolve_model_path(PACKAGED_MINILM), Settings().model_cache_dir, "int8")


@pytest.fixture(scope="module")
def exact_embedder() -> Embedder:
    return Embedder(resolve_model_path(PACKAGED_MINILM), Settings().model_cache_dir, "fp32")


def test_fp32_embeds_what_sentence_transformers_embeds(exact_embedder: Embedder) -> None:
    embedder = exact_embedder
    vectors = np.asarray(embedder.embed_passages(TEXTS))
    expected = reference(embedder.model_path, TEXTS)
    assert vectors.shape == (len(TEXTS), 384)
    assert np.abs(vectors - expected).max() < 1e-4  # long text truncated at the model's 256 tokens as well
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Order is kept although texts are batched by length; one text alone embeds the same.
    single = np.asarray(embedder.embed_passages([TEXTS[1]]))[0]
    assert float(single @ vectors[1]) > 0.99999
    assert embedder.embed_passages([]) == []


def test_int8_stays_close_to_sentence_transformers_and_ranks_alike(embedder: Embedder) -> None:
    """The default (quantized) export: each vector close to the exact one, and the same nearest
    passage for each query as the exact model finds."""
    assert embedder.encoder.exported.precision == "int8"
    vectors = np.asarray(embedder.embed_passages(TEXTS))
    cosines = (vectors * reference(embedder.model_path, TEXTS)).sum(axis=1)
    assert cosines.min() > 0.95 and np.median(cosines) > 0.985, cosines  # the least: "ok", a single token
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Activation scales are per batch: a text alone may embed a little differently, a batch the same again.
    alone = np.asarray(embedder.embed_passages([TEXTS[1]]))[0]
    assert float(alone @ vectors[1]) > 0.97
    assert np.array_equal(np.asarray(embedder.embed_passages(TEXTS)), vectors)
    passages = [
        "Alice drives a red Tesla Model Y to work.",
        "我上周五和朋友在北京吃了烤鸭。",
        "The quarterly report is due next Monday.",
        "Bob adopted a puppy named Rex last spring.",
        "我的新工作在上海，下个月开始。",
    ]
    queries = ["What car does Alice drive?", "上周五我们吃了什么？", "When is the report due?", "Does Bob have a dog?",
               "我什么时候开始新工作？"]  # fmt: skip
    exact = reference(embedder.model_path, passages + queries)
    quantized = np.asarray(embedder.embed_passages(passages + queries))
    n = len(passages)
    nearest = (quantized[n:] @ quantized[:n].T).argmax(axis=1).tolist()
    assert nearest == (exact[n:] @ exact[:n].T).argmax(axis=1).tolist() == [0, 1, 2, 3, 4]


def test_batches_hold_at_most_their_rows_and_padded_tokens() -> None:
    # 64 rows of 10 tokens (the row limit); then 40 rows padded to 100 tokens (the 6 short ones left
    # and 34 long ones: 41 x 100 > 4096); the other 16 long ones; a text over the limit goes alone.
    lengths = [10] * 70 + [100] * 50 + [5000]
    assert list(batch_bounds(lengths, 64, 4096)) == [(0, 64), (64, 104), (104, 120), (120, 121)]
    # The batch's width is its last (longest) text: 6 x 10 = 60 fits, a 7th of 100 would make 700.
    assert list(batch_bounds([10] * 6 + [100], 64, 600)) == [(0, 6), (6, 7)]
    assert list(batch_bounds([], 64, 4096)) == []


def test_export_is_cached_and_redone_for_a_changed_model(tmp_path: Path) -> None:
    model = tmp_path / "minilm"
    shutil.copytree(resolve_model_path(PACKAGED_MINILM), model)
    cache = tmp_path / "cache"
    first = ensure_exported(model, cache)
    made = first.onnx_path.stat().st_mtime_ns
    again = ensure_exported(model, cache)
    assert again.folder == first.folder and again.onnx_path.stat().st_mtime_ns == made
    assert [p.name for p in cache.iterdir()] == [first.folder.name]  # no staging folder left behind

    assert export_folder(model, cache, "fp32") != first.folder  # each precision has its own export

    os.utime(model / "README.md", ns=(1, 1))  # reinstalled: same contents, other times
    assert export_folder(model, cache) == first.folder
    (model / "README.md").write_text("changed")
    assert export_folder(model, cache) != first.folder


@pytest.mark.parametrize("mode", ["cls", "max"])
def test_other_pooling_modes_match_sentence_transformers(tmp_path: Path, mode: str) -> None:
    model = tmp_path / "model"
    shutil.copytree(resolve_model_path(PACKAGED_MINILM), model)
    config_path = model / "1_Pooling" / "config.json"
    config = json.loads(config_path.read_text())
    config["pooling_mode_mean_tokens"] = False
    config[{"cls": "pooling_mode_cls_token", "max": "pooling_mode_max_tokens"}[mode]] = True
    config_path.write_text(json.dumps(config))

    embedder = Embedder(model, tmp_path / "cache", "fp32")
    assert embedder.encoder.exported.pooling == mode
    vectors = np.asarray(embedder.embed_passages(TEXTS))
    assert np.abs(vectors - reference(model, TEXTS)).max() < 1e-4


def test_unsupported_pooling_is_refused_by_name(tmp_path: Path) -> None:
    model = tmp_path / "model"
    shutil.copytree(resolve_model_path(PACKAGED_MINILM), model)
    config_path = model / "1_Pooling" / "config.json"
    config = json.loads(config_path.read_text()) | {"pooling_mode_max_tokens": True}  # mean + max concatenated
    config_path.write_text(json.dumps(config))
    with pytest.raises(EmbeddingModelError, match="pooling"):
        Embedder(model, tmp_path / "cache", "fp32")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_an_unknown_precision_is_named(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelError, match="EMBEDDING_PRECISION"):
        Embedder(resolve_model_path(PACKAGED_MINILM), tmp_path / "cache", "fp16")  # type: ignore[arg-type]


def test_a_missing_model_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelError, match="EMBEDDING_MODEL"):
        resolve_model_path(str(tmp_path / "nowhere"))


def test_queries_and_passages_get_the_models_prompts(tmp_path: Path, exact_embedder: Embedder) -> None:
    model = tmp_path / "prompted"
    shutil.copytree(resolve_model_path(PACKAGED_MINILM), model)
    config_path = model / "config_sentence_transformers.json"
    prompts = {"query": "query: ", "passage": "passage: ", "other": "unused: "}
    config_path.write_text(json.dumps(json.loads(config_path.read_text()) | {"prompts": prompts}))

    embedder = Embedder(model, tmp_path / "cache", "fp32")
    exported = embedder.encoder.exported
    assert (exported.query_prompt, exported.passage_prompt) == ("query: ", "passage: ")
    for kind, embed in (("query", embedder.embed_queries), ("passage", embedder.embed_passages)):
        expected = reference_model(model).encode(TEXTS, prompt_name=kind, normalize_embeddings=True,
                                                 convert_to_numpy=True)  # fmt: skip
        assert np.abs(np.asarray(embed(TEXTS)) - expected).max() < 1e-4
    # The passage prompt's word pieces ("passage", ":") come out of the window passages are cut to.
    assert embedder.window == exact_embedder.window - 2
    assert embedder.identity.digest != exact_embedder.identity.digest  # other prompts: other vectors


def test_minilm_has_no_prompts(exact_embedder: Embedder) -> None:
    exported = exact_embedder.encoder.exported
    assert (exported.query_prompt, exported.passage_prompt) == ("", "")
    assert exact_embedder.embed_queries(TEXTS[:2]) == exact_embedder.embed_passages(TEXTS[:2])
    assert exact_embedder.identity.model == str(exact_embedder.model_path)  # no name given: its folder


def test_minilm_does_not_read_chinese_a_copy_of_it_elsewhere_is_not_known(
    tmp_path: Path, exact_embedder: Embedder
) -> None:
    """Recall leans on an embedder's vectors of a Chinese query only when it reads Chinese; a model
    this code does not know is trusted."""
    assert not exact_embedder.reads_chinese
    model = tmp_path / "copy"
    shutil.copytree(resolve_model_path(PACKAGED_MINILM), model)
    assert Embedder(model, tmp_path / "cache", "fp32").reads_chinese
