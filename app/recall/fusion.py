"""Fusion: one ranked list of memory cards from the hot and cold paths. Pure functions
(tests/test_recall_fusion.py has exact cases).

score = (relevance + activation + graph boost + recency) x type prior (mode) x track confidence

- relevance: full-text and vector, each as a rank score c/(c + rank) of the node among that path's
  hits (rank 0 is the best; rank fusion beat score scaling on the development sets because BM25 and
  cosine scales differ per query), the entity/slot/time-window seed and the hot-window score, each
  weighted (`FusionWeights`).
- activation: what spreading activation brought to the node from the seeds (0.5 per hop x weight).
- graph boost: the node neighbours several seeds (it links what the query names: the bridge a
  multi-hop question needs), plus, in `local` mode, a share of its relevance when it belongs to the
  current focus (the session of the newest turn, or memories of the asking agent): the focus lifts what is
  relevant, never irrelevant recent small talk.
- recency: 2^(-age / half-life of the node's type), where age is measured from the node's OWN time
  (event time, turn timestamp, validity start), never from when it was ingested, and its weight is
  small: recency orders near-equals, it never outranks relevance.
- type prior: `local` favours turns, facts and events of the current work; `global` favours
  episodes, tasks, facts and concepts (the high-level structure).
- track confidence: slot fact > semantic fact > event > inference, times the node's confidence.

Filters: superseded and withdrawn facts are hidden unless `include_history` or `as_of`; with
`as_of` only what existed and was valid then. A query time window puts the nodes whose time overlaps
it first and the others after them, at `outside_window` of their score (a window in the future only
seeds the events planned in it).
Near-duplicates (same fact, or the same summary) merge into one card with both provenances. A card
whose evidence better cards already show (each of its turns is a turn of a better card of the same
session: a turn and the event or fact read from it) keeps a quarter of its score, so the leading
cards cover more turns.
Replies: a turn said by a speaker the query names, up to two turns from a leading card's turn, gets a
share of that card's score (`reply_credit`; the service reads those turns and ranks again).
A query asking for a count or a total spreads its leading cards over sessions (`spread_sessions`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from app.domain.model import NodeType, Source
from app.domain.text import estimate_tokens

Mode = Literal["local", "global"]
HOURS_PER_DAY = 24.0


@dataclass(frozen=True)
class FusionWeights:
    """Tuned on tests/data/locomo and 12 LongMemEval development questions (docs/benchmarks.md)."""

    text: float = 0.4
    vector: float = 0.6
    # Factor of `vector` for a query whose vector is chance: in a language the embedder does not read
    # (a Chinese query and an English-only model, `Embedder.reads_chinese`: its nearest vectors were
    # mostly other questions, docs/benchmarks.md "Chinese"), or made only of codes and ids
    # (`ParsedQuery.literal`). 0: the cold path is not run for it.
    unread_vector: float = 0.0
    entity: float = 0.3
    hot: float = 0.2
    activation: float = 0.3
    # Neighbouring several seeds: measured neutral-to-negative on the development sets (spreading
    # activation already rewards bridges), so off by default; kept to tune on other data.
    graph: float = 0.0
    focus: float = 0.1  # share of relevance added for nodes of the current focus (local mode)
    recency: float = 0.05
    rank_constant: float = 3.0  # c in c / (c + rank)
    # Score factor for a card that says again what a better card says (the same turns of the same
    # session: a turn and the event or fact read from it), so the leading cards cover more evidence.
    # Measured on cached candidates of both development sets: every value up to 0.3 gave the same
    # gain (LongMemEval R@10 0.820 -> 0.842, LoCoMo R@5 0.517 -> 0.531-0.535), 0.5 about half of it.
    repeated_evidence: float = 0.25
    # Score factor 1 + this for a memory whose subject (a fact's or event's) or speaker (a turn's) the
    # query names: "What did Melanie paint?" is answered by what Melanie said, not by the turns of
    # others that address her by name. 1.5 since session 23 (LoCoMo dev R@10 0.824 -> 0.840 / 0.839 in two
    # runs, multi-hop 0.552 -> 0.571 / 0.564; 2.0 and 3.0 gave 0.834 / 0.836; docs/benchmarks.md).
    named_subject: float = 1.5
    # What a named speaker said beside the leading cards: a turn up to two places before or after the
    # turn of one of the `reply_origins` leading cards, said by a speaker the query names, gets
    # `reply` x that card's score (x `reply_decay` two places away), summed over such cards, but
    # rises no higher than `reply_ceiling` x the best of those cards: it follows the match, never
    # passes it. "What does Melanie say running has been great for?" is answered by Melanie's "This
    # has been great for my mental health", two turns after the best card, "I've been running
    # farther to de-stress". Measured on LoCoMo dev (docs/benchmarks.md, "Replies beside the
    # leading cards").
    reply: float = 0.5
    reply_decay: float = 0.5
    reply_ceiling: float = 0.99
    reply_origins: int = 10
    # A query that asks for a count or a total (`ParsedQuery.aggregate`: how many, how often, in
    # total) is answered by adding up events told in several sessions: its leading
    # `session_spread_top` cards are chosen one at a time, each card's score times `session_spread`
    # per card of its session already chosen, and every later card keeps the factor of the chosen
    # cards of its session (docs/benchmarks.md, "Sessions of a count").
    session_spread: float = 0.7
    session_spread_top: int = 5
    # A query's time window puts its own memories first; every other memory (timeless ones too)
    # follows them at this factor of its score, flagged `outside_window`, so that a window that
    # holds little ("4 years ago", a day on which the evidence was not yet told) does not empty the
    # answer. 0 drops them (docs/benchmarks.md, "Memories outside a query's time window").
    outside_window: float = 0.1
    # Node types never shown as cards (empty in the product; the ablations of app/evaluation/ablation.py).
    hidden_types: frozenset[str] = frozenset()


# Recency half-lives in days by node type (types without one have no recency: people, concepts).
RECENCY_HALF_LIFE_DAYS: dict[str, float] = {
    NodeType.DIALOGUE: 30.0,
    NodeType.EXPERIENCE: 90.0,
    NodeType.EPISODE: 60.0,
    NodeType.TASK: 14.0,
    NodeType.KNOWLEDGE: 180.0,
    NodeType.DOCUMENT: 90.0,
    NodeType.FILE: 90.0,
}

TYPE_PRIORS: dict[Mode, dict[str, float]] = {
    "local": {
        NodeType.DIALOGUE: 1.0,
        NodeType.KNOWLEDGE: 1.0,
        NodeType.EXPERIENCE: 1.0,
        NodeType.TASK: 1.0,
        NodeType.DOCUMENT: 0.9,
        NodeType.FILE: 0.9,
        NodeType.EPISODE: 0.6,
        NodeType.CONCEPT: 0.5,
        NodeType.PERSON: 0.4,
    },
    "global": {
        NodeType.EPISODE: 1.2,
        NodeType.TASK: 1.2,
        NodeType.KNOWLEDGE: 1.1,
        NodeType.CONCEPT: 1.0,
        NodeType.DOCUMENT: 1.0,
        NodeType.FILE: 0.9,
        NodeType.EXPERIENCE: 0.9,
        NodeType.DIALOGUE: 0.7,
        NodeType.PERSON: 0.6,
    },
}

# Track and its confidence weight: slot fact > semantic fact > event > inference.
TRACK_CONFIDENCE: dict[str, float] = {
    "fact": 1.0,
    "semantic": 0.95,
    "dialogue": 0.92,
    "temporal": 0.9,
    "episode": 0.9,
    "task": 0.95,
    "document": 0.9,
    "entity": 0.9,
    "inference": 0.75,
}


@dataclass
class Candidate:
    """A node found by either path, with its card fields and the scores it was found with."""

    id: str
    type: str
    node: dict[str, Any]
    text: float = 0.0
    vector: float = 0.0
    entity: float = 0.0
    hot: float = 0.0
    spread: float = 0.0
    seeds_reaching: int = 0
    in_focus: bool = False
    # The memory is about someone the query names: its subject, or the speaker of its turn.
    named_subject: bool = False
    # Credit for a named speaker's turn beside the leading cards' turns (`reply_credit`), in score
    # units, and the score it may rise to with it.
    reply: float = 0.0
    reply_ceiling: float = 0.0


@dataclass
class Card:
    id: str
    type: str
    summary: str
    score: float
    confidence: float
    track: str
    source: str | None
    agent_id: str | None
    source_turn_ids: list[str]
    explain: dict[str, float]
    times: dict[str, datetime] = field(default_factory=dict)
    flags: dict[str, Any] = field(default_factory=dict)
    # How well it matches the query on an absolute scale (app/recall/relevance.py), unlike `score`.
    relevance: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: times as ISO 8601 strings."""
        return {
            "id": self.id,
            "type": self.type,
            "summary": self.summary,
            "score": round(self.score, 6),
            "relevance": round(self.relevance, 6),
            "confidence": self.confidence,
            "track": self.track,
            "source": self.source,
            "agent_id": self.agent_id,
            **{name: time.isoformat() for name, time in self.times.items()},
            **self.flags,
            "source_turn_ids": self.source_turn_ids,
            "explain": {k: round(v, 6) for k, v in self.explain.items()},
        }


