"""Merging two Person or Concept nodes into one, and undoing it from the same record.

A merge is one transaction: every relationship of the merged node moves to the survivor (facts'
REFERENCE edges, task links, the speaker's turns), the survivor gains its source turns, its name
and aliases (so writers resolve that name to the survivor), and the merged node is removed; an
`:EntityMerge` record keeps what the merge took and gave, so the old id answers the survivor
(`GET …/nodes/{old}`) and a split restores the node, its relationships and aliases and takes back
from the survivor exactly what the merge added. What reached the survivor after the merge (a new
turn of the merged name) stays with it. Both are idempotent: the same merge or split again changes
nothing and answers the record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextlib import suppress
from datetime import UTC, datetime
from typing import Any

from app.domain.entities import ENTITY_TYPES
from app.domain.inputs import InputError, check_node_id, namespace_term, stable_digest
from app.domain.model import NodeType, RelType
from app.memory.entities import follow_redirects
from app.memory.errors import ConflictError, NotFoundError
from app.memory.nodes import MemoryNodes
from app.memory.records import create_links, oriented
from app.memory.semantic import NodeText, SemanticIndexer, embedding_text
from app.stores.graph import GraphStore, GraphTx
from app.stores.queries.entity_queries import EntityQueries
from app.stores.queries.memory_queries import MemoryQueries
from app.stores.vectors import VectorStore


def merge_record_id(keep_id: str, merged_id: str) -> str:
    return f"merge:{stable_digest(keep_id, merged_id)}"


def _encode(value: Any) -> str:
    """JSON of node or relationship properties, times as {"$datetime": iso} (Neo4j has no map property)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=_encode_time)


def _encode_time(value: Any) -> Any:
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    raise TypeError(f"cannot record {value!r}")


def _decode(text: str) -> Any:
    return json.loads(
        text, object_hook=lambda o: datetime.fromisoformat(o["$datetime"]) if set(o) == {"$datetime"} else o
    )


