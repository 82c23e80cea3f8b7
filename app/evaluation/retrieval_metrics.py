"""Retrieval metrics over a ranked list of recall cards, their aggregation and a Markdown printer.

A card is a mapping with at least `type` and `source_turn_ids`: an item of the recall API's answer,
or a baseline's pseudo-card (`app.evaluation.baselines`). Its text, for token budgets, is
`card_text(card)`: the `summary` (what a recall card shows), else `text`, else `content`.

Turn level (the question's evidence turn ids):
- recall@k: the share of the evidence turns covered by the union of the top-k cards' `source_turn_ids`;
- recall within a token budget: walk the cards in rank order adding `estimate_tokens(card_text)`,
  keep cards while the running total stays <= the budget; the first card that does not fit ends the
  walk (no smaller card after it is taken); then the share of evidence covered by the kept cards;
- MRR: 1 / rank of the first card covering any evidence turn (0 when none does).

Session level (the sessions holding the evidence): any-recall@k is 1 when at least one answer
session appears among the top-k cards' sessions, all-recall@k when every one does. A card's sessions
are those of its `source_turn_ids` (through a turn id -> session id map) plus its `session_id`, if it has one.

The Episode rule: an Episode card stands for a whole session and lists EVERY turn of that session in
`source_turn_ids`. Counting those as evidence would let a session card "cover" an evidence turn it
never points at, so Episode cards count for session-level recall but NOT for turn-level evidence
coverage (recall@k, recall within a budget, MRR). They still take their rank and spend their tokens.

A metric is None when it cannot be scored (no evidence turns, no answer sessions); aggregation
averages the scored questions only and keeps the count of each metric.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.domain.text import estimate_tokens

EPISODE = "Episode"
OVERALL = "overall"

Card = Mapping[str, Any]
Scores = dict[str, float | None]


def card_text(card: Card) -> str:
    for key in ("summary", "text", "content"):
        value = card.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def is_episode(card: Card) -> bool:
    return card.get("type") == EPISODE


def card_turn_ids(card: Card) -> list[str]:
    return [str(turn_id) for turn_id in card.get("source_turn_ids") or ()]


def evidence_turn_ids(card: Card) -> set[str]:
    """The turns a card counts for at turn level: none for an Episode (see the module docstring)."""
    return set() if is_episode(card) else set(card_turn_ids(card))


def covered_turns(cards: Iterable[Card]) -> set[str]:
    found: set[str] = set()
    for card in cards:
        found |= evidence_turn_ids(card)
    return found


def recall_at_k(cards: Sequence[Card], evidence: Iterable[str], k: int) -> float | None:
    wanted = set(evidence)
    if not wanted:
        return None
    return len(covered_turns(cards[:k]) & wanted) / len(wanted)


def cards_within_budget(cards: Iterable[Card], budget: int, text_of: Callable[[Card], str] = card_text) -> list[Card]:
    """The leading cards whose texts fit `budget` tokens together; the first misfit ends the walk."""
    kept: list[Card] = []
    total = 0
    for card in cards:
        total += estimate_tokens(text_of(card))
        if total > budget:
            break
        kept.append(card)
    return kept


def recall_within_budget(
    cards: Sequence[Card], evidence: Iterable[str], budget: int, text_of: Callable[[Card], str] = card_text
) -> float | None:
    kept = cards_within_budget(cards, budget, text_of)
    return recall_at_k(kept, evidence, len(kept))


def reciprocal_rank(cards: Sequence[Card], evidence: Iterable[str]) -> float | None:
    wanted = set(evidence)
    if not wanted:
        return None
    for rank, card in enumerate(cards, start=1):
        if evidence_turn_ids(card) & wanted:
            return 1.0 / rank
    return 0.0


def card_sessions(card: Card, turn_to_session: Mapping[str, str]) -> set[str]:
    """The sessions a card names: those of its source turns (Episodes included) and its `session_id`."""
    sessions = {turn_to_session[t] for t in card_turn_ids(card) if t in turn_to_session}
    if card.get("session_id"):
        sessions.add(str(card["session_id"]))
    return sessions


def session_recall_at_k(
    cards: Sequence[Card], answer_sessions: Iterable[str], turn_to_session: Mapping[str, str], k: int
) -> tuple[float | None, float | None]:
    """(any, all): 1.0 when at least one / every answer session is among the top-k cards' sessions."""
    wanted = set(answer_sessions)
    if not wanted:
        return None, None
    found: set[str] = set()
    for card in cards[:k]:
        found |= card_sessions(card, turn_to_session)
    hit = found & wanted
    return (1.0 if hit else 0.0), (1.0 if hit == wanted else 0.0)


