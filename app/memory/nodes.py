"""Memory nodes and their relationships: save, link, read, raise, forget.

A save is one Neo4j transaction (node + links, all or nothing), then the node's vector and its
SEMANTIC edges to close neighbours. If the vector cannot be written the node is removed again, so
a failed save leaves nothing behind; a retried save (same id) creates nothing new.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from app.domain.entities import ENTITY_TYPES
from app.domain.importance import ImportanceRules
from app.domain.inputs import (
    InputError,
    NewMemory,
    check_namespace,
    check_node_id,
    content_id,
    namespace_term,
    public_properties,
)
from app.domain.model import SUMMARY_MAX_CHARS, Importance, RelType
from app.domain.tags import temperature, time_scope
from app.extract.names import normalize_name
from app.memory.entities import alias_names, bind_aliases, entity_name, follow_redirects, resolve_names
from app.memory.errors import ConflictError, NotFoundError
from app.memory.records import check_weight, create_link, node_properties
from app.memory.semantic import NodeText, SemanticIndexer, embedding_text
from app.stores.graph import GraphStore, GraphTx
from app.stores.queries.entity_queries import EntityQueries
from app.stores.queries.link_queries import LinkQueries
from app.stores.queries.memory_queries import MemoryQueries, NodeRow
from app.stores.vectors import VectorStore


class MemoryNodes:
    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        semantic: SemanticIndexer,
        importance_rules: ImportanceRules,
        recent_window_minutes: float = 30.0,
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.semantic = semantic
        self.importance_rules = importance_rules
        self.recent_window = timedelta(minutes=recent_window_minutes)

    # -- write -------------------------------------------------------------------------------

    def save(
        self,
        namespace: str,
        memory: NewMemory,
        now: datetime | None = None,
        extra: Mapping[str, Any] | None = None,
        then: Callable[[GraphTx, str], None] | None = None,
    ) -> tuple[dict[str, Any], bool]:
        """Save one memory; returns (node view, created). `extra`: further properties of the new node
        (a task's status); `then(tx, node_id)`: more writes in the same transaction, run only when
        the node is new (a task's HIERARCHY and DEPENDENCY edges).

        A Person or Concept is one node per name (app/memory/entities.py): saved without an id it is
        the node the namespace holds under its name or alias, else the name's derived id (what a
        speaker or a name in a turn gets). A node the write path made up for the name (`placeholder`)
        takes the saved content; one saved before stays as it is. `aliases` bind more names to it."""
        check_namespace(namespace)
        now = now or datetime.now(UTC)
        explicit = check_node_id(memory.id, "id", memory.type) if memory.id else None
        properties = {**self._properties(memory, now), **(extra or {})}
        name = entity_name(memory.type, memory.label) if memory.type in ENTITY_TYPES else None
        aliases = alias_names(memory.type, name, memory.aliases)
        if name is not None:
            properties["name_key"] = name.key

        def work(tx: GraphTx) -> tuple[NodeRow, bool, bool, str]:
            targets = _live_ids(tx, namespace, {f"links[{i}].target_id": link.target_id
                                                for i, link in enumerate(memory.links)})  # fmt: skip
            node_id = explicit or content_id(memory.type, memory.label, memory.content)
            if name is not None:
                holder = resolve_names(EntityQueries(tx), namespace, [name], first_names=False).get(name)
                if explicit is None:
                    node_id = holder or name.derived_id
                elif holder is not None and holder != explicit:
                    raise ConflictError("id", f"{memory.type.value} {memory.label!r} is node {holder!r} already: "
                                        "save it without an id, or merge the two (POST …/entities/merge)")  # fmt: skip
            for field, target in targets.items():
                if target == node_id:
                    raise InputError(field, f"links the memory to itself ({target!r})")
            rows = MemoryQueries(tx).create(
                namespace=namespace,
                namespace_term=namespace_term(namespace),
                id=node_id,
                type=memory.type.value,
                properties=properties,
            )
            if not rows:
                raise NotFoundError("namespace", f"namespace {namespace!r} does not exist")
            row: NodeRow = rows[0]
            created = bool(rows[0]["created"])
            if not created and name is not None and row["node"].get("placeholder"):
                row = EntityQueries(tx).adopt(
                    namespace=namespace, id=node_id, properties=_adopted(properties, row["node"])
                )[0]
                created = True  # the saved content is new: embedded and linked as a new node's
            if created:
                for index, link in enumerate(memory.links):
                    target = targets[f"links[{index}].target_id"]
                    create_link(tx, namespace, link.type, node_id, target, link.weight, now, memory.agent_id)
                if then is not None and rows[0]["created"]:
                    then(tx, node_id)
            if aliases:
                bind_aliases(EntityQueries(tx), namespace, node_id, memory.type, aliases, now, origin="saved")
                row = MemoryQueries(tx).get(namespace=namespace, id=node_id)[0]
            return row, created, bool(rows[0]["created"]), node_id

        row, created, made, node_id = self.graph.write_transaction(work)
        if created:
            try:
                self.semantic.index(namespace, [NodeText(node_id, row["type"], embedding_text(row["node"]))], now)
            except Exception:
                if made:  # a node this save made (not one it took over)
                    MemoryQueries(self.graph).forget(namespace=namespace, id=node_id)
                    self.vectors.delete(namespace, [node_id])
                raise
        return self._view(row["type"], row["node"], now), created

    def link(
        self,
        namespace: str,
        rel_type: RelType,
        source_id: str,
        target_id: str,
        weight: float | None = None,
        agent_id: str | None = None,
    ) -> tuple[dict[str, Any], bool]:
        """Create a relationship unless it exists; a new one records the writing agent."""
        check_namespace(namespace)
        check_node_id(source_id, "source_id")
        check_node_id(target_id, "target_id")
        if source_id == target_id:
            raise InputError("target_id", "a relationship needs two different nodes")
        now = datetime.now(UTC)

        def work(tx: GraphTx) -> tuple[dict[str, Any], bool]:
            ends = _live_ids(tx, namespace, {"source_id": source_id, "target_id": target_id})
            if ends["source_id"] == ends["target_id"]:
                raise InputError("target_id", "a relationship needs two different nodes (one was merged into it)")
            row = create_link(tx, namespace, rel_type, ends["source_id"], ends["target_id"], weight, now, agent_id)
            return row, bool(row.pop("created"))

        return self.graph.write_transaction(work)

    def raise_importance_and_tags(
        self, namespace: str, node_id: str, importance: Importance | None, tags: list[str] | None
    ) -> dict[str, Any]:
        """PATCH: importance may only go up (an explicit raise); tags are replaced."""
        current = self._get_row(namespace, node_id)
        updates: dict[str, Any] = {}
        if importance is not None:
            stored = Importance(current["node"]["importance"])
            if importance.rank < stored.rank:
                raise InputError("importance", f"can only be raised (it is {stored.value})")
            updates["importance"] = importance.value
        if tags is not None:
            updates["tags"] = tags
        if not updates:
            raise InputError("body", "nothing to change: give importance and/or tags")
        now = datetime.now(UTC)
        updates["updated_at"] = now
        row = MemoryQueries(self.graph).update(namespace=namespace, id=node_id, properties=updates)[0]
        return self._view(row["type"], row["node"], now)

    def forget(self, namespace: str, node_id: str) -> None:
        """Explicit forgetting: the node, every relationship on it, and its vector."""
        check_namespace(namespace)
        check_node_id(node_id)
        if not MemoryQueries(self.graph).forget(namespace=namespace, id=node_id)[0]["deleted"]:
            raise NotFoundError("id", f"node {node_id!r} does not exist")
        self.vectors.delete(namespace, [node_id])

    # -- read --------------------------------------------------------------------------------

    def get(self, namespace: str, node_id: str, with_relationships: bool = True) -> dict[str, Any]:
        """The node; an id merged into another (POST …/entities/merge) answers the survivor, with
        `redirected_from` naming the id asked for."""
        try:
            row = self._get_row(namespace, node_id)
            asked = None
        except NotFoundError:
            survivor = follow_redirects(EntityQueries(self.graph), namespace, node_id)
            if survivor is None:
                raise
            row, asked, node_id = self._get_row(namespace, survivor), node_id, survivor
        view = self._view(row["type"], row["node"], datetime.now(UTC))
        if asked is not None:
            view["redirected_from"] = asked
        if with_relationships:
            view["relationships"] = LinkQueries(self.graph).of_node(namespace=namespace, id=node_id)
        return view

    # -- internals ---------------------------------------------------------------------------

    def _get_row(self, namespace: str, node_id: str) -> NodeRow:
        check_namespace(namespace)
        check_node_id(node_id)
        rows = MemoryQueries(self.graph).get(namespace=namespace, id=node_id)
        if not rows:
            raise NotFoundError("id", f"node {node_id!r} does not exist")
        return rows[0]

    def _properties(self, memory: NewMemory, now: datetime) -> dict[str, Any]:
        if not memory.content.strip():
            raise InputError("content", "must not be empty")
        if not memory.label.strip():
            raise InputError("label", "must not be empty")
        if memory.aliases and memory.type not in ENTITY_TYPES:
            raise InputError("aliases", f"only a Person or Concept has aliases, not a {memory.type.value}")
        if memory.summary is not None and len(memory.summary) > SUMMARY_MAX_CHARS:
            raise InputError("summary", f"at most {SUMMARY_MAX_CHARS} characters ({len(memory.summary)} given)")
        if not 0.0 <= memory.confidence <= 1.0:
            raise InputError("confidence", "must be within [0, 1]")
        for index, link in enumerate(memory.links):
            check_node_id(link.target_id, f"links[{index}].target_id")
            check_weight(link.weight, f"links[{index}].weight")
        # An explicit importance is the caller's decision; the rules decide when none is given.
        importance = memory.importance or self.importance_rules.detect(f"{memory.label}\n{memory.content}")
        return node_properties(
            label=memory.label,
            content=memory.content,
            importance=importance,
            now=now,
            source=memory.source,
            summary=memory.summary,
            confidence=memory.confidence,
            source_turn_ids=memory.source_turn_ids,
            tags=memory.tags,
            agent_id=memory.agent_id,
            private=True if memory.private else None,
            subject=memory.subject,
            slot=memory.slot,
            value=memory.value,
            # Keyed as the write path keys facts, so recall's entity and slot seeds find agent facts too.
            subject_key=normalize_name(memory.subject) if memory.subject else None,
            value_key=normalize_name(memory.value) if memory.value else None,
            # A fact holds from when it is saved unless told otherwise (slot seeds read by validity start).
            valid_from=memory.valid_from or (now if memory.slot else None),
            valid_to=memory.valid_to,
            superseded_by=memory.superseded_by,
            event_time=memory.event_time,
        )

    def _view(self, node_type: str, node: dict[str, Any], now: datetime) -> dict[str, Any]:
        """The stored node plus its derived tags (computed now, never stored)."""
        return {
            "type": node_type,
            **public_properties(node),
            "temperature": temperature(node.get("last_accessed"), now).value,
            "time_scope": time_scope(node["created_at"], now, self.recent_window).value,
        }


def _live_ids(tx: GraphTx, namespace: str, ids: Mapping[str, str]) -> dict[str, str]:
    """Each field's node id, an id merged into another replaced by its survivor (so old ids still
    resolve); NotFoundError naming the field of one that does not exist."""
    missing = set(MemoryQueries(tx).missing_ids(namespace=namespace, ids=list(ids.values()))[0]["missing"])
    live = dict(ids)
    for field, node_id in ids.items():
        if node_id in missing:
            survivor = follow_redirects(EntityQueries(tx), namespace, node_id)
            if survivor is None:
                raise NotFoundError(field, f"node {node_id!r} does not exist")
            live[field] = survivor
    return live


# What a saved memory does not take from the node it takes over: its history and activation.
_KEPT_ON_ADOPTION = frozenset({"activation", "activation_base", "created_at", "last_accessed", "access_count"})


def _adopted(saved: Mapping[str, Any], node: Mapping[str, Any]) -> dict[str, Any]:
    """The properties a made-up entity node takes from a saved memory of its name: the saved
    content and fields, the higher importance of the two, and both sets of source turns."""
    properties = {key: value for key, value in saved.items() if key not in _KEPT_ON_ADOPTION}
    if Importance(node["importance"]).rank > Importance(saved["importance"]).rank:
        properties["importance"] = node["importance"]
    turns = list(node.get("source_turn_ids") or [])
    properties["source_turn_ids"] = turns + [t for t in saved.get("source_turn_ids", []) if t not in turns]
    return properties
