"""Retrieval metrics and baselines of app.evaluation on hand-computed cases (no engines)."""

from __future__ import annotations

import math

import pytest

from app.evaluation.baselines import BM25, DenseIndex, Doc, pseudo_card
from app.evaluation.retrieval_metrics import (
    OVERALL,
    Summary,
    aggregate,
    cards_within_budget,
    category_table,
    markdown_table,
    recall_at_k,
    recall_within_budget,
    reciprocal_rank,
    score_question,
    session_recall_at_k,
    summarize,
)


def card(type_: str, turn_ids: list[str], summary: str = "text") -> dict:
    return {"id": f"{type_.lower()}:{'-'.join(turn_ids)}", "type": type_, "summary": summary, "score": 1.0,
            "source_turn_ids": turn_ids}  # fmt: skip


# An Episode listing every turn of session s1, then a dialogue and a knowledge card.
CARDS = [
    card("Episode", ["a1", "a2", "a3"], "s"),  # 1 token
    card("Dialogue", ["a2"], "x" * 40),  # 10 tokens
    card("Knowledge", ["b1", "a3"], "y" * 80),  # 20 tokens
]
SESSIONS = {"a1": "s1", "a2": "s1", "a3": "s1", "b1": "s2", "c1": "s3"}


def test_recall_at_k_ignores_episode_cards():
    evidence = {"a2", "a3"}
    assert recall_at_k(CARDS, evidence, 1) == 0.0  # the Episode lists a2 and a3 but does not count
    assert recall_at_k(CARDS, evidence, 2) == 0.5
    assert recall_at_k(CARDS, evidence, 3) == 1.0
    assert recall_at_k(CARDS, evidence, 20) == 1.0
    assert recall_at_k(CARDS, {"a2", "zz"}, 3) == 0.5
    assert recall_at_k(CARDS, set(), 3) is None
    assert recall_at_k([], {"a2"}, 5) == 0.0


def test_cards_without_source_turn_ids_cover_nothing():
    bare = [{"id": "concept:x", "type": "Concept", "summary": "x"}, {"type": "Dialogue", "source_turn_ids": None}]
    assert recall_at_k(bare, {"a1"}, 2) == 0.0
    assert reciprocal_rank(bare, {"a1"}) == 0.0


def test_reciprocal_rank_is_turn_level():
    assert reciprocal_rank(CARDS, {"a2"}) == 0.5
    assert reciprocal_rank(CARDS, {"b1"}) == pytest.approx(1 / 3)
    assert reciprocal_rank(CARDS, {"a1"}) == 0.0  # only the Episode lists a1
    assert reciprocal_rank(CARDS, []) is None


def test_budget_keeps_cards_while_the_running_total_fits():
    assert cards_within_budget(CARDS, 0) == []
    assert cards_within_budget(CARDS, 1) == CARDS[:1]
    assert cards_within_budget(CARDS, 10) == CARDS[:1]  # 1 + 10 > 10
    assert cards_within_budget(CARDS, 11) == CARDS[:2]
    assert cards_within_budget(CARDS, 31) == CARDS
    assert recall_within_budget(CARDS, {"a2", "a3"}, 11) == 0.5
    assert recall_within_budget(CARDS, {"a2", "a3"}, 30) == 0.5
    assert recall_within_budget(CARDS, {"a2", "a3"}, 31) == 1.0


def test_a_card_that_does_not_fit_ends_the_walk():
    cards = [card("Dialogue", ["t1"], "abcd" * 5), card("Dialogue", ["t2"], "a" * 400), card("Dialogue", ["t3"], "z")]
    assert cards_within_budget(cards, 50) == cards[:1]  # t3 (1 token) would fit but comes after the misfit
    assert recall_within_budget(cards, {"t3"}, 50) == 0.0
    assert recall_within_budget(cards, {"t1", "t3"}, 50) == 0.5


def test_budget_counts_chinese_characters_one_token_each():
    cards = [card("Dialogue", ["t1"], "我住在北京"), card("Dialogue", ["t2"], "我在上海工作")]  # 5 and 6 tokens
    assert cards_within_budget(cards, 10) == cards[:1]
    assert cards_within_budget(cards, 11) == cards


