"""Tokens for lexical matching in English and Chinese alike: lower-cased words for alphabetic
scripts, overlapping character bigrams for CJK runs (single characters when a run has one).

Chinese has no spaces, so its stop words are cut out of a run before the bigrams are made
(`cjk_pieces`): question words (什么, 哪里, 什么时候, 谁, 为什么, 多少), sentence particles (吗, 呢, 吧),
the structural particles 的, 了 and 得, third persons (他, 她, 它: the question names whom they stand for),
the empty head nouns 东西 and 事情, polite filler (请问, 告诉我, 你还记得) and hedges (可能, 大概). Left in, they made
bigrams of their own ("什么" matched every question in a conversation) and across their edges
("么时", "组的")."""

from __future__ import annotations

import re

# A word as the full-text index's tokenizer (Lucene's StandardTokenizer, Unicode's word boundaries)
# cuts it, so that a query's terms are the index's terms: letters, digits and "_" run together
# ("imtok21727a01wa", "build_42", "2pm"); "." and an apostrophe join letters to letters ("e.g",
# "caroline's") and digits to digits with "," too ("v2.3.1", "3,000"). A code or ticket id cut into
# pieces ("imtok 21727 a 01 wa") matched nothing the index holds.
_WORD = re.compile(r"\w+(?:(?:(?<=[^\W\d_])[.'’](?=[^\W\d_])|(?<=\d)[.,'’](?=\d))\w+)*", re.UNICODE)
# The CJK ideographs (Chinese has no spaces between words): one character class for every module.
CJK_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "i",
        "i'm",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


# fmt: off
# Chinese stop words, cut out of a CJK run wherever they stand (longest first, so 什么时候 before 什么).
# Only words that are never part of a content word, or guarded against the words they hide in:
# 几乎 (almost) keeps its 几, 酒吧 its 吧, 目的 and 的确 their 的, 了解 and 受不了 their 了.
_CJK_QUESTION_WORDS = (
    "什么时候", "什么样", "什么", "哪里", "哪儿", "哪些", "哪个", "哪位", "哪种", "哪家", "哪天", "哪年", "哪", "谁",
)
_CJK_STOP_WORDS = (
    "为什么", "为何", "怎么样", "怎么", "怎样", "如何", "多少", "多久", "多长时间", "几个", "几次", "几时",
    "是否", "是不是", "有没有", "会不会", "能不能", "可不可以",
    # polite filler and asking about memory
    "请问", "请告诉我", "告诉我", "你还记得", "还记得吗", "你知道", "我想知道", "想知道", "麻烦你", "一下",
    # "now", "before", "after": said by most turns, about no topic (a date is the time window's job)
    "现在", "目前", "之前", "以前", "之后", "以后",
    # function words
    "为了", "除了", "的话", "吗", "呢", "啊", "呀", "嘛", "呗", "哦", "啦",
    # hedges a question adds ("她可能会选择哪些领域", "英语水平大概怎么样"), no topic of its own
    "可能", "大概", "大约",
    # the empty head noun a question asks with ("Melanie买了哪些东西", "发生了什么事情"): the thing
    # asked for is not called 东西 where it is said ("我昨天买的这些小摆件")
    "东西", "事情",
)
# fmt: on


def _longest_first(words: tuple[str, ...]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


# A question word takes the copula along (是什么, 谁是); not 在, which may end a verb (住在哪里: 住在).
_CJK_STOP = re.compile(
    f"是?(?:{_longest_first(_CJK_QUESTION_WORDS)})是?|{_longest_first(_CJK_STOP_WORDS)}"
    r"|(?<![目])的(?![确士])|(?<![不得])了(?![解不])|(?<![酒网贴书氧])吧"
    # 得 after a verb links its complement (经营得怎么样, 跳得很好), as 的 links a noun; not the 得 of
    # a word (觉得, 记得, 值得, 舍不得; 得到, 得知)
    r"|(?<![觉记获值懂难舍显使取晓免赢博心总不了只所])得(?![到出分奖知意罪体病救失益])"
    # a third person stands for someone the question names ("Jon的舞蹈让他变成什么样": 让他 and 他变
    # match any turn about anyone); not 其他, 吉他, 他人, 其它
    r"|(?<![其吉利])他(?![人乡])们?|她们?|(?<![其])它们?"
)
# Characters that are no content word on their own: a piece of nothing else is dropped ("是从"
# between 4年前 and 哪里, 在 before a question word).
_CJK_FUNCTION_CHARS = frozenset("是在和与跟也都就还又很太最把被给对向从让我你他她它这那有去")


def cjk_pieces(run: str) -> list[str]:
    """The content pieces of a CJK run: the run cut at its Chinese stop words, without the pieces
    made of function characters only ("Caroline的身份认同是什么" -> 身份认同)."""
    return [piece for piece in _CJK_STOP.split(run) if piece and not set(piece) <= _CJK_FUNCTION_CHARS]


def tokens(text: str, drop_stop_words: bool = True) -> list[str]:
    found: list[str] = []
    for run in CJK_RUN.findall(text):
        for piece in cjk_pieces(run) if drop_stop_words else [run]:
            found.extend([piece] if len(piece) == 1 else [piece[i : i + 2] for i in range(len(piece) - 1)])
    for word in _WORD.findall(CJK_RUN.sub(" ", text.lower())):
        if not (drop_stop_words and word in STOP_WORDS):
            found.append(word)
    return found


def mostly_chinese(text: str) -> bool:
    """Whether the text is written in Chinese: more CJK characters than words of other scripts
    ("Caroline向Melanie推荐了哪本书？" is; "What did 王磊 say about 大理?" is not)."""
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
    return cjk > len(_WORD.findall(CJK_RUN.sub(" ", text)))


def estimate_tokens(text: str) -> int:
    """A model-independent token estimate for budgets: one per CJK character, one per four other
    characters (the usual English ratio of BPE tokenizers), at least one for non-empty text."""
    if not text:
        return 0
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
    return max(1, cjk + -(-(len(text) - cjk) // 4))
