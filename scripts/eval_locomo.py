#!/usr/bin/env python3
"""Retrieval quality of the recall API on LoCoMo conversations, next to BM25 and dense baselines.

For each LoCoMo sample: a fresh namespace (`eval-locomo-<sample_id>`; `--namespace-prefix` replaces
`eval`), every session's turns posted
through the write API with `wait` (session_id `session_<n>`, turn_id = the `dia_id`, the speaker,
the session's date as timestamp, turns 5 s apart in order, UTC; a shared image's caption is appended
to its turn as "[shared an image: <caption>]"). Then each question is asked:
`POST /v1/namespaces/<ns>/recall {"query": question, "top_k": 20, "now": <last session + 1 day>}`
(--top-k changes the 20 for every system: the token-budget recall can only use the cards returned),
and the answer's `items` are scored against the question's `evidence` turns with
`app.evaluation.retrieval_metrics` (Episode cards do not count for turn-level evidence). The baselines (BM25 and
dense cosine over single turns, each turn indexed as "speaker: text", the text the product embeds for
a turn) answer the same questions over the same turns.

Category 5 (adversarial: unanswerable) questions are not asked, as in LoCoMo's retrieval protocol.
Printed: one Markdown table per system (rows: categories 1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop, and overall; columns R@5, R@10, R@20, R@512tok, R@1024tok, MRR, n), an
overall comparison, the recall latency (the API's `took_ms` and the client's wall time) and what the
recall cards looked like (types, cards without `source_turn_ids`).

    .venv/bin/python scripts/eval_locomo.py [FILE ...] [--limit-questions N] [--top-k 20] [--json-out PATH] [--keep]
        [--min-score X]

--json-out also keeps, per question (`question_id` `<sample_id>:<position in its qa list>`), every
system's ranked cards (id, type, score, source_turn_ids, the head of the summary): two such files
are diffed question by question by `scripts/compare_runs.py`.

FILE defaults to tests/data/locomo/*.json (each a LoCoMo sample, or a list of them as in locomo10.json).
Starts its own Neo4j (17693) and Redis (16393) unless --neo4j-uri/--redis-url are given; --keep leaves
the engines running and the namespaces in place.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
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
    OVERALL,
    Summary,
    aggregate,
    budget_key,
    card_turn_ids,
    category_table,
    markdown_table,
    recall_key,
    score_question,
)
from app.runtime import Runtime  # noqa: E402
from hippograph.datasets import Sample, batches, load_samples  # noqa: E402
from jobs.host import open_runtime  # noqa: E402
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

NEO4J_PORT = 17693
REDIS_PORT = 16393
DEFAULT_FILES = sorted((REPO / "tests" / "data" / "locomo").glob("*.json"))
TOP_K = 20
KS = (5, 10, 20)
BUDGETS = (512, 1024)
COLUMNS = [*(recall_key(k) for k in KS), *(budget_key(b) for b in BUDGETS), MRR]
CATEGORIES = {"1": "1 multi-hop", "2": "2 temporal", "3": "3 open-domain", "4": "4 single-hop"}
ADVERSARIAL = "5"  # unanswerable questions: LoCoMo's retrieval protocol does not score them, nor ask them here
SYSTEMS = ("hippograph", "bm25", "dense")
Card = dict[str, Any]
EVIDENCE_ID = re.compile(r"D\d+:\d+")


def evidence_of(qa: dict[str, Any]) -> list[str]:
    """The dia_ids named in a question's evidence (some entries hold several, 'D8:6; D9:17')."""
    return [found for entry in qa.get("evidence") or [] for found in EVIDENCE_ID.findall(str(entry))]


def ingest(client: httpx.Client, namespace: str, sessions: Sequence[list[dict[str, Any]]], size: int) -> float:
    start = time.perf_counter()
    for batch in batches(sessions, size):
        response = client.post(f"/v1/namespaces/{namespace}/turns", json={"turns": batch, "wait": True})
        if response.status_code != 200:
            raise SystemExit(f"ingest into {namespace} answered {response.status_code}: {response.text[:500]}")
    return time.perf_counter() - start


