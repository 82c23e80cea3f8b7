"""Extractive summaries without an LLM: the sentences most central to a text collection."""

from __future__ import annotations

import re
from collections import Counter

from app.domain.text import tokens

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def extractive_summary(texts: list[str], max_sentences: int = 3, max_chars: int = 600) -> str:
    """The `max_sentences` sentences whose words recur most across `texts` (frequency-weighted,
    length-normalized), in their original order, cut to `max_chars`."""
    candidates = [s for text in texts for s in sentences(text)]
    if not candidates:
        return ""
    frequency = Counter(t for s in candidates for t in set(tokens(s)))

    def centrality(sentence: str) -> float:
        words = tokens(sentence)
        return sum(frequency[w] for w in set(words)) / (1 + len(words)) ** 0.5 if words else 0.0

    best = sorted(range(len(candidates)), key=lambda i: (-centrality(candidates[i]), i))[:max_sentences]
    summary = " ".join(candidates[i] for i in sorted(best))
    return summary if len(summary) <= max_chars else summary[: max_chars - 1].rstrip() + "…"
