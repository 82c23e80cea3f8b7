"""What became of a write batch sent without `wait`: queued when the API accepts its turns,
running while the ingest task runs (again after a retry), done with the ingest report (and the
dead letters of turns that could not be written, the others were), or failed with the reason once
the task gives up. The batch id is the Celery id of the batch's ingest task.

Layers of one concept (one file name): `app/memory/batches.py` (what became of a batch);
`app/stores/batches.py` (its records in Redis)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from app.memory.errors import NotFoundError
from app.stores.batches import BatchRecords

Status = Literal["queued", "running", "done", "failed"]
FINAL = ("done", "failed")
MAX_REASON = 500
# Celery task ids are UUIDs; anything else cannot name a batch (and never reaches Redis).
_BATCH_ID = re.compile(r"[A-Za-z0-9-]{1,64}")


class Batches:
    def __init__(self, records: BatchRecords) -> None:
        self.records = records

    def queued(self, namespace: str, batch_id: str, keys: Sequence[str], now: datetime) -> None:
        """The batch of the turns `keys`, kept with the record while it is open (a task that took its
        turns over closes it once they are written: `open_keys`)."""
        fields = {"namespace": namespace, "status": "queued", "turns": str(len(keys)), "created_at": now.isoformat()}
        self.records.create(namespace, batch_id, {**fields, "keys": json.dumps(list(keys))})

    def open_keys(self, namespace: str, batch_id: str) -> list[str] | None:
        """The turn keys of a batch still queued or running; None when it is final, unknown or expired."""
        record = self.records.read(namespace, batch_id) if _BATCH_ID.fullmatch(batch_id) else {}
        if not record or record.get("status") in FINAL or "keys" not in record:
            return None
        return [str(key) for key in json.loads(record["keys"])]

    def running(self, namespace: str, batch_id: str, now: datetime) -> bool:
        """False when the task has no batch record (e.g. pending turns queued again after a crash),
        or the batch is already done or failed (a task the broker re-delivered late)."""
        fields = {"status": "running", "started_at": now.isoformat()}
        return self.records.update(namespace, batch_id, fields, unless=FINAL)

    def done(self, namespace: str, batch_id: str, report: dict[str, Any], now: datetime) -> bool:
        """False (and the first report kept) when the batch was already done or failed."""
        fields = {"status": "done", "finished_at": now.isoformat(), "report": json.dumps(report)}
        return self.records.update(namespace, batch_id, fields, unless=FINAL, drop=("keys",))

    def is_open(self, namespace: str, batch_id: str) -> bool:
        """The batch is queued or running (its record exists and is not final)."""
        record = self.records.read(namespace, batch_id) if _BATCH_ID.fullmatch(batch_id) else {}
        return bool(record) and record.get("status") not in FINAL

    def failed(self, namespace: str, batch_id: str, reason: str, now: datetime) -> bool:
        fields = {"status": "failed", "finished_at": now.isoformat(), "error": reason[:MAX_REASON]}
        return self.records.update(namespace, batch_id, fields, drop=("keys",))

    def status(self, namespace: str, batch_id: str) -> dict[str, Any]:
        """The batch as the API shows it; NotFoundError when the namespace has no such batch."""
        record = self.records.read(namespace, batch_id) if _BATCH_ID.fullmatch(batch_id) else {}
        if not record:
            raise NotFoundError("batch_id", f"no batch {batch_id!r} in namespace {namespace!r} (or it expired)")
        status: dict[str, Any] = {
            "batch_id": batch_id,
            "namespace": record["namespace"],
            "status": record["status"],
            "turns": int(record["turns"]),
            "created_at": record["created_at"],
        }
        for name in ("started_at", "finished_at", "error"):
            if name in record:
                status[name] = record[name]
        if "report" in record:
            status["report"] = json.loads(record["report"])
            if dead := status["report"].get("dead_lettered"):
                status["dead_lettered"] = dead
        return status
