"""The default embedding (EMBEDDING_MODEL=multilingual-e5-small+all-MiniLM-L6-v2): a pair of vectors
per text, plain values the embedder (`app/embedding/pair.py`) and the vector stores share.

Every text gets a multilingual-e5-small vector (it reads Chinese and crosses languages); an English
text (no CJK character) also gets its all-MiniLM-L6-v2 vector, which ranks long English turns better
(LongMemEval dev R@10 0.929 against e5's 0.813: docs/benchmarks.md, "Embedders"). A pair travels as
one list of floats, the e5 half first, the MiniLM half all zeros when the text has none; a store
keeps the halves as two named vectors of one point (`app/stores/vectors/base.py`).

A (query, memory) pair is compared by MiniLM when both are English, by e5 otherwise. e5's cosines
sit in a narrow high band (0.68-0.93 over English question/turn pairs where MiniLM's spread over
-0.14-0.84), so an e5 cosine is put on MiniLM's scale (`on_minilm_scale`) before it is compared with
MiniLM's, with a SEMANTIC threshold, or shown as a relevance. Calibration: quantile matching over the
same English pairs scored by both models (LoCoMo dev, 200 questions x 800 turns for queries, the
319k pairs of those turns for passages: e5 and MiniLM rank these pairs alike, so the e5 cosine at
quantile q maps to MiniLM's cosine at q), piecewise linear between the knots below, extended
linearly past the lowest, and 1 at 1. Queries and passages have maps of their own: e5 reads them
with different prompts, and a passage-to-passage cosine sits ~0.05 higher than a query's.
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

# (e5 cosine, MiniLM cosine) at the quantiles 0, .1, .25, .5, .75, .9, .95, .99, .995, .999, .9995,
# .9999 of the calibration pairs (see the module's notes), and (1, 1).
QUERY_KNOTS = (
    (0.677, 0.764, 0.794, 0.817, 0.829, 0.852, 0.86, 0.876, 0.884, 0.898, 1.0),
    (-0.144, 0.193, 0.307, 0.408, 0.461, 0.555, 0.592, 0.672, 0.701, 0.762, 1.0),
)
PASSAGE_KNOTS = (
    (0.716, 0.803, 0.82, 0.841, 0.865, 0.888, 0.902, 0.924, 0.931, 0.945, 0.95, 0.962, 1.0),
    (-0.111, 0.174, 0.245, 0.332, 0.436, 0.544, 0.606, 0.71, 0.743, 0.801, 0.823, 0.869, 1.0),
)


def is_english(text: str) -> bool:
    """Whether MiniLM reads the text: no CJK character in it (a Chinese name in an English sentence
    is enough to leave it to e5, which reads both)."""
    return CJK_RUN.search(text) is None


def on_minilm_scale(cosine: float, passages: bool = False) -> float:
    """An e5 cosine (of a query and a passage, or with `passages` of two passages) on MiniLM's
    scale; monotone, so e5's order is kept."""
    xs, ys = PASSAGE_KNOTS if passages else QUERY_KNOTS
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
