"""The default embedding (EMBEDDING_MODEL=multilingual-e5-small+all-MiniLM-L6-v2): each text embedded
by the model of its language, as plain values the embedder (`app/embedding/pair.py`) and the vector
stores share.

A text without CJK characters (English) is embedded by all-MiniLM-L6-v2, which ranks English best
(LongMemEval dev R@10 0.929 against e5's 0.813 inside the product); a text with CJK characters by
multilingual-e5-small, which reads Chinese and crosses languages. A vector travels as one list of
floats, the e5 half first, the other half zeros: a stored text has exactly one half set. A store
keeps the halves as two named vectors of one point, the zero half left out
(`app/stores/vectors/base.py`), so the English path's embedding, points and searches are MiniLM's
alone, as before the pair.

A query may have both halves: an English query in a namespace holding Chinese memories is embedded
by both models (MiniLM finds the English memories, e5 the Chinese ones, across the languages); a
Chinese query by e5 only. e5's cosines are put on MiniLM's scale (`app/domain/cosine_scale.py`:
its map for two Chinese texts, across the languages, or two stored texts) so the hits of both
searches merge by score and a SEMANTIC threshold or a relevance reads them alike.
Not reached: an English memory from a Chinese query (it has no e5 vector); the full-text path and
the graph answer that direction.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.text import CJK_RUN

# Named vectors of a point (Qdrant's named vectors, on a server and in the embedded engine).
E5_VECTOR = "e5"
MINILM_VECTOR = "minilm"
# Payload key of a point: which model embedded its text (a keyword: the embedded engine's match of a
# bool fails). Counted to know whether an English query needs its e5 half (`reads_other_languages`).
READ_BY_KEY = "read_by"


def is_english(text: str) -> bool:
    """Whether MiniLM reads the text: no CJK character in it (a Chinese name in an English sentence
    is enough to leave it to e5, which reads both)."""
    return CJK_RUN.search(text) is None


def halves(vector: Sequence[float]) -> tuple[list[float] | None, list[float] | None]:
    """The e5 vector and the MiniLM vector of a pair, None for a half of zeros."""
    half = len(vector) // 2
    e5, minilm = [float(x) for x in vector[:half]], [float(x) for x in vector[half:]]
    return (e5 if any(e5) else None), (minilm if any(minilm) else None)


def joined(e5: Sequence[float] | None, minilm: Sequence[float] | None, half: int) -> list[float]:
    """One pair of `half`-dimension halves (zeros for a missing one)."""
    return [
        *(map(float, e5) if e5 is not None else [0.0] * half),
        *(map(float, minilm) if minilm is not None else [0.0] * half),
    ]


def same_half(vector: Sequence[float], other: Sequence[float]) -> bool:
    """Whether two stored texts' pairs were embedded by the same model (the same half is set)."""
    return (halves(vector)[1] is None) == (halves(other)[1] is None)