def test_session_recall_counts_episode_cards():
    assert session_recall_at_k(CARDS, {"s1"}, SESSIONS, 1) == (1.0, 1.0)
    assert session_recall_at_k(CARDS, {"s1", "s2"}, SESSIONS, 1) == (1.0, 0.0)
    assert session_recall_at_k(CARDS, {"s1", "s2"}, SESSIONS, 2) == (1.0, 0.0)
    assert session_recall_at_k(CARDS, {"s1", "s2"}, SESSIONS, 3) == (1.0, 1.0)
    assert session_recall_at_k(CARDS, {"s3"}, SESSIONS, 3) == (0.0, 0.0)
    assert session_recall_at_k(CARDS, set(), SESSIONS, 3) == (None, None)
    with_session_field = [{"type": "Knowledge", "summary": "k", "session_id": "s3"}]
    assert session_recall_at_k(with_session_field, {"s3"}, SESSIONS, 1) == (1.0, 1.0)


def test_score_question_names_every_metric():
    scores = score_question(
        CARDS, {"a2", "a3"}, ks=(1, 3), budgets=(11,), answer_sessions={"s1", "s2"}, turn_to_session=SESSIONS,
        session_ks=(1, 3),
    )  # fmt: skip
    assert scores == {
        "R@1": 0.0,
        "R@3": 1.0,
        "R@11tok": 0.5,
        "MRR": 0.5,
        "S-any@1": 1.0,
        "S-all@1": 0.0,
        "S-any@3": 1.0,
        "S-all@3": 1.0,
    }
    assert set(score_question(CARDS, {"a2"})) == {"R@5", "R@10", "R@20", "R@512tok", "R@1024tok", "MRR"}


def test_aggregate_per_category_and_overall():
    rows = [
        ("2", {"R@5": 1.0, "MRR": 1.0}),
        ("1", {"R@5": 0.5, "MRR": 0.25}),
        ("1", {"R@5": 0.0, "MRR": None}),
        ("9", {"R@5": None, "MRR": None}),
    ]
    result = aggregate(rows, order=["1", "2", "3"])
    assert list(result) == ["1", "2", "9", OVERALL]
    assert result["1"].n == 2
    assert result["1"].means == {"R@5": 0.25, "MRR": 0.25}
    assert result["1"].counts == {"R@5": 2, "MRR": 1}
    assert result["9"].means == {"R@5": None, "MRR": None}
    assert result[OVERALL].n == 4
    assert result[OVERALL].means["R@5"] == pytest.approx(0.5)
    assert result[OVERALL].means["MRR"] == pytest.approx(0.625)
    assert result[OVERALL].as_dict() == {
        "n": 4,
        "means": result[OVERALL].means,
        "counts": {"R@5": 3, "MRR": 2},
    }
    assert summarize([]) == Summary()


def test_markdown_table():
    result = aggregate([("1", {"R@5": 0.5, "MRR": None}), ("1", {"R@5": 1.0, "MRR": 1 / 3})])
    assert category_table(result, ["R@5", "MRR"], labels={"1": "1 multi-hop"}) == "\n".join(
        [
            "| category | R@5 | MRR | n |",
            "|---|---:|---:|---:|",
            "| 1 multi-hop | 0.750 | 0.333 (1) | 2 |",
            "| overall | 0.750 | 0.333 (1) | 2 |",
        ]
    )
    assert markdown_table([("bm25", Summary(n=0))], ["R@5"], first_header="system") == "\n".join(
        ["| system | R@5 | n |", "|---|---:|---:|", "| bm25 | – | 0 |"]
    )


# -- BM25 ------------------------------------------------------------------------------------------

DOCS = [Doc("d0", "apple banana apple"), Doc("d1", "banana cherry"), Doc("d2", "durian")]


def test_bm25_idf_values_are_exact():
    bm25 = BM25(DOCS)
    assert bm25.avgdl == 2.0
    assert bm25.idf("apple") == pytest.approx(math.log(1 + 2.5 / 1.5))  # df 1 of N 3
    assert bm25.idf("banana") == pytest.approx(math.log(1 + 1.5 / 2.5))  # df 2
    assert bm25.idf("zebra") == pytest.approx(math.log(8.0))  # df 0


