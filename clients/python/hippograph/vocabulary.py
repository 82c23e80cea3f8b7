"""The API's fixed vocabulary, shared by the service (`app`) and its clients: node types,
relationship types, importance levels (with their decay half-lives), sources, key roles, task
statuses, and the limits a client needs to know. Pure Python, so the light client distribution
(`hippograph-client`) can parse answers without the server's engines.

Labels and relationship types reach Cypher only as values of these enums (validated here), passed
as parameters to dynamic-label clauses (`:$($type)`); nothing else can name a label or type.
"""

from __future__ import annotations

from enum import StrEnum

# The most turns one POST /v1/namespaces/{ns}/turns accepts.
MAX_TURNS_PER_BATCH = 1000


class NodeType(StrEnum):
    TASK = "Task"
    DIALOGUE = "Dialogue"
    KNOWLEDGE = "Knowledge"
    EXPERIENCE = "Experience"
    EPISODE = "Episode"
    FILE = "File"
    CONCEPT = "Concept"
    PERSON = "Person"
    DOCUMENT = "Document"

    @property
    def id_prefix(self) -> str:
        return self.value.lower()

    @classmethod
    def of_id(cls, node_id: str) -> NodeType | None:
        prefix = node_id.split(":", 1)[0]
        return next((t for t in cls if t.id_prefix == prefix), None)


class RelType(StrEnum):
    # structural: protected, never decayed or pruned
    HIERARCHY = "HIERARCHY"
    DEPENDENCY = "DEPENDENCY"
    TEMPORAL = "TEMPORAL"
    # learned: weighted, strengthen and decay
    REFERENCE = "REFERENCE"
    SEMANTIC = "SEMANTIC"
    CAUSAL = "CAUSAL"
    ASSOCIATION = "ASSOCIATION"

    @property
    def protected(self) -> bool:
        return self in STRUCTURAL_TYPES

    @property
    def symmetric(self) -> bool:
        """Stored once per pair, from the smaller node id to the larger."""
        return self in {RelType.SEMANTIC, RelType.ASSOCIATION}


STRUCTURAL_TYPES = frozenset({RelType.HIERARCHY, RelType.DEPENDENCY, RelType.TEMPORAL})
LEARNED_TYPES = frozenset(set(RelType) - STRUCTURAL_TYPES)


class Source(StrEnum):
    USER_STATED = "user_stated"
    INFERRED = "inferred"
    IMPORTED = "imported"
    AGENT = "agent"


class Importance(StrEnum):
    """Six levels, ordered. Half-life in hours (None: never decays); prune weight in (0, 1]."""

    TRIVIAL = "TRIVIAL"
    NORMAL = "NORMAL"
    IMPORTANT = "IMPORTANT"
    FACT = "FACT"
    IDENTITY = "IDENTITY"
    MUST_REMEMBER = "MUST_REMEMBER"

    @property
    def rank(self) -> int:
        return list(Importance).index(self)

    @property
    def half_life_hours(self) -> float | None:
        return _HALF_LIVES[self]

    @property
    def prune_weight(self) -> float:
        return _PRUNE_WEIGHTS[self]

    def raised_to(self, other: Importance) -> Importance:
        """Importance only goes up: the higher of the two."""
        return other if other.rank > self.rank else self


_HALF_LIVES: dict[Importance, float | None] = {
    Importance.TRIVIAL: 6.0,
    Importance.NORMAL: 24.0,
    Importance.IMPORTANT: 168.0,
    Importance.FACT: 360.0,
    Importance.IDENTITY: 720.0,
    Importance.MUST_REMEMBER: None,
}

# Pruning ranks nodes by activation x weight; the weight grows with the half-life, so a trivial node
# at the same activation goes first.
_PRUNE_WEIGHTS: dict[Importance, float] = {
    Importance.TRIVIAL: 0.1,
    Importance.NORMAL: 0.3,
    Importance.IMPORTANT: 0.6,
    Importance.FACT: 0.8,
    Importance.IDENTITY: 0.9,
    Importance.MUST_REMEMBER: 1.0,
}


class Role(StrEnum):
    """What a key may do on its namespace; each role includes the ones before it."""

    READER = "reader"  # recall, read nodes, related, chain, export, Cypher
    WRITER = "writer"  # + turns, memories, links, PATCH
    ADMIN = "admin"  # + delete nodes, import, keys, delete the namespace

    @property
    def rank(self) -> int:
        return _RANKS[self]

    def includes(self, other: Role) -> bool:
        return self.rank >= other.rank


_RANKS = {Role.READER: 1, Role.WRITER: 2, Role.ADMIN: 3}


class TaskStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    BLOCKED = "blocked"
    DONE = "done"
    FAILED = "failed"
    SUSPENDED = "suspended"
