"""What a caller asks the memory graph to write, validated before anything is written."""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.domain.model import SUMMARY_MAX_CHARS, Importance, NodeType, RelType, Source
from app.errors import HippographError

# A namespace's node capacity at most: beyond any Neo4j store, and exact as a float (capacity × ratio).
MAX_CAPACITY = 10**12
# Matched whole (`fullmatch`: a `$` would also match before a trailing newline); "." and ".." are
# refused too, as path segments that URLs and file names treat specially.
NAMESPACE_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
NAMESPACE_RULE = "1-64 letters, digits, '-', '_' or '.', other than '.' and '..'"
# After the type prefix: printable text without control characters (\x1f separates pair keys), C1
# controls or line separators, and not only invisible characters (`is_blank`).
_ID_BODY = re.compile("[^\x00-\x1f\x7f-\x9f\u2028\u2029]{1,200}")


class InputError(HippographError, ValueError):
    """Bad input; `field` is the path of the offending field, e.g. `links[2].target_id`."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


# What Neo4j, Redis and the JSON encoders store: 64-bit integers, finite floats, strings that are
# valid Unicode (a lone surrogate cannot be encoded as UTF-8).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


# Neo4j stores a datetime's offset as a java.time.ZoneOffset: whole minutes within ±18:00.
MAX_UTC_OFFSET = timedelta(hours=18)


# Characters that show nothing: whitespace, controls, format characters (zero-width space and
# joiners, bidi marks, BOM), combining marks with nothing to combine with, and fillers that render
# as blanks although Unicode calls them letters or symbols. A name made of these only is no name.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp"})
_BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Control characters (C0 with NUL, DEL, C1) and the line/paragraph separators: never in an id or a name.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def is_blank(text: str) -> bool:
    """True when nothing of `text` shows: it is empty, whitespace or invisible characters only."""
    return all(
        char.isspace() or char in _BLANK_LOOKING or unicodedata.category(char) in _INVISIBLE_CATEGORIES
        for char in text
    )


def check_not_blank(text: str) -> str:
    """For pydantic validators: text that is only whitespace or invisible characters (zero-width
    spaces, format characters) is refused (ValueError)."""
    if is_blank(text):
        raise ValueError("must not be blank (only whitespace or invisible characters)")
    return text


def check_identifier(text: str) -> str:
    """For pydantic validators: an id, tag or name (a speaker, an agent) has no control character
    (NUL, newline, tab, ...) and is not blank (ValueError otherwise). A zero-width joiner inside a
    visible name stays allowed (emoji sequences, Persian names); a name made only of them does not."""
    if (found := _CONTROL.search(text)) is not None:
        raise ValueError(f"must not contain control characters (found U+{ord(found.group()):04X})")
    return check_not_blank(text)


def check_storable_time(value: datetime) -> datetime:
    """For pydantic validators: a datetime Neo4j can store (ValueError otherwise). Its UTC offset is
    whole minutes within ±18:00, and its instant (naive: UTC) lies within years 1-9999 in UTC too."""
    offset = value.utcoffset()
    if offset is not None:
        if abs(offset) > MAX_UTC_OFFSET:
            raise ValueError("the UTC offset must be within -18:00 and +18:00")
        if offset % timedelta(minutes=1):
            raise ValueError("the UTC offset must be whole minutes")
    try:
        (value if offset is not None else value.replace(tzinfo=UTC)).astimezone(UTC)
    except OverflowError:
        raise ValueError("out of range once converted to UTC (years 1-9999)") from None
    return value


# A JSON integer of more characters than this cannot be 64-bit (19 digits and a sign; JSON has no
# leading zeros). `json.loads` would convert it all the same: thousands of digits cost quadratic time
# and past Python's int-string limit (4,300 digits) raise ValueError mid-parse, with no place to
# name. `parse_json_int` keeps such a number as `OutOfRangeInt`, which `check_json_value` refuses at
# its place.
MAX_JSON_INT_CHARS = 20


class OutOfRangeInt:
    """A JSON integer too long to be 64-bit, left unconverted (see MAX_JSON_INT_CHARS)."""

    __slots__ = ("digits",)

    def __init__(self, token: str) -> None:
        self.digits = len(token.lstrip("-"))

    def __repr__(self) -> str:  # in messages that quote a value
        return f"<an integer of {self.digits} digits>"


def parse_json_int(token: str) -> int | OutOfRangeInt:
    """`json.loads(..., parse_int=parse_json_int)`: every client JSON is parsed so."""
    return int(token) if len(token) <= MAX_JSON_INT_CHARS else OutOfRangeInt(token)


_NUMBER_TEXT = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")


def check_time_text(value: Any) -> Any:
    """For pydantic "before" validators: a time is ISO 8601 text (or a datetime). pydantic would also
    read a number, or text that is one ("0.5"), as Unix seconds, where OpenAPI says date-time."""
    if isinstance(value, datetime) or (isinstance(value, str) and not _NUMBER_TEXT.fullmatch(value)):
        return value
    raise ValueError("expected an ISO 8601 date-time such as 2024-05-15T10:00:00Z")


def check_json_value(value: Any, field: str, max_depth: int) -> None:
    """Raise InputError naming a place (`field.key[2]`) of a parsed JSON value that the
    engines cannot store: objects and arrays nested deeper than `max_depth` levels, a string or key
    with a lone surrogate, an integer beyond 64 bits (also one `parse_json_int` left unconverted),
    a NaN or infinite float. Iterative, so a value of any depth is checked without recursion."""
    stack: list[tuple[Any, str, int]] = [(value, field, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= max_depth:
                raise InputError(path or "body", f"nested deeper than {max_depth} levels")
            if isinstance(item, dict):
                for key, child in item.items():
                    child_path = f"{path}.{key}" if path else str(key)
                    if isinstance(key, str) and has_lone_surrogate(key):
                        raise InputError(path or "body", f"key {key!r} contains a lone surrogate (not valid Unicode)")
                    stack.append((child, child_path, depth + 1))
            else:
                stack.extend((child, f"{path}[{i}]", depth + 1) for i, child in enumerate(item))
        elif isinstance(item, str):
            if has_lone_surrogate(item):
                raise InputError(path or "body", "contains a lone surrogate (not valid Unicode)")
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int):
            if not INT64_MIN <= item <= INT64_MAX:
                raise InputError(path or "body", "integer beyond the 64-bit range")
        elif isinstance(item, float) and not math.isfinite(item):
            raise InputError(path or "body", "must be a finite number")
        elif isinstance(item, OutOfRangeInt):
            raise InputError(path or "body", f"integer beyond the 64-bit range ({item.digits} digits)")


def check_namespace(name: str) -> str:
    if not NAMESPACE_PATTERN.fullmatch(name) or name in {".", ".."}:
        raise InputError("namespace", NAMESPACE_RULE)
    return name


def namespace_term(namespace: str) -> str:
    """The namespace as ONE full-text term, stored on every node (`namespace_term`) so that recall
    restricts its Lucene query to the namespace with a term query. The name itself is split by the
    analyzer ("team-a" -> team, a) and can be all stop words ("the"): its phrase query read
    positions for every document of the namespace, and a stop-word name restricted nothing. "ns" and
    the name's hex digits are one lower-case token, unique per name (names are 1-64 ASCII characters,
    so at most 130 characters, under Lucene's 255)."""
    return "ns" + namespace.encode("ascii").hex()


