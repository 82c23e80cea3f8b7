"""Namespaces, nodes and relationships as the memory graph's routes answer them."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from hippograph.responses.base import OpenBody, ResponseBody
from hippograph.vocabulary import Importance, NodeType, RelType

# -- namespaces ------------------------------------------------------------------------------------


class NamespaceResponse(ResponseBody):
    """A namespace and its settings."""

    name: str = Field(description="the namespace's name")
    capacity: int = Field(description="node capacity before pruning")
    low_water_ratio: float = Field(description="pruning brings the node count down to capacity x this ratio")
    created_at: datetime = Field(description="when the namespace was created")


class NamespaceList(ResponseBody):
    """The namespaces a key may see."""

    items: list[NamespaceResponse] = Field(
        description="by name: every namespace for the bootstrap admin, else the key's own"
    )


class TemperatureCounts(ResponseBody):
    """Memory nodes per temperature, from their last access (app/domain/tags.py)."""

    hot: int = Field(description="last accessed within the last hour")
    warm: int = Field(description="last accessed within the last 24 hours, not the last hour")
    cold: int = Field(description="last accessed longer ago, or never")


class NamespaceDetail(NamespaceResponse):
    """A namespace's settings and its content counts."""

    counts: dict[str, int] = Field(description="memory nodes per node type (types with none are left out)")
    temperatures: TemperatureCounts = Field(description="memory nodes per temperature (they add up to `total`)")
    total: int = Field(description="memory nodes in all")
    vectors: int = Field(
        description="vectors stored for the namespace (points: a long text's passages, a turn's sentence "
        "points and its context point count one each)"
    )


class DeletedCounts(ResponseBody):
    """What erasing a namespace removed."""

    nodes: int = Field(description="memory nodes erased")
    hot_keys: int = Field(description="Redis keys of the hot state erased")
    keys: int = Field(description="API keys of the namespace revoked")


class NamespaceDeleted(ResponseBody):
    """A namespace was erased."""

    deleted: DeletedCounts = Field(description="what was removed")


class ImportCounts(ResponseBody):
    """What an import loaded."""

    nodes: int = Field(description="nodes imported")
    relationships: int = Field(description="relationships imported")


class ImportResponse(ResponseBody):
    """An export was loaded into an empty namespace."""

    imported: ImportCounts = Field(description="what was loaded")


# -- nodes and relationships -----------------------------------------------------------------------


class RelationshipProperties(OpenBody):
    """A relationship's stored properties (structural ones carry only `protected` and `created_at`)."""

    protected: bool = Field(description="structural (HIERARCHY, DEPENDENCY, TEMPORAL): never decayed or pruned")
    created_at: datetime = Field(description="when the relationship was created")
    weight: float | None = Field(None, description="learned types: strength in (0, 1], decays and is reinforced")
    weight_base: float | None = Field(None, description="learned types: the weight decay starts from")
    last_reinforced: datetime | None = Field(None, description="learned types: when last strengthened")
    co_activations: int | None = Field(None, description="learned types: times both ends were recalled together")
    agent_id: str | None = Field(None, description="the agent that asked for the relationship, if one did")


class Relationship(ResponseBody):
    """A relationship between two nodes of the namespace."""

    type: RelType = Field(description="the relationship type")
    source_id: str = Field(description="the start node's id (symmetric types: the smaller id)")
    target_id: str = Field(description="the end node's id")
    properties: RelationshipProperties = Field(description="the stored properties")


class NodeResponse(OpenBody):
    """A memory node: its stored properties (nodes written by the ingest tracks carry more, e.g.
    `speaker`, `session_id`) and its derived tags."""

    id: str = Field(description="'<type>:<key>', unique in the namespace")
    type: NodeType = Field(description="the node type")
    namespace: str = Field(description="the namespace the node belongs to")
    label: str = Field(description="a short name")
    summary: str = Field(description="at most 150 characters; derived from the content unless given")
    content: str = Field(description="the full text")
    importance: Importance = Field(description="how much it matters: decay and pruning follow it")
    activation: float = Field(description="current activation (decays; recall reinforces it)")
    activation_base: float = Field(description="the activation decay starts from")
    created_at: datetime = Field(description="when the node was created")
    updated_at: datetime = Field(description="when the node last changed")
    last_accessed: datetime = Field(description="when a recall last returned it")
    access_count: int = Field(description="how many recalls returned it")
    source: str = Field(description="user_stated, inferred, imported or agent")
    confidence: float = Field(description="0-1: how sure the memory is")
    source_turn_ids: list[str] = Field(description="the conversation turns it was learned from")
    tags: list[str] = Field(description="the caller's tags")
    temperature: str = Field(description="derived now from last_accessed: HOT (within 1 h), WARM (24 h) or COLD")
    time_scope: str = Field(description="derived now from created_at: recent, or older scopes")
    agent_id: str | None = Field(None, description="the agent that wrote it")
    private: bool | None = Field(None, description="true: seen only by its agent's keys and the namespace's admins")
    subject: str | None = Field(None, description="a fact's subject")
    slot: str | None = Field(None, description="a fact's slot (what about the subject it states)")
    value: str | None = Field(None, description="a fact's value")
    valid_from: datetime | None = Field(None, description="a fact: from when it holds")
    valid_to: datetime | None = Field(None, description="a fact: until when it held (it was superseded)")
    superseded_by: str | None = Field(None, description="a fact: the id of the fact that replaced it")
    event_time: datetime | None = Field(None, description="an event: when it happened")
    timestamp: datetime | None = Field(None, description="a dialogue turn: when it was said")
    name_key: str | None = Field(None, description="a Person or Concept: its normalized name (one node per name)")
    aliases: list[str] | None = Field(None, description="a Person or Concept: more names bound to it")
    merged_ids: list[str] | None = Field(None, description="ids merged into this node (they answer it)")
    redirected_from: str | None = Field(None, description="the id asked for, when it was merged into this node")


class NodeDetail(NodeResponse):
    """A memory node with every relationship touching it."""

    relationships: list[Relationship] = Field(description="every relationship on the node, by type and ends")


class DecayPoint(ResponseBody):
    """One point of a projected decay curve."""

    hours: float = Field(description="hours from now")
    activation: float = Field(description="the activation then, if nothing recalls the node before")


class DecayCurve(ResponseBody):
    """A node's activation over the next days by the decay formula (app/domain/decay.py), from its anchor."""

    id: str = Field(description="the node's id")
    importance: Importance = Field(description="the node's importance: it sets the half-life")
    half_life_hours: float | None = Field(description="hours for activation to halve; null: it never decays")
    activation_base: float = Field(description="the anchor activation (at the last access)")
    last_accessed: datetime = Field(description="the anchor time")
    soft_forget_threshold: float = Field(description="below this activation the node is soft-forgotten")
    points: list[DecayPoint] = Field(description="(hours from now, activation), from now on, evenly spaced")
