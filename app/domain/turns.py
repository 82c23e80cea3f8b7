"""Conversation turns: the unit the write path ingests, and the ids derived from them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


@dataclass(frozen=True)
class Turn:
    session_id: str
    turn_id: str
    speaker: str
    text: str
    timestamp: datetime  # timezone-aware
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """(session, turn) identifies a turn within a namespace; a retry with the same key is a no-op."""
        return f"{self.session_id}\x1f{self.turn_id}"


def dialogue_id(session_id: str, turn_id: str) -> str:
    return f"dialogue:{_digest(session_id, turn_id)}"


def episode_id(session_id: str) -> str:
    return f"episode:{_digest(session_id)}"


def person_id(normalized_name: str) -> str:
    return f"person:{_digest(normalized_name)}"


def concept_id(normalized_name: str) -> str:
    return f"concept:{_digest(normalized_name)}"