@dataclass
class Recalled:
    items: list[Card]  # the recall cards, best first
    took_ms: float  # as the API measured it
    wall_ms: float  # as the client did
    stats: dict[str, Any]


def recall(
    client: httpx.Client, namespace: str, query: str, now: datetime, top_k: int = TOP_K, min_score: float = 0.0
) -> Recalled:
    start = time.perf_counter()
    body = {"query": query, "top_k": top_k, "now": now.isoformat(), "min_score": min_score}
    response = client.post(f"/v1/namespaces/{namespace}/recall", json=body)
    wall_ms = (time.perf_counter() - start) * 1000.0
    if response.status_code != 200:
        raise SystemExit(f"recall in {namespace} answered {response.status_code}: {response.text[:500]}")
    body = response.json()
    return Recalled(list(body.get("items") or []), float(body.get("took_ms") or 0.0), wall_ms, body.get("stats") or {})


@dataclass
class CardStats:
    """What the recall API answered: card types, cards without source turns, Episodes at rank 1."""

    questions: int = 0
    cards: int = 0
    types: Counter[str] = field(default_factory=Counter)
    types_top5: Counter[str] = field(default_factory=Counter)
    without_turns: Counter[str] = field(default_factory=Counter)
    episode_first: int = 0
    empty_answers: int = 0
    time_windows: int = 0

    def add(self, cards: Sequence[Card], stats: dict[str, Any]) -> None:
        self.questions += 1
        self.time_windows += bool(stats.get("time_window"))
        self.cards += len(cards)
        self.empty_answers += not cards
        for rank, card in enumerate(cards):
            kind = str(card.get("type"))
            self.types[kind] += 1
            if rank < 5:
                self.types_top5[kind] += 1
            if not card_turn_ids(card):
                self.without_turns[kind] += 1
        self.episode_first += bool(cards) and cards[0].get("type") == "Episode"

    def lines(self) -> list[str]:
        def shares(counter: Counter[str], total: int) -> str:
            return ", ".join(f"{kind} {count / total:.0%}" for kind, count in counter.most_common()) or "none"

        n = max(1, self.questions)
        return [
            f"recall cards: {self.cards / n:.1f} per question ({self.empty_answers} empty answers); "
            f"Episode first in {self.episode_first / n:.0%} of the answers; "
            f"a time window was read in {self.time_windows} of {self.questions} queries",
            f"  card types (all ranks): {shares(self.types, max(1, self.cards))}",
            f"  card types (top 5): {shares(self.types_top5, max(1, sum(self.types_top5.values())))}",
            f"  cards without source_turn_ids: {sum(self.without_turns.values())} of {self.cards}"
            + (f" ({shares(self.without_turns, sum(self.without_turns.values()))})" if self.without_turns else ""),
        ]

    def as_dict(self) -> dict[str, Any]:
        return {"questions": self.questions, "cards": self.cards, "types": dict(self.types),
                "types_top5": dict(self.types_top5), "without_source_turn_ids": dict(self.without_turns),
                "episode_first": self.episode_first, "empty_answers": self.empty_answers,
                "time_windows": self.time_windows}  # fmt: skip