class EntityMerges:
    def __init__(self, graph: GraphStore, vectors: VectorStore, semantic: SemanticIndexer, nodes: MemoryNodes) -> None:
        self.nodes = nodes
        self.graph = graph
        self.vectors = vectors
        self.semantic = semantic

    def merge(self, namespace: str, keep_id: str, merged_id: str, agent_id: str | None = None) -> dict[str, Any]:
        check_node_id(keep_id, "keep_id")
        check_node_id(merged_id, "merged_id")
        if keep_id == merged_id:
            raise InputError("merged_id", "must differ from keep_id")
        now = datetime.now(UTC)
        record, changed = self.graph.write_transaction(
            lambda tx: self._merge(tx, namespace, keep_id, merged_id, agent_id, now)
        )
        if changed:
            self.vectors.delete(namespace, [merged_id])
        return self._answer(namespace, record, changed)

    def split(
        self, namespace: str, merge_id: str | None, merged_id: str | None, agent_id: str | None = None
    ) -> dict[str, Any]:
        now = datetime.now(UTC)
        record, changed = self.graph.write_transaction(
            lambda tx: self._split(tx, namespace, merge_id, merged_id, agent_id, now)
        )
        if changed:
            merged_id = record["merged_id"]
            row = MemoryQueries(self.graph).get(namespace=namespace, id=merged_id)[0]
            self.semantic.index(namespace, [NodeText(merged_id, row["type"], embedding_text(row["node"]))], now)
        return self._answer(namespace, record, changed)

    # -- merge -------------------------------------------------------------------------------------

    def _merge(
        self, tx: GraphTx, namespace: str, keep_id: str, merged_id: str, agent_id: str | None, now: datetime
    ) -> tuple[dict[str, Any], bool]:
        merge_id = merge_record_id(keep_id, merged_id)
        memories, entities = MemoryQueries(tx), EntityQueries(tx)
        merged = memories.get(namespace=namespace, id=merged_id)
        if not merged:
            found = entities.record(namespace=namespace, merge_id=None, merged_id=merged_id)
            if found and found[0]["record"]["keep_id"] == keep_id:
                return found[0]["record"], False  # merged already
            if found:
                raise ConflictError("merged_id", f"{merged_id!r} was merged into {found[0]['record']['keep_id']!r}")
            raise NotFoundError("merged_id", f"node {merged_id!r} does not exist")
        keep = memories.get(namespace=namespace, id=keep_id)
        if not keep:
            survivor = follow_redirects(entities, namespace, keep_id)
            if survivor is not None:
                raise ConflictError("keep_id", f"{keep_id!r} was merged into {survivor!r}: merge into that")
            raise NotFoundError("keep_id", f"node {keep_id!r} does not exist")
        node_type, survivor_node = keep[0]["type"], keep[0]["node"]
        merged_type, merged_node = merged[0]["type"], merged[0]["node"]
        if NodeType(node_type) not in ENTITY_TYPES:
            raise InputError("keep_id", f"only Person and Concept nodes merge, not a {node_type}")
        if merged_type != node_type:
            raise InputError("merged_id", f"a {merged_type} does not merge into a {node_type}")

        relationships = entities.node_relationships(namespace=namespace, id=merged_id)
        moved = [row for rel in relationships if (row := _moved(rel, merged_id, keep_id)) is not None]
        created = create_links(tx, namespace, moved)
        added = [{key: row[key] for key in ("type", "source_id", "target_id")} for row in created if row["created"]]
        moved_alias_keys = entities.repoint_aliases(namespace=namespace, from_id=merged_id, to_id=keep_id)
        turns = [t for t in merged_node.get("source_turn_ids", []) if t not in survivor_node.get("source_turn_ids", [])]
        name_key = merged_node.get("name_key")
        entities.update_survivor(
            namespace=namespace, id=keep_id, turn_ids=turns, merged_id=merged_id, name_key=name_key, now=now
        )
        memories.forget(namespace=namespace, id=merged_id)
        # The merged node's name names the survivor from now on (an alias the split removes again).
        alias_names: list[str] = []
        if name_key and name_key != (survivor_node.get("name_key") or name_key):
            label = merged_node.get("label", name_key)
            bound = entities.bind_aliases(
                namespace=namespace,
                id=keep_id,
                type=node_type,
                origin=merge_id,
                now=now,
                aliases=[{"key": name_key, "name": label}],
            )
            if bound[0]["target_id"] == keep_id:
                alias_names = [label]
                entities.set_aliases(namespace=namespace, id=keep_id, names=alias_names, keys=[name_key])
        record = {
            "keep_id": keep_id,
            "merged_id": merged_id,
            "type": node_type,
            "state": "merged",
            "merged_at": now,
            "merged_by": agent_id,
            "node_json": _encode(merged_node),
            "relationships_json": _encode(relationships),
            "added_json": _encode(added),
            "added_turn_ids": turns,
            "name_key_set": survivor_node.get("name_key") is None and name_key is not None,
            "moved_alias_keys": moved_alias_keys[0]["keys"],
            "alias_names": alias_names,
            "split_at": None,
            "split_by": None,
        }
        saved = entities.save_record(namespace=namespace, merge_id=merge_id, record=record)
        return saved[0]["record"], True

    # -- split -------------------------------------------------------------------------------------

    def _split(
        self, tx: GraphTx, namespace: str, merge_id: str | None, merged_id: str | None, agent_id: str | None,
        now: datetime,
    ) -> tuple[dict[str, Any], bool]:  # fmt: skip
        field = "merge_id" if merge_id is not None else "merged_id"
        memories, entities = MemoryQueries(tx), EntityQueries(tx)
        found = entities.record(namespace=namespace, merge_id=merge_id, merged_id=merged_id)
        if not found:
            raise NotFoundError(field, f"no merge {merge_id or merged_id!r} in force")
        record = found[0]["record"]
        if record["state"] == "split":
            return record, False
        keep_id, merged_id = record["keep_id"], record["merged_id"]
        if not memories.get(namespace=namespace, id=keep_id):
            raise ConflictError(field, f"the survivor {keep_id!r} is gone: nothing to split from")
        node = _decode(record["node_json"])
        properties = {key: value for key, value in node.items() if key not in {"namespace", "id", "namespace_term"}}
        restored = memories.create(
            namespace=namespace,
            namespace_term=namespace_term(namespace),
            id=merged_id,
            type=record["type"],
            properties=properties,
        )
        if not restored[0]["created"]:
            raise ConflictError(field, f"a node {merged_id!r} exists again: merge or forget it first")
        entities.delete_links(namespace=namespace, links=_decode(record["added_json"]))
        create_links(tx, namespace, [
            {"type": rel["type"], "source_id": rel["source_id"], "target_id": rel["target_id"],
             "properties": rel["properties"]}
            for rel in _decode(record["relationships_json"])
        ])  # fmt: skip
        entities.restore_survivor(
            namespace=namespace,
            id=keep_id,
            turn_ids=record["added_turn_ids"],
            merged_id=merged_id,
            name_key_set=record["name_key_set"],
            now=now,
        )
        if record["alias_names"]:
            entities.unset_aliases(
                namespace=namespace, id=keep_id, names=record["alias_names"], keys=[node.get("name_key")]
            )
        entities.restore_aliases(
            namespace=namespace,
            type=record["type"],
            keep_id=keep_id,
            merged_id=merged_id,
            moved_keys=record["moved_alias_keys"],
            merge_id=record["id"],
        )
        marked = entities.mark_split(namespace=namespace, merge_id=record["id"], now=now, agent_id=agent_id)
        return marked[0]["record"], True

    # -- answer ------------------------------------------------------------------------------------

    def _answer(self, namespace: str, record: Mapping[str, Any], changed: bool) -> dict[str, Any]:
        shown = record["keep_id"] if record["state"] == "merged" else record["merged_id"]
        answer: dict[str, Any] = {
            "merge_id": record["id"],
            "keep_id": record["keep_id"],
            "merged_id": record["merged_id"],
            "state": record["state"],
            "changed": changed,
            "moved_relationships": len(_decode(record["added_json"])),
        }
        with suppress(NotFoundError):  # forgotten since: no node to show
            answer["node"] = self.nodes.get(namespace, shown, with_relationships=False)
        return answer


def _moved(rel: Mapping[str, Any], merged_id: str, keep_id: str) -> dict[str, Any] | None:
    """The relationship as the survivor's (`link.create` row), None for one between the two nodes."""
    source = keep_id if rel["source_id"] == merged_id else rel["source_id"]
    target = keep_id if rel["target_id"] == merged_id else rel["target_id"]
    if source == target:
        return None
    rel_type = RelType(rel["type"])
    source, target = oriented(rel_type, source, target)
    return {"type": rel_type.value, "source_id": source, "target_id": target, "properties": rel["properties"]}
