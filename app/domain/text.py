"""Tokens for lexical matching in English and Chinese alike: lower-cased words for alphabetic
scripts, overlapping character bigrams for CJK runs (single characters when a run has one)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+(?:[.,]\d+)*", re.UNICODE)
# The CJK ideographs (Chinese has no spaces between words): one character class for every module.
CJK_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "i",
        "i'm",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


def tokens(text: str, drop_stop_words: bool = True) -> list[str]:
    found: list[str] = []
    for run in CJK_RUN.findall(text):
        found.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
    for word in _WORD.findall(CJK_RUN.sub(" ", text.lower())):
        if not (drop_stop_words and word in STOP_WORDS):
            found.append(word)
    return found


def estimate_tokens(text: str) -> int:
    """A model-independent token estimate for budgets: one per CJK character, one per four other
    characters (the usual English ratio of BPE tokenizers), at least one for non-empty text."""
    if not text:
        return 0
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
    return max(1, cjk + -(-(len(text) - cjk) // 4))
