#!/usr/bin/env python3
"""How much of the exact top-k Qdrant Edge's HNSW search finds, by `hnsw_ef`, on real conversation
text: the distinct turns of LongMemEval dev's haystacks (~28k, each cut to --max-chars), embedded by
MiniLM (int8, as the default pair embeds English), in one namespace of a fresh shard with its HNSW
index built (`optimize`). Queries: the 60 questions and --sampled turns (as queries). For each ef it
prints the share of the exact top --limit found (ties counted by score), the worst query, how many
queries got the whole exact set, and the search's p50. app/stores/vectors/qdrant_edge.py's
`_SEARCH_EF` is chosen by it. Takes ~5 minutes on 2 cores (embedding).

    .venv/bin/python scripts/bench_hnsw_ef.py [--ef 64 128 256 384 512] [--limit 40]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import qdrant_edge as edge  # noqa: E402

from app.embedding.encoder import Embedder, resolve_model_path  # noqa: E402
from app.settings import PACKAGED_MINILM, Settings  # noqa: E402
from app.stores.vectors.base import NAMESPACE_KEY, VectorRecord  # noqa: E402
from app.stores.vectors.qdrant_edge import EdgeVectorStore  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "longmemeval-dev"
NAMESPACE = "bench-hnsw"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="a folder of LongMemEval question files")
    parser.add_argument("--ef", type=int, nargs="+", default=[64, 128, 256, 384, 512])
    parser.add_argument("--limit", type=int, default=40, help="hits per search (the cold path's, 40)")
    parser.add_argument("--sampled", type=int, default=240, help="turns also used as queries")
    parser.add_argument("--max-chars", type=int, default=1000)
    args = parser.parse_args()

    questions, turns = [], set()
    for path in sorted(args.data.glob("*.json")):
        item = json.loads(path.read_text())
        questions.append(item["question"])
        turns |= {turn["content"][: args.max_chars] for session in item["haystack_sessions"] for turn in session}
    texts = sorted(turns)
    settings = Settings()
    embedder = Embedder(resolve_model_path(PACKAGED_MINILM), settings.model_cache_dir, "int8")
    started = time.perf_counter()
    vectors = embedder.embed_passages(texts)
    print(f"{len(texts):,} turns embedded in {time.perf_counter() - started:.0f} s", flush=True)
    queries = embedder.embed_queries(questions + random.Random(1).sample(texts, args.sampled))

    with tempfile.TemporaryDirectory() as folder:
        store = EdgeVectorStore(Path(folder) / "vectors", embedder.dimension)
        try:
            for start in range(0, len(texts), 1000):
                store.upsert(NAMESPACE, [VectorRecord(f"turn-{i}", vectors[i], {}, 0)
                                         for i in range(start, min(start + 1000, len(texts)))])  # fmt: skip
            store.optimize()
            info = store.shard.info()
            print(f"{info.points_count:,} points, {info.indexed_vectors_count:,} in the HNSW index")
            where = edge.Filter(must=[edge.FieldCondition(key=NAMESPACE_KEY, match=edge.MatchValue(NAMESPACE))])

            def scores(vector: list[float], params: edge.SearchParams) -> list[float]:
                request = edge.QueryRequest(limit=args.limit, query=edge.Query.Nearest(vector, using="dense"),
                                            filter=where, with_payload=False, params=params)  # fmt: skip
                return [point.score for point in store.shard.query_batch(edge.QueryBatchRequest([request]))[0]]

            exact = [scores(vector, edge.SearchParams(exact=True)) for vector in queries]
            print(f"\n| hnsw_ef | share of the exact top {args.limit} | worst query | whole set found | p50 |")
            print("|---:|---:|---:|---:|---:|")
            for ef in args.ef:
                shares, times = [], []
                for vector, truth in zip(queries, exact, strict=True):
                    started = time.perf_counter()
                    found = scores(vector, edge.SearchParams(hnsw_ef=ef))
                    times.append((time.perf_counter() - started) * 1000)
                    shares.append(sum(1 for score in found if score >= truth[-1] - 1e-5) / len(truth))
                whole = sum(1 for share in shares if share == 1.0)
                print(f"| {ef} | {statistics.mean(shares):.4f} | {min(shares):.3f} | {whole}/{len(shares)} | "
                      f"{statistics.median(times):.2f} ms |")  # fmt: skip
        finally:
            store.close()


if __name__ == "__main__":
    main()
