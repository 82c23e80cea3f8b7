"""Request bodies of the v1 API. Unknown fields are refused, so a typo is an error, not a no-op."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from app.domain.inputs import NewLink, NewMemory
from app.domain.model import SUMMARY_MAX_CHARS, Importance, NodeType, RelType, Source
from app.domain.turns import Turn
from app.recall.service import RecallRequest

MAX_CONTENT_CHARS = 64 * 1024
Weight = Annotated[float, Field(gt=0.0, le=1.0)]
Text = Annotated[str, Field(min_length=1, max_length=200)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NamespaceBody(Strict):
    capacity: int | None = Field(None, ge=1, description="node capacity before pruning (default 100000)")
    low_water_ratio: float | None = Field(None, gt=0.0, le=1.0, description="pruning target (default 0.9)")


class LinkSpec(Strict):
    type: RelType
    target_id: Text
    weight: Weight | None = None


class MemoryBody(Strict):
    type: NodeType
    label: str = Field(min_length=1, max_length=500)
    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    summary: str | None = Field(None, max_length=SUMMARY_MAX_CHARS)
    importance: Importance | None = Field(None, description="default: detected by the importance rules")
    tags: list[Text] = Field(default_factory=list, max_length=64)
    links: list[LinkSpec] = Field(default_factory=list, max_length=256)
    id: Text | None = Field(None, description="'<type>:<key>'; default derived from type, label and content")
    source: Source = Source.AGENT
    agent_id: Text | None = None
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    source_turn_ids: list[Text] = Field(default_factory=list, max_length=1000)
    subject: Text | None = None
    slot: Text | None = None
    value: str | None = Field(None, max_length=2000)
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    event_time: AwareDatetime | None = None

    def to_domain(self) -> NewMemory:
        return NewMemory(
            type=self.type,
            label=self.label,
            content=self.content,
            summary=self.summary,
            importance=self.importance,
            tags=tuple(self.tags),
            links=tuple(NewLink(link.type, link.target_id, link.weight) for link in self.links),
            id=self.id,
            source=self.source,
            agent_id=self.agent_id,
            confidence=self.confidence,
            source_turn_ids=tuple(self.source_turn_ids),
            subject=self.subject,
            slot=self.slot,
            value=self.value,
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            event_time=self.event_time,
        )


class LinkBody(Strict):
    source_id: Text
    target_id: Text
    type: RelType
    weight: Weight | None = None


class NodePatchBody(Strict):
    importance: Importance | None = Field(None, description="raise only")
    tags: list[Text] | None = Field(None, max_length=64)


MAX_TURN_BYTES = 64 * 1024
MAX_TURNS_PER_BATCH = 1000


class TurnBody(Strict):
    session_id: Text
    turn_id: Text
    speaker: Text
    text: str = Field(min_length=1)
    timestamp: datetime | None = Field(None, description="ISO 8601; without an offset it is taken as UTC; default now")
    metadata: dict[str, Any] | None = None

    @field_validator("text")
    @classmethod
    def text_fits(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("must not be blank")
        if len(text.encode("utf-8")) > MAX_TURN_BYTES:
            raise ValueError(f"at most {MAX_TURN_BYTES} bytes of UTF-8")
        return text

    def to_domain(self, now: datetime) -> Turn:
        timestamp = self.timestamp or now
        if timestamp.tzinfo is None:
            timestamp = timestamp.replace(tzinfo=UTC)
        return Turn(self.session_id, self.turn_id, self.speaker, self.text, timestamp, self.metadata or {})


class TurnsBody(Strict):
    turns: list[TurnBody] = Field(min_length=1, max_length=MAX_TURNS_PER_BATCH)
    wait: bool = Field(False, description="answer 200 only when every track has run for these turns")


def _utc(value: datetime | None) -> datetime | None:
    """A time without a zone is read as UTC (as turn timestamps are)."""
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


class RecallBody(Strict):
    query: str = Field(min_length=1, max_length=4000)
    top_k: int = Field(10, ge=1, le=100)
    mode: Literal["local", "global"] = Field("local", description="local: the current work; global: the big picture")
    include_history: bool = Field(False, description="also superseded facts and withdrawn inferences")
    token_budget: int | None = Field(None, ge=1, le=100_000, description="cut the cards to fit this many tokens")
    as_of: datetime | None = Field(None, description="recall facts as they stood at this time")
    now: datetime | None = Field(None, description="reference time for relative expressions (default: now)")
    agent_id: Text | None = Field(None, description="the asking agent: its own memories count as in focus")

    @field_validator("query")
    @classmethod
    def query_not_blank(cls, query: str) -> str:
        if not query.strip():
            raise ValueError("must not be blank")
        return query

    def to_domain(self) -> RecallRequest:
        return RecallRequest(
            query=self.query,
            top_k=self.top_k,
            mode=self.mode,
            include_history=self.include_history,
            token_budget=self.token_budget,
            as_of=_utc(self.as_of),
            now=_utc(self.now),
            agent_id=self.agent_id,
        )


class ChainBody(Strict):
    from_id: Text | None = Field(None, description="with to_id: the shortest path between two nodes")
    to_id: Text | None = None
    task_id: Text | None = Field(None, description="alone: the task's chain")
    limit: int = Field(50, ge=1, le=200)
