"""Draft a typed query class for one cypher file (`python scripts/typed_queries.py tasks`): a TypedDict
per query's RETURN columns and a method per query, keyword-only parameters, types guessed from the
names (how a query runs, `_read`, `_write` or `_batched`, and the class name are kept from the
committed class; a new query is drafted as a write). The output is a skeleton to review: the
committed classes in app/stores/queries/ are edited code (real types, shared row types), and
tests/test_cypher_call_params.py checks they match the queries.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from app.stores.cypher import CYPHER_DIR, _parse

_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_STR = {
    "namespace",
    "namespace_term",
    "id",
    "agent_id",
    "session_id",
    "key_hash",
    "label",
    "role",
    "origin",
    "type",
    "merge_id",
    "merged_id",
    "from_id",
    "to_id",
    "keep_id",
    "name_key",
    "parent_id",
    "source_id",
    "target_id",
    "migration",
    "after_id",
    "key_id",
    "centre",
    "key",
    "name",
    "text",
    "speaker",
    "source",
    "target",
    "summary",
    "status",
    "content",
    "turn",
    "previous",
    "next",
    "subject_key",
    "slot",
    "value_key",
    "key_value",
    "element_id",
    "after",
    "lucene",
    "no_match",
    "viewer_agent",
    "turn_id",
}
_TIME = {
    "now",
    "since",
    "until",
    "at",
    "expires_at",
    "suspended_at",
    "edge_at",
    "hot_since",
    "warm_since",
    "timestamp",
    "created_at",
    "valid_from",
    "valid_until",
}
_STRS = {
    "ids",
    "names",
    "keys",
    "tags",
    "turn_ids",
    "gone",
    "candidates",
    "episode_ids",
    "subject_keys",
    "element_ids",
    "aliases",
    "depends_on",
    "keep",
    "types",
    "frontier",
    "seen",
    "moved_keys",
    "labels",
    "texts",
    "episodes_ids",
    "restored",
    "missing",
    "hidden_ids",
    "closing",
    "speakers",
    "related_ids",
    "source_turn_ids",
}
_INT = {
    "limit",
    "depth",
    "start",
    "end",
    "capacity",
    "default_capacity",
    "created",
    "deleted",
    "updated",
    "linked",
    "decayed",
    "count",
    "reset",
    "repaired",
    "withdrawn",
    "reinforced",
    "attempted",
    "dropped",
    "nodes",
    "relationships",
    "chars",
    "hidden",
    "levels",
    "batch",
    "fanout",
    "cap",
    "seed_limit",
}
_MAP = {"node", "properties", "record", "counts", "filter", "half_lives", "prune_weights", "visibility"}
_BOOL = {
    "learned",
    "structural",
    "sees_private",
    "include_forgotten",
    "found",
    "task",
    "private",
    "below",
    "inferred",
    "has_subtasks",
    "alive",
}


def guess(name: str) -> str:
    for names, kind in (
        (_STR, "str"),
        (_TIME, "datetime"),
        (_STRS, "list[str]"),
        (_INT, "int"),
        (_MAP, "dict[str, Any]"),
        (_BOOL, "bool"),
    ):
        if name in names:
            return kind
    return "list[dict[str, Any]]" if name.endswith("s") else "Any"


def returned_columns(text: str) -> list[str]:
    """The column names of the query's last top-level RETURN (`expr AS alias`, or a bare name)."""
    at = max((m.start() for m in re.finditer(r"\bRETURN\b", text)), default=-1)
    if at < 0:
        return []
    clause = re.split(r"\b(?:ORDER BY|LIMIT|SKIP|UNION)\b", text[at + len("RETURN") :])[0]
    items, depth, current = [], 0, ""
    for char in clause:
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += char
    items.append(current)
    columns = []
    for item in (item.strip() for item in items if item.strip()):
        alias = re.search(r"\bAS\s+([A-Za-z_]\w*)\s*$", item)
        columns.append(alias.group(1) if alias else item.replace("DISTINCT", "").strip())
    return columns


def existing_class(stem: str) -> tuple[str | None, dict[str, str]]:
    """The committed class of `stem` (its name, and how each of its methods runs its query:
    `_read`, `_write` or `_batched`), so a redraft keeps them; a new file has none."""
    folder = Path(__file__).resolve().parents[1] / "app" / "stores" / "queries"
    sources = [path.read_text(encoding="utf-8") for path in sorted(folder.glob("*_queries.py"))]
    running = [source for source in sources if f'"{stem}.' in source]
    if not running:
        return None, {}
    tree = ast.parse(running[0])
    name = next(
        (node.name for node in tree.body if isinstance(node, ast.ClassDef) and node.name.endswith("Queries")), None
    )
    modes = {
        node.args[0].value: node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args
        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
    }  # fmt: skip
    return name, modes


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def draft(stem: str) -> str:
    queries = _parse((CYPHER_DIR / f"{stem}.cypher").read_text(encoding="utf-8"))
    class_name, modes = existing_class(stem)
    rows: dict[tuple[tuple[str, str], ...], str] = {}
    out = [
        f'"""Typed calls of cypher/{stem}.cypher (app/stores/queries/__init__.py)."""',
        "",
        "from __future__ import annotations",
        "",
        "from datetime import datetime",
        "from typing import Any, TypedDict, cast",
        "",
        "from app.stores.queries.runner import Queries",
        "",
    ]
    methods = [f"class {class_name or camel(stem) + 'Queries'}(Queries):"]
    for name, text in queries:
        params = sorted(dict.fromkeys(_PARAMETER.findall(text)), key=lambda p: p != "namespace")
        columns = returned_columns(text)
        run = modes.get(f"{stem}.{name}", "_write")  # a new query: a write unless said otherwise
        signature = ", ".join(["self", "*"] + [f"{p}: {guess(p)}" for p in params]) if params else "self"
        call = ", ".join([f'"{stem}.{name}"'] + [f"{p}={p}" for p in params])
        if not columns:
            methods += [f"    def {name}({signature}) -> None:", f"        self.{run}({call})", ""]
            continue
        shape = tuple((c, guess(c)) for c in columns)
        row = rows.setdefault(shape, f"{camel(name)}Row")
        if row == f"{camel(name)}Row":
            out += ["", f"class {row}(TypedDict):"] + [f"    {c}: {t}" for c, t in shape] + [""]
        methods += [
            f"    def {name}({signature}) -> list[{row}]:",
            f'        return cast("list[{row}]", self.{run}({call}))',
            "",
        ]
    return "\n".join(out + [""] + methods).rstrip() + "\n"


if __name__ == "__main__":
    print(draft(sys.argv[1]), end="")
