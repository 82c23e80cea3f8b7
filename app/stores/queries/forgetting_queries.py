"""Typed calls of cypher/forgetting.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict, cast

from app.stores.queries.runner import Queries


class DecayedRow(TypedDict):
    decayed: int


class CountSoftForgottenRow(TypedDict):
    count: int


class PruneCandidatesRow(TypedDict):
    id: str


class DeleteNodesRow(TypedDict):
    attempted: int
    deleted: int


class DeleteWeakEdgesRow(TypedDict):
    deleted: int


class ForgettingQueries(Queries):
    def decay_nodes(
        self, *, namespace: str, half_lives: dict[str, float], now: datetime, ln2: float
    ) -> list[DecayedRow]:
        return cast(
            "list[DecayedRow]",
            self._batched("forgetting.decay_nodes", namespace=namespace, half_lives=half_lives, now=now, ln2=ln2),
        )

    def decay_edges(self, *, namespace: str, now: datetime, ln2: float, edge_half_life: float) -> list[DecayedRow]:
        return cast(
            "list[DecayedRow]",
            self._batched(
                "forgetting.decay_edges", namespace=namespace, now=now, ln2=ln2, edge_half_life=edge_half_life
            ),
        )

    def count_soft_forgotten(self, *, namespace: str, threshold: float) -> list[CountSoftForgottenRow]:
        return cast(
            "list[CountSoftForgottenRow]",
            self._read("forgetting.count_soft_forgotten", namespace=namespace, threshold=threshold),
        )

    def prune_candidates(
        self, *, namespace: str, prune_weights: dict[str, float], limit: int
    ) -> list[PruneCandidatesRow]:
        return cast(
            "list[PruneCandidatesRow]",
            self._read("forgetting.prune_candidates", namespace=namespace, prune_weights=prune_weights, limit=limit),
        )

    def delete_nodes(self, *, namespace: str, ids: list[str]) -> list[DeleteNodesRow]:
        return cast("list[DeleteNodesRow]", self._batched("forgetting.delete_nodes", namespace=namespace, ids=ids))

    def delete_weak_edges(self, *, namespace: str, floor: float) -> list[DeleteWeakEdgesRow]:
        return cast(
            "list[DeleteWeakEdgesRow]", self._batched("forgetting.delete_weak_edges", namespace=namespace, floor=floor)
        )
