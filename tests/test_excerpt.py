"""What a card shows of a memory longer than its summary (app/recall/excerpt.py): exact cases."""

from __future__ import annotations

from app.domain.passages import sentence_of_passage
from app.recall.excerpt import excerpt

CAMPING = (
    "Hey Caroline, hope all's good! I had a quiet weekend after we went camping with my fam two weekends "
    "ago. It was great to unplug and hang with the kids. What have you been up to lately?"
)


def test_the_sentence_sharing_the_most_terms_is_shown_between_ellipses() -> None:
    assert excerpt(CAMPING, ["camping", "weekend"]) == (
        "…I had a quiet weekend after we went camping with my fam two weekends ago.…"
    )


def test_the_first_of_equally_matching_sentences_wins_and_the_head_has_no_leading_ellipsis() -> None:
    assert excerpt(CAMPING, ["caroline", "kids"]) == "Hey Caroline, hope all's good!…"


def test_the_last_sentence_has_no_trailing_ellipsis() -> None:
    assert excerpt(CAMPING, ["lately"]) == "…What have you been up to lately?"


def test_without_a_shared_term_the_matched_sentence_is_shown() -> None:
    matched = "It was great to unplug and hang with the kids."
    assert excerpt(CAMPING, ["swimming"], matched) == "…It was great to unplug and hang with the kids.…"


def test_without_a_shared_term_or_a_matched_sentence_of_the_content_there_is_none() -> None:
    assert excerpt(CAMPING, ["swimming"]) is None
    assert excerpt(CAMPING, ["swimming"], "A sentence the turn never said.") is None


def test_a_content_that_fits_or_has_one_sentence_needs_none() -> None:
    assert excerpt("I went camping with my fam. It was great.", ["camping"]) is None
    assert excerpt("camping " * 40, ["camping"]) is None


def test_a_sentence_longer_than_the_limit_is_cut_between_words() -> None:
    content = "Hello there. " + "We went camping by the lake and " * 8 + "it rained."
    shown = excerpt(content, ["lake"], limit=60)
    assert shown == "…We went camping by the lake and We went camping by the…"
    assert len(shown) <= 60


def test_chinese_sentences_match_by_their_bigrams() -> None:
    busy, trip = "最近工作特别忙，每天都加班到很晚。", "上周五我们全家去杭州西湖划船了。周末还想再去一次。"
    content = "你好！" + busy * 3 + trip * 2
    assert excerpt(content, ["西湖", "划船"], limit=40) == "…上周五我们全家去杭州西湖划船了。…"


def test_a_turns_passage_number_names_its_sentence_point() -> None:
    # Passage 0 is the whole turn; 1.. its sentences of five words or more, as the write path stored them.
    assert sentence_of_passage(CAMPING, 1) == "Hey Caroline, hope all's good!"
    assert sentence_of_passage(CAMPING, 3) == "It was great to unplug and hang with the kids."
    assert sentence_of_passage(CAMPING, None) is None and sentence_of_passage(CAMPING, 9) is None
