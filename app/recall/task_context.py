"""The context a resumed task continues with: its tree, and the memory cards of the memories its
tasks are about (`related_ids`), most activated first, within a token budget when one is given.

Not the goal-driven context builder (`app/context/builder.py`): a resumed tree has no query to
recall with, and continues with exactly the memories it was about (docs/tasks.md, Resume).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.domain.keys import EVERYTHING, Viewer
from app.domain.tasks import walk
from app.recall.fusion import card_tokens, within_budget
from app.recall.service import Recall


def related_ids(tree: Mapping[str, Any]) -> list[str]:
    """The memories the tree's tasks are about, each once, in tree order."""
    return list(dict.fromkeys(node_id for task in walk(tree) for node_id in task.get("related_ids") or []))


def task_context(
    recall: Recall,
    namespace: str,
    tree: dict[str, Any],
    activations: Mapping[str, float],
    token_budget: int | None = None,
    viewer: Viewer = EVERYTHING,
) -> dict[str, Any]:
    """The tree (whole) and the cards of its related memories scored by `activations` (missing: 0),
    as many of the best as fit `token_budget` (the cards' tokens, as recall counts them)."""
    scores = {node_id: activations.get(node_id, 0.0) for node_id in related_ids(tree)}
    cards = within_budget(recall.cards_for(namespace, scores, viewer), token_budget)
    return {
        "tree": tree,
        "cards": [card.to_dict() for card in cards],
        "tokens": sum(card_tokens(card) for card in cards),
        "token_budget": token_budget,
    }
