"""The hot window: recent turns in Redis, searchable the moment they arrive.

Per namespace: a sorted set of turn keys by timestamp and a hash of turn records (JSON). Adding a
turn that is already there changes nothing (HSETNX), which makes the turns API idempotent. The
window keeps the newest `max_turns` turns; the graph holds everything. Until the write tracks have
run, a turn also waits in a `pending` hash that is never trimmed, so a burst larger than the window
cannot evict turns before they are ingested.

A pending turn is claimed by the task that will write it (`claims`: turn key -> owner and expiry):
the API claims a batch's turns for its task when it queues it, the task claims them again (a
lease it renews while it runs) and skips a turn another live task holds. A pending turn with no
live claim has lost its task (the task gave up, the process died, the message was lost): the
`resume_pending` job queues it again (jobs/celery_tasks.py). So a turn is written by one task at a time,
however often it is queued.

A queued batch's claim is marked as such (`QUEUED` before its owner): a running task may take
such turns over (`coalesce`), so many small batches queued behind it are written as one larger
one; it notes whose they were (`stolen`), and their own task, when it runs, waits for them.

Conflicting writes: each (session_id, turn_id) ever accepted keeps a content digest (`digests`: turn
key -> SHA-1 prefixes of its text and speaker; never trimmed, unlike the window; gone with a
forgetting of the turn or with the namespace). A turn sent again with another text or speaker is
refused (409 naming the field) before anything is stored, by Redis alone, so acknowledging turns
still needs no Neo4j. A turn sent with `replace` takes the new content (the worker then corrects the
stored turn, `Erasure.correct`).
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
from app.memory.errors import ConflictError
from app.stores.hot import namespace_key

DEFAULT_MAX_TURNS = 5000
QUEUED = "q:"  # before the owner of a queued batch's claim: a running task may take the turns over


@dataclass(frozen=True)
class BatchHold:
    """The claim a new batch's task holds on its turns from the moment they are stored (`add`)."""

    owner: str  # the batch's task id
    until: float  # epoch seconds
    queued: bool = True  # a running task of the namespace may take the turns over (`coalesce`)

    def claim_value(self) -> str:
        """As `_CLAIM` stores it: "[QUEUED]owner expiry"."""
        return f"{QUEUED if self.queued else ''}{self.owner} {self.until!r}"


# Claims the keys (ARGV[4:]) still pending (KEYS[1]) for owner ARGV[1] until ARGV[2] (epoch seconds)
# in the claims hash (KEYS[2]): each one unclaimed, held by the same owner (also as a queued batch:
# its task takes over its own claim) or whose claim expired (an owner that died). Returns the keys
# claimed; a key held by another live owner is skipped. ARGV[3]: now.
_CLAIM = """
local claimed = {}
local now = tonumber(ARGV[3])
local queued = '__QUEUED__' .. ARGV[1]
for i = 4, #ARGV do
  local key = ARGV[i]
  if redis.call('hexists', KEYS[1], key) == 1 then
    local held = redis.call('hget', KEYS[2], key)
    local owner, expiry = nil, nil
    if held then owner, expiry = string.match(held, '^(%S+) (%S+)$') end
    if not held or owner == ARGV[1] or owner == queued or tonumber(expiry) <= now then
      redis.call('hset', KEYS[2], key, ARGV[1] .. ' ' .. ARGV[2])
      claimed[#claimed + 1] = key
    end
  end
end
return claimed
""".replace("__QUEUED__", QUEUED)
# Takes over up to ARGV[4] pending turns (KEYS[1]) for the running owner ARGV[1] until ARGV[2]: those
# unclaimed, whose claim expired, or held by a queued batch (noted in the stolen hash KEYS[3]: turn
# key -> that batch's owner). ARGV[3]: now. Returns the keys taken.
_COALESCE = """
local taken = {}
local now = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
for _, key in ipairs(redis.call('hkeys', KEYS[1])) do
  if #taken >= limit then break end
  local held = redis.call('hget', KEYS[2], key)
  local owner, expiry = nil, nil
  if held then owner, expiry = string.match(held, '^(%S+) (%S+)$') end
  local queued = owner and string.sub(owner, 1, #'__QUEUED__') == '__QUEUED__'
  if owner ~= ARGV[1] and (not held or queued or tonumber(expiry) <= now) then
    redis.call('hset', KEYS[2], key, ARGV[1] .. ' ' .. ARGV[2])
    if queued then redis.call('hset', KEYS[3], key, string.sub(owner, #'__QUEUED__' + 1)) end
    taken[#taken + 1] = key
  end
end
return taken
""".replace("__QUEUED__", QUEUED)
# The conflict check and the digests (KEYS[1]) of ARGV, in triples (turn key, text, speaker) then a
# replace flag each: a turn whose stored digest differs in text or speaker, and that is not a
# replacement, is a conflict ("<index> text" / "<index> speaker", 1-based); a turn with no digest is
# compared with its window record (KEYS[2]; turns accepted before digests were kept). Any conflict:
# nothing is stored and the conflicts are returned. Else every turn's digest is stored (a
# replacement's overwritten) and an empty list returned.
_CHECK_DIGESTS = """
local n = (#ARGV) / 4
local digests, conflicts = {}, {}
for i = 1, n do
  local key, text, speaker, replace = ARGV[i], ARGV[n + 2 * i - 1], ARGV[n + 2 * i], ARGV[3 * n + i]
  local digest = string.sub(redis.sha1hex(text), 1, 16) .. ' ' .. string.sub(redis.sha1hex(speaker), 1, 16)
  digests[i] = digest
  if replace ~= '1' then
    local stored = redis.call('hget', KEYS[1], key)
    local stored_text, stored_speaker = nil, nil
    if stored then
      stored_text, stored_speaker = string.match(stored, '^(%S+) (%S+)$')
      if stored_text ~= string.sub(digest, 1, 16) then conflicts[#conflicts + 1] = i .. ' text'
      elseif stored_speaker ~= string.sub(digest, 18) then conflicts[#conflicts + 1] = i .. ' speaker' end
    else
      local record = redis.call('hget', KEYS[2], key)
      if record then
        local turn = cjson.decode(record)
        if turn['text'] ~= text then conflicts[#conflicts + 1] = i .. ' text'
        elseif turn['speaker'] ~= speaker then conflicts[#conflicts + 1] = i .. ' speaker' end
      end
    end
  end
end
if #conflicts > 0 then return conflicts end
for i = 1, n do redis.call('hset', KEYS[1], ARGV[i], digests[i]) end
return {}
"""
# Drops the claims (KEYS[1]) on ARGV[2:] that owner ARGV[1] holds.
_RELEASE = """
local released = 0
for i = 2, #ARGV do
  local held = redis.call('hget', KEYS[1], ARGV[i])
  if held and string.match(held, '^(%S+) ') == ARGV[1] then
    redis.call('hdel', KEYS[1], ARGV[i])
    released = released + 1
  end
end
return released
"""


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
        replace=bool(record.get("replace", False)),
    )
    return turn, {"node_id": record["node_id"], "seq": record["seq"]}


