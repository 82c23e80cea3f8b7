"""The newer of two statements about the same thing first, when a query asks for the current state.

The fact track supersedes the values its rules can read (app/extract/updates.py); where they cannot
tell, two turns still say two values of one attribute: "We use Postgres 15 for billing" and, a week
later, "Update: we upgraded billing to Postgres 16". A query asking how things are now ("What
database does billing use?", "where does she live now", "现在用什么"; `query.asks_state`) gets the
newer statement first; one asking about the past ("what did billing use before", "以前") is answered
with history (superseded facts shown, app/recall/service.py) and keeps its order. Pure functions
(tests/test_recall_currency.py).

Two leading cards state the same thing when both are statements (a turn, a fact or an event) with a
time, share a word of the query (the subject: "billing"; not a word that asks for the present, such
as "currently"), and the newer one says it changed something ("upgraded", "switched", "now", "换成",
"现在"). Sharing other words was not enough: on LoCoMo dev it reordered turns that were about the
same topic but no change (MRR -0.009). Within each
such group the cards trade places, newest first, and each takes the score of its new place, so the
cards stay best first by score; nothing enters or leaves the leading cards.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from app.domain.text import tokens
from app.recall.fusion import STATEMENT_TYPES, Card
from app.recall.query import State

# Cards compared (the leading ones only: ordering never brings a card in from further down).
LEADING = 10
# When a statement was made: a turn's time, a fact's start, an event's time.
_SAID_AT = ("timestamp", "valid_from", "event_time")

# Words that ask for the current state, not what about: two statements that share "currently" with the
# query are not about the same thing ("I currently have three bikes", "theaters are currently open").
_STATE_WORDS = frozenset(
    {"now", "currently", "current", "still", "latest", "today", "nowadays", "presently", "现在", "目前", "如今", "当前"}
)
_CHANGED = re.compile(
    r"\b(?:upgraded|updated|switched|moved|migrated|changed|replaced|swapped|now|no\s+longer|any\s*more|"
    r"instead|joined|quit|sold|traded|became|relocated|rescheduled|downgraded)\b"
    r"|升级|换成|换了|改成|改到|改用|迁|搬|挪|推迟|提前|调到|现在|不再|已经不|跳槽|离职|辞职",
    re.IGNORECASE,
)


def newer_first(cards: Sequence[Card], state: State | None, query_terms: Sequence[str]) -> list[Card]:
    """`cards` (best first) with the statements about the same thing among the leading LEADING
    put newest first when the query asks for the current state; unchanged otherwise. A card
    moved gets `explain["newer_first"]` = 1."""
    ordered = list(cards)
    if state != "current":
        return ordered
    query = frozenset(query_terms) - _STATE_WORDS
    leading = ordered[:LEADING]
    words = [frozenset(tokens(card.summary)) for card in leading]
    times = [_said_at(card) for card in leading]
    groups = _Groups(len(leading))
    for i in range(len(leading)):
        for j in range(i + 1, len(leading)):
            ti, tj = times[i], times[j]
            if ti is None or tj is None or ti == tj:
                continue
            newer = leading[i] if ti > tj else leading[j]
            if _same_thing(words[i], words[j], query, newer.summary):
                groups.join(i, j)
    for members in groups.sets():
        if len(members) < 2:
            continue
        places = sorted(members)
        scores = [leading[place].score for place in places]
        # newest first; equal times keep their order (a turn and the fact read from it)
        by_time = sorted(places, key=lambda place: (-_timestamp(times[place]), place))
        moved = [leading[place] for place in by_time]
        for place, card, score in zip(places, moved, scores, strict=True):
            if ordered[place] is not card:
                card.explain["newer_first"] = 1.0
            card.score = score
            ordered[place] = card
    return ordered


def _same_thing(a: frozenset[str], b: frozenset[str], query: frozenset[str], newer_summary: str) -> bool:
    """Both say a word of the query (the subject) and the newer one says it changed something."""
    return bool(a & b & query) and _CHANGED.search(newer_summary) is not None


def _said_at(card: Card) -> datetime | None:
    if card.type not in STATEMENT_TYPES or card.flags.get("inferred"):
        return None
    for key in _SAID_AT:
        if key in card.times:
            return card.times[key]
    return None


def _timestamp(moment: datetime | None) -> float:
    return moment.timestamp() if moment is not None else 0.0


class _Groups:
    """Union-find over card places."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, place: int) -> int:
        while self.parent[place] != place:
            self.parent[place] = self.parent[self.parent[place]]
            place = self.parent[place]
        return place

    def join(self, a: int, b: int) -> None:
        self.parent[self.find(a)] = self.find(b)

    def sets(self) -> list[list[int]]:
        found: dict[int, list[int]] = {}
        for place in range(len(self.parent)):
            found.setdefault(self.find(place), []).append(place)
        return list(found.values())
