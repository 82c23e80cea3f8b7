"""The fixed vocabulary of the memory graph as the service uses it. The enums are defined once in
`hippograph.vocabulary` (the client package, which parses answers with them) and re-exported here,
where the service's modules import them from; this module adds the server-side constants and the
decay tables passed to Cypher.
"""

from __future__ import annotations

import math

from hippograph.vocabulary import LEARNED_TYPES, STRUCTURAL_TYPES, Importance, NodeType, RelType, Source

__all__ = [
    "LEARNED_TYPES", "MEMORY_LABEL", "STRUCTURAL_TYPES", "SUMMARY_MAX_CHARS", "Importance", "NodeType",
    "RelType", "Source", "half_life_table", "prune_weight_table",
]

MEMORY_LABEL = "Memory"
SUMMARY_MAX_CHARS = 150


LN2 = math.log(2)


def half_life_table() -> dict[str, float]:
    """Half-lives by importance name, for Cypher parameters (MUST_REMEMBER is left out: no decay)."""
    return {level.value: hl for level in Importance if (hl := level.half_life_hours) is not None}


def prune_weight_table() -> dict[str, float]:
    return {level.value: level.prune_weight for level in Importance}
