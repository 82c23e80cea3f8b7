"""Typed calls of cypher/ingest.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypedDict, cast

from app.stores.queries.runner import Queries

# -- the rows the writes take (built by app/memory/ingest.py; properties maps are open) -------


class TurnRow(TypedDict):
    """An `ingest.turns` row: the Dialogue node, and its session's Episode and speaker's Person."""

    id: str
    turn_id: str
    episode_id: str
    person_id: str
    timestamp: datetime
    properties: dict[str, Any]
    episode_properties: dict[str, Any]
    person_properties: dict[str, Any]


class EpisodeSummary(TypedDict):
    id: str
    summary: str
    content: str


class FactKeyRow(TypedDict):
    subject_key: str
    slot: str
    value_key: str | None  # null: a single-valued slot (any value)


class NewFact(TypedDict):
    id: str
    properties: dict[str, Any]  # set on creation only ({} for a restated fact)
    turn_id: str
    dialogue_id: str
    inferred: bool


class Supersession(TypedDict):
    old_id: str
    new_id: str
    at: datetime


class NewEntity(TypedDict):
    id: str
    type: str
    properties: dict[str, Any]
    fact_id: str


class NewEvent(TypedDict):
    id: str
    dialogue_id: str
    properties: dict[str, Any]
    vector_of: str | None  # not read by the query: the node whose vector the event shares


# -- the rows they return ----------------------------------------------------------------------


class CreatedIdRow(TypedDict):
    id: str
    created: bool


class TurnWindowsRow(TypedDict):
    turn: str
    previous: str | None
    next: str | None
    chars: int


class LinkedRow(TypedDict):
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
    key_value: str | None
    id: str | None  # null: the key has no version (then value_key and valid_from are null too)
    value_key: str
    valid_from: datetime
    valid_to: datetime | None
    superseded_by: str | None


class UpsertFactsRow(TypedDict):
    id: str
    inferred: bool
    created: bool


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
        self,
        *,
        namespace: str,
        turns: Sequence[TurnRow],
        namespace_term: str,
        structural: dict[str, Any],
        learned: dict[str, Any],
    ) -> list[CreatedIdRow]:
        return cast(
            "list[CreatedIdRow]",
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

    def chain_sessions(self, *, namespace: str, episode_ids: list[str], structural: dict[str, Any]) -> list[LinkedRow]:
        return cast(
            "list[LinkedRow]",
            self._write("ingest.chain_sessions", namespace=namespace, episode_ids=episode_ids, structural=structural),
        )

    def chain_episodes(self, *, namespace: str, structural: dict[str, Any]) -> list[LinkedRow]:
        return cast("list[LinkedRow]", self._write("ingest.chain_episodes", namespace=namespace, structural=structural))

    def session_texts(self, *, namespace: str, episode_ids: list[str]) -> list[SessionTextsRow]:
        return cast(
            "list[SessionTextsRow]", self._read("ingest.session_texts", namespace=namespace, episode_ids=episode_ids)
        )

    def set_episode_summaries(
        self, *, namespace: str, episodes: list[EpisodeSummary], now: datetime
    ) -> list[SetEpisodeSummariesRow]:
        return cast(
            "list[SetEpisodeSummariesRow]",
            self._write("ingest.set_episode_summaries", namespace=namespace, episodes=episodes, now=now),
        )

    def fact_versions(self, *, namespace: str, keys: list[FactKeyRow], since: datetime) -> list[FactVersionsRow]:
        return cast(
            "list[FactVersionsRow]", self._write("ingest.fact_versions", namespace=namespace, keys=keys, since=since)
        )

    def upsert_facts(
        self, *, namespace: str, facts: list[NewFact], namespace_term: str, learned: dict[str, Any]
    ) -> list[UpsertFactsRow]:
        return cast(
            "list[UpsertFactsRow]",
            self._write(
                "ingest.upsert_facts", namespace=namespace, facts=facts, namespace_term=namespace_term, learned=learned
            ),
        )

    def supersede_facts(
        self, *, namespace: str, supersessions: list[Supersession], now: datetime
    ) -> list[SupersedeFactsRow]:
        return cast(
            "list[SupersedeFactsRow]",
            self._write("ingest.supersede_facts", namespace=namespace, supersessions=supersessions, now=now),
        )

    def upsert_entities(
        self, *, namespace: str, entities: list[NewEntity], namespace_term: str, learned: dict[str, Any]
    ) -> list[LinkedRow]:
        return cast(
            "list[LinkedRow]",
            self._write(
                "ingest.upsert_entities",
                namespace=namespace,
                entities=entities,
                namespace_term=namespace_term,
                learned=learned,
            ),
        )

    def upsert_events(
        self, *, namespace: str, events: list[NewEvent], namespace_term: str, learned: dict[str, Any]
    ) -> list[CreatedIdRow]:
        return cast(
            "list[CreatedIdRow]",
            self._write(
                "ingest.upsert_events",
                namespace=namespace,
                events=events,
                namespace_term=namespace_term,
                learned=learned,
            ),
        )

    def chain_events(self, *, namespace: str, subject_keys: list[str], structural: dict[str, Any]) -> list[LinkedRow]:
        return cast(
            "list[LinkedRow]",
            self._write("ingest.chain_events", namespace=namespace, subject_keys=subject_keys, structural=structural),
        )

    def dialogue_turns(self, *, namespace: str, ids: list[str]) -> list[DialogueTurnsRow]:
        return cast("list[DialogueTurnsRow]", self._read("ingest.dialogue_turns", namespace=namespace, ids=ids))
