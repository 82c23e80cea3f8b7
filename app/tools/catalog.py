"""The seven tools. Each runs the body function of the REST route it wraps (app/api/*), with the
route's own request model where the route has one, so REST, `/tools/{name}` and MCP answer alike."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.analytics.named_queries import AnalyticsCatalog
from app.domain.inputs import derive_summary
from app.domain.keys import Role
from app.domain.model import Importance, NodeType
from app.operations.access import Access
from app.operations.analytics import query_graph
from app.operations.fields import MAX_CONTENT_CHARS, Flag, Number, Strict, Text, Whole
from app.operations.forget import run_forget
from app.operations.memories import search_memories, store_memory, visible_node
from app.operations.recall import follow_chain, neighbourhood_of, recall_cards
from app.operations.schemas import ChainBody, CypherBody, ForgetBody, MemoryBody, MemorySearchQuery, RecallBody
from app.recall.neighbourhood import MAX_DEPTH, MAX_LIMIT
from app.recall.relevance import DEFAULT_MIN_SCORE
from app.runtime import Runtime
from app.tools.definition import Tool

NOTE_LABEL_CHARS = 80


class NodeArguments(Strict):
    node_id: Text = Field(description="the node's id, '<type>:<key>', e.g. from a recall card's `id`")


class RelatedArguments(Strict):
    node_id: Text = Field(description="the node's id, '<type>:<key>'")
    depth: Whole = Field(1, ge=1, le=MAX_DEPTH, description=f"hops away from the node (1-{MAX_DEPTH})")
    limit: Whole = Field(20, ge=1, le=MAX_LIMIT, description=f"nodes at most (1-{MAX_LIMIT})")


class NoteArguments(Strict):
    """A note: a memory with few fields to fill; saved as POST …/memories would save `to_body()`."""

    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS, description="what to remember, in plain words")
    label: str | None = Field(
        None, min_length=1, max_length=500, description="a short name for it (default: the start of the content)"
    )
    type: NodeType = Field(
        NodeType.KNOWLEDGE,
        description="Knowledge (a fact or note, the default), Task, Experience (what happened and what was learnt), "
        "Person, Concept, Document, File, Episode or Dialogue",
    )
    importance: Importance | None = Field(
        None, description="how long it should last (default: detected from the text); MUST_REMEMBER never fades"
    )
    tags: list[Text] = Field(default_factory=list, max_length=64, description="tags to find it by (memory_search)")
    private: Flag = Field(False, description="true: only your own agent (and the namespace's admins) will see it")

    def to_body(self) -> MemoryBody:
        return MemoryBody(
            type=self.type,
            label=self.label or derive_summary(self.content, NOTE_LABEL_CHARS),
            content=self.content,
            importance=self.importance,
            tags=self.tags,
            private=self.private,
        )


class RecallArguments(RecallBody):
    """The recall route's body with a `min_score` by default (the route's is 0): a model given cards
    takes them as relevant, so an off-topic question answers no card and says so."""

    min_score: Number = Field(
        DEFAULT_MIN_SCORE,
        ge=0.0,
        le=1.0,
        description=f"0-1 (default {DEFAULT_MIN_SCORE:g}): no card unless the best card's `relevance` reaches this, "
        "and then `nothing_relevant` true and a `note`; 0: always the cards",
    )


class GraphQueryArguments(CypherBody):
    """The Cypher route's body with a smaller default row limit, sized for a context window."""

    limit: Whole | None = Field(50, ge=1, le=10_000, description="rows at most (default 50)")


def _save_note(access: Access, runtime: Runtime, arguments: NoteArguments) -> dict[str, Any]:
    node, _ = store_memory(access, runtime, arguments.to_body())
    return node


def _read_node(access: Access, runtime: Runtime, arguments: NodeArguments) -> dict[str, Any]:
    return visible_node(access, arguments.node_id, runtime)


def _related(access: Access, runtime: Runtime, arguments: RelatedArguments) -> dict[str, Any]:
    return neighbourhood_of(access, runtime, arguments.node_id, arguments.depth, arguments.limit)


_ANALYTICS = ", ".join(AnalyticsCatalog.load().names())