def track_of(node_type: str, node: dict[str, Any]) -> str:
    if node_type == NodeType.KNOWLEDGE:
        if node.get("source") == Source.INFERRED:
            return "inference"
        return "fact" if node.get("slot") else "semantic"
    tracks: dict[str, str] = {
        NodeType.DIALOGUE: "dialogue",
        NodeType.EXPERIENCE: "temporal",
        NodeType.EPISODE: "episode",
        NodeType.TASK: "task",
        NodeType.DOCUMENT: "document",
        NodeType.FILE: "document",
        NodeType.PERSON: "entity",
        NodeType.CONCEPT: "entity",
    }
    return tracks.get(node_type, "other")


def node_interval(node_type: str, node: dict[str, Any]) -> tuple[datetime, datetime] | None:
    """When the memory happened or was said, from its own time fields (None: timeless)."""
    if node.get("event_time"):
        return node["event_time"], node.get("event_end") or node["event_time"]
    for key in ("timestamp", "valid_from"):
        if node.get(key):
            return node[key], node[key]
    if node.get("started_at"):
        return node["started_at"], node.get("ended_at") or node["started_at"]
    if node_type in (NodeType.PERSON, NodeType.CONCEPT) or not node.get("created_at"):
        return None
    return node["created_at"], node["created_at"]


