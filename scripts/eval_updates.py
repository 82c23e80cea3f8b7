#!/usr/bin/env python3
"""Precision and recall of supersession on the hand-labelled updates set, per language.

Each case of `tests/data/labelled_updates.json` is two statements of one speaker, the earlier first,
and whether the later one must supersede what the earlier one stated. Both are read as the write
path reads a turn (`extract_statements`: the fact extractor and the update patterns); the later one
supersedes when it states a fact of the same subject and single-valued slot as a fact of the earlier
one, with another value (as `app/memory/ingest.py` decides). Predicted and labelled supersessions give
precision and recall per language and overall; a miss or a false supersession is listed as an error
with the facts of both statements.

    .venv/bin/python scripts/eval_updates.py [path] [--verbose]

`evaluate(path)` returns the counts, scores and errors as a dict (tests/test_update_quality.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.extract.facts import normalize_name  # noqa: E402
from app.extract.types import FactMention, supersedes  # noqa: E402
from app.extract.updates import extract_statements  # noqa: E402

DEFAULT_PATH = REPO / "tests" / "data" / "labelled_updates.json"
OVERALL = "overall"
Extract = Callable[[str, str], list[FactMention]]


def superseding(earlier: list[FactMention], later: list[FactMention]) -> list[tuple[FactMention, FactMention]]:
    """(old, new) pairs: a later fact of the same subject and single-valued slot with another value."""
    pairs = []
    for new in later:
        for old in earlier:
            same_key = normalize_name(old.subject) == normalize_name(new.subject) and old.slot == new.slot
            if same_key and supersedes(new.slot) and normalize_name(old.value) != normalize_name(new.value):
                pairs.append((old, new))
    return pairs


def _score(tp: int, fp: int, fn: int) -> dict[str, float | int]:
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": precision, "recall": recall}


def _shown(facts: list[FactMention]) -> list[str]:
    return [f"({fact.subject}, {fact.slot}) = {fact.value}" for fact in facts]


def evaluate(path: Path = DEFAULT_PATH, extract: Extract = extract_statements) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    speaker = data["speaker"]
    tallies: dict[str, list[int]] = {}
    errors: list[dict[str, Any]] = []
    for case in data["cases"]:
        earlier, later = extract(case["earlier"], speaker), extract(case["later"], speaker)
        predicted = bool(superseding(earlier, later))
        expected = bool(case["supersedes"])
        for language in (case["language"], OVERALL):
            tally = tallies.setdefault(language, [0, 0, 0])
            tally[0] += predicted and expected
            tally[1] += predicted and not expected
            tally[2] += expected and not predicted
        if predicted != expected:
            errors.append({"id": case["id"], "language": case["language"],
                           "kind": "false supersession" if predicted else "missed supersession",
                           "earlier": case["earlier"], "later": case["later"],
                           "earlier_facts": _shown(earlier), "later_facts": _shown(later)})  # fmt: skip
    counts = {lang: sum(1 for c in data["cases"] if lang in (c["language"], OVERALL)) for lang in tallies}
    scores = {lang: _score(*tally) for lang, tally in tallies.items()}
    return {"cases": counts, "scores": scores, "errors": errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--verbose", action="store_true", help="list every error with the facts read")
    args = parser.parse_args()
    result = evaluate(args.path)
    print("| language | cases | precision | recall | TP | FP | FN |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for language in sorted(result["scores"], key=lambda lang: (lang == OVERALL, lang)):
        s = result["scores"][language]
        print(f"| {language} | {result['cases'][language]} | {s['precision']:.3f} | {s['recall']:.3f} "
              f"| {s['tp']} | {s['fp']} | {s['fn']} |")  # fmt: skip
    if args.verbose:
        for error in result["errors"]:
            print(f"\n{error['id']} {error['kind']}:\n  {error['earlier']} -> {error['earlier_facts']}"
                  f"\n  {error['later']} -> {error['later_facts']}")  # fmt: skip


if __name__ == "__main__":
    main()
