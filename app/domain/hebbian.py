"""Hebbian learning: nodes recalled together grow and strengthen ASSOCIATION edges.

Counts of co-activations per pair live in Redis. A pair's weight after n co-activations, counted
from zero, is 1 − 0.9ⁿ: each co-activation moves the weight a tenth of the way to 1
(w ← w + 0.1 · (1 − w)). The edge appears at the third co-activation (weight 1 − 0.9³ = 0.271);
every later one applies the step to the edge's current, decayed weight.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

LEARNING_RATE = 0.1
EDGE_AT_CO_ACTIVATION = 3


def reinforced(weight: float, times: int = 1) -> float:
    """`times` applications of w ← w + rate · (1 − w), in closed form."""
    return 1.0 - (1.0 - weight) * (1.0 - LEARNING_RATE) ** max(0, times)


def initial_weight(co_activations: int) -> float:
    """Weight of a new ASSOCIATION edge created when the pair has `co_activations` in all."""
    return reinforced(0.0, co_activations)


def pair_key(a: str, b: str) -> str:
    """One key per unordered pair, with a separator node ids never contain (\x1f)."""
    first, second = sorted((a, b))
    return f"{first}\x1f{second}"


def split_pair_key(key: str) -> tuple[str, str]:
    first, second = key.split("\x1f", 1)
    return first, second


def co_activated_pairs(node_ids: Iterable[str]) -> list[str]:
    """Every unordered pair among the distinct nodes returned together."""
    unique = sorted(set(node_ids))
    return [pair_key(a, b) for a, b in combinations(unique, 2)]
