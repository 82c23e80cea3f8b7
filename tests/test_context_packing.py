"""Packing the context (app/context/packing.py): summaries first in rank order, full content where
the budget allows, never over it; the next step and activation of the attention switch. Exact
cases with a word-counting tokenizer, and a property over random candidates and budgets with the
real tokenizer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.context.packing import Candidate, activation, entry, next_step, pack, render
from app.context.tokens import TokenCounter
from app.domain.tasks import TaskStatus
from app.embedding.encoder import resolve_model_path


def words(text: str) -> int:
    """A tokenizer whose counts are easy to follow: one token per whitespace-separated word."""
    return len(text.split())


def card(node_id: str, summary_words: int, content_words: int | None = None, **fields: object) -> Candidate:
    content = " ".join(["c"] * content_words) if content_words else None
    return Candidate(node_id, "Knowledge", " ".join(["s"] * summary_words), content, 1.0, **fields)  # type: ignore[arg-type]


def shown(candidates: list[Candidate], budget: int) -> list[tuple[str, str, int]]:
    return [(p.candidate.id, p.detail, p.tokens) for p in pack(candidates, budget, words)]


def test_summaries_first_then_full_content_in_rank_order() -> None:
    # An entry is "[Knowledge]" (1 word) + its text.
    cards = [card("a", 3, 10), card("b", 3, 10), card("c", 3)]
    assert shown(cards, 12) == [("a", "summary", 4), ("b", "summary", 4), ("c", "summary", 4)]
    assert shown(cards, 19) == [("a", "full", 11), ("b", "summary", 4), ("c", "summary", 4)]
    assert shown(cards, 26) == [("a", "full", 11), ("b", "full", 11), ("c", "summary", 4)]
    assert shown(cards, 3) == []  # not even the top summary fits


def test_a_card_too_big_is_skipped_and_a_smaller_one_below_still_fits() -> None:
    cards = [card("a", 3), card("b", 20), card("c", 2)]
    assert shown(cards, 8) == [("a", "summary", 4), ("c", "summary", 3)]


def test_full_content_only_where_allowed() -> None:
    cards = [card("a", 3, 10, full_allowed=False), card("b", 3, 10)]
    assert shown(cards, 100) == [("a", "summary", 4), ("b", "full", 11)]


def test_entries_and_render() -> None:
    candidate = Candidate("knowledge:x", "Knowledge", "Short.", "Long\n  text here.", 0.5)
    assert entry(candidate, "summary") == "[Knowledge] Short."
    assert entry(candidate, "full") == "[Knowledge] Long text here."
    packed = pack([candidate, Candidate("task:y", "Task", "", None, 0.4)], 100, words)
    assert render(packed) == "[Knowledge] Long text here.\n\n[Task] task:y"


def test_next_step_and_activation() -> None:
    done, running, pending = TaskStatus.DONE, TaskStatus.RUNNING, TaskStatus.PENDING
    cards = [card("knowledge:a", 1), *(Candidate(f"task:{n}", "Task", n, None, 1.0) for n in ("d", "p", "r"))]
    assert next_step(cards, {"task:d": done, "task:p": pending, "task:r": running}) == "task:r"  # running first
    assert next_step(cards, {"task:d": done, "task:p": pending, "task:r": done}) == "task:p"
    assert next_step(cards, {"task:d": done, "task:p": TaskStatus.BLOCKED}) == "knowledge:a"  # no open task: the top
    assert next_step(cards[1:2], {"task:d": done}) is None
    assert activation(2, 0.8, 0.5) == 0.2 and activation(1, 1.0, 0.5) == 0.5


TOKENIZER = TokenCounter(resolve_model_path("all-MiniLM-L6-v2") / "tokenizer.json", "all-MiniLM-L6-v2")
TEXT = st.text(alphabet=st.sampled_from("abcdefg xyz,.!?\n北京上海 0123"), min_size=0, max_size=600)
CANDIDATES = st.lists(
    st.builds(
        Candidate,
        st.uuids().map(lambda u: f"knowledge:{u.hex[:8]}"),
        st.sampled_from(["Knowledge", "Task"]),
        TEXT,
        st.none() | TEXT,
        st.floats(0, 1),
        st.just("recall"),
        st.booleans(),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(candidates=CANDIDATES, budget=st.integers(1, 800))
def test_never_over_the_budget_and_the_top_card_is_in_whenever_it_fits(
    candidates: list[Candidate], budget: int
) -> None:
    packed = pack(candidates, budget, TOKENIZER.count)
    assert TOKENIZER.count(render(packed)) <= budget
    assert sum(p.tokens for p in packed) <= budget
    order = [c.id for c in candidates]
    assert [order.index(p.candidate.id) for p in packed] == sorted(order.index(p.candidate.id) for p in packed)
    if candidates and TOKENIZER.count(entry(candidates[0], "summary")) <= budget:
        assert packed[0].candidate is candidates[0]
