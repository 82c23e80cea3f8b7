"""Writes a batch of pending turns so that one turn that cannot be written takes no other down.

The batch is written whole first (one set of statements: the fast path). If that fails with an
error that is not an engine outage (a value Neo4j refuses, a bug), each turn is written on its own,
in turn order, up to `SOLO_ATTEMPTS` times: its batch-mates land, and a turn that still fails
becomes a dead letter (app/memory/dead_letters.py) and stops being pending, so it no longer blocks
its batch, nor later ones. A record that cannot even be read is put aside at once.

An engine outage (`OUTAGE_ERRORS`) is never a turn's fault: it propagates, and the task retries
the batch later (what was written before it is not pending any more; the rest is idempotent).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import neo4j.exceptions
import redis.exceptions

from app.errors import EngineUnavailable
from app.memory.dead_letters import DeadLetter, DeadLetters
from app.memory.erasure import Erasure
from app.memory.hot_window import HotWindow, decode_turn
from app.memory.ingest import Ingestor, IngestReport, SequencedTurn

# Errors worth retrying the batch for: an engine that is down (the stores raise EngineUnavailable,
# as the API answers 503), transient Neo4j errors (deadlocks) and driver errors raised outside the
# stores, and credentials Neo4j refuses (an operator's fix, not the turns' fault). The write is
# idempotent, so a retry after a partial run is safe.
OUTAGE_ERRORS: tuple[type[BaseException], ...] = (
    EngineUnavailable,
    neo4j.exceptions.ServiceUnavailable,
    neo4j.exceptions.TransientError,
    neo4j.exceptions.AuthError,
    redis.exceptions.ConnectionError,
)
# Tries of a turn written on its own: more than one, as a failure can be a race with a concurrent
# write (two tasks creating the same speaker: a constraint violation the second try does not meet).
SOLO_ATTEMPTS = 3
SOLO_PAUSE_S = 0.2

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PendingTurn:
    key: str  # the pending hash's key
    record: str  # the stored record
    item: SequencedTurn


class BatchWriter:
    def __init__(
        self,
        ingestor: Ingestor,
        hot_window: HotWindow,
        dead_letters: DeadLetters,
        pause_s: float = SOLO_PAUSE_S,
        erasure: Erasure | None = None,
    ) -> None:
        self.ingestor = ingestor
        self.hot_window = hot_window
        self.dead_letters = dead_letters
        self.pause_s = pause_s
        self.erasure = erasure  # corrections (`replace` turns): the old version's derivations go first

    def _ingest(self, namespace: str, items: Sequence[SequencedTurn], now: datetime, link: bool) -> IngestReport:
        corrections = [item for item in items if item.turn.replace]
        if corrections and self.erasure is not None:
            self.erasure.correct(namespace, [self.ingestor._turn_row(item, now) for item in corrections], now)
        return self.ingestor.ingest(namespace, items, now, link)

    def write(
        self,
        namespace: str,
        records: Sequence[tuple[str, str]],
        now: datetime,
        batch_id: str | None = None,
        link: bool = True,
    ) -> IngestReport:
        """Write the pending `records` ((key, stored record), from `HotWindow.pending_records`); every
        turn is then written (no longer pending) or a dead letter (named in the report). Raises only
        `OUTAGE_ERRORS`. `link`: as `Ingestor.ingest`."""
        readable: list[PendingTurn] = []
        aside: list[str] = []
        for key, record in records:
            try:
                decoded, meta = decode_turn(record)
                readable.append(PendingTurn(key, record, SequencedTurn(decoded, int(meta["seq"]))))
            except Exception as exc:  # an unreadable record: no retry can read it
                aside.append(self._put_aside(namespace, key, record, exc, 1, now, batch_id))
        try:
            report = self._ingest(namespace, [turn.item for turn in readable], now, link)
        except OUTAGE_ERRORS:
            raise
        except Exception as exc:
            log.warning(
                "batch write failed (%s): writing its %d turns one by one", type(exc).__name__, len(readable),
                extra={"namespace": namespace, "task_id": batch_id, "error": type(exc).__name__},
            )  # fmt: skip
            report = IngestReport()
            for pending in sorted(readable, key=lambda t: (t.item.turn.timestamp, t.item.seq)):
                report.add(self._write_alone(namespace, pending, now, batch_id, link))
        else:
            self.hot_window.ingested(namespace, [turn.key for turn in readable])
        report.dead_lettered = aside + report.dead_lettered
        return report

    def _write_alone(
        self, namespace: str, turn: PendingTurn, now: datetime, batch_id: str | None, link: bool
    ) -> IngestReport:
        for attempt in range(1, SOLO_ATTEMPTS + 1):
            try:
                report = self._ingest(namespace, [turn.item], now, link)
            except OUTAGE_ERRORS:
                raise
            except Exception as exc:
                if attempt == SOLO_ATTEMPTS:  # the batch's attempt counts too
                    return IngestReport(dead_lettered=[
                        self._put_aside(namespace, turn.key, turn.record, exc, 1 + SOLO_ATTEMPTS, now, batch_id)
                    ])  # fmt: skip
                time.sleep(self.pause_s * attempt)
            else:
                self.hot_window.ingested(namespace, [turn.key])
                return report
        raise AssertionError("unreachable")

    def _put_aside(
        self, namespace: str, key: str, record: str, error: BaseException, attempts: int, now: datetime,
        batch_id: str | None,
    ) -> str:  # fmt: skip
        letter = DeadLetter.of(key, record, error, attempts, now, batch_id)
        self.dead_letters.put_aside(namespace, letter)
        log.warning(
            "turn put aside as dead letter %s: %s", letter.id, letter.error,
            extra={"namespace": namespace, "task_id": batch_id, "error": letter.error},
        )  # fmt: skip
        return letter.id
