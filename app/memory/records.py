"""How nodes and relationships are stored: their properties at creation, and link creation.

Every writer (saved memories, ingested turns, imports) builds nodes and relationships here, so a
node always carries the same bookkeeping properties whoever wrote it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any, cast

from app.domain.decay import INITIAL_ACTIVATION
from app.domain.inputs import InputError, check_storable_time, derive_summary
from app.domain.model import Importance, RelType, Source
from app.stores.graph import GraphTx
from app.stores.queries.link_queries import CreateRow, LinkQueries, NewLink


def node_properties(
    *,
    label: str,
    content: str,
    importance: Importance,
    now: datetime,
    source: Source,
    summary: str | None = None,
    confidence: float = 1.0,
    source_turn_ids: Iterable[str] = (),
    tags: Iterable[str] = (),
    **optional: Any,
) -> dict[str, Any]:
    """A new node's properties; `optional` ones (agent_id, subject, slot, value, valid_from, …) are
    stored only when not None."""
    properties: dict[str, Any] = {
        "label": label,
        "summary": summary if summary is not None else derive_summary(content),
        "content": content,
        "importance": importance.value,
        "activation": INITIAL_ACTIVATION,
        "activation_base": INITIAL_ACTIVATION,
        "created_at": now,
        "updated_at": now,
        "last_accessed": now,
        "access_count": 0,
        "source": source.value,
        "confidence": confidence,
        "source_turn_ids": list(source_turn_ids),
        "tags": list(tags),
    }
    properties.update({key: value for key, value in optional.items() if value is not None})
    return properties


def relationship_properties(rel_type: RelType, weight: float | None, now: datetime) -> dict[str, Any]:
    if rel_type.protected:
        return {"protected": True, "created_at": now}
    w = 1.0 if weight is None else weight
    return {
        "protected": False,
        "weight": w,
        "weight_base": w,
        "created_at": now,
        "last_reinforced": now,
        "co_activations": 0,
    }


def oriented(rel_type: RelType, source_id: str, target_id: str) -> tuple[str, str]:
    """Symmetric types are stored once per pair, from the smaller id to the larger."""
    if rel_type.symmetric and target_id < source_id:
        return target_id, source_id
    return source_id, target_id


def check_weight(weight: float | None, field: str) -> None:
    if weight is not None and not 0.0 < weight <= 1.0:
        raise InputError(field, "must be in (0, 1]")


def link_row(
    rel_type: RelType,
    source_id: str,
    target_id: str,
    weight: float | None,
    now: datetime,
    agent_id: str | None = None,
) -> dict[str, Any]:
    """One relationship to create, oriented and with its properties (for `create_links`); a link an
    agent asked for records its `agent_id`."""
    check_weight(weight, "weight")
    source_id, target_id = oriented(rel_type, source_id, target_id)
    properties = relationship_properties(rel_type, weight, now)
    if agent_id is not None:
        properties["agent_id"] = agent_id
    # A plain dict, not `NewLink`, while app/memory/semantic.py collects them as such (not converted yet).
    return {"type": rel_type.value, "source_id": source_id, "target_id": target_id, "properties": properties}


def create_links(tx: GraphTx, namespace: str, rows: Iterable[Mapping[str, Any]]) -> list[CreateRow]:
    """Create the relationships that do not exist yet (idempotent); each comes back as its type,
    source_id, target_id and `created`. A pair repeated in `rows` is created once."""
    distinct = list({(r["type"], r["source_id"], r["target_id"]): r for r in rows}.values())
    return LinkQueries(tx).create(namespace=namespace, links=cast("list[NewLink]", distinct)) if distinct else []


def create_link(
    tx: GraphTx,
    namespace: str,
    rel_type: RelType,
    source_id: str,
    target_id: str,
    weight: float | None,
    now: datetime,
    agent_id: str | None = None,
) -> dict[str, Any]:
    """Create one relationship unless it exists; returns it (type, ends, properties) with a `created` flag."""
    row = link_row(rel_type, source_id, target_id, weight, now, agent_id)
    created = create_links(tx, namespace, [row])[0]["created"]
    [link] = LinkQueries(tx).get(namespace=namespace, type=row["type"], source_id=row["source_id"],
                                 target_id=row["target_id"])  # fmt: skip
    return {**link, "created": created}


# --- what each stored property holds (imports are checked against it) ------------------------------

PropertyCheck = Callable[[Any], str | None]  # the problem with a value, or None


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) else f"expected a string, got {value!r}"


def _texts(value: Any) -> str | None:
    ok = isinstance(value, list) and all(isinstance(item, str) for item in value)
    return None if ok else f"expected a list of strings, got {value!r}"


def _flag(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, got {value!r}"


def _count(value: Any) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return None if ok else f"expected a whole number >= 0, got {value!r}"


def _unit(value: Any) -> str | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and 0 <= value <= 1
    return None if ok else f"expected a number in [0, 1], got {value!r}"


def _time(value: Any) -> str | None:
    if not isinstance(value, datetime) or value.utcoffset() is None:
        return f'expected a datetime with a UTC offset ({{"$datetime": "2024-05-15T10:00:00+00:00"}}), got {value!r}'
    try:
        check_storable_time(value)
    except ValueError as exc:
        return str(exc)
    return None


def _level(enum: type[StrEnum]) -> PropertyCheck:
    names = ", ".join(member.value for member in enum)
    return lambda value: None if value in set(enum) else f"must be one of {names}, got {value!r}"


_TEXTS = ("label", "summary", "content", "agent_id", "subject", "subject_key", "slot", "value", "speaker",
          "session_id", "turn_id", "name_key", "superseded_by", "metadata_json")  # fmt: skip
_TIMES = ("created_at", "updated_at", "last_accessed", "timestamp", "valid_from", "valid_to", "event_time",
          "event_end", "started_at", "ended_at", "completed_at")  # fmt: skip
NODE_PROPERTIES: dict[str, PropertyCheck] = {
    **dict.fromkeys(_TEXTS, _text),
    **dict.fromkeys(_TIMES, _time),
    **dict.fromkeys(("activation", "activation_base", "confidence"), _unit),
    **dict.fromkeys(("access_count", "seq"), _count),
    "importance": _level(Importance),
    "source": _level(Source),
    "private": _flag,
    "placeholder": _flag,
    "source_turn_ids": _texts,
    **dict.fromkeys(("aliases", "alias_keys", "merged_ids"), _texts),
    "tags": _texts,
    "history": _texts,  # a corrected turn's former versions (JSON texts; app/memory/erasure.py)
}
RELATIONSHIP_PROPERTIES: dict[str, PropertyCheck] = {
    **dict.fromkeys(("created_at", "last_reinforced"), _time),
    **dict.fromkeys(("weight", "weight_base"), _unit),
    "co_activations": _count,
    "protected": _flag,
    "agent_id": _text,
}


def check_properties(properties: Mapping[str, Any], rules: Mapping[str, PropertyCheck], where: str) -> None:
    """InputError naming `where.name` for the first property whose value its rule refuses; a property
    without a rule only needs a storable time, if it is one."""
    for name, value in properties.items():
        check = rules.get(name, _time if isinstance(value, datetime) else None)
        problem = check(value) if check is not None else None
        if problem is not None:
            raise InputError(f"{where}.{name}", problem)

