#!/usr/bin/env python3
"""What a recall `min_score` keeps and drops: LoCoMo questions whose evidence stays in the top 10,
and the cards that off-topic queries still get (docs/benchmarks.md, "Nothing relevant").

Each LoCoMo file's samples are ingested once, each into a fresh namespace (as
`scripts/eval_locomo.py` does: `<prefix>-minscore-<sample_id>`), then every question of categories
1-4 is asked once with `min_score` 0 and `top_k` 100, and the off-topic queries below (English
and Chinese, about nothing the conversations talk of) likewise. Every card carries its `relevance`
and the API leaves out the cards below `min_score` before cutting to `top_k`, so the answer at any
threshold is read off the one answer without it: the first 10 of its cards at or above the
threshold (exact as long as a question has 100 candidates at most, which LoCoMo's do not exceed
after fusion's merges; `scripts/eval_locomo.py --min-score` asks the API itself).

Printed per file and threshold: Recall@10 with the threshold and without (the difference), the share
of questions that keep all the evidence they had in the top 10, the questions left with no card,
and the off-topic queries' mean cards in a top 10 and how many of them still got any card.

    .venv/bin/python scripts/eval_min_score.py FILE [FILE ...] [--thresholds 0.3,0.4,0.5] [--json-out PATH]
        [--neo4j-uri bolt://... --redis-url redis://...] [--namespace-prefix eval] [--limit-questions N]
    .venv/bin/python scripts/eval_min_score.py --reuse PATH [--thresholds ...]   # the figures of a saved run
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from app.domain.text import mostly_chinese  # noqa: E402
from app.evaluation.retrieval_metrics import recall_at_k  # noqa: E402
from app.recall.relevance import DEFAULT_MIN_SCORE, answers, judgeable  # noqa: E402
from hippograph.datasets import Sample, load_samples  # noqa: E402
from jobs.host import open_runtime  # noqa: E402
from scripts.eval_locomo import ADVERSARIAL, evidence_of, ingest  # noqa: E402
from scripts.harness import add_engine_arguments, fresh_namespace, local_engines, served_api  # noqa: E402

NEO4J_PORT = 17696
REDIS_PORT = 16396
TOP_K = 100  # the API's limit: every card a threshold could keep
K = 10
THRESHOLDS = (0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
# fmt: off
OFF_TOPIC = (
    "Finish the billing migration",
    "Kubernetes pod restart policy",
    "What is the Postgres connection pool size?",
    "Rotate the AWS access keys for the staging account",
    "When is the quarterly tax filing deadline for the company?",
    "How do I configure the nginx reverse proxy?",
    "What is the boiling point of mercury?",
    "Fix the flaky integration test in the payment service",
    "Which compiler flags does the firmware build use?",
    "Schedule the nightly database backup job",
    "Renew the TLS certificate before it expires",
    "What was the conclusion of the GDPR compliance audit?",
    "量子计算的纠错码",
    "完成账单系统的迁移",
    "Kubernetes 容器的重启策略",
    "数据库连接池的大小是多少？",
    "如何配置 nginx 反向代理？",
    "公司季度报税的截止日期是哪天？",
    "修复支付服务里不稳定的集成测试",
    "更新即将过期的 TLS 证书",
    "汞的沸点是多少？",
    "固件编译用了哪些编译器参数？",
)
# fmt: on
Card = dict[str, Any]


def ask(client: httpx.Client, namespace: str, query: str, now: str) -> list[Card]:
    body = {"query": query, "top_k": TOP_K, "now": now, "min_score": 0}
    response = client.post(f"/v1/namespaces/{namespace}/recall", json=body)
    if response.status_code != 200:
        raise SystemExit(f"recall in {namespace} answered {response.status_code}: {response.text[:500]}")
    items: list[Card] = response.json()["items"]
    return [{"type": c["type"], "relevance": c["relevance"], "source_turn_ids": c["source_turn_ids"],
             "summary": c["summary"][:80]} for c in items]  # fmt: skip


def answer_at(cards: Sequence[Card], threshold: float, query: str, reads_across: bool) -> list[Card]:
    """What the API answers with `min_score` = threshold and `top_k` K (`app.recall.relevance.answers`):
    every card when the best judged one reaches it (half of it for a query no vector read) or most of
    the leading K cannot be judged, else none."""
    terms_only = not reads_across and mostly_chinese(query)  # a Chinese query, an English-only embedder
    leading = [str(card["summary"]) for card in cards[:K]]
    judged = [card["relevance"] if judgeable(str(card["summary"]), query, terms_only) else 0.0 for card in cards]
    kept = answers(judged, leading, query, threshold, terms_only)
    return list(cards) if kept else []


def each_card_at(cards: Sequence[Card], threshold: float) -> list[Card]:
    """The alternative not taken: every card held to the threshold on its own."""
    return [card for card in cards if card["relevance"] >= threshold]


def run_sample(client: httpx.Client, sample: Sample, namespace: str, limit: int | None) -> dict[str, Any]:
    fresh_namespace(client, namespace)
    seconds = ingest(client, namespace, sample.sessions, 200)
    print(f"{sample.sample_id}: {len(sample.turns)} turns ingested in {seconds:.1f} s", flush=True)
    now = (sample.last_date + timedelta(days=1)).isoformat()
    asked = [qa for qa in sample.qa if str(qa.get("category")) != ADVERSARIAL][:limit]
    questions = []
    for qa in asked:
        evidence = [turn for turn in evidence_of(qa) if turn in sample.turn_to_session]
        question = str(qa["question"])
        questions.append({"question": question, "category": str(qa.get("category")), "evidence": evidence,
                          "cards": ask(client, namespace, question, now)})  # fmt: skip
    off_topic = [{"query": query, "cards": ask(client, namespace, query, now)} for query in OFF_TOPIC]
    return {"sample_id": sample.sample_id, "questions": questions, "off_topic": off_topic}


def figures(samples: Sequence[dict[str, Any]], thresholds: Sequence[float], reads_across: bool) -> list[dict[str, Any]]:
    """Per threshold (0 first: without one), over every sample's questions and off-topic queries
    (`reads_across`: the embedder reads Chinese as well as English)."""
    questions = [q for sample in samples for q in sample["questions"] if q["evidence"]]
    off_topic = [query for sample in samples for query in sample["off_topic"]]

    def each_card_recall(threshold: float) -> float:
        found = [recall_at_k(each_card_at(q["cards"], threshold), q["evidence"], K) or 0.0 for q in questions]
        return statistics.fmean(found) if found else 0.0

    base = [recall_at_k(q["cards"], q["evidence"], K) or 0.0 for q in questions]
    rows = []
    for threshold in (0.0, *thresholds):
        at = [recall_at_k(answer_at(q["cards"], threshold, q["question"], reads_across), q["evidence"], K) or 0.0
              for q in questions]  # fmt: skip
        off = [len(answer_at(query["cards"], threshold, query["query"], reads_across)[:K]) for query in off_topic]
        rows.append({
            "min_score": threshold,
            "questions": len(questions),
            "recall_at_10": statistics.fmean(at) if at else 0.0,
            "recall_at_10_without": statistics.fmean(base) if base else 0.0,
            "recall_at_10_each_card": each_card_recall(threshold),
            "questions_keeping_evidence": sum(1 for a, b in zip(at, base, strict=True) if a >= b),
            "questions_without_cards": sum(
                1 for q in questions if not answer_at(q["cards"], threshold, q["question"], reads_across)
            ),
            "off_topic_queries": len(off_topic),
            "off_topic_mean_cards": statistics.fmean(off) if off else 0.0,
            "off_topic_answered": sum(1 for n in off if n),
        })  # fmt: skip
    return rows


def print_rows(name: str, rows: Sequence[dict[str, Any]]) -> None:
    print(f"\n### {name}\n")
    print("| min_score | R@10 | R@10 without | diff | keep evidence | no card | off-topic cards (mean of top 10) "
          "| off-topic answered | R@10 if each card were held to it |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        mark = " (default)" if r["min_score"] == DEFAULT_MIN_SCORE else ""
        print(f"| {r['min_score']:g}{mark} | {r['recall_at_10']:.3f} | {r['recall_at_10_without']:.3f} "
              f"| {r['recall_at_10'] - r['recall_at_10_without']:+.3f} "
              f"| {r['questions_keeping_evidence']}/{r['questions']} | {r['questions_without_cards']} "
              f"| {r['off_topic_mean_cards']:.2f} | {r['off_topic_answered']}/{r['off_topic_queries']} "
              f"| {r['recall_at_10_each_card']:.3f} |")  # fmt: skip


def best_off_topic(samples: Sequence[dict[str, Any]]) -> None:
    """Each off-topic query's best card relevance per sample: how far below the default it stays."""
    print("\noff-topic queries, best card relevance per sample:")
    for index, query in enumerate(OFF_TOPIC):
        best = [max((c["relevance"] for c in s["off_topic"][index]["cards"]), default=0.0) for s in samples]
        print(f"  {query}: " + ", ".join(f"{value:.3f}" for value in best))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, help="LoCoMo JSON files (each measured on its own)")
    parser.add_argument("--thresholds", default=",".join(f"{t:g}" for t in THRESHOLDS),
                        help="min_score values to read off, comma-separated")  # fmt: skip
    parser.add_argument("--limit-questions", type=int, help="ask at most N questions of each sample")
    parser.add_argument("--namespace-prefix", default="eval", help="namespaces are <prefix>-minscore-<sample_id>")
    parser.add_argument("--json-out", type=Path, help="write the figures and every answer's cards here")
    parser.add_argument("--reuse", type=Path, help="read the answers of an earlier --json-out instead of asking")
    add_engine_arguments(parser)
    args = parser.parse_args()
    if bool(args.files) == bool(args.reuse):
        parser.error("give either LoCoMo files or --reuse")
    thresholds = sorted({float(value) for value in args.thresholds.split(",") if value.strip()} | {DEFAULT_MIN_SCORE})
    if args.reuse:
        report = json.loads(args.reuse.read_text(encoding="utf-8"))
        for name, measured in report["files"].items():
            print_rows(name, figures(measured["samples"], thresholds, bool(report.get("reads_across"))))
            best_off_topic(measured["samples"])
        return
    report = {"default_min_score": DEFAULT_MIN_SCORE, "off_topic_queries": list(OFF_TOPIC), "files": {}}
    with local_engines("eval-min-score", NEO4J_PORT, REDIS_PORT, args) as settings:
        runtime = open_runtime(settings, host_jobs=True)
        report["reads_across"] = reads_across = runtime.recall.embedder.reads_chinese
        try:
            with served_api(runtime) as client:
                for path in args.files:
                    samples = [run_sample(client, sample, f"{args.namespace_prefix}-minscore-{sample.sample_id}"[:64],
                                          args.limit_questions) for sample in load_samples([path])]  # fmt: skip
                    rows = figures(samples, thresholds, reads_across)
                    report["files"][path.name] = {"figures": rows, "samples": samples}
                    print_rows(path.name, rows)
                    best_off_topic(samples)
        finally:
            runtime.close()
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"\nwritten to {args.json_out}")


if __name__ == "__main__":
    main()
