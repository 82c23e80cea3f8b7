"""Re-embed every memory with the configured EMBEDDING_MODEL, into a vector store of its own.

    python -m app.reembed [--namespace NAME ... [--finish]]      (EMBEDDING_MODEL: the new model)

The default embedder's vectors are pairs (e5 and MiniLM, `app/domain/vector_pair.py`): a store of a
single model's (the default MiniLM's before) is migrated to them by this command, with nothing set.

Vectors of two models must not be mixed (`VectorStore.bind`), so a model change is a migration:
this reads every node with text of every namespace (or those named) from Neo4j, a page at a time,
and embeds it through the write path's `SemanticIndexer.store_vectors` (as an import does,
`Transfer.embed`) into the store made for that model beside the configured one
(`app/stores/vectors/factory.py`). The running service is not touched: it keeps recalling from its
own store meanwhile (the embedded engine's shard is never opened here). The new store is marked
complete at the end; processes started with the new EMBEDDING_MODEL then use it, and a restart with
the old one goes back to the old store.

Idempotent: a node's points have fixed ids, so a rerun (after an interruption, or to add what the
service wrote during the rebuild) replaces vectors instead of adding any. For a copy with nothing
missing, run it once more after stopping writes, before the switch. SEMANTIC edges stay as they
are (they were computed with the old model); a shared vector (a fact and the one-sentence turn
it came from) becomes the fact's own. Prints a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from app.embedding.encoder import Embedder
from app.memory.namespaces import Namespaces
from app.memory.semantic import SemanticIndexer, SemanticLinking
from app.memory.transfer import Transfer
from app.settings import Settings, get_settings
from app.stores.graph import GraphStore
from app.stores.hot import connect_redis
from app.stores.vectors.factory import configured_identity, open_rebuild_store


def reembed(settings: Settings, embedder: Embedder, only: Sequence[str] = (), finish: bool = False) -> dict[str, Any]:
    """Fill (or refresh) the store of `embedder`'s model; returns what was done. The store is marked
    complete after a run over every namespace, or over `only` with `finish` (those are all it needs)."""
    identity = embedder.identity
    if (current := configured_identity(settings)) is not None and current.digest == identity.digest:
        return {"model": str(identity), "store": "configured", "nodes": 0, "note": "already the configured store's"}
    graph = GraphStore.connect(settings)
    redis = connect_redis(settings)
    target = open_rebuild_store(settings, embedder.dimension, identity, embedder.paired)
    start = time.perf_counter()
    try:
        semantic = SemanticIndexer(graph, target, embedder, SemanticLinking(), settings.embed_passages)
        namespaces = Namespaces(graph, target, redis)
        transfer = Transfer(graph, semantic, namespaces)
        done: dict[str, int] = {}
        for namespace in only or namespaces.names():
            namespaces.require(namespace)
            done[namespace] = transfer.embed(namespace, transfer.nodes(namespace))
        if finish or not only:
            target.record_identity(identity, complete=True)
        semantic.close()
        return {
            "model": str(identity),
            "store": target.location,
            "complete": target.is_complete(),
            "nodes": sum(done.values()),
            "namespaces": done,
            "seconds": round(time.perf_counter() - start, 1),
        }
    finally:
        target.close()
        graph.close()
        redis.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.reembed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--namespace", action="append", default=[], help="only this namespace (repeatable)")
    parser.add_argument(
        "--finish", action="store_true", help="with --namespace: mark the new store complete (the rest are not needed)"
    )
    args = parser.parse_args(argv)
    settings = get_settings()
    print(json.dumps(reembed(settings, Embedder.from_settings(settings), args.namespace, args.finish)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
