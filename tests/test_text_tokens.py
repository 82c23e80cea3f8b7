"""Lexical tokens in English and Chinese (app/domain/text.py): pure functions, exact cases."""

from __future__ import annotations

from app.domain.text import cjk_pieces, estimate_tokens, mostly_chinese, tokens


def test_english_words_are_lower_cased_without_stop_words() -> None:
    assert tokens("What did Caroline research?") == ["caroline", "research"]
    assert tokens("What did Caroline research?", drop_stop_words=False) == ["what", "did", "caroline", "research"]


def test_chinese_runs_give_bigrams_and_a_lone_character_itself() -> None:
    assert tokens("我住在北京") == ["我住", "住在", "在北", "北京"]
    assert tokens("猫") == ["猫"]


def test_chinese_question_words_particles_and_filler_are_cut_out() -> None:
    assert cjk_pieces("的身份认同是什么") == ["身份认同"]
    assert tokens("Caroline研究了什么？") == ["研究", "caroline"]
    assert tokens("Melanie什么时候受伤的？") == ["受伤", "melanie"]
    assert tokens("王磊现在住在哪里？") == ["王磊", "住在"]
    assert tokens("请问你还记得我养的猫叫什么名字吗？") == ["我养", "猫叫", "名字"]
    assert tokens("谁是张伟的老板？") == ["张伟", "老板"]
    assert tokens("思远去深圳之前在哪家公司上班？") == ["思远", "远去", "去深", "深圳", "公司", "司上", "上班"]
    # a piece of function characters only is no term ("在" before a question word, "是从")
    assert tokens("Caroline在哪里工作？") == ["工作", "caroline"]
    assert tokens("是从哪里搬来的") == ["搬来"]
    # hedges a question adds
    hedged = tokens("Caroline在教育方面可能会选择哪些领域？")
    assert hedged == ["在教", "教育", "育方", "方面", "会选", "选择", "领域", "caroline"]
    assert tokens("赵敏的英语水平大概怎么样？") == ["赵敏", "英语", "语水", "水平"]


def test_chinese_third_persons_and_the_complement_particle_are_cut_out() -> None:
    # 他 stands for someone the question names: 让他, 他变 would match any turn about anyone
    assert tokens("Jon的舞蹈让他变成什么样？") == ["舞蹈", "蹈让", "变成", "jon"]
    assert tokens("她们和它们") == []
    # 得 links a verb to its complement, as 的 links a noun
    assert tokens("Gina的店经营得怎么样？") == ["店经", "经营", "gina"]
    # the empty head noun a question asks with
    assert tokens("Melanie买了哪些东西？") == ["买", "melanie"]


def test_chinese_stop_words_leave_the_words_they_hide_in() -> None:
    assert tokens("他弹吉他弹得很好") == ["弹吉", "吉他", "他弹", "很好"]
    assert tokens("其他人都觉得值得") == ["其他", "他人", "人都", "都觉", "觉得", "得值", "值得"]
    assert tokens("我记得他得到了奖") == ["我记", "记得", "得到", "奖"]

    assert tokens("我们去了哪个酒吧？") == ["我们", "们去", "酒吧"]
    assert tokens("我了解你的目的") == ["我了", "了解", "解你", "目的"]
    assert "几乎" in tokens("他几乎每天都跑步")
    assert tokens("我住在成都") == ["我住", "住在", "在成", "成都"]


def test_without_stop_words_dropped_a_chinese_run_is_whole() -> None:
    assert tokens("你去哪里了", drop_stop_words=False) == ["你去", "去哪", "哪里", "里了"]


def test_a_text_is_mostly_chinese_when_its_characters_outnumber_other_words() -> None:
    assert mostly_chinese("Caroline向Melanie推荐了哪本书？")
    assert mostly_chinese("王磊住在哪里")
    assert not mostly_chinese("What did 王磊 say about 大理?")
    assert not mostly_chinese("Where does Caroline live?")
    assert not mostly_chinese("")


def test_a_chinese_character_is_one_token_of_a_budget() -> None:
    assert estimate_tokens("我住在北京") == 5
    assert estimate_tokens("I live in Berlin") == 4


def test_words_are_cut_as_the_full_text_index_cuts_them() -> None:
    """Lucene's StandardTokenizer (the `cjk` analyzer's) keeps letters, digits and "_" together, joins
    letters to letters by "." or an apostrophe and digits to digits by "." or ","; the query's terms
    must be the index's tokens or an identifier matches nothing once written."""
    assert tokens("remember IMTOK21727a01WA please") == ["remember", "imtok21727a01wa", "please"]
    assert tokens("we run v2.14.3 and Python 3.11.7") == ["run", "v2.14.3", "python", "3.11.7"]
    assert tokens("ticket JIRA-1234, build_42, x86_64") == ["ticket", "jira", "1234", "build_42", "x86_64"]
    assert tokens("e.g. the 2pm call cost 3,000 dollars") == ["e.g", "2pm", "call", "cost", "3,000", "dollars"]
    assert tokens("Caroline's 90's mail: user@example.com.") == ["caroline's", "90", "s", "mail", "user",
                                                                 "example.com"]  # fmt: skip
    assert tokens("工单号IMTOK99x7b和版本v3.2.1") == ["工单", "单号", "和版", "版本", "imtok99x7b", "v3.2.1"]
