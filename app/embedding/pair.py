"""The default embedder: multilingual-e5-small for every text, all-MiniLM-L6-v2 as well for English
text, one pair of vectors per text (`app/domain/vector_pair.py` has the layout, the comparison rule
and the calibration of e5's cosines)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from app.domain.embedding_identity import EmbeddingIdentity, Precision
from app.domain.vector_pair import is_english, joined
from app.embedding.encoder import Embedder, resolve_model_path
from app.settings import PACKAGED_E5, PACKAGED_MINILM, PACKAGED_PAIR, Settings

Embed = Callable[[Sequence[str]], list[list[float]]]


class PairedEmbedder(Embedder):
    """An `Embedder` whose vectors are pairs (e5 ++ MiniLM or zeros); `encoder`, `window` and
    `token_counts` are MiniLM's (what the token budgets and passages counted before the pair)."""

    paired = True

    def __init__(self, e5: Embedder, minilm: Embedder) -> None:  # the parts, loaded (not Embedder's)
        if e5.dimension != minilm.dimension:
            raise ValueError(f"a pair needs equal dimensions ({e5.dimension} and {minilm.dimension})")
        self.e5, self.minilm = e5, minilm
        self.model_path = minilm.model_path
        self.encoder = minilm.encoder
        self.dimension = e5.dimension + minilm.dimension
        self.window = min(e5.window, minilm.window)
        # e5 reads as many word pieces as MiniLM (256, not its 512): its cost grows faster than linearly
        # with a text's length, and on a long English turn its vector serves only other languages'
        # queries (MiniLM's, cut at 256, answers English ones).
        length = minilm.encoder.exported.max_seq_length
        e5.encoder.tokenizer.enable_truncation(length)
        parts = f"pair:{e5.identity.digest}:{minilm.identity.digest}:{length}"
        digest = hashlib.sha256(parts.encode()).hexdigest()[:16]
        self.identity = EmbeddingIdentity(PACKAGED_PAIR, digest)
        self.reads_chinese = True

    @classmethod
    def from_settings(cls, settings: Settings) -> Embedder:
        cache, precision = settings.model_cache_dir, settings.embedding_precision
        return cls(_part(PACKAGED_E5, cache, precision), _part(PACKAGED_MINILM, cache, precision))

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        return self.minilm.token_counts(texts)

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self._pairs(texts, self.e5.embed_queries, self.minilm.embed_queries)

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return self._pairs(texts, self.e5.embed_passages, self.minilm.embed_passages)

    def embed_english_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Pairs of English queries with their e5 half zeros: for a namespace where e5 would find
        nothing (every memory English: `VectorStore.reads_other_languages`), MiniLM's cost only."""
        return [joined([0.0] * self.e5.dimension, vector) for vector in self.minilm.embed_queries(texts)]

    @staticmethod
    def _pairs(texts: Sequence[str], e5: Embed, minilm: Embed) -> list[list[float]]:
        """e5 for every text, MiniLM for the English ones only (no CJK: its vectors of Chinese are
        near chance, and not computing them saves its share of the write path)."""
        english = [i for i, text in enumerate(texts) if is_english(text)]
        by_index = dict(zip(english, minilm([texts[i] for i in english]), strict=True))
        return [joined(vector, by_index.get(i)) for i, vector in enumerate(e5(texts))]


def _part(name: str, cache: Path, precision: Precision) -> Embedder:
    return Embedder(resolve_model_path(name, cache), cache, precision, name)
