"""The context builder: the minimum sufficient context for a goal within a token budget. Recall
(the recall service, unchanged) ranks the memory cards; `app/context/packing.py` packs them,
summaries first and full content where the budget allows.

When the asking agent's run (its circuit-breaker state) reports a context pressure above the
breaker's limit (HIPPOGRAPH_BREAKER_PRESSURE, 85 %), the attention switches:
- completed tasks (Task nodes whose status is `done`, app/domain/tasks.py) keep their summary only:
  their details are dropped; so is every other card's full content except the next step's;
- the next step (the best-ranked running task, else pending task, else the best-ranked card that is
  not a done task) is shown in full where it fits; the memories its task names (`related_ids`) and
  its neighbourhood by spreading activation (the related-nodes read, two hops, activation = product
  of weights x recall's hop decay per hop) are added after the cards;
- the answer says what was dropped and what was added.
Without Task nodes the switch still runs: the next step is then the top card.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from app.context.packing import Candidate, Packed, activation, next_step, pack, render
from app.context.runs import Runs
from app.context.tokens import TokenCounter
from app.domain.keys import Viewer
from app.domain.tasks import TaskStatus, status_of
from app.recall.fusion import Card
from app.recall.neighbourhood import Neighbourhood, seen_by
from app.recall.parameters import DETAIL_IDS_SIZE, NO_MATCH, fixed_size
from app.recall.request import RecallRequest
from app.recall.service import Recall
from app.stores.graph import GraphStore
from app.stores.queries.recall_queries import DetailsRow, RecallQueries

ACTIVATION_DEPTH = 2
ACTIVATION_LIMIT = 10


@dataclass(frozen=True)
class ContextRequest:
    text: str
    token_budget: int
    mode: Literal["local", "global"]
    top_k: int
    agent_id: str
    viewer: Viewer
    run_id: str | None = None
    now: datetime | None = None  # recall's reference time
    agent_in_focus: bool = False  # the agent named itself: its memories count as in focus in recall
    min_score: float = 0.0  # recall's: no card unless the best is this relevant (app/recall/relevance.py)


class ContextBuilder:
    def __init__(
        self,
        recall: Recall,
        graph: GraphStore,
        neighbourhood: Neighbourhood,
        runs: Runs,
        counter: TokenCounter,
    ) -> None:
        self.recall = recall
        self.graph = graph
        self.neighbourhood = neighbourhood
        self.runs = runs
        self.counter = counter

    def build(self, namespace: str, request: ContextRequest) -> dict[str, Any]:
        recalled = self.recall.recall(
            namespace,
            RecallRequest(
                query=request.text,
                top_k=request.top_k,
                mode=request.mode,
                now=request.now,
                agent_id=request.agent_id if request.agent_in_focus else None,
                viewer=request.viewer,
                min_score=request.min_score,
            ),
        )
        cards = recalled.cards
        details = self._details(namespace, [card.id for card in cards], request.viewer)
        statuses = {card.id: status_of(details.get(card.id, {})) for card in cards if card.type == "Task"}
        candidates = [_candidate(card, details.get(card.id, {})) for card in cards]
        pressure = self._pressure(namespace, request)
        switched = pressure is not None and pressure > self.runs.thresholds.pressure
        answer: dict[str, Any] = {
            "pressure": None if pressure is None else round(pressure, 6),
            "switched": switched,
            "nothing_relevant": recalled.nothing_relevant,
            "note": recalled.note,
        }
        dropped: list[dict[str, str]] = []
        if switched:
            focus = next_step(candidates, statuses)
            candidates, dropped = _switch(candidates, statuses, focus)
            detail = details.get(focus) if focus else None
            named = list(detail["related_ids"] or []) if detail else []
            candidates += self._related(namespace, named, {c.id for c in candidates}, request.viewer)
            candidates += self._activated(namespace, focus, {c.id for c in candidates}, request.viewer)
            answer["next_step"] = focus
        packed = pack(candidates, request.token_budget, self.counter.count)
        context = render(packed)
        answer.update(
            context=context,
            items=[_item(item) for item in packed],
            tokens=self.counter.count(context),
            token_budget=request.token_budget,
            tokenizer=self.counter.name,
            mode=request.mode,
        )
        if switched:
            answer["dropped"] = dropped
            answer["added"] = [item.candidate.id for item in packed if item.candidate.source != "recall"]
        return answer

    def _details(self, namespace: str, ids: list[str], viewer: Viewer) -> dict[str, DetailsRow]:
        if not ids:
            return {}
        padded = fixed_size(ids, DETAIL_IDS_SIZE, NO_MATCH)
        rows = RecallQueries(self.graph).details(namespace=namespace, ids=padded, **seen_by(viewer))
        return {row["id"]: row for row in rows}

    def _pressure(self, namespace: str, request: ContextRequest) -> float | None:
        if request.run_id is None:
            return None
        state = self.runs.find(namespace, request.agent_id, request.run_id)
        return None if state is None else state.pressure

    def _related(self, namespace: str, ids: list[str], known: set[str], viewer: Viewer) -> list[Candidate]:
        """The memories the next step's task names, not already in the context, in the task's order."""
        wanted = [node_id for node_id in dict.fromkeys(ids) if node_id not in known]
        cards = {card.id: card for card in self.recall.cards_for(namespace, dict.fromkeys(wanted, 1.0), viewer)}
        return [Candidate(c.id, c.type, c.summary, None, 1.0, "related", False) for i in wanted if (c := cards.get(i))]

    def _activated(self, namespace: str, focus: str | None, known: set[str], viewer: Viewer) -> list[Candidate]:
        """The next step's neighbourhood by spreading activation, strongest first, without the
        nodes already in the context."""
        if focus is None:
            return []
        hop_decay = self.recall.spreading.hop_decay
        rows = self.neighbourhood.related(namespace, focus, ACTIVATION_DEPTH, ACTIVATION_LIMIT, viewer)
        reached = [
            Candidate(row["id"], row["type"], row.get("summary") or "", None,
                      activation(row["distance"], row["strength"], hop_decay), "activation", False)
            for row in rows
            if row["id"] not in known
        ]  # fmt: skip
        return sorted(reached, key=lambda c: (-c.score, c.id))


def _candidate(card: Card, detail: Mapping[str, Any]) -> Candidate:
    content = detail.get("content")
    return Candidate(card.id, card.type, card.summary, content if isinstance(content, str) else None, card.score)


def _switch(
    candidates: list[Candidate], statuses: dict[str, TaskStatus], focus: str | None
) -> tuple[list[Candidate], list[dict[str, str]]]:
    """Under pressure: full content for the next step only; what lost its details, and why."""
    kept, dropped = [], []
    for candidate in candidates:
        if candidate.id == focus:
            kept.append(candidate)
            continue
        if statuses.get(candidate.id) == TaskStatus.DONE:
            dropped.append({"id": candidate.id, "reason": "task done: details dropped"})
        elif candidate.content and candidate.content != candidate.summary:
            dropped.append({"id": candidate.id, "reason": "not the next step: full content dropped under pressure"})
        kept.append(replace(candidate, full_allowed=False))
    return kept, dropped


def _item(item: Packed) -> dict[str, Any]:
    candidate = item.candidate
    return {"id": candidate.id, "type": candidate.type, "detail": item.detail, "text": item.text,
            "tokens": item.tokens, "source": candidate.source, "score": round(candidate.score, 6)}  # fmt: skip