# Stored on nodes for the product's own queries, never answered (REST, tools, MCP, exports, Cypher rows).
INTERNAL_PROPERTIES = frozenset({"namespace_term"})


def public_properties(properties: Mapping[str, Any]) -> dict[str, Any]:
    """A node's stored properties without the internal ones (`INTERNAL_PROPERTIES`)."""
    return {name: value for name, value in properties.items() if name not in INTERNAL_PROPERTIES}


def check_node_id(node_id: str, field: str = "id", expected: NodeType | None = None) -> str:
    prefix, sep, body = node_id.partition(":")
    node_type = NodeType.of_id(node_id)
    if not sep or node_type is None or not _ID_BODY.fullmatch(body) or is_blank(body):
        raise InputError(field, "must be '<type>:<key>' with a node type prefix such as 'knowledge:'")
    if expected is not None and node_type != expected:
        raise InputError(field, f"must start with '{expected.id_prefix}:' for a {expected.value} node")
    return node_id


# What marks a cut text: a derived summary's end (recall shows an excerpt for such a card).
ELLIPSIS = "…"


def derive_summary(content: str, limit: int = SUMMARY_MAX_CHARS) -> str:
    """The first `limit` characters, cut at a word boundary when there is one, with an ellipsis."""
    text = " ".join(content.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip() + ELLIPSIS


_SEPARATOR, _ESCAPE = "\x1f", "\x1b"


def joined_key(*parts: str) -> str:
    """The parts joined by \x1f, an \x1b put before each \x1b and \x1f inside a part: different
    parts never give the same key (("a\x1fb", "c") and ("a", "b\x1fc") did), and parts without
    either character join exactly as `"\x1f".join` did, so ids derived before stay as they were."""
    return _SEPARATOR.join(_escaped(part) for part in parts)


def _escaped(part: str) -> str:
    if _ESCAPE not in part and _SEPARATOR not in part:
        return part
    return part.replace(_ESCAPE, _ESCAPE + _ESCAPE).replace(_SEPARATOR, _ESCAPE + _SEPARATOR)


def stable_digest(*parts: str) -> str:
    """The key part of a deterministic node id: a hash of the parts that identify the node."""
    return hashlib.sha256(joined_key(*parts).encode()).hexdigest()[:24]


def content_id(node_type: NodeType, label: str, content: str) -> str:
    """Deterministic id for a memory without one: the same memory written twice is one node."""
    return f"{node_type.id_prefix}:{stable_digest(node_type.value, label, content)}"


@dataclass(frozen=True)
class NewLink:
    type: RelType
    target_id: str
    weight: float | None = None


@dataclass(frozen=True)
class NewMemory:
    type: NodeType
    label: str
    content: str
    summary: str | None = None
    importance: Importance | None = None  # None: detected by the importance rules (app/data)
    tags: tuple[str, ...] = ()
    links: tuple[NewLink, ...] = ()
    id: str | None = None
    source: Source = Source.AGENT
    agent_id: str | None = None
    private: bool = False  # seen only by its own agent (and admins of the namespace)
    confidence: float = 1.0
    source_turn_ids: tuple[str, ...] = ()
    subject: str | None = None
    slot: str | None = None
    value: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    superseded_by: str | None = None
    event_time: datetime | None = None
    aliases: tuple[str, ...] = ()  # a Person or Concept: more names that stand for it
