"""Passages: a text cut into runs of whole sentences that each fit the embedding model's window;
and a turn's sentence points (`sentence_passages`).

The model reads a fixed number of word pieces and drops the rest, so a long turn embedded whole is
embedded by its head only. Cut into passages, each part gets a vector of its own (`SemanticIndexer`
stores them all under the turn's node id). Token counts are the caller's (the model's own tokenizer,
`Embedder.token_counts`) and are added up piece by piece: exact for WordPiece (BERT's tokenizer
splits at whitespace and punctuation before it splits words), close for other tokenizers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from app.domain.summarize import sentences
from app.domain.text import CJK_CHARS

TokenCounts = Callable[[Sequence[str]], Sequence[int]]  # word pieces of each text, no special tokens

# A word of a spaced script, or a single CJK character (Chinese has no spaces between words).
_WORD = re.compile(f"[{CJK_CHARS}]|[^\\s{CJK_CHARS}]+")


def passages(
    text: str, count: TokenCounts, window: int, prefix: str = "", overlap: int = 0, prefix_every: bool = False
) -> list[str]:
    """`prefix + text` when it fits `window` tokens, else the passages of `text`: its sentences (and
    lines) in order, packed greedily into runs of at most `window` tokens, the first one (or, with
    `prefix_every`, each one) behind `prefix`; a sentence longer than the window is cut between words
    (CJK: characters). With `overlap` = n, each passage after the first starts with the last n
    sentences of the one before when they fit beside its first new sentence."""
    whole = prefix + text
    prefix_tokens, whole_tokens = count([prefix, whole]) if prefix else (0, count([whole])[0])
    if whole_tokens <= window:
        return [whole]
    pieces = [s for line in text.splitlines() for s in sentences(line)]
    room = window - prefix_tokens  # a sentence cut to this fits any passage, the prefixed ones too
    sized = [part for piece, size in zip(pieces, count(pieces), strict=True) for part in _fit(piece, size, count, room)]
    found: list[str] = []
    current: list[tuple[str, int]] = []
    used = prefix_tokens  # tokens of `current`, plus the prefix's where the passage will carry it
    for piece, size in sized:
        if current and used + size > window:
            found.append(_join(current))
            current = current[len(current) - overlap :] if overlap else []
            used = sum(s for _, s in current) + (prefix_tokens if prefix_every else 0)
            while current and used + size > window:
                used -= current.pop(0)[1]
        current.append((piece, size))
        used += size
    if current:
        found.append(_join(current))
    if prefix_every:
        return [prefix + passage for passage in found]
    return [prefix + found[0], *found[1:]]


# A sentence of fewer words says too little to stand alone ("Thanks, Mel!", "Wow, what a view.").
SENTENCE_MIN_WORDS = 5
# Words of a spaced script only: a Chinese sentence gets no point of its own. The default model
# (all-MiniLM-L6-v2) reads Chinese poorly, and each more vector of a poorly read text is one more
# chance match (measured: the own set's Chinese R@10 fell 0.588 -> 0.564 with Chinese sentence
# points; docs/benchmarks.md, "Sentence points").
_SPACED_WORD = re.compile(f"[^\\s{CJK_CHARS}\u3000-\u303f\uff00-\uffef]+")  # CJK punctuation is no word


def sentence_passages(text: str, prefix: str = "") -> list[str]:
    """The sentences of `text` that are worth a vector of their own, each behind `prefix`: those of
    at least SENTENCE_MIN_WORDS words of a spaced script, when there are two or more of them (a turn
    of one such sentence is its own vector already). The embedding model mean-pools a whole turn
    into one vector, so a turn that says several things is close to none of them; each sentence's
    own vector finds the turn by the one thing a question asks about (docs/benchmarks.md,
    "Sentence points")."""
    said = [
        piece
        for line in text.splitlines()
        for piece in sentences(line)
        if len(_SPACED_WORD.findall(piece)) >= SENTENCE_MIN_WORDS
    ]
    return [prefix + piece for piece in said] if len(said) >= 2 else []


def sentence_of_passage(content: str, passage: int | None) -> str | None:
    """The sentence of a turn that its vector point `passage` holds: passage 0 is the whole turn,
    1.. its `sentence_passages` (without the prefix), as `SemanticIndexer.passages_of` stores them;
    None for 0, None or a number past them."""
    if not passage:
        return None
    said = sentence_passages(content)
    return said[passage - 1] if passage <= len(said) else None


def _fit(piece: str, size: int, count: TokenCounts, window: int) -> list[tuple[str, int]]:
    """`piece` with its token count, or its cuts between words when it is longer than `window`
    (a single word longer than the window stays whole: the model truncates it)."""
    if size <= window:
        return [(piece, size)]
    words = list(_WORD.finditer(piece))
    parts: list[tuple[str, int]] = []
    start, used = 0, 0
    for index, word_size in enumerate(count([word.group() for word in words])):
        if index > start and used + word_size > window:
            parts.append((piece[words[start].start() : words[index - 1].end()], used))
            start, used = index, 0
        used += word_size
    parts.append((piece[words[start].start() : words[-1].end()], used))
    return parts


def _join(pieces: list[tuple[str, int]]) -> str:
    return " ".join(piece for piece, _ in pieces)
