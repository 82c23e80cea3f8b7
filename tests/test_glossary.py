"""English words for a Chinese query's words (app/recall/glossary.py): the dictionary's lines read,
words cut, senses chosen and cleaned (exact cases on a few lines of CC-CEDICT), and the real
dictionary on the questions of the issue."""

from __future__ import annotations

from datetime import UTC, datetime

from app.recall.glossary import Glossary, glossary
from app.recall.query import CategoryVocabulary, SlotVocabulary, parse_query

LINES = [
    "# CC-CEDICT",
    "#! version=1",
    "跑 跑 [pao2] /(of an animal) to paw (the ground)/",
    "跑 跑 [pao3] /to run/to run away/to escape/to run around (on errands etc)/",
    "日出 日出 [ri4 chu1] /sunrise/",
    "慈善 慈善 [ci2 shan4] /benevolent/charitable/",
    "幅 幅 [fu2] /width/roll/classifier for textiles or pictures/",
    "在 在 [zai4] /to exist/to be alive/(of sb or sth) to be (located) at/",
    "教育 教育 [jiao4 yu4] /to educate/to teach/education/",
    "在教 在教 [zai4 jiao4] /(coll.) to be a believer in a religion/",
    "育 育 [yu4] /to have children/to raise or bring up/",
    "方面 方面 [fang1 mian4] /respect/aspect/field/side/CL:個|个[ge4]/",
    "張 张 [Zhang1] /surname Zhang/",
    "張 张 [zhang1] /to open up/to spread/sheet of paper/classifier for flat objects, sheet/",
    "猫 猫 [mao1] /cat/(dialect) to hide oneself/(coll.) modem/",
    "他 他 [ta1] /he or him/(used for either sex when the sex is unknown or unimportant)/",
    "畫 画 [hua4] /to draw; to paint/picture; painting (CL:幅[fu2])/",
    "油漆 油漆 [you2 qi1] /oil paints/lacquer/to paint/",
    "工作 工作 [gong1 zuo4] /to work/job/work/task/",
    "職務 职务 [zhi2 wu4] /post/position/job/duties/",
    "約伯 约伯 [Yue1 bo2] /Job/",
]


def test_a_word_takes_its_first_senses_cleaned_and_its_common_reading_first() -> None:
    found = Glossary.from_lines(LINES)
    assert found.english["跑"] == ("run", "away", "escape")  # pao3 (4 senses) before pao2 (1)
    assert found.english["日出"] == ("sunrise",)
    assert found.english["幅"] == ("width", "roll")  # no "classifier for ..." sense
    assert found.english["张"] == ("open", "spread", "sheet", "paper")  # no surname; 4 words at most
    assert found.english["方面"] == ("respect", "aspect", "field")  # three senses, no CL:
    assert found.english["猫"] == ("cat", "modem")  # not the "(dialect)" sense


def test_a_piece_is_cut_into_the_dictionarys_words_from_both_ends() -> None:
    found = Glossary.from_lines(LINES)
    assert found.segment("在教育方面") == ["在", "教育", "方面"]  # from the left alone: 在教 育 方面
    assert found.segment("一幅日出") == ["一", "幅", "日出"]  # a character it lacks stands alone
    assert found.segment("慈善跑") == ["慈善", "跑"]


def test_translation_skips_function_characters_and_keeps_two_words_of_a_lone_character() -> None:
    found = Glossary.from_lines(LINES)
    assert found.translate(["慈善跑"]) == ["benevolent", "charitable", "run", "away"]
    assert found.translate(["他", "猫"]) == ["cat", "modem"]  # 他 is grammar, not topic
    assert found.translate(["在教育方面"]) == ["educate", "teach", "education", "respect", "aspect", "field"]


def test_a_chinese_question_asks_for_its_words_in_english_too() -> None:
    now = datetime(2024, 1, 1, tzinfo=UTC)
    words = glossary()
    parsed = parse_query("Melanie什么时候画了一幅日出？", now, SlotVocabulary.load(), CategoryVocabulary.load(), words)
    assert {"sunrise", "paint", "painted", "painting"} <= set(parsed.glosses)
    assert "日出" in parsed.terms and not set(parsed.glosses) & set(parsed.terms)
    moving = parse_query("我下个月要搬家", now, SlotVocabulary.load(), None, words)
    assert {"move", "moving", "house"} <= set(moving.glosses)
    assert parse_query("Melanie什么时候画了一幅日出？", now, SlotVocabulary.load()).glosses == ()  # no glossary


def test_a_chinese_query_is_rendered_in_english_words_for_minilm() -> None:
    found = Glossary.from_lines(LINES)
    assert found.render("Melanie在教育方面做了什么？") == "Melanie educate teach education respect aspect field ？"
    assert found.render("他养了只猫") == "cat modem"  # unknown characters (养, 只) give nothing
    assert found.render("No Chinese here.") == "No Chinese here."


def test_an_english_word_names_the_chinese_words_one_of_whose_first_senses_it_is() -> None:
    plain = Glossary.from_lines(LINES)
    assert plain.chinese["sunrise"] == ("日出",)
    assert plain.chinese["paint"] == ("画", "油漆")  # by the sense's rank: "to draw; to paint" is the first
    assert plain.chinese["job"] == ("工作", "职务")  # 约伯 "Job" is a name
    counts = {"职务": 900, "工作": 50, "油漆": 20, "画": 10}
    counted = Glossary.from_lines(LINES, lambda words: {word: counts[word] for word in words if word in counts})
    assert counted.chinese["job"] == ("职务", "工作") and counted.chinese["paint"] == ("油漆", "画")  # most used first
    assert "work" in counted.chinese and "lacquer" in counted.chinese and "paints" not in counted.chinese
    forms = [("painted", "paint"), ("sunrises", "sunrise"), ("caroline",), ("jobs", "job"), ("work", "job")]
    assert plain.to_chinese(forms) == ["画", "油漆", "日出", "工作", "职务"]  # the first known form only


def test_an_english_question_asks_for_its_words_in_chinese_too() -> None:
    parsed = parse_query("When did Melanie paint a sunrise?", datetime(2024, 1, 1, tzinfo=UTC), SlotVocabulary.load(),
                         None, glossary())  # fmt: skip
    assert "日出" in parsed.glosses and not {"melanie", "paint", "sunrise"} & set(parsed.glosses)
