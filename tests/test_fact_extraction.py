"""Rule-based slot facts and entities (app/extract/facts.py, app/data/fact_patterns.yaml)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.extract.facts import (
    DEFAULT_PATTERNS_PATH,
    FactPatterns,
    default_patterns,
    extract_entities,
    extract_facts,
)
from app.extract.names import fold_width, normalize_name
from app.extract.types import EntityKind

SPEAKER = "Bob"

# (text, expected facts as (subject, slot, value), in text order)
ENGLISH = [
    ("My car is a Model Y", [("Bob", "car", "Model Y")]),
    ("My car is a Model Y now.", [("Bob", "car", "Model Y")]),
    ("My name is Alice", [("Bob", "name", "Alice")]),
    ("I'm called Bob", [("Bob", "name", "Bob")]),
    ("Call me Liz", [("Bob", "name", "Liz")]),
    ("Hi, I'm Alice", [("Bob", "name", "Alice")]),
    ("I live in Berlin", [("Bob", "lives_in", "Berlin")]),
    ("I'm living in New York", [("Bob", "lives_in", "New York")]),
    ("I live in Berlin, Germany", [("Bob", "lives_in", "Berlin")]),
    ("I moved to Berlin last year", [("Bob", "moved_to", "Berlin")]),
    ("I relocated to Lisbon", [("Bob", "moved_to", "Lisbon")]),
    ("I work at Acme", [("Bob", "works_at", "Acme")]),
    ("I work for Google now.", [("Bob", "works_at", "Google")]),
    ("I work at Acme as a data engineer", [("Bob", "works_at", "Acme"), ("Bob", "job", "data engineer")]),
    ("I'm a product manager at Google", [("Bob", "works_at", "Google"), ("Bob", "job", "product manager")]),
    ("I'm a senior engineer at Meta now", [("Bob", "works_at", "Meta"), ("Bob", "job", "senior engineer")]),
    (
        "My wife is a nurse at St Mary's Hospital",
        [("Bob's wife", "works_at", "St Mary's Hospital"), ("Bob's wife", "job", "nurse")],
    ),
    ("Alice is a doctor at Mercy Hospital", [("Alice", "works_at", "Mercy Hospital"), ("Alice", "job", "doctor")]),
    ("Everyone is a winner at Acme", []),  # not a name
    # "at" a place one studies at or is good at is not a workplace; nor is a lower-case place
    ("I'm a graduate student at MIT", [("Bob", "job", "graduate student")]),
    ("I'm a senior at Harvard", [("Bob", "job", "senior")]),
    ("I'm a total expert at Python", []),
    ("I'm a vegetarian at home with Alice", []),
    ("I am a teacher at a local school", [("Bob", "job", "teacher")]),
    ("I am a teacher", [("Bob", "job", "teacher")]),
    ("I work as a nurse", [("Bob", "job", "nurse")]),
    ("I like hiking", [("Bob", "likes", "hiking")]),
    ("I really love Italian food", [("Bob", "likes", "Italian food")]),
    ("I enjoy reading", [("Bob", "likes", "reading")]),
    ("I hate cilantro", [("Bob", "dislikes", "cilantro")]),
    ("I don't like horror movies", [("Bob", "dislikes", "horror movies")]),
    ("My favorite color is blue", [("Bob", "favorite_color", "blue")]),
    ("My favourite colour is green", [("Bob", "favorite_color", "green")]),
    ("I am 30 years old", [("Bob", "age", "30")]),
    ("I'm from Spain", [("Bob", "from", "Spain")]),
    ("I was born in Madrid", [("Bob", "from", "Madrid")]),
    ("I went to Paris", [("Bob", "trip_to", "Paris")]),
    ("I'm going to Tokyo next week", [("Bob", "trip_to", "Tokyo")]),
    ("I visited Rome", [("Bob", "trip_to", "Rome")]),
    ("Yesterday I went to Paris with my wife", [("Bob", "trip_to", "Paris")]),
    ("I have a dog named Rex", [("Bob", "pet", "dog"), ("Bob's dog", "name", "Rex")]),
    ("Our dog is called Rex", [("Bob", "pet", "dog"), ("Bob's dog", "name", "Rex")]),
    ("My cat is named Mia", [("Bob", "pet", "cat"), ("Bob's cat", "name", "Mia")]),
    ("My wife is Mia", [("Bob", "spouse", "Mia")]),
    ("I'm married to Tom", [("Bob", "spouse", "Tom")]),
    ("My girlfriend is Sara", [("Bob", "partner", "Sara")]),
    ("My birthday is May 3", [("Bob", "birthday", "May 3")]),
    ("my phone number is 555-1234", [("Bob", "phone_number", "555-1234")]),
    # subject resolution
    ("My friend's car is a Civic", [("Bob's friend", "car", "Civic")]),
    ("My wife's name is Mia", [("Bob's wife", "name", "Mia")]),
    ("My wife is a teacher", [("Bob's wife", "job", "teacher")]),
    ("My mom lives in Chengdu", [("Bob's mother", "lives_in", "Chengdu")]),
    # a plural relation is the relation's subject, as its singular is
    ("My kids love the beach", [("Bob's child", "likes", "beach")]),
    ("My children like painting", [("Bob's child", "likes", "painting")]),
    ("My friends live in Denver", [("Bob's friend", "lives_in", "Denver")]),
    ("Alice's car is a Golf", [("Alice", "car", "Golf")]),
    ("Alice lives in Paris", [("Alice", "lives_in", "Paris")]),
    ("Then Alice moved to Paris", [("Alice", "moved_to", "Paris")]),
    ("My friend Alice works at Acme", [("Alice", "works_at", "Acme")]),
    ("She lives in Paris", []),
    ("His car is a Tesla", []),
    ("We live in Berlin", [(SPEAKER, "lives_in", "Berlin")]),  # "we" includes the speaker
    ("Our car is a Volvo", [(SPEAKER, "car", "Volvo")]),
    # negation, questions, second person, near misses
    ("I don't live in Berlin anymore", []),
    ("I no longer work at Acme", []),
    ("I'm not from Spain", []),
    ("My car is not a Tesla", []),
    ("I live in Berlin no longer", []),
    ("I'm not sure I live in Berlin", []),
    ("Do you live in Berlin?", []),
    ("Am I going to Tokyo next week?", []),
    ("Did I say I work at Acme", []),
    ("Where do you work", []),
    ("Hi. Do you live in Berlin, or did you move?", []),
    ("I'm driving a Tesla Model 3 now, used but in great shape.", [("Bob", "car", "Tesla Model 3")]),
    ("My sister drives a Prius.", [("Bob's sister", "car", "Prius")]),
    ("I drive to work every day.", []),
    ("I drive a lot.", []),
    ("I don't drive a car anymore.", []),
    ("Is my car a Model Y, or a Civic?", []),
    # a question tag does not make the statement before it a question
    ("I work at Fidelity now, did I tell you?", [("Bob", "works_at", "Fidelity")]),
    ("I moved to Berlin, remember?", [("Bob", "moved_to", "Berlin")]),
    ("Your car is a Tesla", []),
    ("Call me back later", []),
    ("I'm a bit tired", []),
    ("I would like a coffee", []),
    ("I went to the store", []),
    ("I love it", []),
    ("My point is that we should wait", []),
    # several facts in one turn
    ("I live in Berlin and I work at Acme", [("Bob", "lives_in", "Berlin"), ("Bob", "works_at", "Acme")]),
    ("I live in Berlin and work at Acme", [("Bob", "lives_in", "Berlin"), ("Bob", "works_at", "Acme")]),
    ("I like cats but I hate dogs", [("Bob", "likes", "cats"), ("Bob", "dislikes", "dogs")]),
    ("I live in Berlin and she works at Acme", [("Bob", "lives_in", "Berlin")]),
    (
        "I'm 30 years old, I live in Berlin, and my favorite food is sushi",
        [("Bob", "age", "30"), ("Bob", "lives_in", "Berlin"), ("Bob", "favorite_food", "sushi")],
    ),
    ("Do you live in Berlin? I live in Paris.", [("Bob", "lives_in", "Paris")]),
]

CHINESE = [
    ("我的车是 Model Y", [("Bob", "car", "Model Y")]),
    ("我的车是一辆特斯拉", [("Bob", "car", "特斯拉")]),
    ("我的车是白色的", [("Bob", "car", "白色")]),
    ("我叫王小明", [("Bob", "name", "王小明")]),
    ("我的名字是李华", [("Bob", "name", "李华")]),
    ("我住在北京", [("Bob", "lives_in", "北京")]),
    ("我家在杭州", [("Bob", "lives_in", "杭州")]),
    ("我搬到了上海", [("Bob", "moved_to", "上海")]),
    ("我去年搬去了深圳", [("Bob", "moved_to", "深圳")]),
    ("我搬去杭州了", [("Bob", "moved_to", "杭州")]),
    ("我在阿里巴巴工作", [("Bob", "works_at", "阿里巴巴")]),
    ("我在腾讯上班", [("Bob", "works_at", "腾讯")]),
    ("我是一名医生", [("Bob", "job", "医生")]),
    ("我的工作是老师", [("Bob", "job", "老师")]),
    ("我是程序员", [("Bob", "job", "程序员")]),
    ("我喜欢猫", [("Bob", "likes", "猫")]),
    ("我非常喜欢吃火锅", [("Bob", "likes", "吃火锅")]),
    ("我不喜欢香菜", [("Bob", "dislikes", "香菜")]),
    ("我讨厌下雨天", [("Bob", "dislikes", "下雨天")]),
    ("我最喜欢的颜色是蓝色", [("Bob", "favorite_color", "蓝色")]),
    ("我今年30岁", [("Bob", "age", "30")]),
    ("我今年３０岁", [("Bob", "age", "30")]),
    ("我来自四川", [("Bob", "from", "四川")]),
    ("我是四川人", [("Bob", "from", "四川")]),
    ("我老家是四川的", [("Bob", "from", "四川")]),
    ("我去了巴黎", [("Bob", "trip_to", "巴黎")]),
    ("我要去东京", [("Bob", "trip_to", "东京")]),
    ("我下周要去东京出差", [("Bob", "trip_to", "东京")]),
    ("我明天去北京", [("Bob", "trip_to", "北京")]),
    ("我有一只狗叫旺财", [("Bob", "pet", "狗"), ("Bob's dog", "name", "旺财")]),
    ("我在腾讯做产品经理", [("Bob", "works_at", "腾讯"), ("Bob", "job", "产品经理")]),
    ("我在医院当护士", [("Bob", "works_at", "医院"), ("Bob", "job", "护士")]),
    ("我在厨房做饭", []),  # "在X做Y" is a workplace only with a role
    ("我是阿里巴巴的一名工程师", [("Bob", "works_at", "阿里巴巴"), ("Bob", "job", "工程师")]),
    ("我老婆是华为的产品经理", [("Bob's wife", "works_at", "华为"), ("Bob's wife", "job", "产品经理")]),
    ("我是小明的老师", []),  # a role towards a person, not at an organisation
    ("我是产品经理", [("Bob", "job", "产品经理")]),
    ("我老婆是护士", [("Bob's wife", "job", "护士")]),  # a role, not her name
    ("我老婆是王芳", [("Bob", "spouse", "王芳")]),
    ("我的生日是5月3日", [("Bob", "birthday", "5月3日")]),
    # a clause that leaves its subject out is the speaker's ...
    ("对，还住在高新区，离公司近。", [("Bob", "lives_in", "高新区")]),
    ("我已经不在腾讯了，现在在小红书做数据分析师", [("Bob", "works_at", "小红书"), ("Bob", "job", "数据分析师")]),
    ("下周三下午两点去上海跟他们谈细节", [("Bob", "trip_to", "上海")]),
    ("去杭州见男朋友的家人了", [("Bob", "trip_to", "杭州")]),
    ("我在好看视频工作", [("Bob", "works_at", "好看视频")]),  # a purpose ends a trip's place only
    ("我是一名见习医生", [("Bob", "job", "见习医生")]),
    ("我最近迷上了攀岩，每周去两次", [("Bob", "likes", "攀岩")]),
    ("我在北京住了八年，真的受够了雾霾", [("Bob", "lives_in", "北京"), ("Bob", "dislikes", "雾霾")]),
    ("叫灵犀科技，我是联合创始人兼CTO", [("Bob", "job", "联合创始人兼CTO")]),
    ("找到了，下周一开始在网易上班，做产品经理", [("Bob", "works_at", "网易"), ("Bob", "job", "产品经理")]),
    ("我还在京东，做UI设计师", [("Bob", "job", "UI设计师")]),
    ("我周末做手工", []),  # 做 with a role only
    ("我喜欢看到你这么投入地帮助别人", []),  # a moment one is glad of, no preference
    ("国庆我去了一趟日本，在东京待了五天", [("Bob", "trip_to", "日本"), ("Bob", "trip_to", "东京")]),
    ("我在家待了一天", []),  # home is no trip
    ("我在北京住了八年", [("Bob", "lives_in", "北京")]),  # years of it are living there
    ("我养的鹦鹉叫豆豆，它都三岁了", [("Bob", "pet", "鹦鹉"), ("Bob's parrot", "name", "豆豆")]),
    ("我上周末领养了一只狗，名字叫豆包", [("Bob", "pet", "狗")]),
    ("我家只有一条金鱼", [("Bob", "pet", "金鱼")]),
    # ... unless the last person named before it is someone else
    ("他是程序员，在阿里巴巴工作", []),
    ("我女朋友也在杭州，在浙大读研", []),
    ("她今年九十岁了！然后在上海住了一周", []),
    ("我的车还是本田飞度，飞度真是好车", [("Bob", "car", "本田飞度")]),
    # subject resolution
    ("我朋友的车是本田", [("Bob's friend", "car", "本田")]),
    ("我妈妈住在成都", [("Bob's mother", "lives_in", "成都")]),
    ("我爸爸在银行工作", [("Bob's father", "works_at", "银行")]),
    ("我女儿喜欢画画", [("Bob's daughter", "likes", "画画")]),
    ("我的孩子们喜欢海滩", [("Bob's child", "likes", "海滩")]),
    ("我小孩喜欢画画", [("Bob's child", "likes", "画画")]),
    ("我的朋友们都住在北京", [("Bob's friend", "lives_in", "北京")]),
    ("我同事来自上海", [("Bob's colleague", "from", "上海")]),
    ("我老公叫张伟", [("Bob's husband", "name", "张伟")]),
    ("我老婆是一名老师", [("Bob's wife", "job", "老师")]),
    ("她住在上海", []),
    ("他是一名医生", []),
    ("我们住在北京", [(SPEAKER, "lives_in", "北京")]),  # "我们" includes the speaker
    ("我们已经搬到杭州了，住在西湖区", [(SPEAKER, "moved_to", "杭州"), (SPEAKER, "lives_in", "西湖区")]),
    ("他们住在北京", []),
    # negation, questions, second person, near misses
    ("我不住在北京了", []),
    ("我已经不在阿里巴巴工作了", []),
    ("我没去过巴黎", []),
    ("我最喜欢的颜色不是蓝色", []),
    ("你住在哪里？", []),
    ("我住在北京吗？", []),
    ("我住在北京，你知道吗？", [("Bob", "lives_in", "北京")]),
    ("我现在开的是比亚迪汉。", [("Bob", "car", "比亚迪汉")]),
    ("在深圳我换了一辆比亚迪海豹，便宜很多。", [("Bob", "car", "比亚迪海豹")]),
    ("我买了辆新车", []),
    ("他开的是宝马", []),
    ("你住在北京，对吗？", []),
    ("我要去东京吗", []),
    ("你喜欢什么", []),
    ("你的车是特斯拉", []),
    ("我在家工作", []),
    ("我要去睡觉了", []),
    ("我是一个好人", []),
    # several facts in one turn
    ("我叫王小明，今年30岁，住在北京", [("Bob", "name", "王小明"), ("Bob", "age", "30"), ("Bob", "lives_in", "北京")]),
    ("我住在北京，但是我在天津工作", [("Bob", "lives_in", "北京"), ("Bob", "works_at", "天津")]),
    ("我住在北京，在阿里巴巴工作。", [("Bob", "lives_in", "北京"), ("Bob", "works_at", "阿里巴巴")]),
    ("我住在北京！我喜欢猫", [("Bob", "lives_in", "北京"), ("Bob", "likes", "猫")]),
    # a name rule never borrows the subject: the name belongs to the dog, which is not said
    ("我有一只狗，叫旺财", [("Bob", "pet", "狗")]),
    # times like 月底 between subject and verb; an adverb before 是; a clause cut at the folded comma
    ("我上个月底搬到了上海，现在住在静安区。", [("Bob", "moved_to", "上海"), ("Bob", "lives_in", "静安区")]),
    ("我5月初搬到了北京", [("Bob", "moved_to", "北京")]),
    ("我的车还是 Model 3，开了四年了。", [("Bob", "car", "Model 3")]),
    ("我朋友的车也是飞度", [("Bob's friend", "car", "飞度")]),
    # an adverb or a duration after the value is not part of it
    ("我现在已经住在大理了", [("Bob", "lives_in", "大理")]),
    ("我住在大理已经三年了", [("Bob", "lives_in", "大理")]),
    ("我在大理已经住了三年", [("Bob", "lives_in", "大理")]),
    ("我在大理也住了三年", [("Bob", "lives_in", "大理")]),
    ("我住在大理三年了", [("Bob", "lives_in", "大理")]),
    ("我搬到了上海半年多了", [("Bob", "moved_to", "上海")]),
    ("我在腾讯也工作了两年", [("Bob", "works_at", "腾讯")]),
    ("我搬到杭州也有两年了", [("Bob", "moved_to", "杭州")]),
    ("我搬到杭州有两年了", [("Bob", "moved_to", "杭州")]),
    ("我在腾讯还在上班", [("Bob", "works_at", "腾讯")]),
    ("我住在北京还是挺方便的", [("Bob", "lives_in", "北京")]),
    ("我住在北京挺好的", [("Bob", "lives_in", "北京")]),
    ("我住在上海都三年了", [("Bob", "lives_in", "上海")]),
    ("我住在杭州又方便又便宜", [("Bob", "lives_in", "杭州")]),
    ("我住在大理才三个月", [("Bob", "lives_in", "大理")]),
    ("我表哥就住在新加坡。", [("Bob's cousin", "lives_in", "新加坡")]),
    ("我爸妈都住在青岛", [("Bob's parents", "lives_in", "青岛")]),
    # ... and a place that ends in a character of an adverb keeps it
    ("我在成都住了五年", [("Bob", "lives_in", "成都")]),
    ("我在京都生活", [("Bob", "lives_in", "京都")]),
    ("我住在成都也挺好", [("Bob", "lives_in", "成都")]),
    ("我住在京都都三年了", [("Bob", "lives_in", "京都")]),
    ("我住在大理才村", [("Bob", "lives_in", "大理才村")]),
    # a count of visits is no place; a studio is no employer
    ("我去过好几次", []),
    ("我去年去过一次", []),
    ("我在筹备开舞蹈工作室", []),
    # going to take part in something is no trip
    ("上周我去参加了一个骄傲游行。", []),
    ("我去的是海边", []),
    # a question word inside a statement asks nothing: an embedded question, or a clause ending in 。
    ("这让我想起了为什么我喜欢当妈妈。", [("Bob", "likes", "当妈妈")]),
    ("我不知道他去了哪里，但我住在北京", [("Bob", "lives_in", "北京")]),
    ("你住在哪里。我住在上海", [("Bob", "lives_in", "上海")]),
    ("我住在哪里呢", []),  # no end of a statement: the clause asks
    # a liked pronoun or demonstrative is a clause or a reference, not a thing liked (as "I love
    # that/it/you" in English); an owner is kept
    ("我喜欢它展现出你刚才说的那种团结和力量", []),
    ("我很喜欢你用它来讲述自己的故事。", []),
    ("我喜欢这个", []),
    ("我喜欢你的画", [("Bob", "likes", "你的画")]),
    ("我喜欢他们的音乐", [("Bob", "likes", "他们的音乐")]),
    ("我喜欢我的工作", [("Bob", "likes", "我的工作")]),
    # 在 marking what one is busy doing is no workplace; a field is none either
    ("我在考虑和跨性别者一起工作", []),
    ("我还在了解咨询和心理健康方面的工作。", []),
    ("我在找工作", []),
    ("我在研究所工作", [("Bob", "works_at", "研究所")]),
    # 时 after a value is "when"; going to ride is no trip; an event keeps no measure word
    ("最近我去徒步时有过一次不太愉快的经历。", [("Bob", "trip_to", "徒步")]),
    ("我去澳门时买了很多东西", [("Bob", "trip_to", "澳门")]),
    ("我去时代广场了", [("Bob", "trip_to", "时代广场")]),
    ("我们去骑了车", []),
    ("我上周五去了一场诗歌朗读会", [("Bob", "trip_to", "诗歌朗读会")]),
    # a proposal states nothing (as "let's" does not); the 吧 of 酒吧 is no particle
    ("我们去上一节舞蹈课吧，一定会很好玩！", []),
    ("我们去北京吧", []),
    ("我去了酒吧", [("Bob", "trip_to", "酒吧")]),
]


def triples(text: str, patterns: FactPatterns | None = None) -> list[tuple[str, str, str]]:
    facts = (patterns or default_patterns()).extract_facts(text, SPEAKER)
    return [(f.subject, f.slot, f.value) for f in facts]


@pytest.mark.parametrize(("text", "expected"), ENGLISH, ids=[t for t, _ in ENGLISH])
def test_english_facts(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


@pytest.mark.parametrize(("text", "expected"), CHINESE, ids=[t for t, _ in CHINESE])
def test_chinese_facts(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


def test_a_trip_needs_a_place_not_a_purpose() -> None:
    # "拉我一起去创业" (pulled me in to start a company) is no trip
    assert ("Bob", "trip_to", "创业") not in triples("我一个好朋友住在深圳，拉我一起去创业")


def test_tables_are_large_enough() -> None:
    assert sum(1 for _, facts in ENGLISH if facts) >= 25
    assert sum(1 for _, facts in CHINESE if facts) >= 25


def test_the_same_statement_gives_the_same_slot_in_both_languages() -> None:
    pairs = [
        ("My car is a Tesla", "我的车是特斯拉"),
        ("My name is Li", "我叫李"),
        ("I live in Beijing", "我住在北京"),
        ("I moved to Shanghai", "我搬到了上海"),
        ("I work at Tencent", "我在腾讯工作"),
        ("I work as a doctor", "我是一名医生"),
        ("I like cats", "我喜欢猫"),
        ("I hate rain", "我讨厌下雨"),
        ("My favorite color is blue", "我最喜欢的颜色是蓝色"),
        ("I am 30 years old", "我今年30岁"),
        ("I'm from Sichuan", "我来自四川"),
        ("I went to Paris", "我去了巴黎"),
        ("My birthday is May 3", "我的生日是5月3日"),
        ("My wife is Wang", "我老婆是王芳"),
        ("My friend's car is a Honda", "我朋友的车是本田"),
    ]
    for english, chinese in pairs:
        assert [(s, slot) for s, slot, _ in triples(english)] == [(s, slot) for s, slot, _ in triples(chinese)]


def test_confidence_depends_on_how_explicit_the_pattern_is() -> None:
    def confidence(text: str) -> float:
        (fact,) = extract_facts(text, SPEAKER)
        return fact.confidence

    assert confidence("I live in Berlin") == 0.9
    assert confidence("My car is a Model Y") == 0.9
    assert confidence("I work as a nurse") == 0.9
    assert confidence("I am a teacher") == 0.8
    assert confidence("我是四川人") == 0.8
    assert confidence("I'm based in Berlin") == 0.8
    assert confidence("Hi, I'm Alice") == 0.7
    assert confidence("I've been to Japan") == 0.7


def test_overlapping_matches_keep_the_more_confident_rule() -> None:
    # "my job is" is both the explicit job rule (0.9) and any "my X is Y"; one fact remains
    (fact,) = extract_facts("My job is a nurse", SPEAKER)
    assert (fact.slot, fact.value, fact.confidence) == ("job", "nurse", 0.9)


def test_spans_cover_the_statement_and_point_into_the_text() -> None:
    text = "Well, my car is a Model Y now."
    (fact,) = extract_facts(text, SPEAKER)
    assert text[fact.span[0] : fact.span[1]] == "my car is a Model Y"
    text = "我住在北京，在阿里巴巴工作。"
    lives, works = extract_facts(text, SPEAKER)
    assert text[lives.span[0] : lives.span[1]] == "我住在北京"
    assert text[works.span[0] : works.span[1]] == "在阿里巴巴工作"
    text = "I am 30 years old, honestly"
    (fact,) = extract_facts(text, SPEAKER)
    assert text[fact.span[0] : fact.span[1]] == "I am 30 years old"


def test_values_are_trimmed_and_capped() -> None:
    assert triples('My car is "a Model Y"!!! 😀') == [("Bob", "car", "Model Y")]
    assert triples("My favorite band is The Beatles, honestly") == [("Bob", "favorite_band", "The Beatles")]
    assert triples("I like C++ a lot") == [("Bob", "likes", "C++")]
    long_value = " ".join(["word"] * 40)
    (fact,) = extract_facts(f"My motto is {long_value}", SPEAKER)
    assert fact.slot == "motto"
    assert 40 <= len(fact.value) <= 80
    assert fact.value == " ".join(["word"] * len(fact.value.split()))  # cut between words


def test_unknown_chinese_keys_are_kept_as_written() -> None:
    assert triples("我的座右铭是活到老学到老") == [("Bob", "座右铭", "活到老学到老")]


def test_full_width_text_is_read_like_half_width() -> None:
    assert triples("ｍｙ ｃａｒ ｉｓ ａ Ｔｅｓｌａ") == [("Bob", "car", "Tesla")]
    assert fold_width("ＭＯＤＥＬ Ｙ，") == "MODEL Y,"
    assert fold_width("北京") == "北京"


def test_blank_speaker_is_refused() -> None:
    with pytest.raises(ValueError, match="speaker"):
        extract_facts("I live in Berlin", "  ")


# --- entities ---


def entity_view(text: str) -> list[tuple[str, str, EntityKind]]:
    mentions = extract_entities(text)
    for mention in mentions:
        assert text[mention.span[0] : mention.span[1]] == mention.name
    return [(m.name, m.normalized, m.kind) for m in mentions]


def test_fact_entities_take_their_kind_from_the_slot() -> None:
    cases = {
        "I live in Berlin": [("Berlin", "berlin", EntityKind.PLACE)],
        "I'm going to Tokyo next week": [("Tokyo", "tokyo", EntityKind.PLACE)],
        "我来自四川": [("四川", "四川", EntityKind.PLACE)],
        "I work at Acme": [("Acme", "acme", EntityKind.THING)],
        "My name is Alice": [("Alice", "alice", EntityKind.PERSON)],
        "My wife is Mia": [("Mia", "mia", EntityKind.PERSON)],
        "My car is a Model Y": [("Model Y", "model y", EntityKind.THING)],
        "我的车是 Model Y": [("Model Y", "model y", EntityKind.THING)],
        "我朋友的车是本田": [("本田", "本田", EntityKind.THING)],
        "Alice's car is a Golf": [("Alice", "alice", EntityKind.PERSON), ("Golf", "golf", EntityKind.THING)],
        "My friend Alice works at Acme": [("Alice", "alice", EntityKind.PERSON), ("Acme", "acme", EntityKind.THING)],
    }
    for text, expected in cases.items():
        (fact,) = extract_facts(text, SPEAKER)
        assert [(e.name, e.normalized, e.kind) for e in fact.entities] == expected, text
        assert entity_view(text) == expected, text


def test_facts_without_names_have_no_entities() -> None:
    for text in ("I am a teacher", "I am 30 years old", "My birthday is May 3", "I live in a small town"):
        (fact,) = extract_facts(text, SPEAKER)
        assert fact.entities == (), text


def test_capitalized_names_outside_facts_are_things() -> None:
    text = "The Beatles played in New York. Honestly, I love Star Wars and Bank of America."
    assert entity_view(text) == [
        ("Beatles", "beatles", EntityKind.THING),
        ("New York", "new york", EntityKind.THING),
        ("Star Wars", "star wars", EntityKind.THING),
        ("Bank of America", "bank of america", EntityKind.THING),
    ]


def test_sentence_openers_and_function_words_are_not_entities() -> None:
    assert entity_view("Yesterday was long. My day was fine. I think so. The end.") == []
    assert entity_view("Berlin is big. New York is bigger.") == [("New York", "new york", EntityKind.THING)]
    assert entity_view("I met Dr. Smith on Monday") == [("Smith", "smith", EntityKind.THING)]


def test_chinese_entities_come_only_from_facts() -> None:
    assert entity_view("我住在北京，在阿里巴巴工作") == [
        ("北京", "北京", EntityKind.PLACE),
        ("阿里巴巴", "阿里巴巴", EntityKind.THING),
    ]
    assert entity_view("今天北京下雨了") == []


def test_entities_keep_the_written_form_and_normalize_the_key() -> None:
    assert entity_view("ＭＯＤＥＬ Ｙ is my car") == [("ＭＯＤＥＬ Ｙ", "model y", EntityKind.THING)]


# --- normalize_name ---


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Model  Y", "model y"),
        ("model y", "model y"),
        ("ＭＯＤＥＬ Ｙ", "model y"),
        ("  Model\tY\n", "model y"),
        ('"Berlin."', "berlin"),
        ("(Acme)", "acme"),
        ("北京", "北京"),
        ("北京　 市", "北京 市"),
        ("「北京」", "北京"),
        ("C#", "c#"),
        ("C++", "c++"),
        ("Straße", "strasse"),
        ("...", ""),
    ],
)
def test_normalize_name(name: str, expected: str) -> None:
    assert normalize_name(name) == expected


# --- the bank and its loader ---


def test_keywords_never_hide_a_match() -> None:
    bank = default_patterns()
    unfiltered = FactPatterns(bank.settings, tuple(dataclasses.replace(r, keywords=()) for r in bank.rules))
    assert any(rule.keywords for rule in bank.rules)
    for text, _ in ENGLISH + CHINESE:
        assert triples(text, unfiltered) == triples(text, bank), text


def test_default_bank_loads_from_the_data_file() -> None:
    bank = FactPatterns.load()
    assert DEFAULT_PATTERNS_PATH.name == "fact_patterns.yaml"
    assert {"name", "lives_in", "moved_to", "works_at", "likes", "dislikes", "trip_to", "pet"} <= {
        rule.slot for rule in bank.rules
    }


MINIMAL: dict[str, Any] = {
    "subjects": {"first_person": ["i"]},
    "rules": [
        {
            "id": "owns",
            "description": "what the speaker owns",
            "slot": "owns",
            "confidence": 0.9,
            "patterns": {"en": [r"(?P<subject>\bI)\s+own\s+(?P<value>.+)"]},
        }
    ],
}


def write_bank(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "patterns.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def with_rule(**changes: object) -> dict[str, object]:
    rule = {**MINIMAL["rules"][0], **changes}
    return {**MINIMAL, "rules": [rule]}


def test_a_custom_bank_extracts_with_its_own_rules(tmp_path: Path) -> None:
    bank = FactPatterns.load(write_bank(tmp_path, MINIMAL))
    assert triples("I own a bike", bank) == [("Bob", "owns", "a bike")]
    assert triples("I live in Berlin", bank) == []


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            with_rule(patterns={"en": ["(?P<subject>I) own (?P<value>.+"]}),
            r"rule 'owns', field 'patterns\.en\[0\]': bad regular expression",
        ),
        (with_rule(colour="red"), r"rule 'owns', field 'colour': unknown field"),
        ({**MINIMAL, "extras": 1}, r"field 'extras': unknown field"),
        ({**MINIMAL, "value": {"max_len": 3}}, r"field 'value\.max_len': unknown field"),
        (
            with_rule(patterns={"en": [r"(?P<subject>I) own .+"]}),
            r"rule 'owns', field 'patterns\.en\[0\]': .*\(\?P<value>",
        ),
        (with_rule(patterns={"en": [r"(?P<subject>I)?(?P<value>x?)"]}), r"matches the empty string"),
        (with_rule(confidence=1.5), r"rule 'owns', field 'confidence': expected a number in \(0, 1\]"),
        (with_rule(slot="Owns It"), r"rule 'owns', field 'slot': expected a snake_case name"),
        (with_rule(slot="favorite_{key}"), r"rule 'owns', field 'patterns\.en\[0\]': .*\(\?P<key>"),
        (with_rule(patterns={"en": [r"{{nope}}(?P<subject>I) own (?P<value>.+)"]}), r"unknown macro \{\{nope\}\}"),
        (with_rule(stops=["nope"]), r"rule 'owns', field 'stops': unknown stop set 'nope'"),
        (with_rule(polarity="maybe"), r"rule 'owns', field 'polarity'"),
        ({**MINIMAL, "rules": MINIMAL["rules"] * 2}, r"rule 'owns': duplicate id"),
        ({**MINIMAL, "rules": []}, r"field 'rules': expected a non-empty list"),
        ({**MINIMAL, "slots": {"owns": {"kind": "animal"}}}, r"field 'slots\.owns\.kind': unknown kind 'animal'"),
        ({**MINIMAL, "slot_aliases": {"car": "Car!"}}, r"field 'slot_aliases\.car': expected a snake_case slot name"),
        ({**MINIMAL, "subjects": {"first_person": [True]}}, r"field 'subjects\.first_person'.*True \(quote it\)"),
        ({**MINIMAL, "questions": {"en": ["(unclosed"]}}, r"field 'questions\.en\[0\]': bad regular expression"),
        (
            {**MINIMAL, "subjects": {"dropped": {"zh": "我"}}},
            r"field 'subjects\.dropped\.zh': a language here needs its subjects\.persons",
        ),
    ],
)
def test_loader_names_the_rule_and_field_of_an_error(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FactPatterns.load(write_bank(tmp_path, data))


def test_loader_reports_invalid_yaml(tmp_path: Path) -> None:
    path = tmp_path / "patterns.yaml"
    path.write_text("rules: [unclosed", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid YAML"):
        FactPatterns.load(path)
