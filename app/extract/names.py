"""Names as one key: the normalized form entities merge on (`normalize_name`), and the width fold
the fact patterns match on (`fold_width`). Pure; shared by extraction, entity resolution and recall."""

from __future__ import annotations

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
