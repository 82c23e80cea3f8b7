"""The read path's query parameters keep one size bucket whatever the query (exact cases)."""

from __future__ import annotations

import pytest

from app.recall.parameters import LUCENE_CHARS, NO_MATCH, fixed_lucene, fixed_size
from app.recall.query import ParsedQuery, lucene_query
from app.recall.request import SpreadingSettings


def parsed(
    terms: tuple[str, ...],
    variants: tuple[str, ...] = (),
    speakers: tuple[str, ...] = (),
    members: tuple[str, ...] = (),
    glosses: tuple[str, ...] = (),
) -> ParsedQuery:
    return ParsedQuery(" ".join(terms), terms, variants, (), (), None, speakers, members=members, glosses=glosses)


def test_lists_are_cut_or_padded_to_their_size() -> None:
    assert fixed_size(["a", "b"], 4, NO_MATCH) == ["a", "b", NO_MATCH, NO_MATCH]
    assert fixed_size([], 3, NO_MATCH) == [NO_MATCH] * 3
    assert fixed_size(["a", "b", "c", "d", "e"], 3, NO_MATCH) == ["a", "b", "c"]
    seeds = fixed_size([{"id": "d:1", "score": 1.0}], 2, {"id": NO_MATCH, "score": 0.0})
    assert seeds == [{"id": "d:1", "score": 1.0}, {"id": NO_MATCH, "score": 0.0}]


def test_the_lucene_query_is_padded_to_one_length_and_keeps_its_first_terms() -> None:
    short = fixed_lucene("team-a", parsed(("car",)))
    assert len(short) == LUCENE_CHARS and short.rstrip() == lucene_query("team-a", ("car",))
    assert fixed_lucene("team-a", parsed(())) == " " * LUCENE_CHARS  # blank: no full-text seeds
    many = tuple(f"word{i}" for i in range(1000))
    long = fixed_lucene("team-a", parsed(many))
    assert len(long) == LUCENE_CHARS
    kept = long.rstrip()
    kept_terms = kept.count('"word') // kept.count('"word0"')  # each term appears once per field
    assert 1 < kept_terms < 1000 and kept == lucene_query("team-a", many[:kept_terms])
    assert len(lucene_query("team-a", many[: kept_terms + 1]) or "") > LUCENE_CHARS  # as many as fit


def test_the_lucene_query_drops_variants_before_terms() -> None:
    terms = tuple(f"word{i}" for i in range(5))
    variants = tuple(f"variant{i}" for i in range(200))
    long = fixed_lucene("team-a", parsed(terms, variants), 0.5).rstrip()
    assert long.count('"word4"') == 2 and long.count('"variant0"^0.5') > 0 and '"variant199"' not in long
    kept = long.count('"variant') // 2
    assert long == lucene_query("team-a", terms, variants[:kept], 0.5)
    assert fixed_lucene("team-a", parsed(terms, variants), 0.0) == fixed_lucene("team-a", parsed(terms))


def test_the_lucene_query_drops_members_before_variants() -> None:
    terms, variants = ("word0", "word1"), ("variant0", "variant1")
    members = tuple(f"member{i}" for i in range(400))
    long = fixed_lucene("team-a", parsed(terms, variants, members=members), 0.5, 1.0, 0.5).rstrip()
    kept = long.count('"member') // 2
    assert 0 < kept < 400 and long == lucene_query("team-a", terms, variants, 0.5, (), 1.0, members[:kept], 0.5)
    without = fixed_lucene("team-a", parsed(terms, variants, members=members), 0.5, 1.0, 0.0)
    assert without == fixed_lucene("team-a", parsed(terms, variants), 0.5)


def test_the_lucene_query_drops_glosses_first() -> None:
    terms, members = ("慈善", "善跑"), ("member0",)
    glosses = tuple(f"gloss{i}" for i in range(400))
    long = fixed_lucene("team-a", parsed(terms, members=members, glosses=glosses), 0.0, 1.0, 0.5, 0.4).rstrip()
    kept = long.count('"gloss') // 2
    assert 0 < kept < 400 and long.count('"member0"^0.5') == 2 and long.count('"gloss0"^0.4') == 2
    assert long == lucene_query("team-a", terms, (), 0.0, (), 1.0, members, 0.5, glosses[:kept], 0.4)
    without = fixed_lucene("team-a", parsed(terms, members=members, glosses=glosses), 0.0, 1.0, 0.5, 0.0)
    assert without == fixed_lucene("team-a", parsed(terms, members=members), 0.0, 1.0, 0.5)


def test_a_named_speakers_name_weighs_the_speaker_boost() -> None:
    query = fixed_lucene("team-a", parsed(("caroline's", "caroline", "gift"), speakers=("caroline",)), 0.0, 0.2)
    assert query.rstrip() == lucene_query("team-a", ("caroline's", "caroline", "gift"), (), 0.0,
                                          ("caroline's", "caroline"), 0.2)  # fmt: skip
    assert query.count('"caroline"^0.2') == 2 and query.count('"gift"^') == 0  # once per field
    unweighted = fixed_lucene("team-a", parsed(("caroline", "gift"), speakers=("caroline",)), 0.0, 1.0)
    assert unweighted == fixed_lucene("team-a", parsed(("caroline", "gift")))


def test_settings_never_exceed_the_fixed_sizes() -> None:
    SpreadingSettings(hot_limit=16, cold_limit=64)
    with pytest.raises(ValueError, match="hot_limit"):
        SpreadingSettings(hot_limit=17)
    with pytest.raises(ValueError, match="cold_limit"):
        SpreadingSettings(cold_limit=65)