def recency(node_type: str, node: dict[str, Any], now: datetime) -> float:
    half_life = RECENCY_HALF_LIFE_DAYS.get(node_type)
    interval = node_interval(node_type, node)
    if half_life is None or interval is None:
        return 0.0
    age_days = max(0.0, (now - interval[1]).total_seconds() / 3600.0 / HOURS_PER_DAY)
    return math.pow(2.0, -age_days / half_life)


def visible(
    node_type: str,
    node: dict[str, Any],
    *,
    include_history: bool,
    as_of: datetime | None,
) -> bool:
    """Whether history and `as_of` let the node be shown (the query's window only ranks: `in_window`)."""
    interval = node_interval(node_type, node)
    if as_of is not None:
        if interval is not None and interval[0] > as_of:
            return False
        valid_to = node.get("valid_to")
        if valid_to is not None and valid_to <= as_of and not include_history:
            return False
    elif not include_history and (node.get("superseded_by") or node.get("withdrawn")):
        return False
    return True


def in_window(node_type: str, node: dict[str, Any], window: tuple[datetime, datetime]) -> bool:
    """Whether the node's own time overlaps [start, end) of a query's window (timeless nodes do not)."""
    interval = node_interval(node_type, node)
    if interval is None:
        return False
    start, end = interval
    return start < window[1] and end >= window[0]


def _confidence(node: dict[str, Any]) -> float:
    value = node.get("confidence")
    return 1.0 if value is None else float(value)


def score_candidate(
    candidate: Candidate, mode: Mode, now: datetime, weights: FusionWeights
) -> tuple[float, dict[str, float]]:
    node = candidate.node
    track = track_of(candidate.type, node)
    relevance = (
        weights.text * candidate.text
        + weights.vector * candidate.vector
        + weights.entity * candidate.entity
        + weights.hot * candidate.hot
    )
    activation = weights.activation * candidate.spread
    graph = weights.graph * min(1.0, max(0, candidate.seeds_reaching - 1) / 2.0)
    if mode == "local" and candidate.in_focus:
        graph += weights.focus * relevance
    fresh = weights.recency * recency(candidate.type, node, now)
    prior = TYPE_PRIORS[mode].get(candidate.type, 0.8)
    confidence = _confidence(node)
    track_weight = TRACK_CONFIDENCE.get(track, 0.8) * (0.5 + 0.5 * confidence)
    named = 1.0 + weights.named_subject if candidate.named_subject else 1.0
    own = (relevance + activation + graph + fresh) * named * prior * track_weight
    # The reply credit is already a share of ranked cards' scores: added, not weighed again, up to
    # the ceiling; `explain.reply` is what it added.
    score = max(own, min(own + candidate.reply, candidate.reply_ceiling)) if candidate.reply else own
    explain = {
        "full_text": candidate.text,
        "vector": candidate.vector,
        "entity": candidate.entity,
        "hot_window": candidate.hot,
        "activation": candidate.spread,
        "graph_boost": graph,
        "recency": fresh,
        "type_prior": prior,
        "track_confidence": track_weight,
        "named_subject": named,
    }
    if score > own:
        explain["reply"] = score - own
    return score, explain


