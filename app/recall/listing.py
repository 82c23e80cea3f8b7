"""A namespace's memories as a filtered, cursor-paginated listing of compact cards, newest first.

Order: (created_at, id) descending. The cursor is opaque to clients: the position of the last card
shown (its created_at exactly as Neo4j prints it, and its id), base64url-encoded JSON.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.domain.decay import SOFT_FORGET_THRESHOLD
from app.domain.inputs import InputError, check_storable_time
from app.domain.keys import EVERYTHING, Viewer
from app.domain.model import Importance, NodeType
from app.recall.neighbourhood import seen_by
from app.stores.graph import GraphStore
from app.stores.queries.recall_queries import RecallQueries

DEFAULT_LIMIT = 20
MAX_LIMIT = 200
# The open ends of the created_at range when a filter leaves them out.
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
_LATEST_TEXT = "9999-12-31T23:59:59.999999Z"
# created_at as Neo4j prints it (stored times lie within years 1-9999: app/domain/inputs.py).
_NEO4J_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})")
_NOT_A_CURSOR = "not a cursor of this listing (pass next_cursor back unchanged)"


@dataclass(frozen=True)
class ListingFilter:
    """Which memories a listing shows. `since` inclusive, `until` exclusive, both on created_at;
    `importance`: that level or a higher one; `tags`: every one of them."""

    types: tuple[NodeType, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    agent_id: str | None = None
    importance: Importance | None = None
    tags: tuple[str, ...] = ()
    include_forgotten: bool = False


def at_least(level: Importance) -> list[str]:
    """The importance levels at or above `level`."""
    return [other.value for other in Importance if other.rank >= level.rank]


def encode_cursor(created_at: str, node_id: str) -> str:
    raw = json.dumps([created_at, node_id], separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, str]:
    """(created_at, id) of a cursor from `encode_cursor`; InputError naming `cursor` otherwise."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created_at, node_id = json.loads(raw.decode("utf-8"))
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError):
        raise InputError("cursor", _NOT_A_CURSOR) from None
    if not (isinstance(created_at, str) and _NEO4J_DATETIME.fullmatch(created_at) and isinstance(node_id, str)):
        raise InputError("cursor", _NOT_A_CURSOR)
    # Neo4j's datetime() refuses what the pattern lets through (month 13, hour 25, year 0, an
    # offset past 18:00): a 500 from the engine. Python reads the same text (nanoseconds cut).
    try:
        check_storable_time(datetime.fromisoformat(re.sub(r"(\.\d{6})\d+", r"\1", created_at)))
    except ValueError:
        raise InputError("cursor", f"{_NOT_A_CURSOR}: its time is out of range") from None
    return created_at, node_id


class MemoryListing:
    def __init__(self, graph: GraphStore) -> None:
        self.graph = graph

    def page(
        self,
        namespace: str,
        filters: ListingFilter,
        cursor: str | None = None,
        limit: int = DEFAULT_LIMIT,
        viewer: Viewer = EVERYTHING,
    ) -> dict[str, Any]:
        """One page: `{"items": [card, ...], "next_cursor": str | None}` (None: nothing after it)."""
        if not 1 <= limit <= MAX_LIMIT:
            raise InputError("limit", f"must be between 1 and {MAX_LIMIT}")
        since, until = filters.since or EARLIEST, filters.until or LATEST
        if since >= until:
            raise InputError("until", "must be later than since")
        upper, after_id = decode_cursor(cursor) if cursor is not None else (_LATEST_TEXT, None)
        rows = RecallQueries(self.graph).listing(
            namespace=namespace,
            since=since,
            until=until,
            upper=upper,
            after_id=after_id,
            types=[t.value for t in filters.types] or None,
            agent_id=filters.agent_id,
            importance=at_least(filters.importance) if filters.importance is not None else None,
            tags=list(filters.tags),
            include_forgotten=filters.include_forgotten,
            alive=SOFT_FORGET_THRESHOLD,
            **seen_by(viewer),
            limit=limit + 1,  # one more than shown: is there a next page?
        )
        items = rows[:limit]
        next_cursor = encode_cursor(items[-1]["created_at"], items[-1]["id"]) if len(rows) > limit else None
        return {"items": items, "next_cursor": next_cursor}
