"""Typed access to the named queries of `cypher/*.cypher`: one class per file (`cypher/tasks.cypher`
-> `app/stores/queries/task_queries.py: TaskQueries`; a module is named for its class, not for the
file, so it shares no file name with the modules of app/ about the same thing), a method per query
named after it, its `$parameters`
as keyword-only arguments with their types, its rows as a TypedDict of the RETURN columns
(`dict[str, Any]` only for open data: a node's or relationship's property map, metadata).

A class wraps where it runs: `TaskQueries(graph)` on the `GraphStore` (each call its own transaction,
a read, a write or a batched run as the query needs, with the store's retries and timeouts), or
`TaskQueries(tx)` inside `graph.write_transaction(work)`. The query text stays in the cypher file;
tests/test_cypher_call_params.py fails when a file's queries and its class drift apart (a query
without a method, a method whose parameters are not exactly its query's). `scripts/typed_queries.py`
drafts a class from a cypher file (guessed types, to review). `runner.py` holds the base class.
`schema` and `health` have no class: `GraphStore` runs them itself (apply_schema, ping,
server_version)."""
