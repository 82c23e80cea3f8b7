"""Passages of a long text (`app.domain.passages`), exactly, with a token count that is easy to
follow (one token per word of a spaced script and per CJK character), and with the model's own."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.domain.passages import passages, sentence_passages
from app.embedding.encoder import Embedder

_TOKEN = re.compile(r"[\u4e00-\u9fff]|[^\s\u4e00-\u9fff]+")


def words(texts: Sequence[str]) -> list[int]:
    return [len(_TOKEN.findall(text)) for text in texts]


def test_a_text_that_fits_is_the_prefixed_text_itself() -> None:
    assert passages("I like tea. I drink it daily.", words, 8, prefix="alice: ") == [
        "alice: I like tea. I drink it daily."
    ]
    assert passages("one two three", words, 3) == ["one two three"]


def test_sentences_are_packed_whole_and_only_the_first_passage_carries_the_prefix() -> None:
    text = "One two three. Four five six.\nSeven eight. Nine ten eleven twelve."
    # prefix 1 token + 3 + 3 = 7 fit; "Seven eight." (2) would make 9.
    assert passages(text, words, 7, prefix="bob: ") == [
        "bob: One two three. Four five six.",
        "Seven eight. Nine ten eleven twelve.",
    ]


def test_every_passage_can_carry_the_prefix() -> None:
    text = "One two three. Four five six. Seven eight."
    assert passages(text, words, 5, prefix="bob: ", prefix_every=True) == [
        "bob: One two three.",
        "bob: Four five six.",
        "bob: Seven eight.",
    ]


def test_overlap_repeats_the_last_sentence_when_it_fits() -> None:
    text = "A b. C d. E f g. H i j k."
    assert passages(text, words, 5, overlap=1) == ["A b. C d.", "C d. E f g.", "H i j k."]
    assert passages(text, words, 5) == ["A b. C d.", "E f g.", "H i j k."]


def test_a_sentence_longer_than_the_window_is_cut_between_words() -> None:
    text = "Short one. " + " ".join(f"w{i}" for i in range(1, 12)) + ". Tail here."
    assert passages(text, words, 5) == [
        "Short one.",
        "w1 w2 w3 w4 w5",
        "w6 w7 w8 w9 w10",
        "w11. Tail here.",
    ]


def test_chinese_is_split_at_its_sentence_marks_and_cut_between_characters() -> None:
    text = "我喜欢喝茶。你呢？我们明天去北京吧！"
    assert passages(text, words, 9) == ["我喜欢喝茶。 你呢？", "我们明天去北京吧！"]
    assert passages(text, words, 8) == ["我喜欢喝茶。", "你呢？", "我们明天去北京吧", "！"]
    assert passages("我每天早上都喝一杯绿茶", words, 4) == ["我每天早", "上都喝一", "杯绿茶"]


def test_a_single_word_longer_than_the_window_stays_whole() -> None:
    assert passages("Hi. " + "x" * 40 + " end", lambda ts: [len(t) for t in ts], 10) == ["Hi.", "x" * 40, "end"]


def test_with_the_models_tokenizer_every_passage_fits_its_window(embedder: Embedder) -> None:
    assert embedder.window == 254  # 256 word pieces less [CLS] and [SEP]
    assert embedder.token_counts(["I like green tea.", "我喜欢绿茶。", ""]) == [5, 6, 0]
    text = " ".join(f"On day {i} I walked my dog Rex along the river and met a neighbour." for i in range(40))
    text = text.removesuffix(" the river and met a neighbour.")
    found = passages(text, embedder.token_counts, embedder.window, prefix="user: ")
    sizes = embedder.token_counts(found)
    assert len(found) == 3 and all(size <= embedder.window for size in sizes) and sizes[0] > 240
    assert found[0].startswith("user: On day 0 ") and found[-1].endswith("On day 39 I walked my dog Rex along")
    assert " ".join(found).removeprefix("user: ") == text


def test_a_turns_sentence_passages_are_its_sentences_of_five_words_or_more() -> None:
    text = "Thanks, Mel! I just signed up for a pottery class. Wow.\nMy kids and I painted a lake sunrise last weekend?"
    assert sentence_passages(text, "Melanie: ") == [
        "Melanie: I just signed up for a pottery class.",
        "Melanie: My kids and I painted a lake sunrise last weekend?",
    ]
    # One sentence worth a vector is the turn's own vector already.
    assert sentence_passages("Thanks, Mel! I just signed up for a pottery class.") == []
    assert sentence_passages("") == []
    # Chinese sentences get none (the default model reads Chinese poorly); a mixed turn, its English.
    assert sentence_passages("好的！我上周五去了北京出差。下周三我们讨论项目进度。", "小明: ") == []
    mixed = "我上周五去了北京出差。I flew to Beijing last Friday for work. Then I met the whole team there."
    assert sentence_passages(mixed) == [
        "I flew to Beijing last Friday for work.",
        "Then I met the whole team there.",
    ]
