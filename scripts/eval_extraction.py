#!/usr/bin/env python3
"""Extraction quality of the write path on a hand-labelled conversation set.

Runs the fact extractor (`extract_facts`) and the time extractor (`find_time_expressions`, against the
session timestamp) on every turn of `tests/data/labelled_conversations.json` and scores them against
the labels, per language and overall:

- facts: matched per turn on (normalize_name(subject), slot, normalize_name(value));
- times: matched per turn on (start, end, granularity);
- dates: the day each fact is dated to (`date_facts`, as the write path dates it: `event_time` from the
  time expressions of the fact's own clause) or none, for the labelled facts that carry `event_time` (a
  day or null) and were extracted: matched per turn on (subject, slot, value, day or none), so a fact
  dated wrongly counts once as a false positive and once as a false negative;
- supersessions: derived from the extracted facts in turn order per (subject, slot), as the write path
  does (a new value for the same subject and a single-valued slot supersedes the current one), matched on
  (subject, slot, old value, new value, turn) against `expected_supersessions`.

    .venv/bin/python scripts/eval_extraction.py [path] [--verbose]

`evaluate(path)` returns the counts, scores and errors as a dict (used by tests/test_extraction_quality.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.extract.dating import date_facts  # noqa: E402
from app.extract.facts import extract_facts  # noqa: E402
from app.extract.names import normalize_name  # noqa: E402
from app.extract.timeexpr import find_time_expressions  # noqa: E402
from app.extract.types import FactMention, TimeMention, supersedes  # noqa: E402

DEFAULT_PATH = REPO / "tests" / "data" / "labelled_conversations.json"
CATEGORIES = ("facts", "times", "dates", "supersessions")
OVERALL = "overall"

FactsFn = Callable[[str, str], list[FactMention]]
TimesFn = Callable[[str, datetime], list[TimeMention]]
DatingFn = Callable[[str, list[FactMention], list[TimeMention]], list[FactMention]]
Key = tuple[Hashable, ...]
Item = tuple[Key, str]  # a match key and how to show it


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, other: Tally) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn

    @property
    def precision(self) -> float:
        if self.tp + self.fp:
            return self.tp / (self.tp + self.fp)
        return 1.0 if self.fn == 0 else 0.0  # nothing claimed: vacuous only when nothing was expected

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }


@dataclass(frozen=True)
class Error:
    category: str
    kind: str  # "fp" (extracted, not labelled) or "fn" (labelled, not extracted)
    language: str
    turn_id: str
    item: str

    def as_dict(self) -> dict[str, str]:
        return {
            "category": self.category,
            "kind": self.kind,
            "language": self.language,
            "turn_id": self.turn_id,
            "item": self.item,
        }


@dataclass
class Run:
    """Tallies per category and language, the errors, and the size of the labelled set."""

    tallies: dict[str, dict[str, Tally]] = field(default_factory=lambda: {c: {} for c in CATEGORIES})
    errors: list[Error] = field(default_factory=list)
    sizes: dict[str, Counter[str]] = field(default_factory=dict)

    def tally(self, category: str, language: str) -> Tally:
        return self.tallies[category].setdefault(language, Tally())

    def size(self, language: str) -> Counter[str]:
        return self.sizes.setdefault(language, Counter())


# --- matching -------------------------------------------------------------------------------------------


def compare(expected: Iterable[Item], predicted: Iterable[Item]) -> tuple[Tally, list[tuple[str, str]]]:
    """Multiset matching on keys; returns the tally and the unmatched items as (kind, display text)."""
    want, want_counts = keyed(expected)
    got, got_counts = keyed(predicted)
    tally = Tally()
    misses: list[tuple[str, str]] = []
    for key in want_counts.keys() | got_counts.keys():
        wanted, found = want_counts[key], got_counts[key]
        tally.tp += min(wanted, found)
        if found > wanted:
            tally.fp += found - wanted
            misses.extend([("fp", got[key])] * (found - wanted))
        if wanted > found:
            tally.fn += wanted - found
            misses.extend([("fn", want[key])] * (wanted - found))
    return tally, sorted(misses)


def keyed(items: Iterable[Item]) -> tuple[dict[Key, str], Counter[Key]]:
    """Display text per key (first seen) and the count of each key."""
    display: dict[Key, str] = {}
    counts: Counter[Key] = Counter()
    for key, text in items:
        display.setdefault(key, text)
        counts[key] += 1
    return display, counts


def score(
    run: Run, category: str, language: str, turn_id: str, expected: Iterable[Item], predicted: Iterable[Item]
) -> None:
    tally, misses = compare(expected, predicted)
    run.tally(category, language).add(tally)
    run.errors.extend(Error(category, kind, language, turn_id, item) for kind, item in misses)


# --- keys -----------------------------------------------------------------------------------------------


def fact_key(subject: str, slot: str, value: str) -> Item:
    return (normalize_name(subject), slot, normalize_name(value)), f"({subject}, {slot}, {value})"


def time_key(text: str, start: datetime, end: datetime, granularity: str) -> Item:
    window = start.isoformat() if start == end else f"{start.isoformat()} .. {end.isoformat()}"
    return (start, end, granularity), f"{text!r}: {granularity} {window}"


def supersession_key(subject: str, slot: str, old: str, new: str, turn_id: str) -> Item:
    key = (normalize_name(subject), slot, normalize_name(old), normalize_name(new), turn_id)
    return key, f"({subject}, {slot}): {old} -> {new}"


def labelled_facts(turn: Mapping[str, Any]) -> list[Item]:
    return [fact_key(f["subject"], f["slot"], f["value"]) for f in turn["expected"]["facts"]]


def labelled_times(turn: Mapping[str, Any]) -> list[Item]:
    return [
        time_key(t["text"], datetime.fromisoformat(t["start"]), datetime.fromisoformat(t["end"]), t["granularity"])
        for t in turn["expected"]["times"]
    ]


def labelled_dates(turn: Mapping[str, Any], found: set[Key]) -> list[Item]:
    """The labelled dates of the facts that carry one and were extracted (their keys are in `found`)."""
    items = []
    for f in turn["expected"]["facts"]:
        key, shown = fact_key(f["subject"], f["slot"], f["value"])
        if "event_time" in f and key in found:
            items.append(date_key(key, shown, f["event_time"]))
    return items


def extracted_dates(facts: Iterable[FactMention], labelled: set[Key]) -> list[Item]:
    """The dates given to the extracted facts whose keys are in `labelled` (labelled with a date or null)."""
    items = []
    for fact in facts:
        key, shown = fact_key(fact.subject, fact.slot, fact.value)
        if key in labelled:
            items.append(date_key(key, shown, fact.event_time.date().isoformat() if fact.event_time else None))
    return items


def date_key(key: Key, shown: str, day: str | None) -> Item:
    return (*key, day), f"{shown} dated {day or 'never'}"


def extracted_times(mentions: Iterable[TimeMention]) -> list[Item]:
    return [time_key(m.text, m.start, m.end, str(m.granularity.value)) for m in mentions]


def derived_supersessions(facts: Iterable[tuple[str, FactMention]]) -> list[Item]:
    """Supersessions implied by facts in turn order: a new value for a (subject, slot) replaces the current one."""
    current: dict[tuple[str, str], FactMention] = {}
    found: list[Item] = []
    for turn_id, fact in facts:
        slot_key = (normalize_name(fact.subject), fact.slot)
        if not supersedes(fact.slot):
            continue
        previous = current.get(slot_key)
        if previous is not None and normalize_name(previous.value) != normalize_name(fact.value):
            found.append(supersession_key(fact.subject, fact.slot, previous.value, fact.value, turn_id))
        current[slot_key] = fact
    return found


# --- the run --------------------------------------------------------------------------------------------


def load(path: Path) -> list[dict[str, Any]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    conversations = data.get("conversations") if isinstance(data, dict) else None
    if not isinstance(conversations, list):
        raise ValueError(f"{path}: expected an object with a 'conversations' list")
    return conversations


def evaluate_conversation(
    run: Run, conversation: Mapping[str, Any], facts_fn: FactsFn, times_fn: TimesFn, dating_fn: DatingFn
) -> None:
    language = conversation["language"]
    size = run.size(language)
    size["conversations"] += 1
    in_order: list[tuple[str, FactMention]] = []
    for session in sorted(conversation["sessions"], key=lambda s: datetime.fromisoformat(s["timestamp"])):
        size["sessions"] += 1
        reference = datetime.fromisoformat(session["timestamp"])
        for turn in session["turns"]:
            turn_id = turn["turn_id"]
            size["turns"] += 1
            size["facts"] += len(turn["expected"]["facts"])
            size["times"] += len(turn["expected"]["times"])
            facts = facts_fn(turn["text"], turn["speaker"])
            in_order.extend((turn_id, fact) for fact in facts)
            predicted = [fact_key(f.subject, f.slot, f.value) for f in facts]
            score(run, "facts", language, turn_id, labelled_facts(turn), predicted)
            mentions = times_fn(turn["text"], reference)
            score(run, "times", language, turn_id, labelled_times(turn), extracted_times(mentions))
            dated_labels = {fact_key(f["subject"], f["slot"], f["value"])[0] for f in turn["expected"]["facts"]
                            if "event_time" in f}  # fmt: skip
            size["dates"] += len(dated_labels)
            found = {key for key, _ in predicted}
            dated = dating_fn(turn["text"], facts, mentions)
            score(run, "dates", language, turn_id, labelled_dates(turn, found), extracted_dates(dated, dated_labels))
    expected = [
        (s["at_turn"], supersession_key(s["subject"], s["slot"], s["old_value"], s["new_value"], s["at_turn"]))
        for s in conversation.get("expected_supersessions", [])
    ]
    size["supersessions"] += len(expected)
    score_supersessions(run, language, expected, derived_supersessions(in_order))


def score_supersessions(run: Run, language: str, expected: list[tuple[str, Item]], predicted: list[Item]) -> None:
    """Scored per conversation; errors are reported at the turn of the supersession."""
    turns = sorted({turn for turn, _ in expected} | {str(key[-1]) for key, _ in predicted})
    for turn_id in turns:
        want = [item for turn, item in expected if turn == turn_id]
        got = [item for item in predicted if item[0][-1] == turn_id]
        score(run, "supersessions", language, turn_id, want, got)


def summarize(run: Run) -> dict[str, Any]:
    scores: dict[str, dict[str, dict[str, float | int]]] = {}
    for category, by_language in run.tallies.items():
        overall = Tally()
        scores[category] = {}
        for language in sorted(by_language):
            overall.add(by_language[language])
            scores[category][language] = by_language[language].as_dict()
        scores[category][OVERALL] = overall.as_dict()
    sizes = {language: dict(counts) for language, counts in sorted(run.sizes.items())}
    sizes[OVERALL] = dict(sum(run.sizes.values(), Counter()))
    return {"sizes": sizes, "scores": scores, "errors": [error.as_dict() for error in run.errors]}


def evaluate(
    path: Path | str = DEFAULT_PATH,
    *,
    facts_fn: FactsFn = extract_facts,
    times_fn: TimesFn = find_time_expressions,
    dating_fn: DatingFn = date_facts,
) -> dict[str, Any]:
    """Scores of the extractors on the labelled file at `path`.

    Returns {"sizes": {language: counts}, "scores": {category: {language: {tp, fp, fn, precision, recall,
    f1}}}, "errors": [{category, kind, language, turn_id, item}]}; languages include "overall".
    `facts_fn` / `times_fn` / `dating_fn` replace the extractors (for testing the evaluator itself)."""
    run = Run()
    for conversation in load(Path(path)):
        evaluate_conversation(run, conversation, facts_fn, times_fn, dating_fn)
    return summarize(run)


# --- output ---------------------------------------------------------------------------------------------


def format_sizes(sizes: Mapping[str, Mapping[str, int]]) -> str:
    fields = ("conversations", "sessions", "turns", "facts", "times", "dates", "supersessions")
    lines = [f"{'language':<9}" + "".join(f"{name:>15}" for name in fields)]
    for language, counts in sizes.items():
        lines.append(f"{language:<9}" + "".join(f"{counts.get(name, 0):>15}" for name in fields))
    return "\n".join(lines)


def format_scores(scores: Mapping[str, Mapping[str, Mapping[str, float | int]]]) -> str:
    lines = [f"{'category':<14}{'language':<9}{'TP':>5}{'FP':>5}{'FN':>5}{'precision':>11}{'recall':>8}{'F1':>7}"]
    for category, by_language in scores.items():
        for language, s in by_language.items():
            lines.append(
                f"{category:<14}{language:<9}{s['tp']:>5}{s['fp']:>5}{s['fn']:>5}"
                f"{s['precision']:>11.3f}{s['recall']:>8.3f}{s['f1']:>7.3f}"
            )
    return "\n".join(lines)


def format_errors(errors: Iterable[Mapping[str, str]]) -> str:
    lines: list[str] = []
    for category in CATEGORIES:
        for kind, title in (("fp", "false positives"), ("fn", "false negatives")):
            chosen = [e for e in errors if e["category"] == category and e["kind"] == kind]
            lines.append(f"\n{category} {title} ({len(chosen)}):")
            lines.extend(f"  {e['turn_id']:<12} {e['item']}" for e in chosen)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="labelled conversations (JSON)")
    parser.add_argument("--verbose", "-v", action="store_true", help="list false positives and false negatives")
    args = parser.parse_args(argv)
    result = evaluate(args.path)
    print(format_sizes(result["sizes"]))
    print()
    print(format_scores(result["scores"]))
    if args.verbose:
        print(format_errors(result["errors"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
