"""Typed calls of cypher/migrate.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict, cast

from app.stores.queries.runner import Queries


class CompletedRow(TypedDict):
    name: str


class NamespacesWithoutTermRow(TypedDict):
    namespace: str


class EntitiesWithoutNameKeyRow(TypedDict):
    namespace: str
    id: str
    label: str | None


class NameKey(TypedDict):
    namespace: str
    id: str
    name_key: str


class SetNameKeysRow(TypedDict):
    updated: int


class MigrationQueries(Queries):
    def completed(self, *, migration: str) -> list[CompletedRow]:
        return cast("list[CompletedRow]", self._read("migrate.completed", migration=migration))

    def mark_completed(self, *, migration: str, now: datetime) -> None:
        self._write("migrate.mark_completed", migration=migration, now=now)

    def namespaces_without_term(self) -> list[NamespacesWithoutTermRow]:
        return cast("list[NamespacesWithoutTermRow]", self._read("migrate.namespaces_without_term"))

    def set_namespace_term(self, *, namespace: str, namespace_term: str) -> None:
        self._batched("migrate.set_namespace_term", namespace=namespace, namespace_term=namespace_term)

    def entities_without_name_key(self, *, limit: int) -> list[EntitiesWithoutNameKeyRow]:
        return cast("list[EntitiesWithoutNameKeyRow]", self._read("migrate.entities_without_name_key", limit=limit))

    def set_name_keys(self, *, rows: list[NameKey]) -> list[SetNameKeysRow]:
        return cast("list[SetNameKeysRow]", self._write("migrate.set_name_keys", rows=rows))
