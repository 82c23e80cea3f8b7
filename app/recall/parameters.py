"""The read path's query parameters, kept to one Neo4j plan per query: lists cut or padded to fixed
sizes, the Lucene string padded to a fixed length, and filler values that match nothing. The
recall service (app/recall/service.py) and the context builder (app/context/builder.py) send them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TypeVar

from app.recall.query import ParsedQuery, lucene_query

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
NO_WINDOW = EPOCH  # the window parameters of a query that names no time
NO_MATCH = "\u0000"  # no id, name key or slot is ever this

# Neo4j caches a plan per query, parameter types AND size bucket of every list and string parameter
# (about one per power of ten): a recall whose lists or Lucene string fell into another bucket was
# planned again, 0.5-0.9 s (measured). So the read path's lists and strings always have these
# sizes: cut to them, or padded with values that match nothing.
ENTITY_KEYS_SIZE = 64
SLOT_KEYS_SIZE = 32
HOT_SEEDS_SIZE = 16  # >= SpreadingSettings.hot_limit
CARD_IDS_SIZE = 64  # >= SpreadingSettings.cold_limit
LUCENE_CHARS = 4000  # the bucket of 1001-10000 characters; longer queries drop their last words
# The details read (`recall.details`: recall's excerpts, the context builder) always sends this many
# ids (padded with NO_MATCH): one plan for every request. >= the top_k limit.
DETAIL_IDS_SIZE = 100
T = TypeVar("T")


def fixed_size(values: Sequence[T], size: int, filler: T) -> list[T]:
    """`values` cut or padded with `filler` to exactly `size` items (see ENTITY_KEYS_SIZE)."""
    return [*values[:size], *[filler] * (size - len(values))]


def fixed_lucene(
    namespace: str,
    parsed: ParsedQuery,
    variant_boost: float = 0.0,
    speaker_boost: float = 1.0,
    member_boost: float = 0.0,
    gloss_boost: float = 0.0,
) -> str:
    """The full-text query padded with spaces to LUCENE_CHARS (blank: no full-text seeds), without
    the last glosses (the query's words in the other language), then the last category members,
    then the last variants, then the last terms, when it would be longer (see ENTITY_KEYS_SIZE)."""
    terms, variants = parsed.terms, parsed.variants if variant_boost > 0 else ()
    members = parsed.members if member_boost > 0 else ()
    glosses = parsed.glosses if gloss_boost > 0 else ()
    speaker_terms = parsed.speaker_terms

    def query() -> str:
        return (
            lucene_query(namespace, terms, variants, variant_boost, speaker_terms, speaker_boost, members,
                         member_boost, glosses, gloss_boost)  # fmt: skip
            or ""
        )

    while len(query()) > LUCENE_CHARS and (terms or variants or members or glosses):
        if glosses:
            glosses = glosses[:-1]
        elif members:
            members = members[:-1]
        elif variants:
            variants = variants[:-1]
        else:
            terms = terms[:-1]
    return query().ljust(LUCENE_CHARS)
