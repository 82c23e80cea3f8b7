"""Recall's candidates before fusion ranks them: a candidate from a card row of the graph or from a
pending hot-window turn, and what its node says about the query's context: whom it is about or
spoken to (`subject_key_of`, `addressee_of`), whom the query names (`named_keys`, `spoken_by`) and
whether it belongs to the current focus (`mark_context`). Used by app/recall/service.py."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.domain.inputs import derive_summary
from app.domain.model import NodeType, Source
from app.domain.turns import Turn
from app.extract.names import addressee_key, cjk_name_forms, normalize_name
from app.recall.fusion import Candidate
from app.recall.query import ParsedQuery
from app.stores.graph import parse_datetime


def candidate_of(row: Mapping[str, Any]) -> Candidate:
    """A candidate from a row of the `card` fragment of cypher/recall.cypher (its times parsed)."""
    times = {key: parse_datetime(value) for key, value in row["times"].items() if value is not None}
    return Candidate(row["id"], row["type"], row["node"] | times)


def mark_context(candidate: Candidate, focus_session: str | None, agent_id: str | None, named: frozenset[str]) -> None:
    """Whether the candidate belongs to the current focus (its session, or the asking agent's
    memories) and whether it is about someone the query names."""
    node = candidate.node
    candidate.in_focus = bool(
        (focus_session is not None and node.get("session_id") == focus_session)
        or (agent_id is not None and node.get("agent_id") == agent_id)
    )
    candidate.named_subject = subject_key_of(node) in named or addressee_of(node) in named


def named_keys(parsed: ParsedQuery, nodes: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """The keys of whom the query names: its entity keys, and the subjects, speakers and addressees
    (`addressee_of`) of these nodes whose Chinese name the query says in a short form
    (`cjk_name_forms`: 晓雯 for 林晓雯, 老王 for 王磊). Chinese speakers are mostly called by their
    given name, and a query's CJK substrings hold the given name, not the full one."""
    named = set(parsed.entity_keys)
    said = parsed.text
    seen: set[str] = set()
    for node in nodes:
        for key in (subject_key_of(node), addressee_of(node)):
            if key and key not in seen:
                seen.add(key)
                if key not in named and any(form in said for form in cjk_name_forms(key)[1:]):
                    named.add(key)
    return frozenset(named)


def spoken_by(candidates: Iterable[Candidate], named: frozenset[str]) -> set[str]:
    """The speakers of these turns whom the query names."""
    return {
        key
        for candidate in candidates
        if candidate.type == NodeType.DIALOGUE.value and (key := subject_key_of(candidate.node)) in named
    }


def addressee_of(node: Mapping[str, Any]) -> str | None:
    """Whom a turn was sent to, or in which group chat, by the prefix of its text ("（发给张伟）...";
    `addressee_key`): read off the label ("<speaker>: <text>") or, for a pending turn, its content."""
    text = node.get("content") or node.get("label")
    if not isinstance(text, str):
        return None
    speaker = node.get("speaker")
    if node.get("content") is None and isinstance(speaker, str) and text.startswith(f"{speaker}: "):
        text = text[len(speaker) + 2 :]
    return addressee_key(text)


def subject_key_of(node: Mapping[str, Any]) -> str | None:
    """Whom a memory is about: a fact's or event's subject, else the speaker of a turn."""
    if node.get("subject_key"):
        return str(node["subject_key"])
    speaker = node.get("speaker")
    return normalize_name(str(speaker)) if speaker else None


def pending_turn_node(turn: Turn) -> dict[str, Any]:
    """The node of a hot-window turn the write tracks have not reached yet (a pending turn's card)."""
    return {
        "label": f"{turn.speaker}: {turn.text[:80]}",
        "summary": derive_summary(turn.text),
        "content": turn.text,
        "source": Source.USER_STATED.value,
        "confidence": 1.0,
        "source_turn_ids": [turn.turn_id],
        "timestamp": turn.timestamp,
        "session_id": turn.session_id,
        "speaker": turn.speaker,
        "agent_id": turn.agent_id,
    }
