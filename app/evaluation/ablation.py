"""Ablations: one recall mechanism switched off in a running `Runtime`, for the controlled
measurements of docs/benchmarks.md ("Ablations"). The eval scripts take `--ablate NAME`
(repeatable); every switch sets a setting the product already has to zero, so an ablated run
executes the same code paths as production with one mechanism off."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from app.domain.model import NodeType
from app.memory.semantic import SemanticLinking
from app.recall.fusion import FusionWeights
from app.recall.request import SpreadingSettings

if TYPE_CHECKING:
    from app.runtime import Runtime

ABLATIONS: dict[str, str] = {
    "activation": "spreading activation off: seeds only (max_depth 0)",
    "hebbian": "no co-activation recorded, so no ASSOCIATION edges grow from use",
    "semantic-edges": "no SEMANTIC edges written at ingest",
    "hot-window": "no hot-window seeds (the Redis window is not searched)",
    "fact-event-cards": "facts and events (Knowledge, Experience) never shown as cards",
    "repeated-evidence": "the repeated-evidence factor off (1.0)",
    "named-subject": "the named-subject factor off (1.0)",
    "word-variants": "no other inflections of the query's words in the full-text query",
    "speaker-names": "named speakers not looked up: their names weigh fully in both queries",
    "context-points": "no context points: a turn's only vector is its own",
    "sentence-points": "no sentence points: a turn of several sentences has no vector per sentence",
    "replies": "no credit for a named speaker's turns beside the leading cards",
    "session-spread": "a query asking for a count or a total does not spread its leading cards over sessions",
    "outside-window": "memories outside a query's time window are dropped, not ranked below its own",
    "category-members": "no members of a category the query names ('camping' for 'activities') in the full-text query",
    "excerpts": "a card whose summary was cut shows the head of its content, not the sentence the query is about",
    "glosses": "no English words of a Chinese query's words (CC-CEDICT) in the full-text query",
}


@dataclass(frozen=True)
class RecallConfig:
    """The settings the ablations change."""

    spreading: SpreadingSettings
    weights: FusionWeights
    linking: SemanticLinking
    context_points: bool = True
    sentence_points: bool = True


def ablated(config: RecallConfig, names: Iterable[str]) -> RecallConfig:
    """`config` with each named mechanism (a key of ABLATIONS) switched off."""
    spreading, weights, linking = config.spreading, config.weights, config.linking
    context_points, sentence_points = config.context_points, config.sentence_points
    for name in names:
        if name == "activation":
            spreading = replace(spreading, max_depth=0)
        elif name == "hebbian":
            spreading = replace(spreading, co_activate_top=0)
        elif name == "semantic-edges":
            linking = replace(linking, max_neighbours=0)
        elif name == "hot-window":
            spreading = replace(spreading, hot_limit=0)
        elif name == "fact-event-cards":
            hidden = weights.hidden_types | {NodeType.KNOWLEDGE.value, NodeType.EXPERIENCE.value}
            weights = replace(weights, hidden_types=frozenset(hidden))
        elif name == "repeated-evidence":
            weights = replace(weights, repeated_evidence=1.0)
        elif name == "named-subject":
            weights = replace(weights, named_subject=0.0)
        elif name == "word-variants":
            spreading = replace(spreading, variant_boost=0.0)
        elif name == "speaker-names":
            spreading = replace(spreading, speaker_names=False)
        elif name == "context-points":
            context_points = False
        elif name == "sentence-points":
            sentence_points = False
        elif name == "replies":
            weights = replace(weights, reply=0.0)
        elif name == "category-members":
            spreading = replace(spreading, member_boost=0.0)
        elif name == "glosses":
            spreading = replace(spreading, gloss_boost=0.0)
        elif name == "excerpts":
            spreading = replace(spreading, excerpts=False)
        elif name == "session-spread":
            weights = replace(weights, session_spread=1.0)
        elif name == "outside-window":
            weights = replace(weights, outside_window=0.0)
        else:
            raise ValueError(f"unknown ablation {name!r}; known: {', '.join(ABLATIONS)}")
    return RecallConfig(spreading, weights, linking, context_points, sentence_points)


def ablate(runtime: Runtime, names: Iterable[str]) -> None:
    """Apply `ablated` to a runtime, before any turn is written or recalled."""
    semantic = runtime.semantic
    recall = runtime.recall
    current = RecallConfig(
        recall.spreading, recall.weights, semantic.linking, semantic.context_points, semantic.sentence_points
    )
    config = ablated(current, names)
    recall.spreading, recall.weights = config.spreading, config.weights
    semantic.linking, semantic.context_points, semantic.sentence_points = (
        config.linking, config.context_points, config.sentence_points
    )
