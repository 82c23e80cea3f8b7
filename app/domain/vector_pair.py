"""The default embedding (EMBEDDING_MODEL=multilingual-e5-small+all-MiniLM-L6-v2): a pair of vectors
per text, plain values the embedder (`app/embedding/pair.py`) and the vector stores share.

Every text gets a multilingual-e5-small vector (it reads Chinese and crosses languages); an English
text (no CJK character) also gets its all-MiniLM-L6-v2 vector, which ranks long English turns better
(LongMemEval dev R@10 0.929 against e5's 0.813: docs/benchmarks.md, "Embedders"). A pair travels as
one list of floats, the e5 half first, the MiniLM half all zeros when the text has none; a store
keeps the halves as two named vectors of one point (`app/stores/vectors/base.py`).

A (query, memory) pair is compared by MiniLM when both are English, by e5 otherwise: both Chinese
(a CJK character on each side), or across the two languages. e5's cosines sit in narrow high bands
of their own (over LoCoMo dev's question/turn pairs: 0.76-0.93 when both are Chinese, 0.67-0.87
across languages, where MiniLM's spread over -0.14-0.76 for the same pairs in English), so an e5
cosine is put on MiniLM's scale (`on_minilm_scale`) before it is compared with MiniLM's, with a
SEMANTIC threshold, or shown as a relevance. Calibration: quantile matching. LoCoMo dev's two
conversations in English and in their Chinese translation (../shared/data/locomo-dev-zh: the same
turns and questions), 200 questions x 788 turns: the e5 cosine at quantile q of the Chinese pairs
(Chinese question, Chinese turn), or of the pairs across languages (English question with Chinese
turn, and the reverse), maps to MiniLM's cosine at quantile q of the English pairs, piecewise
linear between the knots below (quantiles 0, .1, .25, .5, .75, .9, .95, .99, .995, .999, .9995,
.9999, then 1 at 1), extended linearly below the lowest. Passage-to-passage searches (SEMANTIC
neighbours) have maps of their own from the turns' pairs among themselves: e5 reads passages with
another prompt, and their cosines sit higher. An English pair's e5 cosine is never used (MiniLM
compares it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.domain.text import CJK_RUN

# Named vectors of a point (Qdrant's named vectors, on a server and in the embedded engine).
E5_VECTOR = "e5"
MINILM_VECTOR = "minilm"
# Payload key of a pair's point: the vector an English query is compared with, MINILM_VECTOR when it
# has one (an English text), else E5_VECTOR (a keyword: the embedded engine's match of a bool fails).
READ_BY_KEY = "read_by"

# MiniLM's cosines at those quantiles: question/turn pairs, and turn/turn pairs, in English.
_MINILM_QUERY = (-0.144, 0.056, 0.113, 0.193, 0.307, 0.408, 0.461, 0.555, 0.592, 0.672, 0.701, 0.762, 1.0)
_MINILM_PASSAGE = (-0.111, 0.174, 0.245, 0.332, 0.436, 0.544, 0.606, 0.71, 0.743, 0.801, 0.823, 0.869, 1.0)
# e5's at the same quantiles, by (passages, across languages).
_E5 = {
    (False, False): (0.76, 0.838, 0.848, 0.86, 0.875, 0.888, 0.896, 0.909, 0.914, 0.924, 0.927, 0.934, 1.0),
    (False, True): (0.67, 0.725, 0.743, 0.764, 0.785, 0.808, 0.82, 0.837, 0.843, 0.855, 0.86, 0.868, 1.0),
    (True, False): (0.767, 0.873, 0.884, 0.897, 0.911, 0.924, 0.932, 0.946, 0.952, 0.961, 0.965, 0.972, 1.0),
    (True, True): (0.721, 0.788, 0.8, 0.815, 0.831, 0.846, 0.854, 0.869, 0.874, 0.885, 0.889, 0.899, 1.0),
}


def is_english(text: str) -> bool:
    """Whether MiniLM reads the text: no CJK character in it (a Chinese name in an English sentence
    is enough to leave it to e5, which reads both)."""
    return CJK_RUN.search(text) is None


def on_minilm_scale(cosine: float, passages: bool = False, across: bool = False) -> float:
    """An e5 cosine of two Chinese texts, or with `across` of an English and a Chinese one, on
    MiniLM's scale; a query's and a passage's, or with `passages` two passages'. Monotone: e5's
    order among pairs of one kind is kept."""
    xs, ys = _E5[passages, across], _MINILM_PASSAGE if passages else _MINILM_QUERY
    if cosine < xs[0]:
        return ys[0] + (cosine - xs[0]) * (ys[1] - ys[0]) / (xs[1] - xs[0])
    return float(np.interp(cosine, xs, ys))


def halves(vector: Sequence[float]) -> tuple[list[float], list[float] | None]:
    """The e5 vector and the MiniLM vector (None: the text has none) of a pair."""
    half = len(vector) // 2
    e5, minilm = [float(x) for x in vector[:half]], [float(x) for x in vector[half:]]
    return e5, minilm if any(minilm) else None


def joined(e5: Sequence[float], minilm: Sequence[float] | None) -> list[float]:
    """One pair from its halves (zeros for a missing MiniLM vector)."""
    return [*map(float, e5), *(map(float, minilm) if minilm is not None else [0.0] * len(e5))]
