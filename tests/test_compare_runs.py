"""The per-question diff of two evaluation runs (app.evaluation.compare) on small hand-made runs."""

from __future__ import annotations

from typing import Any

import pytest

from app.evaluation.compare import (
    Question,
    card_line,
    compact_card,
    compare,
    held_evidence,
    questions_of,
    render,
)
from app.evaluation.retrieval_metrics import OVERALL


def card(card_id: str, turns: list[str], type_: str = "Dialogue", summary: str = "") -> dict[str, Any]:
    return {"id": card_id, "type": type_, "score": 1.0, "source_turn_ids": turns, "summary": summary or card_id}


def question(qid: str, category: str, evidence: list[str], cards: list[dict], text: str = "") -> dict[str, Any]:
    return {"question_id": qid, "category": category, "question": text or f"question {qid}?", "evidence": evidence,
            "cards": {"hippograph": cards, "bm25": cards[::-1]}}  # fmt: skip


def run(*questions: dict[str, Any]) -> dict[str, Any]:
    return {"dataset": "locomo", "questions": list(questions)}


# Run A (before) and run B (after), k = 2:
#   q1 (cat 1, evidence D1:1 D2:1): A covers D1:1 (0.5); B covers both (1.0)      -> gained +0.5
#   q2 (cat 1, evidence D3:1):      A covers it at rank 2 (1.0); B at rank 3 (0.0) -> lost -1.0
#   q3 (cat 2, evidence D4:1):      both cover it at rank 1 (1.0)                  -> unchanged
#   q4 (cat 2, evidence D5:1 D5:2): A nothing (0.0); B an Episode listing both,
#                                   which counts for no evidence turn (0.0)        -> unchanged
#   q5 (cat 2, no evidence)                                                        -> not scored
#   q6 in A only, q7 in B only                                                     -> not compared
#   q8 (cat 2, evidence D6:1 D6:2): A covers both (1.0); B covers D6:2 (0.5)       -> lost -0.5
RUN_A = run(
    question("q1", "1", ["D1:1", "D2:1"], [card("a1", ["D1:1"]), card("a2", ["D9:9"]), card("a3", ["D2:1"])]),
    question("q2", "1", ["D3:1"], [card("a4", ["D9:1"]), card("a5", ["D3:1"])]),
    question("q3", "2", ["D4:1"], [card("a6", ["D4:1"])]),
    question("q4", "2", ["D5:1", "D5:2"], [card("a7", ["D9:2"])]),
    question("q5", "2", [], [card("a8", ["D1:1"])]),
    question("q6", "2", ["D1:1"], [card("a9", ["D1:1"])]),
    question("q8", "2", ["D6:1", "D6:2"], [card("a10", ["D6:1", "D6:2"], type_="Knowledge")]),
)
RUN_B = run(
    question("q1", "1", ["D2:1", "D1:1"], [card("b1", ["D2:1", "D1:1"], type_="Knowledge"), card("b2", ["D9:9"])]),
    question("q2", "1", ["D3:1"], [card("b3", ["D9:1"]), card("b4", ["D9:2"]), card("b5", ["D3:1"])]),
    question("q3", "2", ["D4:1"], [card("b6", ["D4:1"])]),
    question("q4", "2", ["D5:1", "D5:2"], [card("b7", ["D5:1", "D5:2"], type_="Episode")]),
    question("q5", "2", [], []),
    question("q7", "2", ["D1:1"], [card("b8", ["D1:1"])]),
    question("q8", "2", ["D6:1", "D6:2"], [card("b9", ["D7:1"]), card("b10", ["D6:2"])]),
)


def test_gained_lost_unchanged_and_unscored() -> None:
    result = compare(questions_of(RUN_A), questions_of(RUN_B), k=2)
    assert [(c.a.question_id, c.recall_a, c.recall_b) for c in result.gained] == [("q1", 0.5, 1.0)]
    assert [(c.a.question_id, c.recall_a, c.recall_b) for c in result.lost] == [("q2", 1.0, 0.0), ("q8", 1.0, 0.5)]
    assert result.unchanged == 2  # q3, and q4 (the Episode covers no evidence turn)
    assert result.unscored == 1  # q5
    assert (result.only_a, result.only_b) == (["q6"], ["q7"])


def test_means_per_category_and_overall_over_the_questions_of_both_runs() -> None:
    result = compare(questions_of(RUN_A), questions_of(RUN_B), k=2)
    assert list(result.means) == ["1", "2", OVERALL]
    cat1, cat2, overall = result.means["1"], result.means["2"], result.means[OVERALL]
    assert (cat1.n, cat1.a, cat1.b) == (2, 0.75, 0.5)  # q1, q2
    assert (cat2.n, cat2.a, cat2.b) == (3, pytest.approx(2 / 3), pytest.approx(1.5 / 3))  # q3, q4, q8
    assert (overall.n, overall.a, overall.b) == (5, pytest.approx(3.5 / 5), pytest.approx(2.5 / 5))
    assert overall.delta == pytest.approx(-0.2)


def test_k_decides_what_counts() -> None:
    # At k = 3, A's q1 finds D2:1 at rank 3 and B's q2 finds D3:1 at rank 3: both are unchanged.
    result = compare(questions_of(RUN_A), questions_of(RUN_B), k=3)
    assert [c.a.question_id for c in result.gained] == []
    assert [c.a.question_id for c in result.lost] == ["q8"]
    assert result.unchanged == 4


