"""A per-question diff of two evaluation runs (the `--json-out` reports of `scripts/eval_locomo.py`
and `scripts/eval_longmemeval.py`), so a change is read question by question and not only as a mean.

A report's `questions` each hold `question_id`, `category`, `question`, `evidence` (turn ids) and
`cards`: per system the ranked cards as `compact_card` stored them. Questions are matched by
`question_id`; recall@k is recomputed from the stored cards with `app.evaluation.retrieval_metrics.recall_at_k`
(so the Episode rule holds: an Episode card covers no evidence turn). A question is GAINED when run
B covers a larger share of its evidence at k than run A, LOST when a smaller one, UNCHANGED when the
same; a question without evidence turns cannot be scored and is only counted. The means are over
the questions scored in both runs, so A's and B's means are over the same questions.

Used by `scripts/compare_runs.py`, which only reads the two files and prints `render(...)`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.evaluation.retrieval_metrics import OVERALL, card_text, evidence_turn_ids, recall_at_k

SUMMARY_CHARS = 160
HIPPOGRAPH = "hippograph"

Card = Mapping[str, Any]


def compact_card(card: Card, summary_chars: int = SUMMARY_CHARS) -> dict[str, Any]:
    """What a report keeps of a ranked card: id, type, score, source turns and the head of its text."""
    text = " ".join(card_text(card).split())
    return {
        "id": card.get("id"),
        "type": card.get("type"),
        "score": card.get("score"),
        "source_turn_ids": [str(t) for t in card.get("source_turn_ids") or ()],
        "summary": text if len(text) <= summary_chars else text[: summary_chars - 1] + "…",
    }


@dataclass(frozen=True)
class Question:
    question_id: str
    category: str
    question: str
    evidence: tuple[str, ...]
    cards: tuple[Card, ...]  # the compared system's ranked cards, best first


def questions_of(report: Mapping[str, Any], system: str = HIPPOGRAPH) -> dict[str, Question]:
    """The report's questions by id, each with `system`'s cards; a report without per-question cards
    (written before `cards` existed) is refused."""
    found: dict[str, Question] = {}
    for raw in report.get("questions") or ():
        cards = raw.get("cards")
        if not isinstance(cards, Mapping) or system not in cards:
            raise ValueError(f"question {raw.get('question_id')!r} holds no ranked cards of {system!r}: "
                             "rerun the evaluation with this version of the script")  # fmt: skip
        question_id = str(raw["question_id"])
        if question_id in found:
            raise ValueError(f"question id {question_id!r} appears twice")
        found[question_id] = Question(
            question_id=question_id,
            category=str(raw["category"]),
            question=str(raw["question"]),
            evidence=tuple(str(t) for t in raw.get("evidence") or ()),
            cards=tuple(cards[system]),
        )
    return found


def held_evidence(card: Card, evidence: Sequence[str]) -> list[str]:
    """The evidence turns this card covers at turn level (none for an Episode), in evidence order."""
    covered = evidence_turn_ids(card)
    return [turn_id for turn_id in evidence if turn_id in covered]


@dataclass(frozen=True)
class Change:
    a: Question
    b: Question
    recall_a: float
    recall_b: float

    @property
    def delta(self) -> float:
        return self.recall_b - self.recall_a


@dataclass
class Mean:
    """Mean recall@k of A and of B over the same `n` questions."""

    n: int = 0
    a: float = 0.0
    b: float = 0.0

    @property
    def delta(self) -> float:
        return self.b - self.a


@dataclass
class Comparison:
    k: int
    means: dict[str, Mean] = field(default_factory=dict)  # categories (sorted), then OVERALL
    gained: list[Change] = field(default_factory=list)  # largest gain first
    lost: list[Change] = field(default_factory=list)  # largest loss first
    unchanged: int = 0
    unscored: int = 0  # in both runs but without evidence turns
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)


def compare(a: Mapping[str, Question], b: Mapping[str, Question], k: int) -> Comparison:
    if k < 1:
        raise ValueError("k must be at least 1")
    result = Comparison(k=k, only_a=sorted(set(a) - set(b)), only_b=sorted(set(b) - set(a)))
    sums: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    for question_id in sorted(set(a) & set(b)):
        qa, qb = a[question_id], b[question_id]
        if set(qa.evidence) != set(qb.evidence):
            raise ValueError(f"question {question_id!r} names different evidence in the two runs")
        recall_a = recall_at_k(list(qa.cards), qa.evidence, k)
        recall_b = recall_at_k(list(qb.cards), qb.evidence, k)
        if recall_a is None or recall_b is None:
            result.unscored += 1
            continue
        for group in (qa.category, OVERALL):
            total = sums.setdefault(group, [0.0, 0.0])
            total[0] += recall_a
            total[1] += recall_b
            counts[group] = counts.get(group, 0) + 1
        change = Change(qa, qb, recall_a, recall_b)
        if recall_b > recall_a:
            result.gained.append(change)
        elif recall_b < recall_a:
            result.lost.append(change)
        else:
            result.unchanged += 1
    for group in [*sorted(g for g in sums if g != OVERALL), *([OVERALL] if OVERALL in sums else [])]:
        n = counts[group]
        result.means[group] = Mean(n=n, a=sums[group][0] / n, b=sums[group][1] / n)
    result.gained.sort(key=lambda c: (-c.delta, c.a.question_id))
    result.lost.sort(key=lambda c: (c.delta, c.a.question_id))
    return result


def means_table(comparison: Comparison, labels: Mapping[str, str] | None = None) -> str:
    labels = labels or {}
    k = comparison.k
    lines = [f"| category | A R@{k} | B R@{k} | delta | n |", "|---|---:|---:|---:|---:|"]
    for group, mean in comparison.means.items():
        label = "overall" if group == OVERALL else labels.get(group, group)
        lines.append(f"| {label} | {mean.a:.3f} | {mean.b:.3f} | {mean.delta:+.3f} | {mean.n} |")
    return "\n".join(lines)


def card_line(rank: int, card: Card, evidence: Sequence[str], width: int = 100) -> str:
    """`  3. [E D2:4] Fact f-12: Alice car: Model Y`: rank, the evidence it holds, type, id, summary."""
    held = held_evidence(card, evidence)
    mark = f"[E {' '.join(held)}]" if held else "[ ]"
    summary = str(card.get("summary") or "")
    if len(summary) > width:
        summary = summary[: width - 1] + "…"
    return f"  {rank:>2}. {mark} {card.get('type')} {card.get('id')}: {summary}"


def change_block(change: Change, k: int, top: int, labels: Mapping[str, str] | None = None) -> list[str]:
    labels = labels or {}
    q = change.a
    lines = [
        f"- {q.question_id} [{labels.get(q.category, q.category)}] R@{k} {change.recall_a:.2f} -> "
        f"{change.recall_b:.2f}: {q.question}",
        f"  evidence: {' '.join(q.evidence)}",
    ]
    for name, cards in (("A", change.a.cards), ("B", change.b.cards)):
        lines.append(f"  {name} top {min(top, len(cards))}:")
        lines.extend(card_line(rank, card, q.evidence) for rank, card in enumerate(cards[:top], start=1))
    return lines


def render(comparison: Comparison, top: int = 10, labels: Mapping[str, str] | None = None) -> str:
    """The whole diff as text: means, counts, then every gained and every lost question."""
    k = comparison.k
    lines = [means_table(comparison, labels), ""]
    lines.append(
        f"gained {len(comparison.gained)}, lost {len(comparison.lost)}, unchanged {comparison.unchanged} "
        f"(recall@{k} per question); not scored (no evidence turn) {comparison.unscored}"
    )
    if comparison.only_a or comparison.only_b:
        lines.append(f"only in A: {len(comparison.only_a)}, only in B: {len(comparison.only_b)} (not compared)")
    for title, changes in (("GAINED", comparison.gained), ("LOST", comparison.lost)):
        lines.extend(["", f"## {title} ({len(changes)})"])
        for change in changes:
            lines.extend(change_block(change, k, top, labels))
    return "\n".join(lines)
