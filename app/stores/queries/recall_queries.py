"""Typed calls of cypher/recall.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict, cast

from app.stores.queries.runner import Queries


class SeenBy(TypedDict):
    """The parameters of the `visible` fragment: whose eyes a read is made with (`Viewer`)."""

    viewer_agent: str | None
    sees_private: bool


class HotSeed(TypedDict):
    id: str
    score: float


class HotRow(TypedDict):
    """Recall's hot path (app/recall/service.py reads it): the scored rows are open maps."""

    rows: list[dict[str, Any]]
    expanded: int
    seeds: int


class SpeakersRow(TypedDict):
    speakers: list[str]


class CardsRow(TypedDict):
    cards: list[dict[str, Any]]


class RepliesRow(TypedDict):
    replies: list[dict[str, Any]]


class HiddenIdsRow(TypedDict):
    hidden: list[str]


class DetailsRow(TypedDict):
    id: str
    content: str | None
    status: str | None
    related_ids: list[str] | None


class RelatedRow(TypedDict):
    """A node of a neighbourhood (`related_1`..`related_3`: one query per depth)."""

    id: str
    type: str
    summary: str | None
    source_turn_ids: list[str] | None
    distance: int
    strength: float
    via: list[str]
    activation: float | None
    importance: str | None
    superseded: bool


class FanOutNeighbour(TypedDict):
    id: str
    type: str
    summary: str | None
    source_turn_ids: list[str] | None
    activation: float | None
    importance: str | None
    superseded: bool
    weight: float
    via: str


class FanOutRow(TypedDict):
    id: str
    reachable: int
    neighbours: list[FanOutNeighbour]


class PathNode(TypedDict):
    id: str
    type: str
    summary: str | None
    source_turn_ids: list[str] | None


class PathRow(TypedDict):
    nodes: list[PathNode]
    relationships: list[str]


class TaskChainRow(TypedDict):
    id: str
    type: str
    summary: str | None
    source_turn_ids: list[str] | None
    distance: int


class ListingRow(TypedDict):
    id: str
    type: str
    label: str | None
    summary: str | None
    importance: str | None
    tags: list[str]
    created_at: str
    event_time: str | None
    agent_id: str | None
    source: str | None
    private: bool


