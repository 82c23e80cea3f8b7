"""The base of the typed query classes: where a query runs (see app/stores/queries/__init__.py)."""

from __future__ import annotations

from typing import Any

from app.stores.graph import GraphStore, GraphTx


class Queries:
    """Runs one cypher file's queries on a `GraphStore` (each in its own transaction: an auto-commit
    read, a managed write, or a batched auto-commit run, as its method says) or on a `GraphTx` (all
    inside that transaction). The store's retries, deadlines and timeouts are its own: a method only
    names the query and passes its parameters."""

    __slots__ = ("_runner",)

    def __init__(self, runner: GraphStore | GraphTx) -> None:
        self._runner = runner

    def _read(self, query: str, /, **params: Any) -> list[dict[str, Any]]:
        runner = self._runner
        return runner.run(query, **params) if isinstance(runner, GraphTx) else runner.read(query, **params)

    def _write(self, query: str, /, **params: Any) -> list[dict[str, Any]]:
        runner = self._runner
        return runner.run(query, **params) if isinstance(runner, GraphTx) else runner.write(query, **params)

    def _batched(self, query: str, /, **params: Any) -> list[dict[str, Any]]:
        """`CALL { … } IN TRANSACTIONS`: only in an auto-commit transaction, never inside a `GraphTx`."""
        runner = self._runner
        if isinstance(runner, GraphTx):
            raise TypeError(f"{query} commits in batches of its own: run it on the GraphStore")
        return runner.run_batched(query, **params)
