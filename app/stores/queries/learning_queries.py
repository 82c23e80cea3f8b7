"""Typed calls of cypher/learning.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict, cast

from app.stores.queries.runner import Queries


class CoActivation(TypedDict):
    """Two nodes recalled together `total` times since the last flush."""

    a: str
    b: str
    total: int


class Access(TypedDict):
    id: str
    count: int


class ApplyCoActivationsRow(TypedDict):
    reinforced: int
    created: int


class ApplyAccessesRow(TypedDict):
    updated: int


class LearningQueries(Queries):
    def apply_co_activations(
        self,
        *,
        namespace: str,
        pairs: list[CoActivation],
        now: datetime,
        ln2: float,
        edge_half_life: float,
        keep: float,
        edge_at: int,
    ) -> list[ApplyCoActivationsRow]:
        return cast(
            "list[ApplyCoActivationsRow]",
            self._write(
                "learning.apply_co_activations",
                namespace=namespace,
                pairs=pairs,
                now=now,
                ln2=ln2,
                edge_half_life=edge_half_life,
                keep=keep,
                edge_at=edge_at,
            ),
        )

    def apply_accesses(
        self,
        *,
        namespace: str,
        accesses: list[Access],
        batch: str,
        half_lives: dict[str, float],
        now: datetime,
        ln2: float,
        keep: float,
        promote_at: int,
        promotions: dict[str, str],
    ) -> list[ApplyAccessesRow]:
        return cast(
            "list[ApplyAccessesRow]",
            self._write(
                "learning.apply_accesses",
                namespace=namespace,
                accesses=accesses,
                batch=batch,
                half_lives=half_lives,
                now=now,
                ln2=ln2,
                keep=keep,
                promote_at=promote_at,
                promotions=promotions,
            ),
        )
