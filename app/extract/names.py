"""Names as one key: the normalized form entities merge on (`normalize_name`), and the width fold
the fact patterns match on (`fold_width`). Pure; shared by extraction, entity resolution and recall."""

from __future__ import annotations

import re
import unicodedata

# Characters kept at the edges of a value or a name although they are punctuation or symbols ("C#", "C++").
KEPT_EDGE_CHARS = frozenset("#+%$€£¥&@")


def normalize_name(name: str) -> str:
    """The merge key of an entity: NFKC, casefolded, whitespace collapsed, punctuation stripped at both ends.

    "Model  Y", "model y" and "ＭＯＤＥＬ Ｙ" all give "model y"; Chinese only loses width and extra space.
    """
    text = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    start, end = 0, len(text)
    while start < end and _is_stripped_punctuation(text[start]):
        start += 1
    while end > start and _is_stripped_punctuation(text[end - 1]):
        end -= 1
    return " ".join(text[start:end].split())


def _is_stripped_punctuation(ch: str) -> bool:
    return ch.isspace() or (unicodedata.category(ch).startswith("P") and ch not in KEPT_EDGE_CHARS)


def fold_width(text: str) -> str:
    """`text` with each character that NFKC maps to one character replaced by it (full-width "Ｙ" -> "Y",
    "，" -> ","), so patterns see one form; the length and every offset stay the same."""
    return text if text.isascii() else text.translate(_WIDTH_FOLD)


class _WidthFold(dict[int, int]):
    """A str.translate table filled on first sight of each character."""

    def __missing__(self, code: int) -> int:
        folded = unicodedata.normalize("NFKC", chr(code))
        self[code] = ord(folded) if len(folded) == 1 else code
        return self[code]


_WIDTH_FOLD = _WidthFold()


# A Chinese personal name: two to four Han characters (a one-character surname and a one- or
# two-character given name, or a two-character surname and a two-character given name).
_CJK_NAME = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,4}")
# Two-character surnames (复姓) among the common ones: 欧阳娜娜's given name is 娜娜, not 阳娜娜.
# fmt: off
_COMPOUND_SURNAMES = frozenset((
    "欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "令狐", "慕容", "司徒", "夏侯",
    "尉迟", "公孙", "轩辕", "长孙", "宇文", "端木", "独孤", "南宫", "西门", "呼延",
))
# fmt: on


def is_chinese_name_key(key: str) -> bool:
    """Whether a name key is a Chinese name (2-4 Han characters), which friends call by short forms."""
    return bool(_CJK_NAME.fullmatch(key))


def cjk_name_forms(key: str) -> tuple[str, ...]:
    """How friends call a person with this Chinese name key, the key first: 林晓雯 is also 晓雯 (the
    given name alone, as questions and friends say it), 小雯, 阿雯, 雯雯, 老林, 小林; 王磊 is also
    磊哥, 磊姐, 小磊, 阿磊, 磊磊, 老王, 小王. Only forms of two characters or more (a single character
    is part of too many words). Any other key (Latin letters, longer or shorter names) is itself only."""
    if not is_chinese_name_key(key):
        return (key,)
    if len(set(key)) == 1:  # 豆豆 is a nickname already
        return (key,)
    surname_length = 2 if len(key) == 4 or key[:2] in _COMPOUND_SURNAMES else 1
    surname, given = key[:surname_length], key[surname_length:]
    last = given[-1]
    forms = [key, given, f"小{last}", f"阿{last}", last * 2, f"老{surname}", f"小{surname}"]
    if len(given) == 1:
        forms += [f"{last}哥", f"{last}姐"]
    return tuple(dict.fromkeys(form for form in forms if len(form) >= 2))


# A message's addressee or chat written before its text: "（发给张伟）", "(回复 张伟)", "（群聊：大学室友）",
# "（在「家人」群）": exports of chat apps say whom the owner wrote to, or in which group.
_ADDRESSEE = re.compile(
    r"^\s*[（(\[【]\s*(?:(?:发给|发送给|写给|回复|私信|私聊|给|to|群聊|群)\s*[:：]?\s*(?P<to>{name})"
    r"|(?:在\s*)?(?P<group>{name})\s*(?:群聊|群))\s*[）)\]】]".format(
        name=r"[「“\"『]?[^）)\]】「」“”\"『』:：]{1,20}?[」”\"』]?"
    ),
    re.IGNORECASE,
)


def addressee_key(text: str) -> str | None:
    """The normalized name a message's leading prefix says it was sent to or in ("（发给张伟）明天见"
    -> 张伟, "（群聊：大学室友）..." -> 大学室友), or None."""
    m = _ADDRESSEE.match(text)
    if m is None:
        return None
    return normalize_name((m["to"] or m["group"]).strip('「」“”"『』')) or None
