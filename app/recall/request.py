"""What a recall is asked (`RecallRequest`), how its hot path spreads (`SpreadingSettings`), what it
answers (`RecallResult`) and who is told about it (`RecallObserver`); the recall itself is
app/recall/service.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from app.domain.keys import EVERYTHING, Viewer
from app.recall.fusion import Card, Mode
from app.recall.parameters import CARD_IDS_SIZE, HOT_SEEDS_SIZE
from app.recall.relevance import nothing_relevant_note


@dataclass(frozen=True)
class RecallRequest:
    query: str
    top_k: int = 10
    mode: Mode = "local"
    include_history: bool = False
    token_budget: int | None = None
    as_of: datetime | None = None
    now: datetime | None = None
    agent_id: str | None = None
    agent_ids: frozenset[str] | None = None  # only memories written by these agents
    viewer: Viewer = EVERYTHING  # whose private memories may be shown
    # No card when none has a `relevance` (app/recall/relevance.py) of at least this; 0: always cards.
    min_score: float = 0.0

    def admits(self, node: dict[str, Any]) -> bool:
        """A candidate the asker may see and asked for (applied to the candidates before ranking)."""
        if not self.viewer.sees(node):
            return False
        return self.agent_ids is None or node.get("agent_id") in self.agent_ids


@dataclass(frozen=True)
class SpreadingSettings:
    max_depth: int = 3
    hop_decay: float = 0.5
    min_activation: float = 0.05
    max_fanout: int = 64  # nodes with more relationships are reached but not expanded through
    cap: int = 100  # nodes kept per stage (bounds the cost on dense graphs)
    result_limit: int = 50  # hot-path nodes handed to fusion
    text_limit: int = 50  # full-text / slot / time-window seeds fetched
    # Lucene weight of the query words' other inflections (app/recall/query.word_variants); 0: none.
    # 1.0 (as stemming) measured above 0.5 on LoCoMo dev (docs/benchmarks.md, "Word variants").
    variant_boost: float = 1.0
    # Lucene weight of the members of a category the query names (app/data/category_words.yaml:
    # "camping" for "activities"); 0: none (docs/benchmarks.md, "Excerpts and categories").
    member_boost: float = 1.0
    # Lucene weight of the query's words in the other language (app/recall/glossary.py: English for
    # Chinese and the reverse), which find its memories; 0: none (docs/benchmarks.md, "Chinese and
    # across languages").
    gloss_boost: float = 0.5
    # Look up the speakers the query names (`recall.speakers`): their names weigh `speaker_boost` in
    # the full-text query and are left out of the embedded one (docs/benchmarks.md, "Speaker names and
    # context points").
    speaker_names: bool = True
    speaker_boost: float = 0.2
    seed_limit: int = 60  # seeds spreading activation starts from
    hot_limit: int = 10  # hot-window seeds
    cold_limit: int = 40  # vector hits
    slot_only_score: float = 0.6  # a fact whose slot the query names, subject not named
    window_score: float = 0.5  # an event inside the query's time window
    co_activate_top: int = 5  # the leading cards of a recall count as co-activated
    # A card whose summary was cut shows the sentence the query is about (app/recall/excerpt.py).
    excerpts: bool = True

    def __post_init__(self) -> None:
        # The fixed parameter sizes must hold every seed and hit (see parameters.ENTITY_KEYS_SIZE).
        if self.hot_limit > HOT_SEEDS_SIZE or self.cold_limit > CARD_IDS_SIZE:
            raise ValueError(f"hot_limit <= {HOT_SEEDS_SIZE} and cold_limit <= {CARD_IDS_SIZE} are required")


class RecallObserver(Protocol):
    """Told about every recall (the metrics: `app/observability/metrics.py`), from the one place
    results are produced."""

    def observe_recall(self, namespace: str, stats: Mapping[str, Any], cards: int) -> None: ...


@dataclass
class RecallResult:
    cards: list[Card]
    stats: dict[str, Any] = field(default_factory=dict)
    # Cards ranked but left out: none of them reached the request's `min_score`.
    below_min_score: int = 0
    min_score: float = 0.0

    @property
    def nothing_relevant(self) -> bool:
        """No card to show: nothing matched, or nothing reached `min_score`."""
        return not self.cards

    @property
    def note(self) -> str | None:
        """Why there is no card, in words (None when there are cards)."""
        return nothing_relevant_note(self.min_score, self.below_min_score) if self.nothing_relevant else None
