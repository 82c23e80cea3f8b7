"""The ablation switches of the eval scripts (app/evaluation/ablation.py): each turns exactly one
mechanism off and leaves the rest as in the product."""

from __future__ import annotations

import pytest

from app.evaluation.ablation import ABLATIONS, RecallConfig, ablated
from app.memory.semantic import SemanticLinking
from app.recall.fusion import FusionWeights
from app.recall.request import SpreadingSettings

PRODUCT = RecallConfig(SpreadingSettings(), FusionWeights(), SemanticLinking())


@pytest.mark.parametrize(
    ("name", "changed"),
    [
        ("activation", ("spreading", "max_depth", 0)),
        ("hebbian", ("spreading", "co_activate_top", 0)),
        ("semantic-edges", ("linking", "max_neighbours", 0)),
        ("hot-window", ("spreading", "hot_limit", 0)),
        ("fact-event-cards", ("weights", "hidden_types", frozenset({"Knowledge", "Experience"}))),
        ("repeated-evidence", ("weights", "repeated_evidence", 1.0)),
        ("named-subject", ("weights", "named_subject", 0.0)),
        ("word-variants", ("spreading", "variant_boost", 0.0)),
        ("speaker-names", ("spreading", "speaker_names", False)),
        ("context-points", (None, "context_points", False)),
        ("sentence-points", (None, "sentence_points", False)),
        ("replies", ("weights", "reply", 0.0)),
        ("session-spread", ("weights", "session_spread", 1.0)),
        ("outside-window", ("weights", "outside_window", 0.0)),
        ("category-members", ("spreading", "member_boost", 0.0)),
        ("excerpts", ("spreading", "excerpts", False)),
        ("glosses", ("spreading", "gloss_boost", 0.0)),
    ],
)
def test_each_ablation_changes_one_setting(name: str, changed: tuple[str | None, str, object]) -> None:
    part, field, value = changed
    config = ablated(PRODUCT, [name])
    changed_in, product_in = (getattr(config, part), getattr(PRODUCT, part)) if part else (config, PRODUCT)
    assert getattr(changed_in, field) == value != getattr(product_in, field)
    for other in ("spreading", "weights", "linking", "context_points", "sentence_points"):
        if other not in (part, field):
            assert getattr(config, other) == getattr(PRODUCT, other)


def test_every_documented_ablation_is_known_and_an_unknown_one_is_refused() -> None:
    assert ablated(PRODUCT, []) == PRODUCT
    combined = ablated(PRODUCT, list(ABLATIONS))
    assert combined.spreading.max_depth == 0 and combined.weights.named_subject == 0.0
    with pytest.raises(ValueError, match="unknown ablation 'graph'"):
        ablated(PRODUCT, ["graph"])
