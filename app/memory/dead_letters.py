"""Dead letters: turns the write tracks could not write, put aside so their batch-mates and the
next batches flow (app/memory/batch_writer.py).

Per namespace, one Redis hash `hg:{<namespace>}:dead-letters` (id -> JSON). A dead letter keeps the
turn's stored record as it was pending, why it failed (error class and message) and how many times
it was tried. Putting a turn aside removes it from the pending hash in the same transaction; a
replay puts the record back in the pending hash (claimed for the replay's task) and drops the dead
letter, also in one transaction. The id is the turn's node id (`dialogue:…`, as the POST answer
named it), or `unreadable:<digest of the turn key>` for a record that names none.

Layers of one concept (one file name): `app/api/dead_letters.py` (the routes);
`app/memory/dead_letters.py` (turns put aside and replayed)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import redis

from app.domain.inputs import stable_digest
from app.memory.errors import NotFoundError
from app.memory.hot_window import HotWindow
from app.stores.hot import namespace_key

MAX_MESSAGE = 500
# Ids are node ids (`dialogue:<hex>`) or `unreadable:<hex>`; anything else names no dead letter.
_DEAD_LETTER_ID = re.compile(r"[a-z]+:[0-9a-f]{1,64}")


@dataclass(frozen=True)
class DeadLetter:
    id: str
    turn_key: str  # the pending hash's key of the turn
    record: str  # the turn's stored record, as it was pending
    error: str  # the exception's class
    message: str
    attempts: int  # how many times the turn's write was tried (its batch's attempt included)
    failed_at: str  # ISO 8601
    batch_id: str | None = None  # the task that gave up on it

    @classmethod
    def of(
        cls, key: str, record: str, error: BaseException, attempts: int, now: datetime, batch_id: str | None
    ) -> DeadLetter:
        return cls(
            id=dead_letter_id(key, record),
            turn_key=key,
            record=record,
            error=type(error).__name__,
            message=str(error)[:MAX_MESSAGE],
            attempts=attempts,
            failed_at=now.isoformat(),
            batch_id=batch_id,
        )

    def as_api(self) -> dict[str, Any]:
        """The dead letter as the API shows it: the original turn as stored (or the unreadable text)."""
        try:
            turn = json.loads(self.record)
        except ValueError:
            turn = None
        if not isinstance(turn, dict):
            turn = {"unreadable": self.record}
        shown: dict[str, Any] = {
            "id": self.id, "error": self.error, "message": self.message, "attempts": self.attempts,
            "failed_at": self.failed_at, "turn": turn,
        }  # fmt: skip
        if self.batch_id:
            shown["batch_id"] = self.batch_id
        return shown


def dead_letter_id(key: str, record: str) -> str:
    try:
        node_id = json.loads(record).get("node_id")
    except (ValueError, AttributeError):
        node_id = None
    if isinstance(node_id, str) and _DEAD_LETTER_ID.fullmatch(node_id):
        return node_id
    return f"unreadable:{stable_digest(key)}"


class DeadLetters:
    def __init__(self, client: redis.Redis, hot_window: HotWindow) -> None:
        self.client = client
        self.hot_window = hot_window

    @staticmethod
    def _key(namespace: str) -> str:
        return namespace_key(namespace, "dead-letters")

    def put_aside(self, namespace: str, letter: DeadLetter) -> None:
        """Store the dead letter and take its turn out of the pending hash (one transaction)."""
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(self._key(namespace), letter.id, json.dumps(asdict(letter), ensure_ascii=False))
        pipe.hdel(self.hot_window.pending_key(namespace), letter.turn_key)
        pipe.hdel(self.hot_window.claims_key(namespace), letter.turn_key)
        pipe.hdel(self.hot_window.stolen_key(namespace), letter.turn_key)
        pipe.execute()

    def list(self, namespace: str) -> list[DeadLetter]:
        """The namespace's dead letters, oldest failure first."""
        raws = self.client.hvals(self._key(namespace))
        letters = [DeadLetter(**json.loads(str(raw))) for raw in raws]  # type: ignore[union-attr]
        return sorted(letters, key=lambda letter: (letter.failed_at, letter.id))

    def get(self, namespace: str, letter_id: str) -> DeadLetter:
        raw = self.client.hget(self._key(namespace), letter_id) if _DEAD_LETTER_ID.fullmatch(letter_id) else None
        if raw is None:
            raise NotFoundError("dead_letter_id", f"no dead letter {letter_id!r} in namespace {namespace!r}")
        return DeadLetter(**json.loads(str(raw)))

    def requeue(self, namespace: str, letter_id: str) -> DeadLetter:
        """Put the turn back in the pending hash and drop the dead letter (one transaction); the
        caller queues its task. NotFoundError for an unknown id."""
        letter = self.get(namespace, letter_id)
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(self.hot_window.pending_key(namespace), letter.turn_key, letter.record)
        pipe.hdel(self._key(namespace), letter.id)
        pipe.execute()
        return letter

    def discard(self, namespace: str, letter_id: str) -> None:
        """Drop the dead letter for good; NotFoundError for an unknown id."""
        letter = self.get(namespace, letter_id)
        self.client.hdel(self._key(namespace), letter.id)
