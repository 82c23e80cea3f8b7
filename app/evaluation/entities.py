"""Merges right and wrong on the labelled entity-resolution set (tests/data/entity_resolution.json).

Each case is written through the API into a namespace of its own (saved memories, then turns, then
`later_memories`); each labelled pair of mentions is then judged by the nodes the mentions landed on.
A pair merged (both on one node) is a true merge when labelled `same`, else a false merge; a `same`
pair left on two nodes (or a mention that found no node) is a miss. False merges are the costly
error: the resolver holds them down by never comparing strings by similarity (app/domain/entities.py).

Layers of one concept (one file name): `app/domain/entities.py` (the pure name rules);
`app/memory/entities.py` (resolution over the graph); `app/api/entities.py` (the merge and split
routes); `app/evaluation/entities.py` (scoring resolution on a labelled set)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from app.domain.turns import dialogue_id

LABELLED_SET = Path(__file__).resolve().parents[2] / "tests" / "data" / "entity_resolution.json"
SESSION = "s1"
START = datetime(2024, 5, 15, 10, 0, tzinfo=UTC)


class Client(Protocol):
    """What the evaluation needs of an HTTP client of the API (httpx.Client, FastAPI's TestClient)."""

    def get(self, url: str, **kwargs: Any) -> Any: ...
    def post(self, url: str, **kwargs: Any) -> Any: ...
    def put(self, url: str, **kwargs: Any) -> Any: ...
    def delete(self, url: str, **kwargs: Any) -> Any: ...


@dataclass
class Counts:
    true_merges: int = 0
    false_merges: int = 0
    misses: int = 0
    kept_apart: int = 0

    @property
    def precision(self) -> float:
        merged = self.true_merges + self.false_merges
        return self.true_merges / merged if merged else 1.0

    @property
    def recall(self) -> float:
        same = self.true_merges + self.misses
        return self.true_merges / same if same else 1.0


@dataclass
class EntityReport:
    by_language: dict[str, Counts] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # "case: a ~ b: false merge" / "miss"

    @property
    def total(self) -> Counts:
        total = Counts()
        for counts in self.by_language.values():
            for name in ("true_merges", "false_merges", "misses", "kept_apart"):
                setattr(total, name, getattr(total, name) + getattr(counts, name))
        return total

    def table(self) -> str:
        lines = ["| language | pairs | true merges | false merges | misses | kept apart | precision | recall |",
                 "|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for language, counts in [*sorted(self.by_language.items()), ("all", self.total)]:
            pairs = counts.true_merges + counts.false_merges + counts.misses + counts.kept_apart
            lines.append(f"| {language} | {pairs} | {counts.true_merges} | {counts.false_merges} | {counts.misses} "
                         f"| {counts.kept_apart} | {counts.precision:.2f} | {counts.recall:.2f} |")  # fmt: skip
        return "\n".join(lines)


def load_cases(path: Path = LABELLED_SET) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["cases"]
    return cases


def evaluate(client: Client, cases: list[dict[str, Any]], prefix: str) -> EntityReport:
    """Write each case into namespace `<prefix>-<n>` (deleted afterwards) and judge its pairs."""
    report = EntityReport()
    for number, case in enumerate(cases):
        namespace = f"{prefix}-{number}"
        _ok(client.put(f"/v1/namespaces/{namespace}"))
        try:
            nodes = _write(client, namespace, case)
            counts = report.by_language.setdefault(case["lang"], Counts())
            for first, second, same in case["pairs"]:
                a, b = _node(client, namespace, first, nodes), _node(client, namespace, second, nodes)
                merged = a is not None and a == b
                if merged and same:
                    counts.true_merges += 1
                elif merged:
                    counts.false_merges += 1
                    report.errors.append(f"{case['id']}: {first} ~ {second}: false merge ({a})")
                elif same:
                    counts.misses += 1
                    report.errors.append(f"{case['id']}: {first} ~ {second}: miss ({a} / {b})")
                else:
                    counts.kept_apart += 1
        finally:
            client.delete(f"/v1/namespaces/{namespace}")
    return report


def _ok(response: Any) -> Any:
    if response.status_code >= 300:
        raise RuntimeError(f"{response.request.method} {response.request.url}: {response.status_code} {response.text}")
    return response.json()


def _write(client: Client, namespace: str, case: Mapping[str, Any]) -> dict[str, str]:
    saved = {m["ref"]: _ok(client.post(f"/v1/namespaces/{namespace}/memories", json=_body(m)))["id"]
             for m in case.get("memories", [])}  # fmt: skip
    turns = [
        {"session_id": SESSION, "turn_id": turn["ref"], "speaker": turn["speaker"], "text": turn["text"],
         "timestamp": (START + timedelta(minutes=index)).isoformat()}
        for index, turn in enumerate(case.get("turns", []))
    ]  # fmt: skip
    batches = [turns] if case.get("batch") == "together" else [[turn] for turn in turns]
    for batch in batches:
        _ok(client.post(f"/v1/namespaces/{namespace}/turns", json={"turns": batch, "wait": True}))
    for memory in case.get("later_memories", []):
        saved[memory["ref"]] = _ok(client.post(f"/v1/namespaces/{namespace}/memories", json=_body(memory)))["id"]
    return saved


def _body(memory: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in memory.items() if key != "ref"}


def _node(client: Client, namespace: str, mention: str, saved: Mapping[str, str]) -> str | None:
    """The node a mention landed on, None when it found none (or more than one)."""
    kind, _, ref = mention.partition(":")
    if kind == "memory":
        return str(_ok(client.get(f"/v1/namespaces/{namespace}/nodes/{saved[ref]}"))["id"])  # through merges
    dialogue = dialogue_id(SESSION, ref)
    if kind == "speaker":
        found = _referenced(client, namespace, dialogue, "person:")
    else:
        prefix = {"subject": "person:", "concept": "concept:"}[kind]
        relationships = _ok(client.get(f"/v1/namespaces/{namespace}/nodes/{dialogue}"))["relationships"]
        facts = [r["source_id"] for r in relationships if r["type"] == "REFERENCE" and r["target_id"] == dialogue
                 and r["source_id"].startswith("knowledge:")]  # fmt: skip
        found = set().union(*(_referenced(client, namespace, fact, prefix) for fact in facts))
    return found.pop() if len(found) == 1 else None


def _referenced(client: Client, namespace: str, node_id: str, prefix: str) -> set[str]:
    """The nodes of an id prefix that `node_id` has a REFERENCE to."""
    relationships = _ok(client.get(f"/v1/namespaces/{namespace}/nodes/{node_id}"))["relationships"]
    return {
        r["target_id"]
        for r in relationships
        if r["type"] == "REFERENCE" and r["source_id"] == node_id and r["target_id"].startswith(prefix)
    }
