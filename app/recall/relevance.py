"""How well a card matches its query on an absolute scale (0-1), comparable across queries, which
the fused `score` is not: fusion ranks by rank scores c/(c + rank) and a full-text score divided by
the query's best, so every query's first card looks alike whether it matches or not. Pure
functions (tests/test_relevance.py has exact cases).

relevance = max(vector match, term coverage)

- vector match: the cosine between the query's vector and the card's (its best passage), when the
  cold path found the card; 0 when the query's vector is chance and was not searched (a Chinese
  query with an English-only embedder, an identifier query: `FusionWeights.unread_vector`).
- term coverage: the share of the query's content terms (stop words and the names of speakers it
  names left out: every turn of a speaker carries the name) that the card's summary or label says,
  a term counting when any of its inflections (`word_variants`) is there; Chinese terms are
  character bigrams (`app/domain/text.tokens`), so it reads Chinese queries as well.

`min_score` (recall and context) compares with it (`answers`); `DEFAULT_MIN_SCORE` is the tools'
and MCP's default, chosen on LoCoMo dev (docs/benchmarks.md, "Nothing relevant").

Neither signal judges a card in another language than the query: its words are not in the card,
and a cosine across the languages is chance (an English-only embedder) or too coarse at the bar
(multilingual-e5-small's). Such a card cannot be judged (`judgeable`): it does not pass the bar, and
an answer whose leading cards mostly cannot be is not judged at all: it keeps its cards (the
threshold emptied 156 of 230 such answers on LoCoMo dev with MiniLM). A query no vector read (a
Chinese one with an English-only embedder, an identifier) is judged by its terms alone, whatever the
cards' language, against a lower bar (`TERMS_ONLY_SCALE`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.domain.text import mostly_chinese, tokens
from app.recall.query import word_variants

# Measured on LoCoMo dev, English and Chinese (docs/benchmarks.md, "Nothing relevant").
DEFAULT_MIN_SCORE = 0.34
# A query judged by its terms alone (no vector read it: a Chinese query with an English-only embedder,
# an identifier query) is held to this share of `min_score`: term coverage alone runs lower than a
# cosine, most of all over Chinese character pairs, which cross word boundaries. LoCoMo dev in
# Chinese, R@10 lost to the bar: 0.164 at 0.34 (71 answers emptied), ~0.02 at 0.17, 0 at 0.1; of 10
# Chinese off-topic queries, 8 answer nothing at 0.17, 4 at 0.1 (docs/benchmarks.md, "Nothing relevant").
TERMS_ONLY_SCALE = 0.5


def query_terms(terms: Iterable[str], speaker_terms: Iterable[str]) -> list[tuple[str, ...]]:
    """The query's content terms, each with its inflections: a possessive whose base is also a
    term counts once ("caroline's" with "caroline"), a named speaker's name not at all."""
    named = set(speaker_terms)
    distinct = list(dict.fromkeys(term for term in terms if term not in named))
    kept = set(distinct)
    forms = []
    for term in distinct:
        if term.endswith(("'s", "’s")) and term[:-2] in kept:
            continue
        forms.append((term, *word_variants(term)))
    return forms


def term_coverage(terms: list[tuple[str, ...]], text: str) -> float:
    """The share of `terms` (from `query_terms`) that `text` says in one of their forms; 0 without terms."""
    if not terms:
        return 0.0
    said = set(tokens(text))
    return sum(1 for forms in terms if any(form in said for form in forms)) / len(terms)


def relevance(cosine: float, coverage: float) -> float:
    """The card's relevance from its vector cosine (0 when not found by vector) and term coverage."""
    return round(min(1.0, max(0.0, cosine, coverage)), 6)


def card_text(node: Mapping[str, Any]) -> str:
    """What a card says for its term coverage and language: its summary and label."""
    return f"{node.get('summary') or ''}\n{node.get('label') or ''}"


def judgeable(text: str, query: str, terms_only: bool) -> bool:
    """Whether a card's relevance can be held to `min_score`: not for a card (`text`) in another
    language than the query when a vector read the query (not `terms_only`). The query's words are
    not in such a card, and a cosine across the two languages does not tell a match from a near miss
    at the bar: an English-only embedder's is chance, and multilingual-e5-small's on the reference
    scale gave "What does Alice grow in her garden?" / "爱丽丝在花园里种了西红柿。" 0.25 and "Finish the
    billing migration" / "鲍勃在公司负责计算工资。" 0.35. A query without a vector is judged by its
    terms, which any card may say."""
    return terms_only or mostly_chinese(text) == mostly_chinese(query)


def answers(
    relevances: Iterable[float],
    leading_texts: Sequence[str],
    query: str,
    min_score: float,
    terms_only: bool = False,
) -> bool:
    """Whether an answer keeps its cards under `min_score`: one of its cards (`relevances`: every
    ranked card's, in rank order, 0 for a card that cannot be judged; read only as far as needed, so
    they may be computed lazily) reaches it (`TERMS_ONLY_SCALE` of it when no vector read the query:
    `terms_only`), or most of its leading cards (`leading_texts`: those it would show) cannot be
    judged (`judgeable`). An empty answer (no leading card) has nothing to keep; `min_score` 0 keeps
    any other."""
    if not leading_texts:
        return False
    unjudged = sum(1 for text in leading_texts if not judgeable(text, query, terms_only))
    if unjudged * 2 > len(leading_texts):
        return True
    threshold = min_score * TERMS_ONLY_SCALE if terms_only else min_score
    return any(value >= threshold for value in relevances)


def nothing_relevant_note(min_score: float, below: int) -> str:
    """What an empty answer says: nothing matched, or `below` cards fell short of `min_score`."""
    if below:
        return f"Nothing relevant: none of the {below} memories found reached min_score {min_score:g}."
    return "Nothing relevant: no memory matched the query."