class RecallQueries(Queries):
    def hot(
        self,
        *,
        namespace: str,
        lucene: str,
        text_limit: int,
        alive: float,
        entity_keys: list[str],
        subject_keys: list[str],
        no_match: str,
        slot_keys: list[str],
        epoch: datetime,
        slot_only: float,
        window_start: datetime,
        window_end: datetime,
        has_window: bool,
        window_score: float,
        hot_seeds: list[HotSeed],
        seed_limit: int,
        max_depth: int,
        max_fanout: int,
        hop_decay: float,
        min_activation: float,
        cap: int,
        result_limit: int,
    ) -> list[HotRow]:
        return cast(
            "list[HotRow]",
            self._read(
                "recall.hot",
                namespace=namespace,
                lucene=lucene,
                text_limit=text_limit,
                alive=alive,
                entity_keys=entity_keys,
                subject_keys=subject_keys,
                no_match=no_match,
                slot_keys=slot_keys,
                epoch=epoch,
                slot_only=slot_only,
                window_start=window_start,
                window_end=window_end,
                has_window=has_window,
                window_score=window_score,
                hot_seeds=hot_seeds,
                seed_limit=seed_limit,
                max_depth=max_depth,
                max_fanout=max_fanout,
                hop_decay=hop_decay,
                min_activation=min_activation,
                cap=cap,
                result_limit=result_limit,
            ),
        )

    def speakers(self, *, namespace: str, limit: int) -> list[SpeakersRow]:
        return cast("list[SpeakersRow]", self._read("recall.speakers", namespace=namespace, limit=limit))

    def speakers_named(self, *, namespace: str, keys: list[str]) -> list[SpeakersRow]:
        return cast("list[SpeakersRow]", self._read("recall.speakers_named", namespace=namespace, keys=keys))

    def cards(self, *, namespace: str, ids: list[str]) -> list[CardsRow]:
        return cast("list[CardsRow]", self._read("recall.cards", namespace=namespace, ids=ids))

    def replies(self, *, namespace: str, ids: list[str]) -> list[RepliesRow]:
        return cast("list[RepliesRow]", self._read("recall.replies", namespace=namespace, ids=ids))

    def hidden_ids(
        self, *, namespace: str, ids: list[str], sees_private: bool, viewer_agent: str | None
    ) -> list[HiddenIdsRow]:
        return cast(
            "list[HiddenIdsRow]",
            self._read(
                "recall.hidden_ids", namespace=namespace, ids=ids, sees_private=sees_private, viewer_agent=viewer_agent
            ),
        )

    def details(
        self, *, namespace: str, ids: list[str], sees_private: bool, viewer_agent: str | None
    ) -> list[DetailsRow]:
        return cast(
            "list[DetailsRow]",
            self._read(
                "recall.details", namespace=namespace, ids=ids, sees_private=sees_private, viewer_agent=viewer_agent
            ),
        )

    def related_1(
        self, *, namespace: str, id: str, sees_private: bool, viewer_agent: str | None, limit: int
    ) -> list[RelatedRow]:
        return cast(
            "list[RelatedRow]",
            self._read(
                "recall.related_1",
                namespace=namespace,
                id=id,
                sees_private=sees_private,
                viewer_agent=viewer_agent,
                limit=limit,
            ),
        )

    def related_2(
        self, *, namespace: str, id: str, sees_private: bool, viewer_agent: str | None, limit: int
    ) -> list[RelatedRow]:
        return cast(
            "list[RelatedRow]",
            self._read(
                "recall.related_2",
                namespace=namespace,
                id=id,
                sees_private=sees_private,
                viewer_agent=viewer_agent,
                limit=limit,
            ),
        )

    def related_3(
        self, *, namespace: str, id: str, sees_private: bool, viewer_agent: str | None, limit: int
    ) -> list[RelatedRow]:
        return cast(
            "list[RelatedRow]",
            self._read(
                "recall.related_3",
                namespace=namespace,
                id=id,
                sees_private=sees_private,
                viewer_agent=viewer_agent,
                limit=limit,
            ),
        )

    def fan_out(
        self,
        *,
        namespace: str,
        frontier: list[str],
        centre: str | None,
        seen: list[str],
        sees_private: bool,
        viewer_agent: str | None,
        fanout: int,
    ) -> list[FanOutRow]:
        return cast(
            "list[FanOutRow]",
            self._read(
                "recall.fan_out",
                namespace=namespace,
                frontier=frontier,
                centre=centre,
                seen=seen,
                sees_private=sees_private,
                viewer_agent=viewer_agent,
                fanout=fanout,
            ),
        )

    def path(
        self, *, namespace: str, from_id: str, to_id: str, sees_private: bool, viewer_agent: str | None
    ) -> list[PathRow]:
        return cast(
            "list[PathRow]",
            self._read(
                "recall.path",
                namespace=namespace,
                from_id=from_id,
                to_id=to_id,
                sees_private=sees_private,
                viewer_agent=viewer_agent,
            ),
        )

    def task_chain(
        self, *, namespace: str, id: str, sees_private: bool, viewer_agent: str | None, limit: int
    ) -> list[TaskChainRow]:
        return cast(
            "list[TaskChainRow]",
            self._read(
                "recall.task_chain",
                namespace=namespace,
                id=id,
                sees_private=sees_private,
                viewer_agent=viewer_agent,
                limit=limit,
            ),
        )

    def listing(
        self,
        *,
        namespace: str,
        since: datetime,
        until: datetime,
        upper: str,
        after_id: str | None,
        types: list[str] | None,
        agent_id: str | None,
        importance: list[str] | None,
        tags: list[str],
        include_forgotten: bool,
        alive: float,
        sees_private: bool,
        viewer_agent: str | None,
        limit: int,
    ) -> list[ListingRow]:
        return cast(
            "list[ListingRow]",
            self._read(
                "recall.listing",
                namespace=namespace,
                since=since,
                until=until,
                upper=upper,
                after_id=after_id,
                types=types,
                agent_id=agent_id,
                importance=importance,
                tags=tags,
                include_forgotten=include_forgotten,
                alive=alive,
                sees_private=sees_private,
                viewer_agent=viewer_agent,
                limit=limit,
            ),
        )
