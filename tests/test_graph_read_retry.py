"""Which failed auto-commit reads are tried again (`retry_transient_read`, pure): the driver retries
only managed transactions, and a recall under concurrent writes met `Transaction.Outdated` (a 500 in
the concurrent-isolation test, CI stop 24)."""

from __future__ import annotations

import neo4j.exceptions
import pytest

from app.stores.graph import _TRANSIENT_READ_ATTEMPTS, retry_transient_read


def server_error(code: str) -> neo4j.exceptions.Neo4jError:
    # The driver's own constructor of a server failure: it picks the class (and retryability) by code.
    return neo4j.exceptions.Neo4jError._hydrate_neo4j(code=code, message="from the server")


@pytest.mark.parametrize("code", ["Neo.TransientError.Transaction.Outdated",
                                  "Neo.TransientError.Transaction.DeadlockDetected",
                                  "Neo.TransientError.General.MemoryPoolOutOfMemoryError"])  # fmt: skip
def test_a_transient_error_is_retried_while_tries_are_left(code: str) -> None:
    error = server_error(code)
    assert isinstance(error, neo4j.exceptions.TransientError)
    tries = [retry_transient_read(error, attempt) for attempt in range(1, _TRANSIENT_READ_ATTEMPTS + 1)]
    assert tries == [True] * (_TRANSIENT_READ_ATTEMPTS - 1) + [False]


def test_a_transaction_stopped_by_its_timeout_is_an_answer_not_retried() -> None:
    # The driver classes this code as retryable; Hippograph answers it with 503 at once instead.
    timed_out = server_error("Neo.TransientError.Transaction.TransactionTimedOut")
    assert isinstance(timed_out, neo4j.exceptions.TransientError) and timed_out.is_retryable()
    assert not retry_transient_read(timed_out, 1)
