"""Which existing Person or Concept node a name stands for in a namespace (app/domain/entities.py
says how names are compared), and the explicit aliases that bind more names to a node.

One read (`entity.resolve`, index-backed: `memory_name`, `entity_alias_key`) answers a whole batch of
names; every writer asks it before deriving an id, so a saved Person, a speaker and a name in a
turn land on one node. Only names the namespace already holds resolve; the others are new.

Layers of one concept (one file name): `app/domain/entities.py` (the pure name rules);
`app/memory/entities.py` (resolution over the graph); `app/api/entities.py` (the merge and split
routes); `app/evaluation/entities.py` (scoring resolution on a labelled set)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime

from app.domain.entities import EntityName, first_name, is_given_name, join_cjk, pick_resolution
from app.domain.inputs import InputError
from app.domain.model import NodeType
from app.extract.names import normalize_name
from app.extract.types import EntityKind, EntityMention, FactMention
from app.memory.errors import ConflictError
from app.stores.queries.entity_queries import EntityQueries


def entity_key(name: str) -> str:
    """The key a name is compared by (app/domain/entities.py): "" when nothing of it is left ("!!!")."""
    return join_cjk(normalize_name(name))


def speaker_name(speaker: str) -> EntityName:
    """The Person a turn's speaker names."""
    return EntityName(NodeType.PERSON, entity_key(speaker) or speaker)


def fact_entity_names(fact: FactMention) -> Iterator[tuple[EntityName, EntityMention | None]]:
    """The fact's subject (a Person, or a Concept when it is a thing whose attribute changed: "billing";
    None for its mention) and the other entities it names."""
    subject_key = entity_key(fact.subject)
    subject_type = NodeType.CONCEPT if fact.subject_kind == EntityKind.THING else NodeType.PERSON
    yield EntityName(subject_type, subject_key), None
    for entity in fact.entities:
        key = entity_key(entity.normalized)
        if key != subject_key:
            node_type = NodeType.PERSON if entity.kind == EntityKind.PERSON else NodeType.CONCEPT
            yield EntityName(node_type, key), entity


def entity_name(node_type: NodeType, name: str) -> EntityName | None:
    """The name's key for `node_type`, or None when nothing of it is left to compare."""
    key = entity_key(name)
    return EntityName(node_type, key) if key else None


def resolve_names(
    queries: EntityQueries, namespace: str, names: Iterable[EntityName], *, first_names: bool = True
) -> dict[EntityName, str]:
    """The existing node each name stands for (names that resolve to none are left out). With
    `first_names`, a first name used alone also resolves to the one Person whose full name starts
    with it, among the namespace's and this call's other names (never when there are two)."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    rows = queries.resolve(namespace=namespace, names=[
        {"type": name.type.value, "key": name.key, "derived": name.derived_id,
         "given": first_names and name.type == NodeType.PERSON and is_given_name(name.key)}
        for name in wanted
    ])  # fmt: skip
    by_row = {EntityName(NodeType(row["type"]), row["key"]): row for row in rows}
    resolved: dict[EntityName, str] = {}
    # Full names first: a first name alone may join one of this batch's full names too.
    full_names: dict[str, set[str]] = {}
    for name in wanted:
        row = by_row[name]
        node = pick_resolution(row["by_name"], row["by_alias"], [])
        if node is not None:
            resolved[name] = node
        given = first_name(name.key) if first_names and name.type == NodeType.PERSON else None
        if given is not None:
            full_names.setdefault(given, set()).add(resolved.get(name, name.derived_id))
    for name in wanted:
        row = by_row[name]
        if name in resolved or not (first_names and name.type == NodeType.PERSON and is_given_name(name.key)):
            continue
        candidates = set(row["by_first_name"]) | full_names.get(name.key, set())
        node = pick_resolution(row["by_name"], row["by_alias"], sorted(candidates))
        if node is not None:
            resolved[name] = node
    return resolved


def alias_names(node_type: NodeType, own: EntityName | None, aliases: Sequence[str]) -> list[tuple[str, str]]:
    """(alias as written, key) for each alias that adds a name (InputError naming `aliases[i]` for
    one with nothing to compare)."""
    found: dict[str, str] = {}
    for index, alias in enumerate(aliases):
        name = entity_name(node_type, alias)
        if name is None:
            raise InputError(f"aliases[{index}]", "must contain a letter or digit")
        if (own is None or name.key != own.key) and name.key not in found:
            found[name.key] = alias
    return [(alias, key) for key, alias in found.items()]


def bind_aliases(
    queries: EntityQueries, namespace: str, node_id: str, node_type: NodeType, aliases: Sequence[tuple[str, str]],
    now: datetime, origin: str, field: str = "aliases",
) -> None:
    """Make each alias name `node_id` (idempotent). An alias another node is named, or is an alias
    of, is refused: ConflictError naming `field[i]` (the caller's transaction rolls back)."""
    if not aliases:
        return
    names = [EntityName(node_type, key) for _, key in aliases]
    holders = resolve_names(queries, namespace, names, first_names=False)
    for index, name in enumerate(names):
        holder = holders.get(name)
        if holder is not None and holder != node_id:
            raise ConflictError(
                f"{field}[{index}]", f"{aliases[index][0]!r} already names {holder!r} (merge the two nodes instead)"
            )
    rows = queries.bind_aliases(namespace=namespace, id=node_id, type=node_type.value, origin=origin, now=now,
               aliases=[{"key": key, "name": alias} for alias, key in aliases])  # fmt: skip
    for index, row in enumerate(rows):
        if row["target_id"] != node_id:  # bound by a concurrent write meanwhile
            raise ConflictError(f"{field}[{index}]", f"{aliases[index][0]!r} already names {row['target_id']!r}")
    queries.set_aliases(namespace=namespace, id=node_id, names=[alias for alias, _ in aliases],
        keys=[key for _, key in aliases])  # fmt: skip


# Merges chain (A into B, then B into C); a loop cannot arise, the bound is a guard.
MAX_REDIRECTS = 16


def follow_redirects(queries: EntityQueries, namespace: str, node_id: str) -> str | None:
    """The node an id merged into another now is (following merges of merges), else None."""
    current, seen = node_id, {node_id}
    for _ in range(MAX_REDIRECTS):
        rows = queries.redirect(namespace=namespace, id=current)
        if not rows:
            break
        current = rows[0]["keep_id"]
        if current in seen:
            break
        seen.add(current)
    return current if current != node_id else None
