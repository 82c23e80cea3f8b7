"""The newer statement first for a query about the current state (app/recall/currency.py) and what a
query asks of a changing value (app/recall/query.asks_state): exact cases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.domain.text import tokens
from app.recall.currency import LEADING, newer_first
from app.recall.fusion import Card
from app.recall.query import asks_state

WEEK_AGO = datetime(2024, 5, 6, 9, tzinfo=UTC)
NOW = WEEK_AGO + timedelta(days=7)


def _card(card_id: str, summary: str, score: float, at: datetime | None, card_type: str = "Dialogue") -> Card:
    times = {"timestamp": at} if at is not None else {}
    return Card(card_id, card_type, summary, score, 1.0, "dialogue", "user_stated", None, [card_id], {}, times)


@pytest.mark.parametrize(
    ("query", "state"),
    [
        ("What database does billing use?", "current"),
        ("Where does Alice live now?", "current"),
        ("计费系统现在用什么数据库？", "current"),
        ("What did billing use before?", "history"),
        ("Where did Alice live previously?", "history"),
        ("她以前在哪家公司？", "history"),
        ("When did Alice go to Paris?", None),
        ("Alice的生日", None),
    ],
)
def test_asks_state(query: str, state: str | None) -> None:
    assert asks_state(query) == state


def test_the_newer_statement_takes_the_older_ones_place_and_score() -> None:
    old = _card("old", "We use Postgres 15 for billing.", 0.92, WEEK_AGO)
    other = _card("other", "Billing reports go out on Mondays.", 0.70, WEEK_AGO + timedelta(days=1))
    new = _card("new", "Update: we upgraded billing to Postgres 16 yesterday.", 0.58, NOW)
    ranked = newer_first([old, other, new], "current", tokens("What database does billing use?"))
    assert [card.id for card in ranked] == ["new", "other", "old"]
    assert [card.score for card in ranked] == [0.92, 0.70, 0.58]
    assert new.explain == {"newer_first": 1.0} and old.explain == {"newer_first": 1.0} and other.explain == {}


def test_a_change_word_joins_statements_that_share_only_the_subject() -> None:
    old = _card("old", "我们的例会在周一下午两点", 0.9, WEEK_AGO)
    new = _card("new", "例会挪到了周三上午九点", 0.5, NOW)
    assert [c.id for c in newer_first([old, new], "current", tokens("例会现在是什么时候？"))] == ["new", "old"]
    # the same pair without a change word stays as ranked, even with other words shared
    calm = _card("calm", "例会的会议室在周一下午两点开门", 0.5, NOW)
    assert [c.id for c in newer_first([old, calm], "current", tokens("例会现在是什么时候？"))] == ["old", "calm"]


def test_nothing_moves_without_the_current_state_or_a_shared_query_word() -> None:
    old = _card("old", "We use Postgres 15 for billing.", 0.92, WEEK_AGO)
    new = _card("new", "Update: we upgraded billing to Postgres 16 yesterday.", 0.58, NOW)
    for state in (None, "history"):
        assert [c.id for c in newer_first([old, new], state, tokens("What did billing use before?"))] == ["old", "new"]
    # "postgres" is shared, but no word of the query is
    assert [c.id for c in newer_first([old, new], "current", ("frontend",))] == ["old", "new"]


def test_only_timed_statements_among_the_leading_cards_move() -> None:
    old = _card("old", "We use Postgres 15 for billing.", 0.92, WEEK_AGO)
    episode = _card("episode", "Billing moved to Postgres 16", 0.8, NOW, card_type="Episode")
    timeless = _card("timeless", "billing upgraded to Postgres 16", 0.7, None)
    filler = [_card(f"f{i}", f"unrelated {i}", 0.6 - i / 100, WEEK_AGO) for i in range(LEADING)]
    late = _card("late", "Update: we upgraded billing to Postgres 16.", 0.1, NOW)
    ranked = newer_first([old, episode, timeless, *filler, late], "current", tokens("What database does billing use?"))
    assert [c.id for c in ranked[:3]] == ["old", "episode", "timeless"] and ranked[-1].id == "late"


def test_a_word_that_asks_for_the_present_names_no_subject() -> None:
    bikes = _card("bikes", "By the way, I currently have three bikes.", 0.9, WEEK_AGO)
    theaters = _card("theaters", "Many theaters are currently offering new virtual shows.", 0.5, NOW)
    query = tokens("How many bikes do I currently own?")
    assert [c.id for c in newer_first([bikes, theaters], "current", query)] == ["bikes", "theaters"]
