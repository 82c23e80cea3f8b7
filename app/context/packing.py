"""The minimum sufficient context within a token budget, and the choices of the attention switch.
Pure (tests/test_context_packing.py, tests/test_context_budget.py); `app/context/builder.py` feeds it
recall cards and graph reads.

Packing, given candidates in order (recall cards in rank order, then nodes added by activation):
1. each candidate's summary entry, in order, when it still fits (a candidate that does not fit is
   skipped, a later smaller one may still fit), so the top card is in whenever it fits at all;
2. then, in the same order, a summary is replaced by the full content where the rest of the budget
   allows (and the candidate may show it);
3. the joined context is counted whole; were it over the budget (a tokenizer whose counts do not add
   up across entries), the last entries are cut to their summaries, then dropped, until it fits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from app.domain.tasks import TaskStatus

SEPARATOR = "\n\n"
Detail = Literal["summary", "full"]
# recall: a recall card; related: a memory the next step's task names (`related_ids`); activation:
# reached from the next step by spreading activation.
Source = Literal["recall", "related", "activation"]
# The statuses a next step is looked for in, in this order (app/domain/tasks.py).
NEXT_STEP_STATUSES = (TaskStatus.RUNNING, TaskStatus.PENDING)


@dataclass(frozen=True)
class Candidate:
    id: str
    type: str
    summary: str
    content: str | None  # the full text; None: nothing more than the summary
    score: float
    source: Source = "recall"
    full_allowed: bool = True


@dataclass(frozen=True)
class Packed:
    candidate: Candidate
    detail: Detail
    text: str
    tokens: int


def entry(candidate: Candidate, detail: Detail) -> str:
    """What the context shows of one node: `[Type] text`, whitespace collapsed (its id is in the
    answer's items: a hashed id costs ~20 tokens in the prompt)."""
    text = candidate.content if detail == "full" and candidate.content else candidate.summary or candidate.id
    return f"[{candidate.type}] {' '.join(text.split())}"


def render(packed: Sequence[Packed]) -> str:
    return SEPARATOR.join(item.text for item in packed)


def pack(candidates: Sequence[Candidate], budget: int, count: Callable[[str], int]) -> list[Packed]:
    """The entries to show, in candidate order, whose joined text is at most `budget` tokens."""
    gap = count(SEPARATOR)
    chosen: dict[int, Packed] = {}
    used = 0
    for index, candidate in enumerate(candidates):
        text = entry(candidate, "summary")
        tokens, separator = count(text), gap if chosen else 0
        if used + separator + tokens <= budget:
            chosen[index] = Packed(candidate, "summary", text, tokens)
            used += separator + tokens
    for index in sorted(chosen):
        item = chosen[index]
        candidate = item.candidate
        if not candidate.full_allowed or not candidate.content or candidate.content == candidate.summary:
            continue
        text = entry(candidate, "full")
        tokens = count(text)
        if used - item.tokens + tokens <= budget:
            chosen[index] = Packed(candidate, "full", text, tokens)
            used += tokens - item.tokens
    packed = [chosen[index] for index in sorted(chosen)]
    return fit(packed, budget, count)


def fit(packed: list[Packed], budget: int, count: Callable[[str], int]) -> list[Packed]:
    """Step 3 of the module's rules: cut from the end until the joined text fits."""
    while packed and count(render(packed)) > budget:
        last = packed[-1]
        if last.detail == "full":
            text = entry(last.candidate, "summary")
            packed[-1] = replace(last, detail="summary", text=text, tokens=count(text))
        else:
            packed.pop()
    return packed


def next_step(candidates: Sequence[Candidate], statuses: Mapping[str, TaskStatus]) -> str | None:
    """The node the agent's next step works on: the best-ranked running task, else the best-ranked
    pending one, else the best-ranked candidate that is not a done task (no tasks: the top card).
    `statuses`: the status of each Task candidate."""
    for wanted in NEXT_STEP_STATUSES:
        for candidate in candidates:
            if statuses.get(candidate.id) == wanted:
                return candidate.id
    for candidate in candidates:
        if statuses.get(candidate.id) != TaskStatus.DONE:
            return candidate.id
    return None


def activation(distance: int, strength: float, hop_decay: float) -> float:
    """Spreading activation reaching a node `distance` hops from the seed along relationships whose
    weights multiply to `strength`: strength x hop_decay^distance (recall's rule, max-merged)."""
    return strength * hop_decay**distance