def latency_summary(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)
    return {"mean": statistics.fmean(ordered), "p50": ordered[len(ordered) // 2],
            "p95": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], "max": ordered[-1]}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, help="LoCoMo JSON files (default: tests/data/locomo/*.json)")
    parser.add_argument("--limit-questions", type=int, help="ask at most N questions of each sample")
    parser.add_argument("--limit-samples", type=int, help="evaluate at most N samples")
    parser.add_argument("--top-k", type=int, default=TOP_K, help="cards asked of every system (>= 20, <= 100)")
    parser.add_argument("--batch", type=int, default=200, help="turns per write request (whole sessions, <= 1000)")
    parser.add_argument("--json-out", type=Path, help="write every figure (and per-question scores) here as JSON")
    parser.add_argument("--min-score", type=float, default=0.0,
                        help="the recall requests' min_score (default 0: cards whatever their relevance)")  # fmt: skip
    add_engine_arguments(parser)
    add_recall_arguments(parser)
    args = parser.parse_args()
    if not max(KS) <= args.top_k <= 100:
        parser.error(f"--top-k must be between {max(KS)} and 100")
    files = args.files or DEFAULT_FILES
    if not files:
        raise SystemExit("no LoCoMo file given and none in tests/data/locomo/")
    samples = load_samples(files)[: args.limit_samples]
    print(f"{len(samples)} LoCoMo sample(s) from {len(files)} file(s)", flush=True)
    with local_engines("eval-locomo", NEO4J_PORT, REDIS_PORT, args) as settings:
        embedder = Embedder.from_settings(settings)
        runtime = open_runtime(settings, host_jobs=True, embedder=embedder)
        ablate(runtime, args.ablate)
        try:
            with served_api(runtime) as client:
                report = evaluate(client, runtime, embedder, samples, args)
        finally:
            runtime.close()
    print_report(report)
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"\nfigures written to {args.json_out}", flush=True)


def evaluate(
    client: httpx.Client, runtime: Runtime, embedder: Embedder, samples: Sequence[Sample], args: argparse.Namespace
) -> dict:
    started = time.perf_counter()
    rows: dict[str, list[tuple[str, dict[str, float | None]]]] = {system: [] for system in SYSTEMS}
    questions: list[dict[str, Any]] = []
    took_ms: list[float] = []
    wall_ms: list[float] = []
    cards = CardStats()
    ingest_s = 0.0
    turns_ingested = 0
    dropped_evidence = 0
    skipped_adversarial = 0
    warn_of_other_namespaces(client, args.namespace_prefix + "-locomo-")
    for number, sample in enumerate(samples, start=1):
        namespace = f"{args.namespace_prefix}-locomo-{sample.sample_id}"[:64]
        fresh_namespace(client, namespace)
        seconds = ingest(client, namespace, sample.sessions, args.batch)
        ingest_s += seconds
        turns_ingested += len(sample.turns)
        n_turns = len(sample.turns)
        print(f"[{number}/{len(samples)}] {sample.sample_id}: {n_turns} turns in {len(sample.sessions)} sessions "
              f"ingested in {seconds:.1f} s ({n_turns / seconds:.1f} turns/s)", flush=True)  # fmt: skip
        docs = [Doc(t["turn_id"], f"{t['speaker']}: {t['text']}") for t in sample.turns]
        bm25 = BM25(docs)
        dense = DenseIndex(embedder, docs)
        now = sample.last_date + timedelta(days=1)
        used = simulate_use(client, runtime, namespace, [doc.text for doc in docs], now, args.use_turns)
        if used:
            print(f"    simulated use: {used} recalls, then the activity flush", flush=True)
        asked = [(position, qa) for position, qa in enumerate(sample.qa, start=1)
                 if str(qa.get("category")) != ADVERSARIAL]  # fmt: skip
        skipped_adversarial += len(sample.qa) - len(asked)
        qas = asked[: args.limit_questions] if args.limit_questions is not None else asked
        for index, (position, qa) in enumerate(qas, start=1):
            named = evidence_of(qa)
            evidence = [turn_id for turn_id in named if turn_id in sample.turn_to_session]
            dropped_evidence += len(named) - len(evidence)
            category = str(qa.get("category", "?"))
            question = str(qa["question"])
            answer = recall(client, namespace, question, now, args.top_k, args.min_score)
            items = answer.items
            took_ms.append(answer.took_ms)
            wall_ms.append(answer.wall_ms)
            cards.add(items, answer.stats)
            ranked = {
                "hippograph": items,
                "bm25": bm25.search(question, args.top_k),
                "dense": dense.search(question, args.top_k),
            }
            scores = {}
            for system, system_cards in ranked.items():
                scores[system] = score_question(system_cards, evidence, ks=KS, budgets=BUDGETS)
                rows[system].append((category, scores[system]))
            questions.append({"question_id": f"{sample.sample_id}:{position}", "sample_id": sample.sample_id,
                              "category": category, "question": question, "evidence": evidence,
                              "took_ms": answer.took_ms, "scores": scores, "stats": answer.stats,
                              "cards": {system: [compact_card(c) for c in system_cards]
                                        for system, system_cards in ranked.items()}})  # fmt: skip
            if index % 25 == 0 or index == len(qas):
                print(f"    {index}/{len(qas)} questions (recall mean {statistics.fmean(took_ms):.0f} ms)", flush=True)
        if not args.keep:
            client.delete(f"/v1/namespaces/{namespace}").raise_for_status()
    return {
        "dataset": "locomo",
        "git_commit": git_commit(),
        "categories": CATEGORIES,
        "samples": [s.sample_id for s in samples],
        "turns_ingested": turns_ingested,
        "ingest_seconds": ingest_s,
        "seconds": time.perf_counter() - started,
        "top_k": args.top_k,
        "min_score": args.min_score,
        "ablations": args.ablate,
        "use_turns": args.use_turns,
        "evidence_ids_not_in_conversation": dropped_evidence,
        "adversarial_questions_not_asked": skipped_adversarial,
        "columns": COLUMNS,
        "systems": {system: {c: s.as_dict() for c, s in summaries(rows[system]).items()} for system in SYSTEMS},
        "recall_took_ms": latency_summary(took_ms),
        "recall_wall_ms": latency_summary(wall_ms),
        "recall_cards": cards.as_dict(),
        "card_lines": cards.lines(),
        "questions": questions,
    }


