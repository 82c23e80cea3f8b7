"""The default embedder: each text by the model of its language, all-MiniLM-L6-v2 for English (no
CJK character), multilingual-e5-small for the others, one pair of vectors per text with the other
half zeros (`app/domain/vector_pair.py` has the layout and the comparison rule). e5 is loaded on its
first text: a memory that never sees Chinese runs MiniLM alone, at MiniLM's cost and memory."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from app.domain.cosine_scale import REFERENCE
from app.domain.embedding_identity import EmbeddingIdentity, Precision
from app.domain.vector_pair import is_english, joined
from app.embedding.encoder import Embedder, resolve_model_path
from app.embedding.onnx_export import ensure_exported
from app.settings import PACKAGED_E5, PACKAGED_MINILM, PACKAGED_PAIR, Settings

Embed = Callable[[Sequence[str]], list[list[float]]]


class PairedEmbedder(Embedder):
    """An `Embedder` whose vectors are pairs (e5 ++ MiniLM, one half zeros for a stored text);
    `encoder`, `window` and `token_counts` are MiniLM's, so English texts are cut, counted and
    embedded exactly as by MiniLM alone."""

    paired = True

    def __init__(self, minilm: Embedder, e5_path: Path, cache_dir: Path, precision: Precision) -> None:
        self.minilm = minilm
        self.model_path = minilm.model_path
        self.encoder = minilm.encoder
        self.dimension = 2 * minilm.dimension
        self.window = minilm.window
        self._e5_part = (e5_path, cache_dir, precision)
        self._e5: Embedder | None = None
        self._e5_lock = threading.Lock()
        self._beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="e5")
        # The export is made (or found) now, so the identity is known and a first Chinese text does
        # not wait for it; the model itself is loaded on first use.
        e5_digest = ensure_exported(e5_path, cache_dir, precision).model_digest
        parts = f"per-language:{e5_digest}:{minilm.identity.digest}:{minilm.encoder.exported.max_seq_length}"
        self.identity = EmbeddingIdentity(PACKAGED_PAIR, hashlib.sha256(parts.encode()).hexdigest()[:16])
        self.reads_chinese = True
        # The stores put e5's cosines on MiniLM's scale as they merge a pair's searches (each hit's
        # model is known there), so what leaves a search is on the reference scale already.
        self.scale = REFERENCE

    @classmethod
    def from_settings(cls, settings: Settings) -> Embedder:
        cache, precision = settings.model_cache_dir, settings.embedding_precision
        minilm = Embedder(resolve_model_path(PACKAGED_MINILM, cache), cache, precision, PACKAGED_MINILM)
        return cls(minilm, resolve_model_path(PACKAGED_E5, cache), cache, precision)

    @property
    def e5(self) -> Embedder:
        """multilingual-e5-small, loaded on first use (~470 MB resident: scripts/bench_embedder_memory.py)."""
        with self._e5_lock:
            if self._e5 is None:
                e5 = Embedder(*self._e5_part, name=PACKAGED_E5)
                if e5.dimension != self.minilm.dimension:
                    raise ValueError(f"a pair needs equal dimensions ({e5.dimension} and {self.minilm.dimension})")
                # e5 reads as many word pieces as MiniLM (256, not its 512): its cost grows faster than
                # linearly with a text's length.
                e5.encoder.tokenizer.enable_truncation(self.minilm.encoder.exported.max_seq_length)
                self._e5 = e5
            return self._e5

    @property
    def counted_by(self) -> str:
        return self.minilm.counted_by

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        return self.minilm.token_counts(texts)

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """An English query by both models (MiniLM for English memories, e5 for the others), a
        Chinese one by e5."""
        return self._pairs(
            texts, lambda batch: self.e5.embed_queries(batch), self.minilm.embed_queries, english_e5=True
        )

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return self._pairs(
            texts, lambda batch: self.e5.embed_passages(batch), self.minilm.embed_passages, english_e5=False
        )

    def embed_english_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """English queries by MiniLM alone: for a namespace where e5 would find nothing (no memory
        with CJK characters: `VectorStore.reads_other_languages`)."""
        return [joined(None, vector, self.minilm.dimension) for vector in self.minilm.embed_queries(texts)]

    def _pairs(self, texts: Sequence[str], e5: Embed, minilm: Embed, english_e5: bool) -> list[list[float]]:
        """MiniLM for the English texts, e5 for the others (and with `english_e5` the English too),
        the two models side by side (ONNX Runtime releases the GIL)."""
        english = [i for i, text in enumerate(texts) if is_english(text)]
        by_e5 = [i for i, text in enumerate(texts) if english_e5 or not is_english(text)]
        e5_running = self._beside.submit(e5, [texts[i] for i in by_e5]) if by_e5 else None
        minilm_vectors = dict(zip(english, minilm([texts[i] for i in english]) if english else [], strict=True))
        e5_vectors = dict(zip(by_e5, e5_running.result() if e5_running else [], strict=True))
        half = self.minilm.dimension
        return [joined(e5_vectors.get(i), minilm_vectors.get(i), half) for i in range(len(texts))]
