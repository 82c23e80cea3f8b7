"""Request bodies of the v1 API. Unknown fields are refused, so a typo is an error, not a no-op."""

from __future__ import annotations

from typing import Annotated

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from app.domain.inputs import NewLink, NewMemory
from app.domain.model import SUMMARY_MAX_CHARS, Importance, NodeType, RelType, Source

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