def summaries(rows: Sequence[tuple[str, dict[str, float | None]]]) -> dict[str, Summary]:
    return aggregate(rows, order=list(CATEGORIES))


def print_report(report: dict[str, Any]) -> None:
    print_tables(report, COLUMNS, labels={**CATEGORIES, OVERALL: "overall"})
    if dropped := report["evidence_ids_not_in_conversation"]:
        print(f"evidence ids naming no turn of the conversation (ignored): {dropped}")
    if skipped := report.get("adversarial_questions_not_asked"):
        print(f"category 5 (adversarial, unanswerable) questions not asked: {skipped}")
    print("(a mean over fewer questions than n shows its count in parentheses: the others name no evidence turn)")


def print_tables(report: dict[str, Any], columns: Sequence[str], labels: dict[str, str] | None = None) -> None:
    """Per system a table by category, then the systems side by side, latency, cards and ingest."""
    for system in SYSTEMS:
        table = {c: Summary.from_dict(s) for c, s in report["systems"][system].items()}
        print(f"\n### {system}\n")
        print(category_table(table, columns, labels=labels))
    print("\n### overall\n")
    overall = [(system, Summary.from_dict(report["systems"][system][OVERALL])) for system in SYSTEMS]
    print(markdown_table(overall, columns, first_header="system"))
    print()
    took, wall = report["recall_took_ms"], report["recall_wall_ms"]
    if took:
        print(f"recall latency: took_ms mean {took['mean']:.1f}, p50 {took['p50']:.1f}, p95 {took['p95']:.1f}, "
              f"max {took['max']:.1f}; client wall mean {wall['mean']:.1f} ms")  # fmt: skip
    for line in report["card_lines"]:
        print(line)
    turns, ingest_s = report["turns_ingested"], report["ingest_seconds"]
    print(f"ingest: {turns} turns in {ingest_s:.1f} s ({turns / max(ingest_s, 1e-9):.1f} turns/s); "
          f"whole run {report['seconds']:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