def recall_key(k: int) -> str:
    return f"R@{k}"


def budget_key(budget: int) -> str:
    return f"R@{budget}tok"


def session_any_key(k: int) -> str:
    return f"S-any@{k}"


def session_all_key(k: int) -> str:
    return f"S-all@{k}"


MRR = "MRR"


def score_question(
    cards: Sequence[Card],
    evidence: Iterable[str],
    *,
    ks: Sequence[int] = (5, 10, 20),
    budgets: Sequence[int] = (512, 1024),
    answer_sessions: Iterable[str] | None = None,
    turn_to_session: Mapping[str, str] | None = None,
    session_ks: Sequence[int] = (5, 10),
    text_of: Callable[[Card], str] = card_text,
) -> Scores:
    """Every metric of one question's ranked cards; session metrics only given `answer_sessions`."""
    wanted = set(evidence)
    scores: Scores = {recall_key(k): recall_at_k(cards, wanted, k) for k in ks}
    for budget in budgets:
        scores[budget_key(budget)] = recall_within_budget(cards, wanted, budget, text_of)
    scores[MRR] = reciprocal_rank(cards, wanted)
    if answer_sessions is not None:
        sessions = set(answer_sessions)
        for k in session_ks:
            any_hit, all_hit = session_recall_at_k(cards, sessions, turn_to_session or {}, k)
            scores[session_any_key(k)] = any_hit
            scores[session_all_key(k)] = all_hit
    return scores


@dataclass
class Summary:
    """Means of the scored questions of one group; `counts[m]` is how many questions scored metric m."""

    n: int = 0
    means: dict[str, float | None] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "means": dict(self.means), "counts": dict(self.counts)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Summary:
        return cls(n=data["n"], means=dict(data["means"]), counts=dict(data["counts"]))


def summarize(rows: Iterable[Mapping[str, float | None]]) -> Summary:
    totals: dict[str, float] = {}
    counts: dict[str, int] = {}
    n = 0
    for row in rows:
        n += 1
        for metric, value in row.items():
            counts.setdefault(metric, 0)
            totals.setdefault(metric, 0.0)
            if value is not None:
                totals[metric] += value
                counts[metric] += 1
    means = {m: (totals[m] / counts[m] if counts[m] else None) for m in totals}
    return Summary(n=n, means=means, counts=counts)


def aggregate(rows: Iterable[tuple[str, Mapping[str, float | None]]], order: Sequence[str] = ()) -> dict[str, Summary]:
    """Per category and overall (last). Categories named in `order` come first, in that order (those
    without a question are left out); any others follow, sorted."""
    by_category: dict[str, list[Mapping[str, float | None]]] = {}
    everything: list[Mapping[str, float | None]] = []
    for category, scores in rows:
        by_category.setdefault(category, []).append(scores)
        everything.append(scores)
    ordered = [c for c in order if c in by_category] + sorted(c for c in by_category if c not in order)
    result = {category: summarize(by_category[category]) for category in ordered}
    result[OVERALL] = summarize(everything)
    return result


def format_cell(summary: Summary, metric: str, digits: int = 3) -> str:
    value = summary.means.get(metric)
    if value is None:
        return "–"
    count = summary.counts.get(metric, summary.n)
    return f"{value:.{digits}f}" + (f" ({count})" if count != summary.n else "")


def markdown_table(
    rows: Sequence[tuple[str, Summary]], columns: Sequence[str], first_header: str = "category", digits: int = 3
) -> str:
    """One row per (label, summary), one column per metric and a last `n` column. A mean over fewer
    questions than the row's n (some could not be scored) shows its count in parentheses."""
    lines = [
        "| " + " | ".join([first_header, *columns, "n"]) + " |",
        "|" + "---|" + "---:|" * (len(columns) + 1),
    ]
    for label, summary in rows:
        cells = [format_cell(summary, metric, digits) for metric in columns]
        lines.append("| " + " | ".join([label, *cells, str(summary.n)]) + " |")
    return "\n".join(lines)


def category_table(
    summaries: Mapping[str, Summary],
    columns: Sequence[str],
    labels: Mapping[str, str] | None = None,
    digits: int = 3,
) -> str:
    """The rows of `aggregate(...)` (categories, then overall), labelled through `labels` when given."""
    labels = labels or {}
    return markdown_table([(labels.get(c, c), s) for c, s in summaries.items()], columns, digits=digits)
