"""API keys in Neo4j (`cypher/keys.cypher`): create, list, revoke, and authenticate a request.

Authentication hashes the presented key (SHA-256) and looks the hash up; the bootstrap admin key is
compared in constant time. Known keys are cached in this process for `cache_ttl_s` seconds (default
5): a revoked key stops working at once in the process that revoked it and within the TTL in every
other process. Unknown keys are never cached (a key created a moment ago works at once).

Layers of one concept (one file name): `app/domain/keys.py` (roles, callers and viewers, pure);
`app/auth/keys.py` (API keys over the graph); `app/api/keys.py` (the key routes)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from app.domain.keys import (
    BOOTSTRAP_CALLER,
    Caller,
    Role,
    key_hash,
    new_key,
    same_secret,
)
from app.stores.graph import GraphStore
from app.stores.queries.key_queries import KeyQueries, StoredKey

MAX_CACHED_KEYS = 10_000


class ApiKeys:
    def __init__(
        self,
        graph: GraphStore,
        bootstrap_key: str,
        cache_ttl_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.graph = graph
        self.queries = KeyQueries(graph)
        self._bootstrap_hash = key_hash(bootstrap_key)
        self.cache_ttl_s = cache_ttl_s
        self._clock = clock
        self._cache: dict[str, tuple[Caller, float]] = {}
        self._lock = threading.Lock()

    # -- authentication ----------------------------------------------------------------------

    def cached(self, key: str) -> Caller | None:
        """The caller of `key` without I/O: the bootstrap admin, or a key cached within its TTL; None
        means "look it up" (`authenticate`)."""
        hashed = key_hash(key)
        if same_secret(hashed, self._bootstrap_hash):
            return BOOTSTRAP_CALLER
        entry = self._cache.get(hashed)
        if entry is None or entry[1] < self._clock():
            return None
        caller = entry[0]
        return None if caller.expired(datetime.now(UTC)) else caller

    def authenticate(self, key: str) -> Caller | None:
        """The caller of `key`, or None for an unknown, revoked or expired key."""
        return self.cached(key) or self.look_up(key)

    def look_up(self, key: str) -> Caller | None:
        """`key` read from Neo4j (after `cached` said nothing), then cached for the TTL."""
        hashed = key_hash(key)
        rows = self.queries.by_hash(key_hash=hashed)
        if not rows or not same_secret(rows[0]["key"]["key_hash"], hashed):
            return None
        caller = _caller(rows[0]["key"])
        if caller.expired(datetime.now(UTC)):
            return None
        with self._lock:
            if len(self._cache) >= MAX_CACHED_KEYS:
                self._cache.clear()
            self._cache[hashed] = (caller, self._clock() + self.cache_ttl_s)
        return caller

    # -- management --------------------------------------------------------------------------

    def create(
        self,
        namespace: str,
        role: Role,
        agent_id: str,
        label: str | None = None,
        expires_at: datetime | None = None,
    ) -> tuple[dict[str, Any], str]:
        """A new key: its public record and the key itself (shown once, stored only as a hash)."""
        key_id, key = new_key()
        row = self.queries.create(
            id=key_id,
            key_hash=key_hash(key),
            namespace=namespace,
            role=role.value,
            agent_id=agent_id,
            label=label,
            now=datetime.now(UTC),
            expires_at=expires_at,
        )[0]
        return public(row["key"]), key

    def get(self, key_id: str) -> dict[str, Any] | None:
        rows = self.queries.by_id(id=key_id)
        return public(rows[0]["key"]) if rows else None

    def listing(self, namespace: str | None) -> list[dict[str, Any]]:
        """The keys of a namespace; None lists every key."""
        rows = self.queries.list_all() if namespace is None else self.queries.list_(namespace=namespace)
        return [public(row["key"]) for row in rows]

    def revoke(self, key_id: str) -> bool:
        hashes = [row["key_hash"] for row in self.queries.delete(id=key_id)]
        self._forget(hashes)
        return bool(hashes)

    def revoke_namespace(self, namespace: str) -> int:
        hashes = [row["key_hash"] for row in self.queries.delete_namespace_keys(namespace=namespace)]
        self._forget(hashes)
        return len(hashes)

    def _forget(self, hashes: list[str]) -> None:
        with self._lock:
            for hashed in hashes:
                self._cache.pop(hashed, None)


def public(stored: StoredKey) -> dict[str, Any]:
    """A key as the API shows it: never the hash, `namespace` for `key_namespace`."""
    return {
        "id": stored["id"],
        "namespace": stored["key_namespace"],
        "role": stored["role"],
        "agent_id": stored["agent_id"],
        "label": stored.get("label"),
        "created_at": stored["created_at"],
        "expires_at": stored.get("expires_at"),
    }


def _caller(stored: StoredKey) -> Caller:
    return Caller(
        key_id=stored["id"],
        agent_id=stored["agent_id"],
        role=Role(stored["role"]),
        namespace=stored["key_namespace"],
        expires_at=stored.get("expires_at"),
    )