def test_the_same_run_changes_nothing() -> None:
    result = compare(questions_of(RUN_A), questions_of(RUN_A), k=1)
    assert (result.gained, result.lost, result.unchanged, result.unscored) == ([], [], 6, 1)
    assert all(mean.delta == 0.0 for mean in result.means.values())


def test_another_system_of_the_same_run() -> None:
    # bm25's cards are hippograph's reversed: q1's D2:1 comes first, q2's D3:1 too.
    result = compare(questions_of(RUN_A), questions_of(RUN_A, system="bm25"), k=1)
    assert [(c.a.question_id, c.recall_a, c.recall_b) for c in result.gained] == [("q2", 0.0, 1.0)]
    assert (result.lost, result.unchanged) == ([], 5)  # q1: D1:1 first in one, D2:1 first in the other


def test_a_report_without_cards_or_with_different_evidence_is_refused() -> None:
    old = {"questions": [{"question_id": "q1", "category": "1", "question": "?", "evidence": ["D1:1"],
                          "top5": []}]}  # fmt: skip
    with pytest.raises(ValueError, match="no ranked cards"):
        questions_of(old)
    other = run(question("q3", "2", ["D4:2"], [card("c1", ["D4:2"])]))
    with pytest.raises(ValueError, match="different evidence"):
        compare(questions_of(RUN_A), questions_of(other), k=2)
    with pytest.raises(ValueError, match="appears twice"):
        questions_of(run(RUN_A["questions"][0], RUN_A["questions"][0]))
    with pytest.raises(ValueError, match="at least 1"):
        compare({}, {}, k=0)


def test_held_evidence_follows_the_episode_rule() -> None:
    evidence = ["D1:2", "D1:1"]
    assert held_evidence(card("x", ["D1:1", "D1:2", "D1:3"]), evidence) == ["D1:2", "D1:1"]
    assert held_evidence(card("x", ["D1:1", "D1:2"], type_="Episode"), evidence) == []
    assert held_evidence(card("x", ["D2:1"]), evidence) == []


def test_compact_card_keeps_the_head_of_the_text() -> None:
    raw = {"id": "f-1", "type": "Knowledge", "score": 0.5, "source_turn_ids": ["D1:1"], "summary": "a  b\nc " * 3,
           "node_id": 7, "details": {"x": 1}}  # fmt: skip
    assert compact_card(raw) == {"id": "f-1", "type": "Knowledge", "score": 0.5, "source_turn_ids": ["D1:1"],
                                 "summary": "a b c a b c a b c"}  # fmt: skip
    assert compact_card(raw, summary_chars=6)["summary"] == "a b c…"
    assert compact_card({"id": "t", "type": "Dialogue", "text": "hello"})["summary"] == "hello"
    assert compact_card({"id": "t", "type": "Dialogue"})["source_turn_ids"] == []


def test_card_line_marks_the_evidence_it_holds() -> None:
    evidence = ["D1:1"]
    assert card_line(1, card("k-1", ["D1:1"], type_="Knowledge", summary="Alice car: Model Y"), evidence) == (
        "   1. [E D1:1] Knowledge k-1: Alice car: Model Y"
    )
    assert card_line(12, card("d-2", ["D2:1"], summary="x" * 30), evidence, width=10) == (
        "  12. [ ] Dialogue d-2: xxxxxxxxx…"
    )


def test_render() -> None:
    result = compare(questions_of(RUN_A), questions_of(RUN_B), k=2)
    text = render(result, top=2, labels={"1": "1 multi-hop", "2": "2 temporal"})
    assert text.splitlines()[:12] == [
        "| category | A R@2 | B R@2 | delta | n |",
        "|---|---:|---:|---:|---:|",
        "| 1 multi-hop | 0.750 | 0.500 | -0.250 | 2 |",
        "| 2 temporal | 0.667 | 0.500 | -0.167 | 3 |",
        "| overall | 0.700 | 0.500 | -0.200 | 5 |",
        "",
        "gained 1, lost 2, unchanged 2 (recall@2 per question); not scored (no evidence turn) 1",
        "only in A: 1, only in B: 1 (not compared)",
        "",
        "## GAINED (1)",
        "- q1 [1 multi-hop] R@2 0.50 -> 1.00: question q1?",
        "  evidence: D1:1 D2:1",
    ]
    assert text.splitlines()[12:18] == [
        "  A top 2:",
        "   1. [E D1:1] Dialogue a1: a1",
        "   2. [ ] Dialogue a2: a2",
        "  B top 2:",
        "   1. [E D1:1 D2:1] Knowledge b1: b1",
        "   2. [ ] Dialogue b2: b2",
    ]
    assert "## LOST (2)" in text
    assert text.index("- q2 [1 multi-hop] R@2 1.00 -> 0.00") < text.index("- q8 [2 temporal] R@2 1.00 -> 0.50")


def test_question_holds_what_the_report_names() -> None:
    q = questions_of(RUN_B)["q1"]
    cards = tuple(RUN_B["questions"][0]["cards"]["hippograph"])
    assert q == Question("q1", "1", "question q1?", ("D2:1", "D1:1"), cards)
