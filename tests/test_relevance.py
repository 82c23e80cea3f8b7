"""A card's absolute relevance (app/recall/relevance.py): term coverage in English and Chinese, the
vector cosine, and what an empty answer says (exact cases)."""

from __future__ import annotations

from datetime import UTC, datetime

from app.domain.text import tokens
from app.recall.query import SlotVocabulary, parse_query
from app.recall.relevance import (
    answers,
    card_text,
    judgeable,
    nothing_relevant_note,
    query_terms,
    relevance,
    term_coverage,
)

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def terms_of(query: str, speakers: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    parsed = parse_query(query, NOW, SlotVocabulary.load()).with_speakers(speakers)
    return query_terms(parsed.terms, parsed.speaker_terms)


def test_query_terms_leave_out_named_speakers_and_count_a_possessive_once() -> None:
    assert [forms[0] for forms in terms_of("What did Caroline research?", ("caroline",))] == ["research"]
    assert [forms[0] for forms in terms_of("What did Caroline research?")] == ["caroline", "research"]
    assert [forms[0] for forms in terms_of("Alice's car and Alice")] == ["alice", "car"]
    assert terms_of("research")[0] == ("research", "researches", "researching", "researched")


def test_term_coverage_counts_a_term_in_any_of_its_forms() -> None:
    terms = terms_of("Finish the billing migration")
    assert [forms[0] for forms in terms] == ["finish", "billing", "migration"]
    assert term_coverage(terms, "I finished my painting yesterday") == 1 / 3
    assert term_coverage(terms, "We finished the billing migration.") == 1.0
    assert term_coverage(terms, "Nothing about it") == 0.0
    assert term_coverage([], "anything") == 0.0


def test_term_coverage_reads_chinese_by_bigrams() -> None:
    terms = terms_of("量子计算的纠错码")
    assert [forms[0] for forms in terms] == tokens("量子计算的纠错码") == ["量子", "子计", "计算", "纠错", "错码"]
    assert term_coverage(terms, "我们算了一下计算的成本") == 1 / 5
    assert term_coverage(terms, "量子计算机需要纠错码") == 1.0
    assert term_coverage(terms, "The quantum computer") == 0.0


def test_relevance_is_the_better_of_cosine_and_coverage_within_0_and_1() -> None:
    assert relevance(0.62, 0.25) == 0.62
    assert relevance(0.1, 0.5) == 0.5
    assert relevance(-0.2, 0.0) == 0.0
    assert relevance(1.0000002, 0.0) == 1.0


def test_an_empty_answer_says_why() -> None:
    assert nothing_relevant_note(0.5, 3) == "Nothing relevant: none of the 3 memories found reached min_score 0.5."
    assert nothing_relevant_note(0.5, 0) == "Nothing relevant: no memory matched the query."


def test_a_card_in_another_language_than_the_query_cannot_be_judged_by_its_vector() -> None:
    chinese = card_text({"summary": "我住在北京，下周三去上海。", "label": "王伟: 我住在北京"})
    english = "Alice drives a Model Y"
    assert card_text({"summary": "s", "label": None}) == "s\n"
    question, 问题 = "Where does Wang Wei live?", "王伟住在哪里？"
    assert not judgeable(chinese, question, terms_only=False) and judgeable(english, question, terms_only=False)
    assert not judgeable(english, 问题, terms_only=False) and judgeable(chinese, 问题, terms_only=False)
    # Judged by its terms alone (no vector read the query), any card is.
    assert judgeable(chinese, question, terms_only=True) and judgeable(english, 问题, terms_only=True)


def test_an_answer_keeps_its_cards_when_its_best_card_reaches_min_score_or_cannot_be_judged() -> None:
    english, chinese = "Alice drives a Model Y", "我住在北京，下周三去上海。"
    question = "What does Alice drive?"
    assert answers([0.2, 0.5], [english, english], question, 0.34)
    assert not answers([0.2, 0.3], [english, english], question, 0.34)
    assert answers([0.2, 0.3], [english, english], question, 0.0)
    assert not answers([], [], question, 0.0)  # nothing to keep
    # Most leading cards are in another language than the query, which a vector read: not judged.
    assert answers([0.1, 0.0, 0.0], [english, chinese, chinese], question, 0.34)
    assert answers([0.0, 0.0, 0.1], [english, english, chinese], "爱丽丝开什么车？", 0.34)
    assert not answers([0.1, 0.0], [english, chinese], question, 0.34)  # half: judged
    # A query judged by its terms alone (a Chinese one, no vector): judged, against TERMS_ONLY_SCALE
    # of min_score (0.17 here).
    assert not answers([0.1, 0.0, 0.0], [english, chinese, chinese], "王伟住在哪里？", 0.34, terms_only=True)
    assert answers([0.2, 0.0], [chinese, chinese], "王伟住在哪里？", 0.34, terms_only=True)
    assert not answers([0.16, 0.0], [chinese, chinese], "王伟住在哪里？", 0.34, terms_only=True)
    assert not answers([0.2, 0.0], [chinese, chinese], "王伟住在哪里？", 0.34)  # with a vector: the full bar