def test_bm25_scores_are_exact():
    bm25 = BM25(DOCS)
    # d0: tf 2, |d| 3: norm = 1.5 * (0.25 + 0.75 * 3 / 2) = 2.0625
    apple = bm25.scores("apple")
    assert apple[0] == pytest.approx(math.log(8 / 3) * 2 * 2.5 / (2 + 2.0625))
    assert apple[1:] == [0.0, 0.0]
    # banana: d1 is shorter (|d| 2 = avgdl, norm 1.5) and outranks d0 (tf 1 each)
    banana = bm25.scores("the banana")  # "the" is a stop word
    assert banana[0] == pytest.approx(math.log(1.6) * 2.5 / (1 + 2.0625))
    assert banana[1] == pytest.approx(math.log(1.6))
    assert [c["source_turn_ids"] for c in bm25.search("banana")] == [["d1"], ["d0"]]


def test_bm25_ranks_the_right_document_first():
    docs = [
        Doc("t1", "I adopted a golden retriever puppy named Max last spring."),
        Doc("t2", "The weather in Lisbon was lovely, we walked along the river."),
        Doc("t3", "My sister bought a new car, a red Civic."),
        Doc("t4", "Max the retriever loves chasing tennis balls."),
    ]
    bm25 = BM25(docs)
    ranked = bm25.search("What is the name of my puppy?", top_k=5)
    assert ranked[0] == pseudo_card(docs[0], ranked[0]["score"])
    assert ranked[0] == {"id": "turn:t1", "type": "Dialogue", "summary": docs[0].text,
                         "score": ranked[0]["score"], "source_turn_ids": ["t1"]}  # fmt: skip
    assert [c["source_turn_ids"][0] for c in bm25.search("Which car did my sister buy?")][:1] == ["t3"]
    assert bm25.search("zebra crossing") == []  # no shared token: nothing returned
    assert len(bm25.search("retriever Max", top_k=1)) == 1


def test_bm25_chinese_query():
    docs = [
        Doc("z1", "我住在北京，每天骑车上班。"),
        Doc("z2", "我在上海工作，喜欢吃小笼包。"),
        Doc("z3", "Hello there"),
    ]
    bm25 = BM25(docs)
    assert bm25.df("北京") == 1
    assert bm25.idf("北京") == pytest.approx(math.log(1 + 2.5 / 1.5))
    assert [c["source_turn_ids"][0] for c in bm25.search("你住在哪里？")] == ["z1"]
    assert [c["source_turn_ids"][0] for c in bm25.search("谁在上海工作")] == [
        "z2"
    ]  # 在上 上海 工作; z1 shares no bigram
    assert bm25.search("北京")[0]["source_turn_ids"] == ["z1"]


def test_bm25_ties_keep_document_order():
    bm25 = BM25([Doc("a", "same words"), Doc("b", "same words"), Doc("c", "other")])
    assert [c["source_turn_ids"][0] for c in bm25.search("same")] == ["a", "b"]
    assert BM25([]).search("anything") == []


# -- dense -----------------------------------------------------------------------------------------


class FakeEmbedder:
    """Fixed, unnormalized vectors: the index must normalize them itself, and embed documents as
    passages and the query as a query (a text of the wrong kind has no vector here)."""

    PASSAGES = {"north": [0.0, 10.0], "east": [3.0, 0.0], "north-east": [1.0, 1.0]}
    QUERIES = {"query": [0.0, 2.0]}

    def embed_passages(self, texts):
        return [list(self.PASSAGES[t]) for t in texts]

    def embed_queries(self, texts):
        return [list(self.QUERIES[t]) for t in texts]


def test_dense_index_ranks_by_cosine():
    docs = [Doc("e", "east"), Doc("ne", "north-east"), Doc("n", "north")]
    index = DenseIndex(FakeEmbedder(), docs)
    assert index.scores("query") == pytest.approx([0.0, math.sqrt(0.5), 1.0])
    ranked = index.search("query", top_k=2)
    assert [c["source_turn_ids"] for c in ranked] == [["n"], ["ne"]]
    assert ranked[0]["score"] == pytest.approx(1.0)
    assert ranked[0]["summary"] == "north"
    assert len(index.search("query", top_k=10)) == 3  # every document has a cosine