@dataclass(frozen=True)
class WindowSearch:
    hits: list[tuple[Turn, float]]  # best first
    latest_session: str | None  # the session of the newest turn: the current focus of a local recall


@lru_cache(maxsize=16384)
def _searchable(raw: str) -> tuple[Turn, Counter[str]]:
    """A stored turn and its word counts (read-only), cached by its stored text: every recall reads
    every pending turn, and decoding and tokenizing them was most of a hot-window search. Room for
    a backlog (under load ~1,000-3,000 turns are pending at a time; with 1,024 entries the cache
    thrashed and each recall decoded them all again)."""
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

    def pending_key(self, namespace: str) -> str:
        """The hash of the namespace's turns waiting for the write tracks (turn key -> record)."""
        return namespace_key(namespace, "hot", "pending")

    def records_key(self, namespace: str) -> str:
        """The hash of the window's turn records (turn key -> record), trimmed to `max_turns`."""
        return self._keys(namespace)[1]

    def digests_key(self, namespace: str) -> str:
        """The hash of every accepted turn's content digest (turn key -> "text speaker")."""
        return namespace_key(namespace, "hot", "digests")

    def check_conflicts(self, namespace: str, turns: Sequence[Turn]) -> None:
        """ConflictError naming `turns[i].text` (or `.speaker`) for the first turn sent again with other
        content and without `replace`; else the turns' digests are stored (one script: atomic, so two
        posts of one turn with different texts cannot both pass)."""
        if not turns:
            return
        args = [turn.key for turn in turns]
        args += [part for turn in turns for part in (turn.text, turn.speaker)]
        args += ["1" if turn.replace else "0" for turn in turns]
        conflicts = self.client.eval(_CHECK_DIGESTS, 2, self.digests_key(namespace), self.records_key(namespace), *args)
        if conflicts:
            index, name = str(conflicts[0]).split(" ")  # type: ignore[index]
            turn = turns[int(index) - 1]
            raise ConflictError(
                f"turns[{int(index) - 1}].{name}",
                f"turn ({turn.session_id!r}, {turn.turn_id!r}) was already accepted with another {name}; "
                'send it with "replace": true to correct it',
            )

    def add(
        self, namespace: str, turns: Sequence[Turn], node_ids: Sequence[str], held_for: BatchHold | None = None
    ) -> list[bool]:
        """Store the turns; returns, per turn, whether it was new. Arrival order is kept in `seq`. A
        turn already accepted with other content raises ConflictError (nothing stored); a `replace`
        turn overwrites its record and counts as new. `held_for`: the batch whose task will write
        them claims them in the same transaction that makes them pending (a turn some task holds
        already keeps its claim), so neither `resume_pending` nor a running task's `coalesce` can
        take them in between as turns nobody holds."""
        self.check_conflicts(namespace, turns)
        order, records, seq_key = self._keys(namespace)
        first_seq = int(self.client.incrby(seq_key, len(turns))) - len(turns)  # type: ignore[arg-type]
        pipe = self.client.pipeline(transaction=True)
        for index, (turn, node_id) in enumerate(zip(turns, node_ids, strict=True)):
            record = _encode(turn, node_id, first_seq + index)
            if turn.replace:
                pipe.hset(records, turn.key, record)
            else:
                pipe.hsetnx(records, turn.key, record)
        added = [bool(flag) or turn.replace for flag, turn in zip(pipe.execute(), turns, strict=True)]
        pipe = self.client.pipeline(transaction=True)
        for turn, new in zip(turns, added, strict=True):
            if new:
                pipe.zadd(order, {turn.key: turn.timestamp.timestamp()})
        pipe.hset(self.pending_key(namespace), mapping=self._records_of(namespace, turns))  # type: ignore[arg-type]
        if held_for is not None:
            for turn in turns:
                pipe.hsetnx(self.claims_key(namespace), turn.key, held_for.claim_value())
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
        return [decode_turn(raw) for _, raw in self.pending_records(namespace, keys)]

    def pending_records(self, namespace: str, keys: Sequence[str]) -> list[tuple[str, str]]:
        """(key, stored record) of the turns for `keys` still waiting for the write tracks (in that
        order), undecoded: the write path decodes them one by one, so one unreadable record is put
        aside alone (app/memory/batch_writer.py)."""
        if not keys:
            return []
        raws = self.client.hmget(self.pending_key(namespace), list(keys))
        return [(key, str(raw)) for key, raw in zip(keys, raws, strict=True) if raw]  # type: ignore[arg-type]

    def pending_keys(self, namespace: str) -> list[str]:
        """Every turn of the namespace still waiting for the write tracks."""
        return sorted(str(key) for key in self.client.hkeys(self.pending_key(namespace)))  # type: ignore[union-attr]

    def ingested(self, namespace: str, keys: Sequence[str]) -> None:
        """The write tracks have run for `keys`: they stop waiting (they stay in the window)."""
        if keys:
            pipe = self.client.pipeline(transaction=True)
            pipe.hdel(self.pending_key(namespace), *keys)
            pipe.hdel(self.claims_key(namespace), *keys)
            pipe.hdel(self.stolen_key(namespace), *keys)
            pipe.execute()

    def remove(self, namespace: str, keys: Sequence[str]) -> None:
        """Forget turns (app/memory/erasure.py): out of the window, the pending hash, the claims and
        the digests, in one transaction."""
        if not keys:
            return
        order, records, _ = self._keys(namespace)
        pipe = self.client.pipeline(transaction=True)
        pipe.zrem(order, *keys)
        for key in (records, self.pending_key(namespace), self.claims_key(namespace), self.stolen_key(namespace),
                    self.digests_key(namespace)):  # fmt: skip
            pipe.hdel(key, *keys)
        pipe.execute()

    def claims_key(self, namespace: str) -> str:
        """The hash of the pending turns' claims (turn key -> "owner expiry")."""
        return namespace_key(namespace, "hot", "claims")

    def stolen_key(self, namespace: str) -> str:
        """The hash of pending turns a running task took over from a queued batch (key -> its owner)."""
        return namespace_key(namespace, "hot", "stolen")

    def claim(
        self, namespace: str, keys: Sequence[str], owner: str, lease_s: float, now: float, queued: bool = False
    ) -> list[str]:
        """Claim the pending `keys` for `owner` until `now + lease_s` (epoch seconds); returns the keys
        claimed (in order): a key another owner holds until later is not, nor one no longer pending.
        `queued`: for a batch whose task is queued, which a running task may take over (`coalesce`)."""
        if not keys:
            return []
        args = [QUEUED + owner if queued else owner, repr(now + lease_s), repr(now), *keys]
        claimed = self.client.eval(_CLAIM, 2, self.pending_key(namespace), self.claims_key(namespace), *args)
        return [str(key) for key in claimed]  # type: ignore[union-attr]

    def coalesce(self, namespace: str, owner: str, lease_s: float, now: float, limit: int) -> list[str]:
        """Take over, for the running `owner` until `now + lease_s`, up to `limit` pending turns that
        queued batches hold (or nobody holds), so they are written with its own; returns their keys."""
        if limit <= 0:
            return []
        keys = (self.pending_key(namespace), self.claims_key(namespace), self.stolen_key(namespace))
        taken = self.client.eval(_COALESCE, 3, *keys, owner, repr(now + lease_s), repr(now), str(limit))
        return [str(key) for key in taken]  # type: ignore[union-attr]

    def taken_from(self, namespace: str, keys: Sequence[str]) -> set[str]:
        """The queued batches a running task took `keys` over from (`coalesce`)."""
        if not keys:
            return set()
        return {str(owner) for owner in self.client.hmget(self.stolen_key(namespace), list(keys)) if owner}  # type: ignore[union-attr]

    def taken_over(self, namespace: str, keys: Sequence[str], owner: str) -> list[str]:
        """Those of `keys` still pending that a running task took over from `owner`'s queued batch."""
        if not keys:
            return []
        pipe = self.client.pipeline(transaction=False)
        pipe.hmget(self.stolen_key(namespace), list(keys))
        pipe.hmget(self.pending_key(namespace), list(keys))
        stolen, pending = pipe.execute()
        return [key for key, by, raw in zip(keys, stolen, pending, strict=True) if raw and by == owner]

    def release(self, namespace: str, keys: Sequence[str], owner: str) -> int:
        """Drop `owner`'s claims on `keys` (its task gave up): they wait for the next resume."""
        if not keys:
            return 0
        return int(self.client.eval(_RELEASE, 1, self.claims_key(namespace), owner, *keys))  # type: ignore[arg-type]

    def unclaimed_by_batch(self, namespace: str, now: float) -> dict[str | None, list[str]]:
        """`unclaimed`, by the batch whose task last held them (the owner of the lapsed claim, or the
        queued batch a running task took them from): None for turns nobody ever claimed. The
        `resume_pending` job writes each group for its batch, so the batch of a task that died with
        its process is reported done once they are written, not when the broker re-delivers it."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hkeys(self.pending_key(namespace))
        pipe.hgetall(self.claims_key(namespace))
        pipe.hgetall(self.stolen_key(namespace))
        keys, claims, stolen = pipe.execute()
        groups: dict[str | None, list[str]] = {}
        for key in sorted(str(k) for k in keys):
            held = claims.get(key)
            if held is not None and float(str(held).rsplit(" ", 1)[1]) > now:
                continue  # a live task holds it
            owner = str(held).rsplit(" ", 1)[0].removeprefix(QUEUED) if held is not None else None
            groups.setdefault(stolen.get(key) or owner, []).append(key)
        return groups

    def unclaimed(self, namespace: str, now: float) -> list[str]:
        """The pending keys no live task holds (unclaimed, or the claim expired), sorted."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hkeys(self.pending_key(namespace))
        pipe.hgetall(self.claims_key(namespace))
        keys, claims = pipe.execute()
        live = {str(key) for key, held in claims.items() if float(str(held).rsplit(" ", 1)[1]) > now}
        return sorted(str(key) for key in keys if str(key) not in live)

    def search(self, namespace: str, query: str, limit: int = 10) -> WindowSearch:
        """The turns still pending (the write tracks have not run for them) that share words (or
        Chinese bigrams) with the query, best first: a small TF-IDF, so a turn is found before it is
        in the graph. A written turn is the full-text index's and the vector tier's job, like any
        older one: scoring the newest 50 written turns here too gave them a second, recency-only
        boost that cost more than it found on the development sets (docs/benchmarks.md, "Written
        turns leave the hot window's search"). Also the newest turn's session (read in the same two
        round trips: this runs on every recall)."""
        order, records, _ = self._keys(namespace)
        pipe = self.client.pipeline(transaction=False)
        pipe.zrevrange(order, 0, 0)
        pipe.hgetall(self.pending_key(namespace))
        newest_keys, pending = pipe.execute()
        latest = self.client.hget(records, str(newest_keys[0])) if newest_keys else None
        latest_session = _searchable(str(latest))[0].session_id if latest else None
        wanted = set(tokens(query))
        searchable = [_searchable(str(raw)) for raw in pending.values() if raw] if wanted else []
        # Only turns sharing a word with the query count or score, and by query word, not by each turn's
        # every word: a recall under a backlog looks at thousands of pending turns.
        matching = [(turn, bag) for turn, bag in searchable if not wanted.isdisjoint(bag)]
        document_frequency = {token: sum(1 for _, bag in matching if token in bag) for token in wanted}
        scored: list[tuple[Turn, float]] = []
        for turn, bag in matching:
            score = sum(
                (1 + math.log(bag[t])) * math.log(1 + len(searchable) / document_frequency[t]) for t in wanted if bag[t]
            )
            if score > 0:
                scored.append((turn, score / math.sqrt(1 + sum(bag.values()))))
        scored.sort(key=lambda item: (-item[1], -item[0].timestamp.timestamp()))
        return WindowSearch(scored[:limit], latest_session)
