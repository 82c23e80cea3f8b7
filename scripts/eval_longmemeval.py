#!/usr/bin/env python3
"""Retrieval quality of the recall API on LongMemEval (the 60-question development subset), next to
BM25 and dense baselines, with LongMemEval's own retrieval protocol.

Per question: a fresh namespace (`eval-lme-<question_id>`; `--namespace-prefix` replaces `eval`),
every haystack session posted through the
write API with `wait`, in date order (session_id = its haystack session id, turn_id
`<session_id>:<j>` with j the turn's position in the session, speaker = the role, timestamp = the
session's date + 5 s per position, UTC); then
`POST /v1/namespaces/<ns>/recall {"query": question, "top_k": 20, "now": <question_date>}` (--top-k
changes the 20 for every system: the token-budget recall can only use the cards returned); then the
namespace is deleted (kept with --keep). BM25 and dense cosine baselines answer over the same single
turns (each indexed as "role: content", the text the product embeds for a turn).

Metrics (`app.evaluation.retrieval_metrics`), per question_type and overall:
- session level: S-any@k / S-all@k, whether any / every `answer_session_ids` session is among the top-k
  cards' sessions (Episode cards count here);
- turn level, against the ingested `has_answer` turns (Episode cards do not count here): R@5, R@10,
  R@20, recall within 512 and 1024 tokens of card text, MRR. A question without such a turn (an
  answer given by the assistant under --user-only) is left out of the turn-level means: its count
  then shows in parentheses.

    .venv/bin/python scripts/eval_longmemeval.py [--data ../shared/data/longmemeval-dev] [--limit N]
        [--user-only] [--top-k 20] [--json-out PATH] [--keep]

--json-out also keeps, per question, every system's ranked cards (id, type, score, source_turn_ids,
the head of the summary), for `scripts/compare_runs.py`.

--limit N takes N questions in turn from each question type (so --limit 6 asks one of each type).
Starts its own Neo4j (17694) and Redis (16394) unless --neo4j-uri/--redis-url are given; --keep leaves
the engines running and the namespaces in place.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from itertools import zip_longest
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from app.embedding.encoder import Embedder  # noqa: E402
from app.evaluation.ablation import ablate  # noqa: E402
from app.evaluation.baselines import BM25, DenseIndex, Doc  # noqa: E402
from app.evaluation.compare import compact_card  # noqa: E402
from app.evaluation.retrieval_metrics import (  # noqa: E402
    MRR,
    Summary,
    aggregate,
    budget_key,
    recall_key,
    score_question,
    session_all_key,
    session_any_key,
)
from app.runtime import Runtime  # noqa: E402
from hippograph.datasets import load_question  # noqa: E402
from jobs.host import open_runtime  # noqa: E402
from scripts.eval_locomo import SYSTEMS, CardStats, ingest, latency_summary, print_tables, recall  # noqa: E402
from scripts.harness import (  # noqa: E402
    add_engine_arguments,
    add_recall_arguments,
    fresh_namespace,
    git_commit,
    local_engines,
    served_api,
    simulate_use,
    warn_of_other_namespaces,
)

NEO4J_PORT = 17694
REDIS_PORT = 16394
DEFAULT_DATA = (REPO / ".." / "shared" / "data" / "longmemeval-dev").resolve()
TOP_K = 20
KS = (5, 10, 20)
SESSION_KS = (5, 10)
BUDGETS = (512, 1024)
COLUMNS = [
    *(session_any_key(k) for k in SESSION_KS),
    *(session_all_key(k) for k in SESSION_KS),
    *(recall_key(k) for k in KS),
    *(budget_key(b) for b in BUDGETS),
    MRR,
]
QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)


def select(paths: Sequence[Path], limit: int | None) -> list[Path]:
    """Every file, or `limit` of them taken in turn from each question type (file order within a type)."""
    if limit is None:
        return list(paths)
    by_type: dict[str, list[Path]] = {}
    for path in paths:
        question_type = json.loads(path.read_text(encoding="utf-8"))["question_type"]
        by_type.setdefault(question_type, []).append(path)
    order = [t for t in QUESTION_TYPES if t in by_type] + sorted(t for t in by_type if t not in QUESTION_TYPES)
    interleaved = [p for group in zip_longest(*(by_type[t] for t in order)) for p in group if p is not None]
    return interleaved[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of LongMemEval question files")
    parser.add_argument("--limit", type=int, help="evaluate N questions, taken in turn from each question type")
    parser.add_argument("--user-only", action="store_true", help="ingest (and index) the user's turns only")
    parser.add_argument("--top-k", type=int, default=TOP_K, help="cards asked of every system (>= 20, <= 100)")
    parser.add_argument("--batch", type=int, default=200, help="turns per write request (whole sessions, <= 1000)")
    parser.add_argument("--json-out", type=Path, help="write every figure (and per-question scores) here as JSON")
    add_engine_arguments(parser)
    add_recall_arguments(parser)
    args = parser.parse_args()
    if not max(KS) <= args.top_k <= 100:
        parser.error(f"--top-k must be between {max(KS)} and 100")
    paths = select(sorted(args.data.glob("*.json")), args.limit)
    if not paths:
        raise SystemExit(f"no question file in {args.data}")
    print(f"{len(paths)} LongMemEval question(s) from {args.data}" + (" (user turns only)" if args.user_only else ""),
          flush=True)  # fmt: skip
    with local_engines("eval-longmemeval", NEO4J_PORT, REDIS_PORT, args) as settings:
        embedder = Embedder.from_settings(settings)
        runtime = open_runtime(settings, host_jobs=True, embedder=embedder)
        ablate(runtime, args.ablate)
        try:
            with served_api(runtime) as client:
                report = evaluate(client, runtime, embedder, paths, args)
        finally:
            runtime.close()
    print_report(report)
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"\nfigures written to {args.json_out}", flush=True)


def evaluate(
    client: httpx.Client, runtime: Runtime, embedder: Embedder, paths: Sequence[Path], args: argparse.Namespace
) -> dict:
    started = time.perf_counter()
    rows: dict[str, list[tuple[str, dict[str, float | None]]]] = {system: [] for system in SYSTEMS}
    questions: list[dict[str, Any]] = []
    took_ms: list[float] = []
    wall_ms: list[float] = []
    cards = CardStats()
    ingest_s = 0.0
    turns_ingested = 0
    warn_of_other_namespaces(client, args.namespace_prefix + "-lme-")
    for number, path in enumerate(paths, start=1):
        q = load_question(path, args.user_only)
        namespace = f"{args.namespace_prefix}-lme-{q.question_id}"[:64]
        fresh_namespace(client, namespace)
        turns = q.turns
        seconds = ingest(client, namespace, q.sessions, args.batch)
        ingest_s += seconds
        turns_ingested += len(turns)
        print(f"[{number}/{len(paths)}] {q.question_id} ({q.question_type}): {len(turns)} turns in {len(q.sessions)} "
              f"sessions ingested in {seconds:.1f} s ({len(turns) / seconds:.0f} turns/s)", flush=True)  # fmt: skip
        simulate_use(client, runtime, namespace, [t["text"] for t in turns], q.now, args.use_turns)
        answer = recall(client, namespace, q.question, q.now, args.top_k)
        items = answer.items
        took_ms.append(answer.took_ms)
        wall_ms.append(answer.wall_ms)
        cards.add(items, answer.stats)
        if not args.keep:
            client.delete(f"/v1/namespaces/{namespace}").raise_for_status()
        docs = [Doc(t["turn_id"], f"{t['speaker']}: {t['text']}") for t in turns]
        ranked = {
            "hippograph": items,
            "bm25": BM25(docs).search(q.question, args.top_k),
            "dense": DenseIndex(embedder, docs).search(q.question, args.top_k),
        }
        scores = {}
        for system, system_cards in ranked.items():
            scores[system] = score_question(
                system_cards, q.evidence, ks=KS, budgets=BUDGETS, session_ks=SESSION_KS,
                answer_sessions=q.answer_sessions, turn_to_session=q.turn_to_session,
            )  # fmt: skip
            rows[system].append((q.question_type, scores[system]))
        questions.append({"question_id": q.question_id, "category": q.question_type, "question": q.question,
                          "evidence": q.evidence, "answer_sessions": q.answer_sessions, "turns": len(turns),
                          "ingest_seconds": seconds, "took_ms": answer.took_ms, "scores": scores, "stats": answer.stats,
                          "cards": {system: [compact_card(c) for c in system_cards]
                                    for system, system_cards in ranked.items()}})  # fmt: skip
        brief = "; ".join(
            f"{system} S-any@5 {fmt(s[session_any_key(5)])} R@10 {fmt(s[recall_key(10)])} MRR {fmt(s[MRR])}"
            for system, s in scores.items()
        )
        print(f"    recall {answer.took_ms:.0f} ms ({len(items)} cards) | {brief}", flush=True)
    return {
        "dataset": "longmemeval",
        "git_commit": git_commit(),
        "user_only": args.user_only,
        "top_k": args.top_k,
        "ablations": args.ablate,
        "use_turns": args.use_turns,
        "question_ids": [q["question_id"] for q in questions],
        "turns_ingested": turns_ingested,
        "ingest_seconds": ingest_s,
        "seconds": time.perf_counter() - started,
        "columns": COLUMNS,
        "systems": {system: {c: s.as_dict() for c, s in summaries(rows[system]).items()} for system in SYSTEMS},
        "recall_took_ms": latency_summary(took_ms),
        "recall_wall_ms": latency_summary(wall_ms),
        "recall_cards": cards.as_dict(),
        "card_lines": cards.lines(),
        "questions": questions,
    }


def fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def summaries(rows: Sequence[tuple[str, dict[str, float | None]]]) -> dict[str, Summary]:
    return aggregate(rows, order=QUESTION_TYPES)


def print_report(report: dict[str, Any]) -> None:
    print_tables(report, COLUMNS)
    if report["questions"]:
        print(f"mean turns per question {statistics.fmean(q['turns'] for q in report['questions']):.0f}")
    print("(a mean over fewer questions than n shows its count in parentheses: the others have no has_answer turn)")


if __name__ == "__main__":
    main()