_TOOLS = [
    Tool(
        name="recall_memory",
        description=(
            "Search the team's shared long-term memory with a question or topic in natural language. Use it "
            "first, whenever past conversations, facts, decisions, people or tasks could help. Returns memory "
            "cards, best first: id, type, a summary of at most 150 characters (of a longer memory, the sentence "
            "the query is about, with '…' and `excerpt`), score, `relevance` (0-1, how well it matches the "
            "query), the parts of the score, source turn ids and times; no full texts (read_memory_node gives "
            "one in full). `top_k` cards (default 10, at most 100); `token_budget` cuts them to fit that many "
            f"tokens. When no card reaches a relevance of `min_score` (default {DEFAULT_MIN_SCORE:g}), the memory "
            "holds nothing about the query: no card, `nothing_relevant` true and a `note` saying so. "
            "Also `took_ms` and timing stats."
        ),
        arguments=RecallArguments,
        role=Role.READER,
        run=recall_cards,
    ),
    Tool(
        name="read_memory_node",
        description=(
            "Read one memory in full by its id (from a recall card or a listing): its whole content (up to "
            "64 KB, usually a few sentences), type, importance, tags, times, the agent that wrote it, and every "
            "relationship it has (type, other end, weight). Use it when a card's summary is not enough."
        ),
        arguments=NodeArguments,
        role=Role.READER,
        run=_read_node,
    ),
    Tool(
        name="save_memory_note",
        description=(
            "Save a note to the team's long-term memory so that you and other agents can recall it later: a "
            "fact, a decision, a lesson learnt, a task. Write `content` as a self-contained statement (who, "
            "what, when). Saving the same note again changes nothing. Returns the saved memory: its id, the "
            "stored fields (content, summary, importance, tags, times) and its derived tags. Needs a writer key."
        ),
        arguments=NoteArguments,
        role=Role.WRITER,
        run=_save_note,
    ),
    Tool(
        name="discover_related",
        description=(
            "Explore what a memory is connected to: the nodes within `depth` hops (default 1, at most 3), "
            "nearest and strongest first, each with id, type, summary, distance, strength and the relationship "
            "types on the way. At most `limit` nodes (default 20, at most 200), about 60 tokens each. Use it "
            "to widen context around a card that matters."
        ),
        arguments=RelatedArguments,
        role=Role.READER,
        run=_related,
    ),
    Tool(
        name="focus_on_chain",
        description=(
            "Follow a chain of memories. With `task_id`: the task, what it is part of, its subtasks, what it "
            "depends on and what follows it, in order. With `from_id` and `to_id`: the shortest path (at most 6 "
            "hops) between two memories, as nodes and relationship types. Each node: id, type, summary, source "
            "turn ids; at most `limit` nodes (default 50). Use it to see how a task or a story hangs together."
        ),
        arguments=ChainBody,
        role=Role.READER,
        run=follow_chain,
    ),
    Tool(
        name="memory_search",
        description=(
            "List memories by filters rather than by meaning: type, time they were saved (`since`, `until`), "
            "the agent that wrote them, minimum importance, tags (all of them). Newest first, `limit` cards per "
            "page (default 20, at most 200): id, type, label, summary, importance, tags, created_at, agent_id, "
            "about 60 tokens each. Pass `next_cursor` back as `cursor` for the next page (null: no more). Use "
            "it for 'what did agent X save this week', 'all open tasks', 'everything tagged Y'."
        ),
        arguments=MemorySearchQuery,
        role=Role.READER,
        run=search_memories,
    ),
    Tool(
        name="graph_query",
        description=(
            "Ask the memory graph an analytical question. Either `name` a ready query (with `params`): "
            f"{_ANALYTICS}; or write read-only Cypher in `query`, reading only `(m:Memory {{namespace: "
            "$namespace}})` nodes (the server binds $namespace; writes are refused). Returns `columns` and "
            "`rows` (nodes as property maps), at most `limit` rows (default 50). A namespace holding other "
            "agents' private memories answers this only to admin keys."
        ),
        arguments=GraphQueryArguments,
        role=Role.READER,
        run=query_graph,
    ),
]

TOOLS: dict[str, Tool] = {tool.name: tool for tool in _TOOLS}

# Tools listed to admin keys only, beside the seven (GET /v1/tools, MCP): what a model may be given to
# act on the memory as a whole rather than to use it.
ADMIN_TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in [
        Tool(
            name="forget_memories",
            description=(
                "Forget for good what a filter names, with everything derived from it alone: the turns of an "
                "agent (`agent_id`), of a session (`session_id`), given turn ids (`turn_ids`), saved memories "
                "with all of some `tags`, said or saved between `since` and `until` (every field given must "
                "hold; at least one). Facts another surviving turn also states stay. Set `dry_run` first to "
                "see the counts of what would go; the answer counts what went and names the audit record. "
                "Only when a user asks to forget something: it cannot be undone."
            ),
            arguments=ForgetBody,
            role=Role.ADMIN,
            run=run_forget,
        ),
    ]
}
