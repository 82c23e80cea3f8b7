#!/usr/bin/env python3
"""A per-question diff of two evaluation runs: what a change gained and lost, question by question.

    .venv/bin/python scripts/compare_runs.py A.json B.json [--k 10] [--top 10] [--system hippograph]
        [--system-b bm25] [--only SAMPLE_TEXT]

A (before) and B (after) are `--json-out` reports of `scripts/eval_locomo.py` or
`scripts/eval_longmemeval.py` (of the same data). Printed: the mean recall@k of A and B per category
and overall, over the questions scored in both, with the delta; the counts of gained / lost /
unchanged questions; then every GAINED question (B covers more of its evidence turns within the
top k cards than A) and every LOST one, each with its category, its evidence turn ids and the top
cards of both runs (rank, `[E <turn ids>]` when the card holds evidence turns, type, id, summary).

--system compares another system of the reports (bm25, dense); --system-b another system in B than
in A, e.g. `compare_runs.py RUN.json RUN.json --system-b bm25` lists where BM25 beats Hippograph.
--only keeps the questions whose id (`<sample_id>:<n>`) contains the text: one language direction of
`locomo-dev-cross.json`, or one sample.
The diffing is `app.evaluation.compare`; this script only reads and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.evaluation.compare import HIPPOGRAPH, compare, questions_of, render  # noqa: E402


def load(path: Path) -> dict[str, Any]:
    report = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(report, dict) or "questions" not in report:
        raise SystemExit(f"{path} is not an evaluation report (no 'questions')")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", type=Path, help="run A (before): an eval script's --json-out file")
    parser.add_argument("b", type=Path, help="run B (after)")
    parser.add_argument("--k", type=int, default=10, help="recall@k compared per question (default 10)")
    parser.add_argument("--top", type=int, default=10, help="cards shown per run for each changed question")
    parser.add_argument("--system", default=HIPPOGRAPH, help="the system compared (hippograph, bm25, dense)")
    parser.add_argument("--system-b", help="the system of run B, when it differs from --system")
    parser.add_argument(
        "--only",
        help="compare only the questions whose id contains this text (a sample or a direction of the cross-language "
        "file: --only cross-en-turns-zh-questions)",
    )
    args = parser.parse_args()
    a, b = load(args.a), load(args.b)
    if a.get("dataset") != b.get("dataset"):
        raise SystemExit(f"the runs are of different benchmarks: {a.get('dataset')} and {b.get('dataset')}")
    for name, report in (("A", a), ("B", b)):
        if args.k > int(report.get("top_k") or 0):
            raise SystemExit(f"run {name} kept {report.get('top_k')} cards per question: --k {args.k} is more")
    system_b = args.system_b or args.system
    try:
        questions = questions_of(a, args.system), questions_of(b, system_b)
        if args.only:
            questions = tuple({key: q for key, q in run.items() if args.only in key} for run in questions)
            if not questions[0]:
                raise ValueError(f"no question id of run A contains {args.only!r}")
        comparison = compare(*questions, args.k)
    except ValueError as error:
        raise SystemExit(str(error)) from error
    for name, path, report, system in (("A", args.a, a, args.system), ("B", args.b, b, system_b)):
        print(f"{name}: {path} ({report.get('dataset')}, {system}, commit {report.get('git_commit') or '?'}, "
              f"top_k {report.get('top_k')}, {len(report['questions'])} questions)")  # fmt: skip
    print()
    print(render(comparison, top=args.top, labels=a.get("categories") or {}))


if __name__ == "__main__":
    main()
