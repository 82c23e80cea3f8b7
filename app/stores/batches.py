"""Batch records in Redis: one hash per write batch, `hg:{<namespace>}:batch:<batch id>`, expiring
after the batch TTL. The fields are strings; `app/memory/batches.py` gives them their meaning.

Layers of one concept (one file name): `app/memory/batches.py` (what became of a batch);
`app/stores/batches.py` (its records in Redis)."""

from __future__ import annotations

from collections.abc import Mapping

import redis

from app.stores.hot import namespace_key

# HSET only on a record that exists: a task queued without one (pending turns resumed after a
# crash) must not create a record without its namespace, size and creation time. HSET keeps the TTL.
# ARGV[1]: statuses (space-separated, may be empty) the record must not be in (a final one: a task
# the broker re-delivers after its batch was written by another must not reopen or rewrite it);
# ARGV[2]: fields to delete (space-separated, may be empty); then field/value pairs.
_UPDATE_IF_EXISTS = """
if redis.call('exists', KEYS[1]) == 0 then return 0 end
local status = redis.call('hget', KEYS[1], 'status')
if status and string.find(' ' .. ARGV[1] .. ' ', ' ' .. status .. ' ', 1, true) then return 0 end
for field in string.gmatch(ARGV[2], '%S+') do redis.call('hdel', KEYS[1], field) end
redis.call('hset', KEYS[1], unpack(ARGV, 3))
return 1
"""


class BatchRecords:
    def __init__(self, client: redis.Redis, ttl_s: int) -> None:
        self.client = client
        self.ttl_s = ttl_s

    @staticmethod
    def _key(namespace: str, batch_id: str) -> str:
        return namespace_key(namespace, "batch", batch_id)

    def create(self, namespace: str, batch_id: str, fields: Mapping[str, str]) -> None:
        key = self._key(namespace, batch_id)
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(key, mapping=dict(fields))  # type: ignore[arg-type]
        pipe.expire(key, self.ttl_s)
        pipe.execute()

    def update(
        self,
        namespace: str,
        batch_id: str,
        fields: Mapping[str, str],
        unless: tuple[str, ...] = (),
        drop: tuple[str, ...] = (),
    ) -> bool:
        """Set `fields` (and delete the fields `drop`) on an existing record; False (and nothing
        written) when there is none, or its status is one of `unless`."""
        args = [" ".join(unless), " ".join(drop), *(item for pair in fields.items() for item in pair)]
        return bool(self.client.eval(_UPDATE_IF_EXISTS, 1, self._key(namespace, batch_id), *args))

    def read(self, namespace: str, batch_id: str) -> dict[str, str]:
        """The record's fields; empty when there is none (unknown, expired or erased)."""
        return {str(k): str(v) for k, v in self.client.hgetall(self._key(namespace, batch_id)).items()}  # type: ignore[union-attr]