def reply_credit(
    origins: Mapping[str, float], links: Iterable[tuple[str, str, int]], weights: FusionWeights
) -> dict[str, tuple[float, float]]:
    """(credit, ceiling) per turn for being said beside the leading cards: `origins` maps the turn of
    a leading card to that card's score; `links` are (turn, origin turn, distance 1 or 2) for the
    turns of named speakers around them. Each link gives `reply` x the origin's score x
    `reply_decay`^(distance - 1); a turn beside several leading cards gets the sum, and its score
    may rise to `reply_ceiling` x the best of their scores. A turn gets nothing from itself."""
    credit: dict[str, tuple[float, float]] = {}
    for turn, origin, distance in links:
        if turn == origin or origin not in origins:
            continue
        share = weights.reply * origins[origin] * weights.reply_decay ** (distance - 1)
        total, ceiling = credit.get(turn, (0.0, 0.0))
        credit[turn] = (total + share, max(ceiling, weights.reply_ceiling * origins[origin]))
    return credit


_TIME_FIELDS = ("event_time", "event_end", "valid_from", "valid_to", "timestamp", "started_at", "ended_at")


def rank_scores(scores: dict[str, float], constant: float) -> dict[str, float]:
    """c / (c + rank) by descending score (ties share the better rank); zero scores stay zero."""
    ordered = sorted((score for score in scores.values() if score > 0), reverse=True)
    first_rank: dict[float, int] = {}
    for index, score in enumerate(ordered):
        first_rank.setdefault(score, index)
    return {key: constant / (constant + first_rank[score]) if score > 0 else 0.0 for key, score in scores.items()}


def to_card(candidate: Candidate, score: float, explain: dict[str, float]) -> Card:
    node = candidate.node
    track = track_of(candidate.type, node)
    flags: dict[str, Any] = {}
    if node.get("superseded_by"):
        flags["superseded_by"] = node["superseded_by"]
    if node.get("withdrawn"):
        flags["withdrawn"] = True
    if track == "inference":
        flags["inferred"] = True
    return Card(
        id=candidate.id,
        type=candidate.type,
        summary=str(node.get("summary") or node.get("label") or ""),
        score=score,
        confidence=_confidence(node),
        track=track,
        source=node.get("source"),
        agent_id=node.get("agent_id"),
        source_turn_ids=list(node.get("source_turn_ids") or []),
        explain=explain,
        times={key: node[key] for key in _TIME_FIELDS if node.get(key) is not None},
        flags=flags,
    )


def _duplicate_key(card: Card, node: dict[str, Any]) -> tuple[str, ...]:
    if node.get("slot") and node.get("subject_key") and node.get("value_key"):
        return ("fact", node["subject_key"], node["slot"], node["value_key"], str(node.get("source")))
    return ("summary", card.type, " ".join(card.summary.casefold().split()))


def rank(
    candidates: Iterable[Candidate],
    *,
    mode: Mode,
    now: datetime,
    include_history: bool,
    as_of: datetime | None,
    window: tuple[datetime, datetime] | None,
    weights: FusionWeights,
    aggregate: bool = False,
    ahead: bool = False,
) -> list[Card]:
    """Filter, score, merge near-duplicates and sort (best first; ties by id for stable output);
    for a query that asks for a count or a total, spread the leading cards over sessions
    (`spread_sessions`).

    A window that starts after `now` ("next weekend", "next month") asks about plans, which were
    said before it: it seeds the events planned inside it but filters nothing. So does a window that
    runs on past `now` when the query asks ahead (`ahead`, `query.asks_ahead`: "What should I cook
    this weekend?" on a Saturday is answered by what was said weeks before)."""
    if window is not None and (window[0] > now or (ahead and window[1] > now)):
        window = None
    found = list(candidates)
    text = rank_scores({c.id: c.text for c in found}, weights.rank_constant)
    vector = rank_scores({c.id: c.vector for c in found}, weights.rank_constant)
    merged: dict[tuple[str, ...], Card] = {}
    sessions: dict[str, str] = {}
    for found_candidate in found:
        node_type, node = found_candidate.type, found_candidate.node
        if node_type in weights.hidden_types:
            continue
        if not visible(node_type, node, include_history=include_history, as_of=as_of):
            continue
        outside = window is not None and not in_window(node_type, node, window)
        if outside and weights.outside_window <= 0.0:
            continue
        # Ranks among all that path's hits, hidden ones included; copied, so the input is unchanged.
        candidate = replace(found_candidate, text=text[found_candidate.id], vector=vector[found_candidate.id])
        score, explain = score_candidate(candidate, mode, now, weights)
        if outside:
            score *= weights.outside_window
            explain["outside_window"] = weights.outside_window
        if score <= 0.0:
            continue
        card = to_card(candidate, score, explain)
        if outside:
            card.flags["outside_window"] = True
        if node.get("session_id"):
            sessions[card.id] = str(node["session_id"])
        key = _duplicate_key(card, candidate.node)
        kept = merged.get(key)
        if kept is None:
            merged[key] = card
            continue
        best, other = (card, kept) if card.score > kept.score else (kept, card)
        best.source_turn_ids = list(dict.fromkeys(best.source_turn_ids + other.source_turn_ids))
        best.flags.setdefault("merged_ids", []).append(other.id)
        merged[key] = best
    ranked = diversify(sorted(merged.values(), key=card_order), sessions, weights)
    return spread_sessions(ranked, sessions, weights) if aggregate else ranked


