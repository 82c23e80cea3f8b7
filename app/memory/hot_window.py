"""The hot window: recent turns in Redis, searchable the moment they arrive.

Per namespace: a sorted set of turn keys by timestamp and a hash of turn records (JSON). Adding a
turn that is already there changes nothing (HSETNX), which makes the turns API idempotent. The
window keeps the newest `max_turns` turns; the graph holds everything. Until the write tracks have
run, a turn also waits in a `pending` hash that is never trimmed, so a burst larger than the window
cannot evict turns before they are ingested.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

import redis

from app.domain.text import tokens
from app.domain.turns import Turn
from app.stores.hot import namespace_key

DEFAULT_MAX_TURNS = 5000


def _encode(turn: Turn, node_id: str, seq: int) -> str:
    record = asdict(turn) | {"timestamp": turn.timestamp.isoformat(), "node_id": node_id, "seq": seq}
    return json.dumps(record, ensure_ascii=False)


def decode_turn(raw: str) -> tuple[Turn, dict[str, Any]]:
    """A stored record as a Turn plus its bookkeeping (`node_id`, `seq`)."""
    record = json.loads(raw)
    turn = Turn(
        session_id=record["session_id"],
        turn_id=record["turn_id"],
        speaker=record["speaker"],
        text=record["text"],
        timestamp=datetime.fromisoformat(record["timestamp"]),
        metadata=record.get("metadata") or {},
        agent_id=record.get("agent_id"),
    )
    return turn, {"node_id": record["node_id"], "seq": record["seq"]}


@dataclass(frozen=True)
class WindowSearch:
    hits: list[tuple[Turn, float]]  # best first
    latest_session: str | None  # the session of the newest turn: the current focus of a local recall


@lru_cache(maxsize=1024)
def _searchable(raw: str) -> tuple[Turn, Counter[str]]:
    """A stored turn and its word counts (read-only), cached by its stored text: every recall reads
    the same newest turns, and decoding and tokenizing them was most of a hot-window search."""
    turn = decode_turn(raw)[0]
    return turn, Counter(tokens(turn.text))


class HotWindow:
    def __init__(self, client: redis.Redis, max_turns: int = DEFAULT_MAX_TURNS) -> None:
        self.client = client
        self.max_turns = max_turns

    def _keys(self, namespace: str) -> tuple[str, str, str]:
        return (
            namespace_key(namespace, "hot", "order"),
            namespace_key(namespace, "hot", "turns"),
            namespace_key(namespace, "hot", "seq"),
        )

    def _pending_key(self, namespace: str) -> str:
        return namespace_key(namespace, "hot", "pending")

    def add(self, namespace: str, turns: Sequence[Turn], node_ids: Sequence[str]) -> list[bool]:
        """Store the turns; returns, per turn, whether it was new. Arrival order is kept in `seq`."""
        order, records, seq_key = self._keys(namespace)
        first_seq = int(self.client.incrby(seq_key, len(turns))) - len(turns)  # type: ignore[arg-type]
        pipe = self.client.pipeline(transaction=True)
        for index, (turn, node_id) in enumerate(zip(turns, node_ids, strict=True)):
            pipe.hsetnx(records, turn.key, _encode(turn, node_id, first_seq + index))
        added = [bool(flag) for flag in pipe.execute()]
        pipe = self.client.pipeline(transaction=True)
        for turn, new in zip(turns, added, strict=True):
            if new:
                pipe.zadd(order, {turn.key: turn.timestamp.timestamp()})
        pipe.hset(self._pending_key(namespace), mapping=self._records_of(namespace, turns))  # type: ignore[arg-type]
        pipe.execute()
        self._trim(namespace)
        return added

    def _trim(self, namespace: str) -> None:
        order, records, _ = self._keys(namespace)
        excess = int(self.client.zcard(order)) - self.max_turns  # type: ignore[arg-type]
        if excess > 0:
            oldest = [member for member, _ in self.client.zpopmin(order, excess)]  # type: ignore[union-attr,str-unpack]
            if oldest:
                self.client.hdel(records, *oldest)

    def _records_of(self, namespace: str, turns: Sequence[Turn]) -> dict[str, str]:
        """The stored records of `turns` (as first stored: a retried turn keeps its arrival order)."""
        _, records, _ = self._keys(namespace)
        raws = self.client.hmget(records, [turn.key for turn in turns])
        return {turn.key: str(raw) for turn, raw in zip(turns, raws, strict=True) if raw}  # type: ignore[arg-type]

    def pending(self, namespace: str, keys: Sequence[str]) -> list[tuple[Turn, dict[str, Any]]]:
        """The turns for `keys` still waiting for the write tracks (in that order)."""
        if not keys:
            return []
        raws = self.client.hmget(self._pending_key(namespace), list(keys))
        return [decode_turn(str(raw)) for raw in raws if raw]  # type: ignore[union-attr]

    def pending_keys(self, namespace: str) -> list[str]:
        """Every turn of the namespace still waiting for the write tracks."""
        return sorted(str(key) for key in self.client.hkeys(self._pending_key(namespace)))  # type: ignore[union-attr]

    def ingested(self, namespace: str, keys: Sequence[str]) -> None:
        """The write tracks have run for `keys`: they stop waiting (they stay in the window)."""
        if keys:
            self.client.hdel(self._pending_key(namespace), *keys)

    def search(self, namespace: str, query: str, limit: int = 10, scan: int = 50) -> WindowSearch:
        """The newest `scan` turns plus every turn still pending, sharing words (or Chinese bigrams)
        with the query, best first: a small TF-IDF, so a turn is found before the write tracks have
        run. Older turns are the full-text index's job. Also the newest turn's session (read in
        the same two round trips: this runs on every recall)."""
        order, records, _ = self._keys(namespace)
        pipe = self.client.pipeline(transaction=False)
        pipe.zrevrange(order, 0, scan - 1)
        pipe.hgetall(self._pending_key(namespace))
        newest_keys, pending = pipe.execute()
        newest = [str(key) for key in newest_keys]
        raws = dict(zip(newest, self.client.hmget(records, newest), strict=True)) if newest else {}
        latest = raws.get(newest[0]) if newest else None
        latest_session = _searchable(str(latest))[0].session_id if latest else None
        raws.update(pending)
        wanted = set(tokens(query))
        searchable = [_searchable(str(raw)) for raw in raws.values() if raw] if wanted else []
        document_frequency = Counter(token for _, bag in searchable for token in set(bag) if token in wanted)
        scored: list[tuple[Turn, float]] = []
        for turn, bag in searchable:
            score = sum(
                (1 + math.log(bag[t])) * math.log(1 + len(searchable) / document_frequency[t]) for t in wanted if bag[t]
            )
            if score > 0:
                scored.append((turn, score / math.sqrt(1 + sum(bag.values()))))
        scored.sort(key=lambda item: (-item[1], -item[0].timestamp.timestamp()))
        return WindowSearch(scored[:limit], latest_session)
