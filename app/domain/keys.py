"""API keys and roles: pure rules, no engine.

A key is `hg_<key id>_<secret>`: the id (public, shown in listings) lets an operator name a key
without holding it; the secret carries 256 random bits. Only the SHA-256 of the whole key is
stored: keys are high-entropy, so a fast hash is enough (a slow password hash buys nothing here).

Layers of one concept (one file name): `app/domain/keys.py` (roles, callers and viewers, pure);
`app/auth/keys.py` (API keys over the graph); `app/api/keys.py` (the key routes)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hippograph.vocabulary import Role as Role

KEY_PREFIX = "hg_"
BOOTSTRAP_KEY_ID = "bootstrap"
BOOTSTRAP_AGENT_ID = "admin"


def new_key() -> tuple[str, str]:
    """A fresh (key id, full key). 96 bits of id, 256 bits of secret."""
    key_id = secrets.token_hex(12)
    return key_id, f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison of two secrets (or of their hashes)."""
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


@dataclass(frozen=True)
class Caller:
    """Who is calling: the key's id, agent, role and namespace (None: every namespace, the
    bootstrap admin)."""

    key_id: str
    agent_id: str
    role: Role
    namespace: str | None
    expires_at: datetime | None = None

    @property
    def is_bootstrap(self) -> bool:
        return self.namespace is None

    def role_on(self, namespace: str) -> Role | None:
        if self.namespace is None or self.namespace == namespace:
            return self.role
        return None

    def may(self, role: Role, namespace: str) -> bool:
        held = self.role_on(namespace)
        return held is not None and held.includes(role)

    def sees_private_of_others(self, namespace: str) -> bool:
        """Private memories are seen by their own agent and by admins of the namespace."""
        return self.may(Role.ADMIN, namespace)

    def viewer(self, namespace: str) -> Viewer:
        return Viewer(self.agent_id, sees_private=self.sees_private_of_others(namespace))

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


@dataclass(frozen=True)
class Viewer:
    """Whose eyes a read is made with: a memory saved with `private: true` is seen only by its own
    agent, and by viewers that see private memories (admins of the namespace)."""

    agent_id: str | None = None
    sees_private: bool = True

    def sees(self, node: Mapping[str, Any]) -> bool:
        return self.sees_private or not node.get("private") or node.get("agent_id") == self.agent_id


EVERYTHING = Viewer()

BOOTSTRAP_CALLER = Caller(BOOTSTRAP_KEY_ID, BOOTSTRAP_AGENT_ID, Role.ADMIN, None)
