"""What a recall query asks for: its words, the Lucene query for the full-text seeds, the entity
names and fact slots it may name, and its time window. Pure functions (tests/test_recall_query.py)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import zip_longest
from pathlib import Path
from typing import Literal

from app.domain.datafile import read_yaml
from app.domain.inputs import namespace_term
from app.domain.text import CJK_RUN, STOP_WORDS, cjk_pieces, tokens
from app.extract.facts import default_patterns
from app.extract.names import cjk_name_forms, normalize_name
from app.recall.glossary import Glossary
from app.recall.glossary import glossary as shared_glossary
from app.recall.question_time import question_time

# Words, with their original case kept, for entity n-grams ("Model Y", "New York").
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*", re.UNICODE)
_LUCENE_SPECIAL = re.compile(r'([\\"])')
State = Literal["current", "history"]  # what a query asks of a changing value (`asks_state`)
MAX_NGRAM = 3
MAX_TERMS = 64
MAX_VARIANTS = 64
# Two categories of ~50 members in one script each fit; the longest development query stays ~2,500 of the
# LUCENE_CHARS (docs/benchmarks.md, "Categories in turn").
MAX_MEMBERS = 100
MAX_GLOSSES = 64
_VOWELS = frozenset("aeiou")
SLOT_WORDS_FILE = Path(__file__).resolve().parents[1] / "data" / "slot_words.yaml"
CATEGORY_WORDS_FILE = Path(__file__).resolve().parents[1] / "data" / "category_words.yaml"


@dataclass(frozen=True)
class SlotVocabulary:
    """Which fact slots a query asks about (app/data/slot_words.yaml): English words by token,
    Chinese words by substring (Chinese has no word boundaries), but a word of one character only
    where the query's segmentation (`Glossary.segment`) has it as a word: 家 names `lives_in` in
    他家在哪, not in 家人 or 大家; 去 names `trip_to` in 去哪里, not in 去年."""

    by_word: dict[str, tuple[str, ...]]

    @classmethod
    def load(cls, path: Path = SLOT_WORDS_FILE) -> SlotVocabulary:
        data = read_yaml(path, "slot words")
        if not isinstance(data, dict) or not isinstance(data.get("slots"), dict) or not data["slots"]:
            raise ValueError(f"slot words {path}: expected a non-empty mapping under 'slots'")
        by_word: dict[str, list[str]] = {}
        for slot, words in data["slots"].items():
            if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
                raise ValueError(f"slot words {path}: slot {slot!r} needs a list of words")
            for word in words:
                by_word.setdefault(word.lower(), []).append(str(slot))
        return cls({word: tuple(slots) for word, slots in by_word.items()})

    def slots(self, text: str, terms: tuple[str, ...]) -> list[str]:
        found = [slot for term in terms for slot in self.by_word.get(term, ())]
        chinese = [(word, slots) for word, slots in self.by_word.items() if not word.isascii() and word in text]
        if any(len(word) == 1 for word, _ in chinese):
            words = {word for run in CJK_RUN.findall(text) for word in shared_glossary().segment(run)}
            chinese = [(word, slots) for word, slots in chinese if len(word) > 1 or word in words]
        return found + [slot for _, slots in chinese for slot in slots]


@dataclass(frozen=True)
class CategoryVocabulary:
    """Query words that name a category ("activities", "instruments", 乐器) and words of its members
    ("camping", "violin", 小提琴; app/data/category_words.yaml): a memory tells the instance and rarely
    names its category, so the full-text query asks for the members too. English names by token,
    Chinese ones by substring, as `SlotVocabulary`."""

    by_name: dict[str, tuple[str, ...]]

    @classmethod
    def load(cls, path: Path = CATEGORY_WORDS_FILE) -> CategoryVocabulary:
        data = read_yaml(path, "category words")
        categories = data.get("categories") if isinstance(data, dict) else None
        if not isinstance(categories, dict) or not categories:
            raise ValueError(f"category words {path}: expected a non-empty mapping under 'categories'")
        by_name: dict[str, list[str]] = {}
        for category, entry in categories.items():
            names, members = _word_list(entry, "names"), _word_list(entry, "members")
            if not names or not members:
                raise ValueError(f"category words {path}: category {category!r} needs lists 'names' and 'members'")
            for name in names:
                by_name.setdefault(name.lower(), []).extend(member.lower() for member in members)
        return cls({name: tuple(dict.fromkeys(members)) for name, members in by_name.items()})

    def members(self, text: str, terms: tuple[str, ...]) -> list[str]:
        """The members of the categories the query names, each category's in the query's own script
        (Chinese or not) before the others (which find memories in the other language), taken in turn
        from each category named (first named first), so that a cap on the count (MAX_MEMBERS) leaves
        every category its share: "What activities has Melanie done with her family?" needs "fam"
        as much as "camping". Not a category the query narrows ("What LGBTQ+ events", `_narrowed_names`)."""
        narrowed = _narrowed_names(text)
        named = [self.by_name[term] for term in terms if term in self.by_name and term not in narrowed]
        named += [members for name, members in self.by_name.items() if not name.isascii() and name in text]
        chinese = CJK_RUN.search(text) is not None

        def in_turn(lists: list[list[str]]) -> list[str]:
            return [member for row in zip_longest(*lists) for member in row if member is not None]

        own = in_turn([[m for m in members if (CJK_RUN.search(m) is not None) == chinese] for members in named])
        other = in_turn([[m for m in members if (CJK_RUN.search(m) is not None) != chinese] for members in named])
        return list(dict.fromkeys(own + other))


# Not `_WORD`: a word may end in "+" ("LGBTQ+") or an apostrophe, so that only spaces lie between the
# words of a noun phrase.
_QUERY_WORD = re.compile(r"[^\W_]+(?:['’+-][^\W_]*)*", re.UNICODE)
# fmt: off
# Words that open a noun phrase: "What LGBTQ+ events", "her electric car", "the networking event".
_DETERMINERS = frozenset({
    "what", "which", "whose", "the", "a", "an", "her", "his", "their", "my", "your", "our", "its",
    "any", "some", "these", "those", "this", "that",
})
# Adjectives and quantifiers that do not make a sub-kind: "her favorite book", "my two hobbies".
_BROAD_MODIFIERS = frozenset({
    "other", "others", "different", "various", "many", "much", "few", "several", "all", "favorite",
    "favourite", "new", "old", "main", "recent", "latest", "first", "last", "own", "usual", "common",
    "same", "kind", "kinds", "type", "types", "sort", "sorts",
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
})
# fmt: on


def _narrowed_names(text: str) -> set[str]:
    """English category names the query narrows with a modifier in one noun phrase ("What LGBTQ+
    events", "the networking event", "which classical musicians"): the modifier is itself a term and
    asks for a sub-kind, which the category's general members ("concert", "fair") would crowd out.
    Only a word between a determiner and the name, with nothing but spaces around it, not a broad
    adjective or quantifier ("her favorite book", "my two hobbies"), a number or a possessive ("what
    her kids like", "what Melanie's kids like")."""
    narrowed: set[str] = set()
    words = list(_QUERY_WORD.finditer(text))
    for opener, modifier, name in zip(words, words[1:], words[2:], strict=False):
        spaced = not text[opener.end() : modifier.start()].strip() and not text[modifier.end() : name.start()].strip()
        if spaced and opener.group() in _DETERMINERS and _narrows(modifier.group()):
            narrowed.add(name.group())
    return narrowed


def _narrows(word: str) -> bool:
    """Whether `word`, between a determiner and a category name, can name a sub-kind of it."""
    if word in STOP_WORDS or word in _BROAD_MODIFIERS or word in _DETERMINERS or word.isdigit():
        return False
    return not word.endswith(("'s", "’s", "'", "’"))


def _word_list(entry: object, key: str) -> list[str]:
    """`entry[key]` when it is a list of non-empty strings, else []."""
    words = entry.get(key) if isinstance(entry, dict) else None
    return words if isinstance(words, list) and all(isinstance(w, str) and w for w in words) else []


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    terms: tuple[str, ...]  # distinct lexical tokens (words, CJK bigrams), stop words dropped
    variants: tuple[str, ...]  # other inflections of the English terms ("research" -> "researching")
    entity_keys: tuple[str, ...]  # normalized names an entity node may carry
    slot_keys: tuple[str, ...]  # fact slots the query may ask about
    window: tuple[datetime, datetime] | None  # [start, end) when the query names a time
    # Name keys of the namespace's speakers that the query names (`with_speakers`; the recall looks
    # them up): every turn of a speaker carries the name, so it tells their turns apart by nothing.
    speakers: tuple[str, ...] = ()
    # The query asks for a count or a total (`asks_to_aggregate`): its answer adds up several memories.
    aggregate: bool = False
    # Words of the members of the categories the query names (`CategoryVocabulary`), not its terms.
    members: tuple[str, ...] = ()
    # The query asks what to do or what will happen (`asks_ahead`), not what was told in its window.
    ahead: bool = False
    # The query is only codes, ids or versions (`only_identifiers`): its vector is chance.
    literal: bool = False
    # The query asks for the current state or for history (`asks_state`; app/recall/currency.py).
    state: State | None = None
    # The text the terms were read from (without its time words), for `with_speakers`.
    lexical_text: str = ""
    # How the query writes the Chinese names of its speakers (晓雯 for 林晓雯; `with_speakers`).
    speaker_forms: tuple[str, ...] = ()
    # Its words in the other language (app/recall/glossary.py): the English words of its Chinese words
    # with their inflections, the Chinese words of its English ones; for memories in that language.
    glosses: tuple[str, ...] = ()
    # Whose slot facts the query asks about (`subject_keys`): its entity keys, where it names a
    # relation of someone ("Caroline's sister") the relation's key instead of its owner's.
    subject_keys: tuple[str, ...] = ()

    def with_speakers(self, keys: tuple[str, ...]) -> ParsedQuery:
        """The query with the name keys of the speakers it names. A Chinese name, which no space sets
        apart, is cut out of its run before the bigrams are made, as an English name is a word of its
        own: "晓雯在学校教什么" has the terms 晓雯 (a speaker term) and 学校, not 雯在."""
        forms = _said_forms(self.lexical_text, keys)
        if not forms:
            return replace(self, speakers=keys, speaker_forms=())
        rest = self.lexical_text
        for form in forms:
            rest = rest.replace(form, " ")
        named = [bigram for form in forms for bigram in tokens(form, drop_stop_words=False)]
        terms = _distinct([*named, *_with_bases(tokens(rest))], MAX_TERMS)
        return replace(self, speakers=keys, speaker_forms=forms, terms=terms)

    @property
    def speaker_terms(self) -> tuple[str, ...]:
        """The terms that are a named speaker's name (or its possessive; a bigram of how the query
        writes a Chinese speaker's name)."""
        words = _speaker_words(self.speakers)
        said = {bigram for form in self.speaker_forms for bigram in tokens(form, drop_stop_words=False)}
        return tuple(term for term in self.terms if term in said or _is_speaker_word(term, words))


def _said_forms(text: str, keys: tuple[str, ...]) -> tuple[str, ...]:
    """The forms of the Chinese speaker names in `keys` that `text` says (`cjk_name_forms`), longest
    first; where two overlap the longer one is taken (林晓雯, not also 晓雯)."""
    forms = sorted(
        {form for key in keys for form in cjk_name_forms(key) if form in text and CJK_RUN.match(form)},
        key=len,
        reverse=True,
    )
    taken: list[str] = []
    for form in forms:
        if not any(form in longer for longer in taken):
            taken.append(form)
    return tuple(taken)


def lucene_query(
    namespace: str,
    terms: tuple[str, ...],
    variants: tuple[str, ...] = (),
    variant_boost: float = 0.0,
    speaker_terms: tuple[str, ...] = (),
    speaker_boost: float = 1.0,
    members: tuple[str, ...] = (),
    member_boost: float = 0.0,
    glosses: tuple[str, ...] = (),
    gloss_boost: float = 0.0,
) -> str | None:
    """The full-text query: the namespace's term (`namespace_term`) required, then any of the terms
    in a node's summary or content. Every value is a quoted phrase with `"` and `\\` escaped, so no
    user text is read as Lucene syntax. Not the label (it is not indexed): a turn's label starts with
    its speaker's name, so a name in the query matched every turn of that speaker (an eighth of a
    1M-node namespace, ~45 ms of Lucene scoring per recall); names are the entity seeds' job.
    `variants` (other inflections of the terms) follow with the weight `variant_boost` (none at 0):
    the index does not stem, so "What did Caroline research?" missed "Researching adoption agencies".
    `speaker_terms` (a named speaker's name) weigh `speaker_boost`: the turns that say a speaker's
    name are mostly greetings to them ("Thanks, Caroline!"), and at full weight they outranked the
    turn that held the question's other words. `members` (words of the members of a category the query
    names: "camping" for "activities") follow with the weight `member_boost` (none at 0), then the
    query's words in the other language (`glosses`) with the weight `gloss_boost` (none at 0)."""
    if not terms:
        return None

    def phrase(value: str) -> str:
        if len(value) == 1 and CJK_RUN.match(value):
            # The index holds Chinese as bigrams: a character alone (猫, 车, 书) is a token only where
            # it stands alone, so it asks for the bigrams it opens (猫* matches 猫咪, and 橘猫已经's 猫已).
            return f"{value}*"
        return '"' + _LUCENE_SPECIAL.sub(r"\\\1", value) + '"'

    def weighted(term: str) -> str:
        weak = term in speaker_terms and speaker_boost != 1.0
        return phrase(term) + (f"^{speaker_boost:g}" if weak else "")

    wanted = " ".join(weighted(term) for term in terms)
    if variant_boost > 0:
        wanted += "".join(f" {phrase(variant)}^{variant_boost:g}" for variant in variants)
    if member_boost > 0:
        wanted += "".join(f" {phrase(member)}^{member_boost:g}" for member in members)
    if gloss_boost > 0:
        wanted += "".join(f" {phrase(gloss)}^{gloss_boost:g}" for gloss in glosses)
    return f"+namespace_term:{namespace_term(namespace)} +(summary:({wanted}) content:({wanted}))"


def _entity_keys(text: str) -> list[str]:
    """Word n-grams (1-3) and CJK runs with their 2-4 character pieces, normalized like entity names."""
    keys: list[str] = []
    words = _WORD.findall(CJK_RUN.sub(" ", text))
    for size in range(1, MAX_NGRAM + 1):
        for start in range(len(words) - size + 1):
            gram = words[start : start + size]
            if size == 1 and gram[0].lower() in STOP_WORDS:
                continue
            keys.append(normalize_name(" ".join(gram)))
    for run in CJK_RUN.findall(text):
        keys.append(run)
        for size in (2, 3, 4):
            keys += [run[i : i + size] for i in range(len(run) - size + 1)]
    return keys


# Someone's relation ("Caroline's sister", "Melanie's kids"; in Chinese "Melanie的孩子们", "张伟的妹妹"),
# whose facts the fact extraction keys as "{owner}'s {relation}" ("我妹妹住在北京" by 张伟: "张伟's sister").
_OWNED_BY_NAME = re.compile(r"(?P<owner>[^\W\d_][\w-]*)['’]s\s+(?P<relation>[^\W\d_]+(?:\s+[^\W\d_]+)?)")
_LATIN_OWNER = re.compile(r"(?P<owner>[A-Za-z][A-Za-z-]*)\s*的?\s*$")
_CHINESE_OWNER = re.compile(r"(?P<owner>[\u4e00-\u9fff]{2,3})的$")
_PRONOUN_END = re.compile(r"[我你您他她它]$")  # 和她的孩子们: a pronoun, no name
# A pet is told as its owner's fact too ("I have a dog named Luna": Melanie's `pet`), so "Melanie's
# dog" keeps Melanie's facts.
_PETS = frozenset({"dog", "cat", "parrot", "goldfish", "rabbit", "hamster", "turtle"})


def relation_subjects(text: str) -> dict[str, str]:
    """The subject keys of the relations of someone the query names, each -> its owner's key, as
    the fact extraction writes them (`FactPatterns._relation_subject`: the relation word's English
    name from `relations` in app/data/fact_patterns.yaml, else the word as written; a plural the list
    lacks also as its singular's): "Melanie's kids" -> "melanie's child", "Jon's moms" -> "jon's moms"
    and "jon's mother"; "张伟的妹妹" -> "张伟's sister". A
    Chinese owner is a name of 2 or 3 characters before 的 (both are tried: nothing marks where the
    name starts); a Latin one may go without 的 (Melanie妈妈)."""
    relations = default_patterns().settings.relations
    found: dict[str, str] = {}

    def add(owner: str, written: str, word: str) -> None:
        if relations[word] in _PETS or _PRONOUN_END.search(owner):
            return
        owner_key = normalize_name(owner)
        for relation in (relations.get(written, written), relations[word]):
            found[f"{owner_key}'s {relation}"] = owner_key

    for m in _OWNED_BY_NAME.finditer(text):
        words = m["relation"].casefold().split()
        for written in (" ".join(words), words[0]):
            if (word := _singular(written, relations)) is not None:
                add(m["owner"], written, word)
                break
    for m in _chinese_relations().finditer(text):
        word, before = m.group(), text[: m.start()]
        if latin := _LATIN_OWNER.search(before):
            add(latin["owner"], word, word)
        elif chinese := _CHINESE_OWNER.search(before):
            for owner in dict.fromkeys((chinese["owner"][-2:], chinese["owner"])):
                add(owner, word, word)
    return found


def _singular(word: str, relations: Mapping[str, str]) -> str | None:
    """`word` or its singular ("kids" -> "kid", "children" -> "child") when it is a relation word."""
    for form in (word, word[:-1] if word.endswith("s") else "", "child" if word == "children" else ""):
        if form and form in relations:
            return form
    return None


@functools.cache
def _chinese_relations() -> re.Pattern[str]:
    """The Chinese relation words of the fact extraction, the longest first (姐姐, not 姐 of it)."""
    words = (word for word in default_patterns().settings.relations if CJK_RUN.fullmatch(word))
    return re.compile("|".join(map(re.escape, sorted(words, key=len, reverse=True))))


def subject_keys(entity_keys: tuple[str, ...], relations: Mapping[str, str]) -> tuple[str, ...]:
    """Whose slot facts the query asks about: its entity keys but the owners of the relations it names
    (`relations`: subject key -> owner): "What does Caroline's sister like?" asks for the sister's
    likes, not Caroline's (which, seeded, filled the top ten)."""
    owners = set(relations.values())
    return tuple(key for key in entity_keys if key not in owners)


def _slot_keys(text: str, terms: tuple[str, ...], vocabulary: SlotVocabulary) -> list[str]:
    """Slots named by the vocabulary, plus the query's own words as slot names (slots are
    snake_case English: "car", "favorite_color"): single words, their singular, adjacent pairs."""
    words = [t for t in terms if t.isascii()]
    keys = vocabulary.slots(text, terms) + words + [w[:-1] for w in words if len(w) > 3 and w.endswith("s")]
    keys += [f"{a}_{b}" for a, b in zip(words, words[1:], strict=False)]
    return keys


def _distinct(values: list[str], limit: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))[:limit]


def _with_bases(words: list[str]) -> list[str]:
    """Possessives also as their base word: "caroline's" asks about "caroline" too."""
    out: list[str] = []
    for word in words:
        out.append(word)
        for suffix in ("'s", "’s"):
            if word.endswith(suffix) and len(word) > len(suffix):
                out.append(word[: -len(suffix)])
    return out


def parse_query(
    text: str,
    now: datetime,
    vocabulary: SlotVocabulary,
    categories: CategoryVocabulary | None = None,
    glossary: Glossary | None = None,
) -> ParsedQuery:
    asked = question_time(text, now)
    # The words of a time expression ("last week", "三天前", "去年夏天") are the window's job, not full
    # text: they match every turn that says them (tens of thousands at 1M nodes), slowly and off-topic.
    untimed = _blank_spans(text, [*asked.spans, *_request_spans(text)])
    terms = _distinct(_with_bases(tokens(untimed)), MAX_TERMS)
    names = _capitalized_only(untimed)
    found = [v for term in terms if term not in names for v in word_variants(term)]
    variants = tuple(v for v in _distinct(found, MAX_VARIANTS + len(terms)) if v not in terms)[:MAX_VARIANTS]
    members = categories.members(untimed.lower(), terms) if categories is not None else []
    glosses = _glosses(untimed, glossary, terms, names, {*terms, *variants}) if glossary is not None else ()
    relations = relation_subjects(text)
    entity_keys = _distinct([*relations, *_with_bases(_entity_keys(text))], 4 * MAX_TERMS)
    return ParsedQuery(
        text=text,
        terms=terms,
        variants=variants,
        entity_keys=entity_keys,
        subject_keys=subject_keys(entity_keys, relations),
        slot_keys=_distinct(_slot_keys(text, terms, vocabulary), MAX_TERMS),
        window=asked.window,
        aggregate=asks_to_aggregate(text),
        ahead=asks_ahead(text),
        literal=only_identifiers(text),
        state=asks_state(text),
        members=tuple(m for m in members if m not in terms and m not in variants)[:MAX_MEMBERS],
        lexical_text=untimed,
        glosses=glosses,
    )


def _glosses(
    text: str, glossary: Glossary, terms: tuple[str, ...], names: frozenset[str], known: set[str]
) -> tuple[str, ...]:
    """The English words of the Chinese pieces of `text` (its stop words cut, as for its terms) and
    their inflections (the index does not stem: "paint" finds "painted"), then the Chinese words of
    its English `terms` but `names` ("sunrise" -> 日出), without words it has."""
    pieces = [piece for run in CJK_RUN.findall(text) for piece in cjk_pieces(run)]
    words = glossary.translate(pieces)
    found = [form for word in words for form in (word, *word_variants(word))]
    found += glossary.to_chinese((term, *word_variants(term)) for term in terms if term.isascii() and term not in names)
    return tuple(word for word in dict.fromkeys(found) if word not in known)[:MAX_GLOSSES]


# "How many hours have I spent playing games in total?", "一共去了几次？": a count or a total, which
# adds up several events, usually told in several conversations. Not "how long" or "how much" (a
# duration or a price is mostly said once: spreading their cards lost such questions, docs/benchmarks.md).
# 哪些 ("which ones": "Melanie买了哪些东西？") asks for a list, as spread over conversations as a count
# (LoCoMo dev in Chinese: 2 multi-hop questions gained, none lost; own set and across languages: 1
# and 2 partly lost).
_AGGREGATE = re.compile(
    r"\b(?:how\s+many|how\s+often|in\s+total|total|altogether|combined|in\s+all)\b"
    r"|几次|几个|多少次|多少个|总共|一共|总计|加起来|哪些",
    re.IGNORECASE,
)


def asks_to_aggregate(text: str) -> bool:
    """Whether the query asks for a count, a total or (in Chinese) a list (English or Chinese)."""
    return _AGGREGATE.search(text) is not None


# "What should I serve for dinner this weekend?", "这个周末我应该做什么菜？": advice or a plan, asked
# with a modal; what answers it was told before the window, which runs on past `now`. A past
# auxiliary or aspect marker ("Can you tell me what I did this weekend?", "这周末我去了哪里") keeps it
# a question about what happened inside the window. Not "have": "What should I have for dinner?".
_AHEAD = re.compile(
    r"\b(?:should|shall|will|would|could|can|going\s+to|gonna|plan(?:s|ning)?\s+to|recommend|suggest)\b"
    r"|应该|打算|计划|准备|推荐|建议",
    re.IGNORECASE,
)
_PAST = re.compile(r"\b(?:did|was|were|had)\b|了|过", re.IGNORECASE)


# A code, ticket id or version: letters, digits and the marks ids are spelled with, holding a digit
# ("IMTOK21727a01WA", "PROJ-4821", "v2.14.3", "build_2291", "#4821").
_IDENTIFIER = re.compile(r"^#?(?=[\w.\-/:#]*\d)[A-Za-z0-9][\w.\-/:#]*$", re.ASCII)


def only_identifiers(text: str) -> bool:
    """Whether every word of the query is an identifier (quotes and end punctuation aside). An
    embedding model reads no meaning into "SF1234567890": the nearest vectors were other turns that
    hold some code, ranked above the one turn that holds this code (found by full text)."""
    words = [word.strip("\"'“”‘’`«»()[]{}<>,;!?。，；！？") for word in text.split()]
    words = [word.rstrip(".") for word in words if word]
    return bool(words) and all(_IDENTIFIER.match(word) for word in words)


# "What did billing use before?", "以前住在哪里": the past of a value that changed. "What database does
# billing use?", "where does she live now", "现在用什么": its current state (a now-word, or a present
# question about what one uses, lives in, works at, drives, owns, has, or where/when a thing is; not
# every present question: "How does Gina describe ..." asks about what was said).
_HISTORY = re.compile(
    r"\b(?:before|previously|used\s+to|originally|at\s+first|in\s+the\s+past|formerly|prior|earlier|"
    r"former|history)\b|以前|之前|原来|过去|曾经|早先|最早|原先|历史",
    re.IGNORECASE,
)
_CURRENT = re.compile(
    r"\b(?:now|currently|current|these\s+days|nowadays|at\s+the\s+moment|still|latest|presently|today)\b"
    r"|\b(?:do|does)\s+(?:\w+\s+){1,3}?(?:use|live|work|drive|own|have|run|host|take|attend|play)\b"
    r"|^\W*(?:where|which\s+\w+|what\s+time|what\s+day)\s+(?:is|are)\b"
    r"|现在|目前|如今|当前|眼下|最新|还在",
    re.IGNORECASE,
)


def asks_state(text: str) -> State | None:
    """Whether the query asks about the past ("history": before, used to, 以前), the current state
    ("current": now, currently, a present-tense what/where/who question, 现在), or neither."""
    if _HISTORY.search(text):
        return "history"
    if _CURRENT.search(text):
        return "current"
    return None


def asks_ahead(text: str) -> bool:
    """Whether the query asks what to do or what will happen (English or Chinese): a modal and no
    past marker."""
    return _AHEAD.search(text) is not None and _PAST.search(text) is None


_EDGE_PUNCTUATION = ",.;:!?\"'()“”‘’"


_WORDS_AND_CJK_RUNS = re.compile(f"(\\s+|{CJK_RUN.pattern})")
_POSSESSIVE = "的"


def dense_query(text: str, speakers: tuple[str, ...] = ()) -> str:
    """What the cold path embeds: the query without the names of the speakers it names. A turn is
    embedded behind its speaker's name ("Caroline: ..."), so the name pulls every turn of that
    speaker (and every greeting to them) equally close, and short questions said by them ("Cool!
    What did it look like?") were the nearest turns to most questions; who said it is the
    named-subject factor's job (app/recall/fusion.py). A query with nothing else ("Who is Caroline?")
    keeps them."""
    words = _speaker_words(speakers)
    if not words:
        return text
    # Split at CJK runs too: a name in Latin letters is not set apart by spaces in Chinese
    # ("Melanie在哪里露营过？"); kept in, it made the turns addressed to Melanie the nearest. The
    # possessive 的 after a name goes with it, as "'s" does ("Caroline的画" -> "画").
    kept: list[str] = []
    after_name = False
    for piece in _WORDS_AND_CJK_RUNS.split(text):
        if _is_speaker_word(piece, words):
            after_name = True
            continue
        if after_name and piece.startswith(_POSSESSIVE):
            piece = piece[len(_POSSESSIVE) :]
        after_name = after_name and not piece.strip()
        kept.append(piece)
    for form in _said_forms(text, speakers):  # Chinese names are not set apart by spaces
        kept = [piece.replace(form + _POSSESSIVE, "").replace(form, "") for piece in kept]
    rest = " ".join("".join(kept).split())
    return rest if tokens(rest) else text


def _speaker_words(speakers: tuple[str, ...]) -> frozenset[str]:
    return frozenset(word for key in speakers for word in key.split())


def _is_speaker_word(word: str, speaker_words: frozenset[str]) -> bool:
    key = normalize_name(word.strip(_EDGE_PUNCTUATION))
    return bool(key) and any(base in speaker_words for base in _with_bases([key]))


# A Chinese request that opens a query ("帮我查一下王磊住在哪里", "我想问一下……", "请帮我回忆一下"): what an
# agent asks of the memory, not what it is about. Only at the start: in a turn, 帮我找到 is what happened.
_CJK_REQUEST = re.compile(
    r"^\W*(?:请|麻烦你?)?(?:你)?(?:帮我|帮忙)?(?:查|找|搜|看|回忆|想想)(?:一下|一查|一找|看)"
    r"|^\W*(?:请|麻烦你?)?(?:你)?(?:帮我|帮忙)(?:查|找|搜|看看|回忆)"
    r"|^\W*我?想问(?:一下|问)?"
)


def _request_spans(text: str) -> list[tuple[int, int]]:
    """The span of a Chinese request opening the query (`_CJK_REQUEST`), if any."""
    m = _CJK_REQUEST.match(text)
    return [m.span()] if m else []


def _blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _capitalized_only(text: str) -> frozenset[str]:
    """Lower-cased words the text only ever writes capitalized (names, and a sentence's first word):
    they get no inflections ("Caroline" is not "carolines")."""
    seen: dict[str, bool] = {}
    for word in _WORD.findall(text):
        for key in _with_bases([word.lower()]):
            seen[key] = seen.get(key, True) and word[:1].isupper()
    return frozenset(word for word, capitalized in seen.items() if capitalized)


def _inflect(base: str, double: bool) -> list[str]:
    """The regular inflections of an English base form: -s, -ing, -ed, with the usual spelling
    changes: a silent e dropped, y -> ie/i after a consonant, and with `double` a short final
    consonant doubled (stop -> stopping)."""
    if base.endswith(("s", "x", "z", "ch", "sh")):
        plural = base + "es"
    elif base.endswith("y") and base[-2:-1] not in _VOWELS:
        plural = base[:-1] + "ies"
    else:
        plural = base + "s"
    if base.endswith("e") and not base.endswith("ee"):
        stem, past = base[:-1], base + "d"
    elif base.endswith("y") and base[-2:-1] not in _VOWELS:
        stem, past = base, base[:-1] + "ied"
    else:
        stem, past = base, base + "ed"
    if double and _short_closed(base):
        return [base, plural, base + base[-1] + "ing", base + base[-1] + "ed"]
    return [base, plural, stem + "ing", past]


def _short_closed(word: str) -> bool:
    """Consonant, vowel, consonant at the end of a word of at most four letters (run, stop, swim)."""
    return (
        3 <= len(word) <= 4
        and word[-1] not in _VOWELS | {"w", "x", "y"}
        and word[-2] in _VOWELS
        and word[-3] not in _VOWELS
    )


def _bases(stem: str) -> list[str]:
    """Base forms of what is left of a word without its -ing / -ed: "stopp" -> stop, "creat" ->
    creat, create (a vowel and a consonant may have lost a silent e), "danc" -> dance, "paint" -> paint."""
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS | {"l", "s", "z", "f"}:
        return [stem[:-1]]
    if stem.endswith(("c", "g", "v", "z", "u")):
        return [stem + "e"]
    if stem[-1] not in _VOWELS | {"w", "x", "y"} and stem[-2] in _VOWELS:
        return [stem, stem + "e"]
    return [stem]


def word_variants(word: str) -> list[str]:
    """Other regular inflections of an English word (plural/singular, -ing, -ed), best guesses from
    its spelling alone: "research" -> researches, researching, researched; "camped" -> camp, camps,
    camping; "hikes" -> hike, hiking, hiked. A guess that is no word matches nothing in the index.
    Words under four letters or not purely ASCII letters get none."""
    if len(word) < 4 or not (word.isascii() and word.isalpha()):
        return []
    if word.endswith("ies") and len(word) > 4:
        bases = [word[:-3] + "y"]
    elif word.endswith("ing") and len(word) >= 6:
        bases = _bases(word[:-3])
    elif word.endswith("ied") and len(word) > 4:
        bases = [word[:-3] + "y"]
    elif word.endswith("ed") and len(word) >= 5:
        bases = _bases(word[:-2])
    elif word.endswith(("ches", "shes", "sses", "xes", "zes")):
        bases = [word[:-2]]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        bases = [word[:-1]]
    else:
        bases = [word]
    if bases == [word] and word.endswith("ed"):
        return []  # "used", "bred": no rule applies
    # Doubling is read off a word with -ing / -ed ("swimming" -> swim, swimming; "visited" -> visit,
    # visiting); a base form doubles when short and closed (swim -> swimming, kids -> kidding).
    if word.endswith(("ing", "ed")) and bases != [word]:
        double = len(bases) == 1 and word.startswith(bases[0] + bases[0][-1])
    else:
        double = True
    forms = [form for base in bases if len(base) >= 3 for form in _inflect(base, double=double)]
    return [form for form in dict.fromkeys(forms) if form != word]
