"""Conversation turns: the unit the write path ingests, and the ids derived from them.

Layers of one concept (one file name): `app/domain/turns.py` (the turn and its ids, pure);
`app/api/turns.py` (the write route)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.domain.inputs import joined_key, stable_digest

# Levels of objects and arrays a turn's metadata may nest (it is stored as JSON on the Dialogue node).
MAX_METADATA_DEPTH = 16


@dataclass(frozen=True)
class Turn:
    session_id: str
    turn_id: str
    speaker: str
    text: str
    timestamp: datetime  # timezone-aware
    metadata: dict[str, Any] = field(default_factory=dict)
    agent_id: str | None = None  # the writing key's agent
    replace: bool = False  # a correction: supersedes the text and speaker accepted before (kept in history)

    @property
    def key(self) -> str:
        """(session, turn) identifies a turn within a namespace; a retry with the same key is a no-op."""
        return joined_key(self.session_id, self.turn_id)


def dialogue_id(session_id: str, turn_id: str) -> str:
    return f"dialogue:{stable_digest(session_id, turn_id)}"


def episode_id(session_id: str) -> str:
    return f"episode:{stable_digest(session_id)}"


def person_id(normalized_name: str) -> str:
    return f"person:{stable_digest(normalized_name)}"


def concept_id(normalized_name: str) -> str:
    return f"concept:{stable_digest(normalized_name)}"
