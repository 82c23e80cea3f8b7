"""Baselines the recall API is compared with: BM25 and dense cosine over single turns.

Both index one document per turn and answer ranked pseudo-cards
`{"id", "type": "Dialogue", "summary": <the document text>, "score", "source_turn_ids": [turn_id]}`,
so the metrics of `app.evaluation.retrieval_metrics` apply unchanged (a baseline card's text is the full text
it indexed). Ties keep document order.

- `BM25`: Okapi BM25, pure Python; k1 = 1.5, b = 0.75, tokens of `app.domain.text.tokens` (English
  words without stop words, Chinese character bigrams);
  idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5)) (the non-negative form of Lucene), and
  score(q, d) = sum over the query's tokens (a repeated token counts again) of
  idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl)).
  Documents sharing no token with the query are not returned.
- `DenseIndex`: cosine similarity of embeddings from the product's embedder
  (`Embedder.from_settings(settings)`); vectors are normalized here too, so a dot product is the cosine.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import mul
from typing import Any, Protocol

from app.domain.text import tokens


@dataclass(frozen=True)
class Doc:
    turn_id: str
    text: str


def pseudo_card(doc: Doc, score: float) -> dict[str, Any]:
    return {
        "id": f"turn:{doc.turn_id}",
        "type": "Dialogue",
        "summary": doc.text,
        "score": score,
        "source_turn_ids": [doc.turn_id],
    }


def _ranked(docs: Sequence[Doc], scores: Sequence[float], top_k: int, keep: Callable[[float], bool]) -> list[dict]:
    candidates = ((score, i) for i, score in enumerate(scores) if keep(score))
    best = heapq.nsmallest(top_k, candidates, key=lambda pair: (-pair[0], pair[1]))
    return [pseudo_card(docs[i], score) for score, i in best]


class BM25:
    def __init__(
        self,
        docs: Sequence[Doc],
        k1: float = 1.5,
        b: float = 0.75,
        tokenize: Callable[[str], list[str]] = tokens,
    ) -> None:
        self.docs = list(docs)
        self.k1 = k1
        self.b = b
        self.tokenize = tokenize
        self.lengths: list[int] = []
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for index, doc in enumerate(self.docs):
            terms = Counter(tokenize(doc.text))
            self.lengths.append(sum(terms.values()))
            for term, tf in terms.items():
                self.postings.setdefault(term, []).append((index, tf))
        self.avgdl = sum(self.lengths) / len(self.lengths) if self.lengths else 0.0

    def df(self, term: str) -> int:
        return len(self.postings.get(term, ()))

    def idf(self, term: str) -> float:
        df = self.df(term)
        return math.log(1.0 + (len(self.docs) - df + 0.5) / (df + 0.5))

    def scores(self, query: str) -> list[float]:
        scores = [0.0] * len(self.docs)
        avgdl = self.avgdl or 1.0
        for term in self.tokenize(query):
            postings = self.postings.get(term)
            if not postings:
                continue
            idf = self.idf(term)
            for index, tf in postings:
                norm = self.k1 * (1.0 - self.b + self.b * self.lengths[index] / avgdl)
                scores[index] += idf * tf * (self.k1 + 1.0) / (tf + norm)
        return scores

    def search(self, query: str, top_k: int = 20) -> list[dict[str, Any]]:
        return _ranked(self.docs, self.scores(query), top_k, lambda score: score > 0.0)


class TextEmbedder(Protocol):
    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]: ...


def normalized(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else [float(x) for x in vector]


class DenseIndex:
    def __init__(self, embedder: TextEmbedder, docs: Sequence[Doc]) -> None:
        self.embedder = embedder
        self.docs = list(docs)
        self.vectors = [normalized(v) for v in embedder.embed_passages([doc.text for doc in self.docs])]

    def scores(self, query: str) -> list[float]:
        (vector,) = self.embedder.embed_queries([query])
        q = normalized(vector)
        return [sum(map(mul, q, v)) for v in self.vectors]

    def search(self, query: str, top_k: int = 20) -> list[dict[str, Any]]:
        return _ranked(self.docs, self.scores(query), top_k, lambda score: True)
