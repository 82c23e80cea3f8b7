"""Typed calls of cypher/ingest.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict, cast

from app.stores.queries.base import Queries


class TurnsRow(TypedDict):
    id: str
    created: int


class TurnWindowsRow(TypedDict):
    turn: str
    previous: str
    next: str
    chars: int


class ChainSessionsRow(TypedDict):
    linked: int


class SessionTextsRow(TypedDict):
    id: str
    session_id: str
    texts: list[str]


class SetEpisodeSummariesRow(TypedDict):
    updated: int


class FactVersionsRow(TypedDict):
    subject_key: str
    slot: str
    key_value: str
    id: str
    value_key: str
    valid_from: datetime
    valid_to: Any
    superseded_by: Any


class UpsertFactsRow(TypedDict):
    id: str
    inferred: bool
    created: int


class SupersedeFactsRow(TypedDict):
    withdrawn: int


class DialogueTurnsRow(TypedDict):
    session_id: str
    turn_id: str
    speaker: str
    text: str
    timestamp: datetime


class IngestQueries(Queries):
    def turns(
        self, *, namespace: str, turns: list[dict[str, Any]], namespace_term: str, structural: bool, learned: bool
    ) -> list[TurnsRow]:
        return cast(
            "list[TurnsRow]",
            self._write(
                "ingest.turns",
                namespace=namespace,
                turns=turns,
                namespace_term=namespace_term,
                structural=structural,
                learned=learned,
            ),
        )

    def turn_windows(self, *, namespace: str, ids: list[str]) -> list[TurnWindowsRow]:
        return cast("list[TurnWindowsRow]", self._read("ingest.turn_windows", namespace=namespace, ids=ids))

    def chain_sessions(self, *, namespace: str, episode_ids: list[str], structural: bool) -> list[ChainSessionsRow]:
        return cast(
            "list[ChainSessionsRow]",
            self._write("ingest.chain_sessions", namespace=namespace, episode_ids=episode_ids, structural=structural),
        )

    def chain_episodes(self, *, namespace: str, structural: bool) -> list[ChainSessionsRow]:
        return cast(
            "list[ChainSessionsRow]", self._write("ingest.chain_episodes", namespace=namespace, structural=structural)
        )

    def session_texts(self, *, namespace: str, episode_ids: list[str]) -> list[SessionTextsRow]:
        return cast(
            "list[SessionTextsRow]", self._read("ingest.session_texts", namespace=namespace, episode_ids=episode_ids)
        )

    def set_episode_summaries(
        self, *, namespace: str, episodes: list[dict[str, Any]], now: datetime
    ) -> list[SetEpisodeSummariesRow]:
        return cast(
            "list[SetEpisodeSummariesRow]",
            self._write("ingest.set_episode_summaries", namespace=namespace, episodes=episodes, now=now),
        )

    def fact_versions(self, *, namespace: str, keys: list[str], since: datetime) -> list[FactVersionsRow]:
        return cast(
            "list[FactVersionsRow]", self._write("ingest.fact_versions", namespace=namespace, keys=keys, since=since)
        )

    def upsert_facts(
        self, *, namespace: str, facts: list[dict[str, Any]], namespace_term: str, learned: bool
    ) -> list[UpsertFactsRow]:
        return cast(
            "list[UpsertFactsRow]",
            self._write(
                "ingest.upsert_facts", namespace=namespace, facts=facts, namespace_term=namespace_term, learned=learned
            ),
        )

    def supersede_facts(
        self, *, namespace: str, supersessions: list[dict[str, Any]], now: datetime
    ) -> list[SupersedeFactsRow]:
        return cast(
            "list[SupersedeFactsRow]",
            self._write("ingest.supersede_facts", namespace=namespace, supersessions=supersessions, now=now),
        )

    def upsert_entities(
        self, *, namespace: str, entities: list[dict[str, Any]], namespace_term: str, learned: bool
    ) -> list[ChainSessionsRow]:
        return cast(
            "list[ChainSessionsRow]",
            self._write(
                "ingest.upsert_entities",
                namespace=namespace,
                entities=entities,
                namespace_term=namespace_term,
                learned=learned,
            ),
        )

    def upsert_events(
        self, *, namespace: str, events: list[dict[str, Any]], namespace_term: str, learned: bool
    ) -> list[TurnsRow]:
        return cast(
            "list[TurnsRow]",
            self._write(
                "ingest.upsert_events",
                namespace=namespace,
                events=events,
                namespace_term=namespace_term,
                learned=learned,
            ),
        )

    def chain_events(self, *, namespace: str, subject_keys: list[str], structural: bool) -> list[ChainSessionsRow]:
        return cast(
            "list[ChainSessionsRow]",
            self._write("ingest.chain_events", namespace=namespace, subject_keys=subject_keys, structural=structural),
        )

    def dialogue_turns(self, *, namespace: str, ids: list[str]) -> list[DialogueTurnsRow]:
        return cast("list[DialogueTurnsRow]", self._read("ingest.dialogue_turns", namespace=namespace, ids=ids))
