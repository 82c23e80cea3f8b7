"""Typed calls of cypher/keys.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from typing import NotRequired, TypedDict, cast

from app.stores.queries.runner import Queries


class StoredKey(TypedDict):
    """An API key's node (a missing property is None); `key_hash` only where it is compared."""

    id: str
    key_hash: NotRequired[str]
    key_namespace: str
    role: str
    agent_id: str
    label: str | None
    created_at: datetime
    expires_at: datetime | None


class KeyRow(TypedDict):
    key: StoredKey


class KeyHashRow(TypedDict):
    key_hash: str


class KeyQueries(Queries):
    def create(
        self,
        *,
        namespace: str,
        id: str,
        key_hash: str,
        role: str,
        agent_id: str,
        label: str | None,
        now: datetime,
        expires_at: datetime | None,
    ) -> list[KeyRow]:
        return cast(
            "list[KeyRow]",
            self._write(
                "keys.create",
                namespace=namespace,
                id=id,
                key_hash=key_hash,
                role=role,
                agent_id=agent_id,
                label=label,
                now=now,
                expires_at=expires_at,
            ),
        )

    def by_hash(self, *, key_hash: str) -> list[KeyRow]:
        return cast("list[KeyRow]", self._read("keys.by_hash", key_hash=key_hash))

    def by_id(self, *, id: str) -> list[KeyRow]:
        return cast("list[KeyRow]", self._read("keys.by_id", id=id))

    def list_(self, *, namespace: str) -> list[KeyRow]:
        return cast("list[KeyRow]", self._read("keys.list", namespace=namespace))

    def list_all(self) -> list[KeyRow]:
        return cast("list[KeyRow]", self._read("keys.list_all"))

    def delete(self, *, id: str) -> list[KeyHashRow]:
        return cast("list[KeyHashRow]", self._write("keys.delete", id=id))

    def delete_namespace_keys(self, *, namespace: str) -> list[KeyHashRow]:
        return cast("list[KeyHashRow]", self._write("keys.delete_namespace_keys", namespace=namespace))
