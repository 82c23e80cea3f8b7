"""What a card shows of a memory longer than its summary: the sentence the query is about.

A stored summary is the head of the content (`derive_summary`), which for a conversation turn is
often a greeting ("Hey Caroline, hope all's good! I had a quiet weekend after we went camping…").
A recall card whose summary was cut shows instead the sentence of the content that shares the most
of the query's terms (its words, their inflections, the members of a category it names, CJK
bigrams; not the named speakers' names, which greetings repeat), or else the sentence whose own
vector the cold path matched: shorter than the head and about the question, so more evidence fits a
token budget (docs/benchmarks.md, "Excerpts and categories"). "…" marks the text left out before or
after it; the full content stays one request away (GET …/nodes/{id})."""

from __future__ import annotations

from collections.abc import Collection

from app.domain.inputs import ELLIPSIS, derive_summary
from app.domain.model import SUMMARY_MAX_CHARS
from app.domain.summarize import sentences
from app.domain.text import tokens


def excerpt(
    content: str, terms: Collection[str], matched_sentence: str | None = None, limit: int = SUMMARY_MAX_CHARS
) -> str | None:
    """The sentence of `content` sharing the most `terms` (the first of equals), else
    `matched_sentence` when it is one of its sentences, cut to `limit` characters with the ellipses;
    None when the content fits `limit` whole, has one sentence, or neither finds a sentence."""
    text = " ".join(content.split())
    if len(text) <= limit:
        return None
    said = sentences(text)
    if len(said) < 2:
        return None
    wanted = frozenset(terms)
    shared = [len(wanted.intersection(tokens(sentence))) for sentence in said]
    matched = " ".join(matched_sentence.split()) if matched_sentence is not None else None
    if max(shared) > 0:
        index = shared.index(max(shared))
    elif matched in said:
        index = said.index(matched)
    else:
        return None
    before = ELLIPSIS if index > 0 else ""
    after = ELLIPSIS if index < len(said) - 1 else ""
    body = derive_summary(said[index], limit - len(before) - len(after))
    if body.endswith(ELLIPSIS):
        after = ""
    return before + body + after
