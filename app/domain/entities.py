"""Entity identity without an LLM: which Person or Concept node a name stands for.

A name's key is `normalize_name` (NFKC, casefolded, whitespace collapsed, edge punctuation
stripped) without spaces between CJK characters (`join_cjk`), so "Alice", " ALICE " and "Ａｌｉｃｅ"
are one key, and "张伟", "张 伟" and "张伟 " another. A key
and a type give the derived id (`person:<digest>`, `concept:<digest>`); every writer (saved
memories, speakers, names in turns) derives the same one, and the resolver (app/memory/entities.py)
first looks for a node the namespace already holds under that key: by `name_key`, by an explicit
alias, or by a first name used alone when exactly one Person's full name starts with it.

Nothing here compares strings by similarity: "Mel" is "Melanie" only when an alias says so, and
"张伟" is never "发给张伟" or "张伟国".

Layers of one concept (one file name): `app/domain/entities.py` (the pure name rules);
`app/memory/entities.py` (resolution over the graph); `app/api/entities.py` (the merge and split
routes); `app/evaluation/entities.py` (scoring resolution on a labelled set)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from app.domain.model import NodeType
from app.domain.turns import concept_id, person_id

ENTITY_TYPES = frozenset({NodeType.PERSON, NodeType.CONCEPT})
# Characters a first name may hold besides letters ("jean-luc", "o'neil").
_NAME_JOINERS = frozenset("-'’")
# A full name the first-name rule reads: 2-4 words ("alice chen", "mary anne smith").
_MAX_FULL_NAME_WORDS = 4


@dataclass(frozen=True, order=True)
class EntityName:
    """A name to resolve: its node type and normalized key."""

    type: NodeType
    key: str

    @property
    def derived_id(self) -> str:
        return entity_id(self.type, self.key)


def entity_id(node_type: NodeType, key: str) -> str:
    """The id every writer derives for a Person or Concept of this normalized name."""
    if node_type == NodeType.PERSON:
        return person_id(key)
    if node_type == NodeType.CONCEPT:
        return concept_id(key)
    raise ValueError(f"{node_type.value} is not an entity type (Person or Concept)")


def _is_cjk(char: str) -> bool:
    # Han, kana, hangul: names written without spaces, where a leading run is no first name.
    return unicodedata.east_asian_width(char) in {"W", "F"}


def join_cjk(key: str) -> str:
    """`key` without the spaces between two CJK characters: "张 伟" and "张　伟" are "张伟" (Chinese
    names are written without spaces; spaces between Latin words stay)."""
    if " " not in key:
        return key
    kept = [
        char
        for index, char in enumerate(key)
        if not (char == " " and 0 < index < len(key) - 1 and _is_cjk(key[index - 1]) and _is_cjk(key[index + 1]))
    ]
    return "".join(kept)


def is_given_name(key: str) -> bool:
    """Whether `key` can be a first name used alone: one word of letters, not CJK (a Chinese given
    name is not written first, and "伟" standing for "张伟" would be guessing)."""
    return (
        bool(key)
        and key[0].isalpha()
        and all(char.isalpha() or char in _NAME_JOINERS for char in key)
        and not any(_is_cjk(char) for char in key)
    )


def first_name(key: str) -> str | None:
    """The first word of a full name (2-4 words, the first one a possible first name), else None."""
    words = key.split(" ")
    if not 2 <= len(words) <= _MAX_FULL_NAME_WORDS or not is_given_name(words[0]):
        return None
    return words[0]


def pick_resolution(by_name: str | None, by_alias: str | None, by_first_name: list[str]) -> str | None:
    """The node a name resolves to: an exact name first, then an explicit alias, then the one full
    name that starts with it; two candidates for a first name resolve to none (a miss, never a guess)."""
    if by_name is not None:
        return by_name
    if by_alias is not None:
        return by_alias
    distinct = sorted(set(by_first_name))
    return distinct[0] if len(distinct) == 1 else None