def card_order(card: Card) -> tuple[bool, float, str]:
    """Best first; the cards outside a query's time window after all of those inside it; ties by id."""
    return bool(card.flags.get("outside_window")), -card.score, card.id


# Cards that state what one turn said: a turn, and the events, facts and inferences read from it.
STATEMENT_TYPES = frozenset({NodeType.DIALOGUE, NodeType.EXPERIENCE, NodeType.KNOWLEDGE})


def diversify(cards: list[Card], sessions: dict[str, str], weights: FusionWeights) -> list[Card]:
    """Lower the score of a card whose evidence better cards already show (`repeated_evidence`):
    every turn it comes from is a turn of a better card of the same session (a turn and the event or
    fact read from it; a fact read from two turns after both turns); then sort again. `sessions` maps
    a card id to its session. A card that adds a turn keeps its score, so a lowered card only falls
    behind others.

    Lowering each further card of the same session instead (x 0.9 per card before it) put more
    answer sessions in the top 5 (LongMemEval S-all@5 0.717 -> 0.833) but lost turns (R@20 0.942 ->
    0.901, LoCoMo R@20 0.734 -> 0.724): done only for a count or a total (`spread_sessions`)."""
    shown: set[tuple[str, str]] = set()
    for card in cards:
        session = sessions.get(card.id)
        if session is None or card.type not in STATEMENT_TYPES or not card.source_turn_ids:
            continue
        evidence = {(session, turn) for turn in card.source_turn_ids}
        if evidence <= shown:
            card.score *= weights.repeated_evidence
            card.explain["repeated_evidence"] = weights.repeated_evidence
        shown |= evidence
    return sorted(cards, key=card_order)


def spread_sessions(cards: list[Card], sessions: dict[str, str], weights: FusionWeights) -> list[Card]:
    """The leading `session_spread_top` cards chosen greedily by score x `session_spread`^n, n the
    cards of the same session chosen before; every other card then gets the factor of the chosen
    cards of its session. No card left out outranks a chosen one (its factor can only have grown
    since), so the cards stay best first by their new scores. A card without a session is its own."""
    factor = weights.session_spread
    if factor >= 1.0:
        return cards
    chosen_per_session: dict[str, int] = {}

    def spread_factor(card: Card) -> float:
        return float(factor ** chosen_per_session.get(sessions.get(card.id, card.id), 0))

    remaining = list(cards)
    chosen: list[Card] = []
    while remaining and len(chosen) < weights.session_spread_top:
        best = max(remaining, key=lambda card: card.score * spread_factor(card))
        remaining.remove(best)
        chosen.append(best)
        _apply_spread(best, spread_factor(best))
        session = sessions.get(best.id, best.id)
        chosen_per_session[session] = chosen_per_session.get(session, 0) + 1
    for card in remaining:
        _apply_spread(card, spread_factor(card))
    return sorted(chosen + remaining, key=card_order)


def _apply_spread(card: Card, spread_factor: float) -> None:
    if spread_factor < 1.0:
        card.score *= spread_factor
        card.explain["session_spread"] = spread_factor


def card_tokens(card: Card) -> int:
    return estimate_tokens(card.summary)


def within_budget(cards: Sequence[Card], token_budget: int | None) -> list[Card]:
    """The leading cards whose summaries fit in `token_budget` tokens (all of them when None)."""
    if token_budget is None:
        return list(cards)
    kept: list[Card] = []
    used = 0
    for card in cards:
        used += card_tokens(card)
        if used > token_budget:
            break
        kept.append(card)
    return kept
