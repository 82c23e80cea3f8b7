"""The guard of the analysts' Cypher endpoint: pure checks over Neo4j's own EXPLAIN plan.

A regex over the query text cannot tell what a query reads (comments, casing, unicode spaces,
literals, the planner's rewrites); the plan can. `check_plan` takes what `EXPLAIN` reported
(`summary.query_type` and `summary.plan`, a dict tree of `operatorType`, `args` with `Details`,
`identifiers`, `children`) and raises `CypherRefused(reason)` unless:

1. Neo4j classifies the query as read-only (`query_type == "r"`) and no operator writes, changes the
   schema, administers, shows, terminates, loads CSV or runs a transactional FOREACH; a
   `ProcedureCall` only names a procedure of `PROCEDURE_ALLOW_LIST` (schema names shared by all
   tenants, nothing that returns nodes).
2. Every leaf operator (where rows come from) reads nothing of another namespace: `Argument`, a
   leaf that reads no store (`Projection`, `Unwind`, `EmptyRow`), an allowed procedure, or a
   node/relationship producing leaf whose node variables are ANCHORED. A node variable `v` is
   anchored when (a) the leaf is an index seek on `:Memory` whose condition has the conjunct
   `namespace = $namespace`, or (b) the chain of `Filter` operators directly above the leaf (only
   row-preserving `CacheProperties` in between) has the top-level conjuncts `v.namespace =
   $namespace` and `v:Memory` (or the leaf itself establishes `v:Memory`, e.g. `NodeByLabelScan
   v:Memory`). A relationship leaf needs one anchored endpoint: relationships never cross
   namespaces (every writer links two nodes matched in the same namespace).
3. No expression holds a subquery (`EXISTS`/`COUNT`/`COLLECT { … }`): inside a CASE or a list
   comprehension Neo4j plans it as a nested plan that appears only as text in `Details`, with no
   operators to inspect.

Why the anchoring is sound: a seek and a scan+filter carry the same semantic predicate
`v.namespace = $namespace`; the planner picks one by statistics (an empty database plans label
scans, a loaded one seeks), so the plan that runs later means the same as the one inspected. Nodes
reached by expansion start from anchored nodes and stay in the namespace by the invariant above.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

MEMORY_LABEL = "Memory"

# Procedures an analyst may call: names of the schema every tenant shares; none returns nodes.
PROCEDURE_ALLOW_LIST = frozenset({"db.labels", "db.relationshipTypes", "db.propertyKeys"})

# Operator name prefixes of writes, schema and administration commands, SHOW/TERMINATE, LOAD CSV and
# (transactional) FOREACH. `query_type == "r"` and the READ session refuse writes as well.
_REFUSED_PREFIXES = (
    "Create", "Merge", "LockingMerge", "Set", "Remove", "Delete", "DetachDelete", "Foreach",
    "SubqueryForeach", "TransactionForeach", "TransactionApply", "LoadCSV", "Show", "Terminate", "Drop",
    "Alter", "Rename", "Grant", "Deny", "Revoke", "Start", "Stop", "Enable", "Assert", "DoNothingIf",
    "EnsureNodeExists", "EnsureValid", "SystemProcedureCall", "Lock", "Administration", "WaitFor", "Log",
)  # fmt: skip

# Leaves that read no store: rows bound from outside, or rows made from expressions.
_STORELESS_LEAVES = frozenset({"Argument", "EmptyRow", "Projection", "Unwind", "Input"})
# Operators between a leaf and its Filters that keep the rows as they are.
_ROW_PRESERVING = frozenset({"CacheProperties"})
_NODE_SCANS = frozenset(
    {"NodeByLabelScan", "AllNodesScan", "UnionNodeByLabelsScan", "IntersectionNodeByLabelsScan",
     "SubtractionNodeByLabelsScan", "NodeByIdSeek", "NodeByElementIdSeek"}
)  # fmt: skip
_NODE_INDEX_LEAVES = frozenset(
    {"NodeIndexSeek", "NodeUniqueIndexSeek", "NodeIndexSeekByRange", "NodeUniqueIndexSeekByRange",
     "NodeIndexScan", "NodeIndexContainsScan", "NodeIndexEndsWithScan", "MultiNodeIndexSeek"}
)  # fmt: skip
_COUNT_STORE = frozenset({"NodeCountFromCountStore", "RelationshipCountFromCountStore"})
_RELATIONSHIP_LEAF = re.compile(r"^(?:Directed|Undirected)\w*Relationship\w*(?:Scan|Seek)\w*$")

_VAR = r"(?:`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*)"
_PARAM_NAMESPACE = r"\$`?namespace`?"
_NAMESPACE_PROPERTY = rf"(?:cache\[(?P<{{0}}>{_VAR})\.namespace\]|(?P<{{1}}>{_VAR})\.namespace)"
_NAMESPACE_CONJUNCT = re.compile(
    rf"^(?:{_NAMESPACE_PROPERTY.format('a', 'b')}\s*=\s*{_PARAM_NAMESPACE}"
    rf"|{_PARAM_NAMESPACE}\s*=\s*{_NAMESPACE_PROPERTY.format('c', 'd')})$"
)
_LABEL_CONJUNCT = re.compile(rf"^(?P<var>{_VAR}):(?P<labels>{_VAR}(?:[:&]{_VAR})*)$")
_INDEX_PART = re.compile(
    rf"^(?:(?:RANGE|TEXT|POINT|BTREE|LOOKUP)\s+INDEX|UNIQUE)\s+(?P<var>{_VAR}):(?P<label>{_VAR})"
    rf"\((?P<props>[^)]*)\)(?:\s+WHERE\s+(?P<condition>.*))?$",
    re.DOTALL,
)
_SEEK_NAMESPACE = re.compile(rf"^(?:namespace\s*=\s*{_PARAM_NAMESPACE}|{_PARAM_NAMESPACE}\s*=\s*namespace)$")
_NODE_SCAN_DETAILS = re.compile(rf"^(?P<var>{_VAR})(?::(?P<labels>\S+))?(?:\s|$)")
_RELATIONSHIP_PATTERN = re.compile(rf"\((?P<a>{_VAR})\)<?-\[[^\]]*\]->?\((?P<b>{_VAR})\)")
_PROCEDURE_NAME = re.compile(r"^\s*(?P<name>[A-Za-z_`][\w.`]*)\s*\(")
_EXPRESSION_SUBQUERY = re.compile(r"\b(?:EXISTS|COUNT|COLLECT)\s*\{", re.IGNORECASE)
_FOREIGN_CALL = re.compile(r"\b(?:apoc|dbms|gds)\s*\.", re.IGNORECASE)
_AND = re.compile(r"\s+AND\s+", re.IGNORECASE)
_COMMA = re.compile(r",\s*")


class CypherRefused(Exception):
    """The query may not run: it writes, or it could read outside the namespace. `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def check_plan(query_type: str | None, plan: Mapping[str, Any]) -> None:
    """Raise `CypherRefused` unless the plan is read-only and every leaf is tied to `$namespace`."""
    if query_type != "r":
        raise CypherRefused(f"the query is not read-only: Neo4j classifies it as {query_type!r}, not 'r'")
    _walk(plan, ())


def operator_name(plan: Mapping[str, Any]) -> str:
    """`Expand(All)@neo4j` -> `Expand`; a parallel runtime's `Partitioned…` prefix is dropped."""
    name = str(plan.get("operatorType", "")).split("@", 1)[0].split("(", 1)[0].strip()
    return name.removeprefix("Partitioned")


def conjuncts(expression: str) -> list[str]:
    """The top-level AND conjuncts of a predicate as Neo4j renders it, outer parentheses removed.
    AND inside parentheses, brackets, braces or quoted strings ('…', "…", `…`) does not split."""
    expression = _unwrap(expression.strip())
    parts = split_top_level(expression, _AND)
    if len(parts) == 1:
        return parts
    return [conjunct for part in parts for conjunct in conjuncts(part)]


def split_top_level(text: str, separator: re.Pattern[str]) -> list[str]:
    """`text` split at `separator` where it stands outside brackets and quoted strings. Unbalanced
    text is refused: the guard never guesses."""
    masked, unterminated = _masked(text)
    if unterminated:
        raise CypherRefused(f"cannot read the plan's details: unbalanced {text!r}")
    parts: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(masked):
        char = masked[i]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                raise CypherRefused(f"cannot read the plan's details: unbalanced {text!r}")
        elif depth == 0 and (match := separator.match(masked, i)) and match.end() > i:
            parts.append(text[start:i])
            i = start = match.end()
            continue
        i += 1
    if depth:
        raise CypherRefused(f"cannot read the plan's details: unbalanced {text!r}")
    parts.append(text[start:])
    return [part.strip() for part in parts]


def mask_quoted(text: str) -> str:
    """`text` with the contents of quoted strings blanked, so a literal cannot look like Cypher."""
    return _masked(text)[0]


def _masked(text: str) -> tuple[str, bool]:
    """`text` with every character inside a quoted string ('...', "...", `...`; backslash escapes
    and doubled quotes included) blanked, the quotes kept, the length unchanged; and whether a quoted
    string runs to the end. The one quote scanner of the guard: brackets and separators are then
    looked for in the masked text."""
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\" and quote != "`":
                out.append("  ")
                i += 2
                continue
            if char == quote and text[i + 1 : i + 2] != quote:
                quote = ""
                out.append(char)
            elif char == quote:
                out.append("  ")
                i += 2
                continue
            else:
                out.append(" ")
            i += 1
            continue
        if char in "'\"`":
            quote = char
        out.append(char)
        i += 1
    return "".join(out)[: len(text)], bool(quote)


def _unwrap(text: str) -> str:
    """Strip parentheses that enclose the whole expression (as many pairs as there are)."""
    while text.startswith("(") and text.endswith(")") and _closing_paren(text) == len(text) - 1:
        text = text[1:-1].strip()
    return text


def _closing_paren(text: str) -> int:
    """Index of the parenthesis closing the one at index 0 (quotes respected), or -1."""
    depth = 0
    for i, char in enumerate(mask_quoted(text)):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _name(variable: str) -> str:
    """A variable or label without its backticks."""
    if variable.startswith("`") and variable.endswith("`"):
        return variable[1:-1].replace("``", "`")
    return variable


def _details(plan: Mapping[str, Any]) -> str:
    args = plan.get("args") or {}
    return str(args.get("Details", "") or "")


def _walk(plan: Mapping[str, Any], chain: tuple[str, ...]) -> None:
    name = operator_name(plan)
    details = _details(plan)
    _check_operator(name, details)
    children: Sequence[Mapping[str, Any]] = plan.get("children") or []
    if not children:
        _check_leaf(name, details, chain)
        return
    if name == "Filter":
        below = chain + tuple(conjuncts(details))
    elif name in _ROW_PRESERVING:
        below = chain
    else:
        below = ()
    for child in children:
        _walk(child, below)


def _check_operator(name: str, details: str) -> None:
    if name.startswith(_REFUSED_PREFIXES):
        raise CypherRefused(f"operator {name} writes, changes the schema or administers the database")
    if name in _COUNT_STORE:
        raise CypherRefused(
            f"operator {name} counts every namespace (the count store); "
            "count anchored nodes instead: MATCH (m:Memory {namespace: $namespace}) RETURN count(m)"
        )
    if name == "ProcedureCall":
        match = _PROCEDURE_NAME.match(details)
        procedure = ".".join(_name(part) for part in match.group("name").split(".")) if match else details
        if procedure not in PROCEDURE_ALLOW_LIST:
            allowed = ", ".join(sorted(PROCEDURE_ALLOW_LIST))
            raise CypherRefused(f"procedure {procedure} is not on the read-only allow-list ({allowed})")
    masked = mask_quoted(details)
    if _EXPRESSION_SUBQUERY.search(masked):
        raise CypherRefused(
            f"operator {name} evaluates a subquery inside an expression (EXISTS/COUNT/COLLECT {{ … }} or a "
            "pattern comprehension), which the plan does not show as operators; "
            "write it as a CALL subquery or an OPTIONAL MATCH"
        )
    if _FOREIGN_CALL.search(masked):
        raise CypherRefused(f"operator {name} calls an apoc/dbms/gds function")


def _chain_anchors(chain: tuple[str, ...]) -> tuple[set[str], set[str]]:
    """(variables with `v.namespace = $namespace`, variables with `v:Memory`) among the conjuncts."""
    anchored: set[str] = set()
    labelled: set[str] = set()
    for conjunct in chain:
        if match := _NAMESPACE_CONJUNCT.match(conjunct):
            anchored.add(_name(next(v for v in match.group("a", "b", "c", "d") if v)))
        elif match := _LABEL_CONJUNCT.match(conjunct):
            labels = {_name(label) for label in re.split(r"[:&]", match.group("labels"))}
            if MEMORY_LABEL in labels:
                labelled.add(_name(match.group("var")))
    return anchored, labelled


def _not_tied(name: str, variable: str) -> CypherRefused:
    return CypherRefused(
        f"operator {name} on `{variable}` is not tied to $namespace "
        f"(anchor it: MATCH ({variable}:Memory {{namespace: $namespace}}))"
    )


def _check_leaf(name: str, details: str, chain: tuple[str, ...]) -> None:
    if name in _STORELESS_LEAVES or name == "ProcedureCall":  # procedures were checked above
        return
    anchored, labelled = _chain_anchors(chain)
    if name in _NODE_INDEX_LEAVES:
        variables = []
        for part in split_top_level(details, _COMMA):
            match = _INDEX_PART.match(part)
            if match is None:
                continue  # `cache[m.namespace]` and the like
            variable = _name(match.group("var"))
            variables.append(variable)
            if _name(match.group("label")) == MEMORY_LABEL:
                labelled.add(variable)
                condition = match.group("condition") or ""
                if any(_SEEK_NAMESPACE.match(c) for c in conjuncts(condition)):
                    anchored.add(variable)
        if not variables:
            raise CypherRefused(f"operator {name}: cannot read its index and condition from {details!r}")
        for variable in variables:
            if variable not in anchored or variable not in labelled:
                raise _not_tied(name, variable)
        return
    if name in _NODE_SCANS:
        match = _NODE_SCAN_DETAILS.match(details.strip())
        if match is None:
            raise CypherRefused(f"operator {name}: cannot read its variable from {details!r}")
        variable = _name(match.group("var"))
        labels = match.group("labels") or ""
        if name in {"NodeByLabelScan", "IntersectionNodeByLabelsScan"} and MEMORY_LABEL in {
            _name(label) for label in re.split(r"[:&]", labels)
        }:
            labelled.add(variable)
        if variable not in anchored or variable not in labelled:
            raise _not_tied(name, variable)
        return
    if _RELATIONSHIP_LEAF.match(name):
        match = _RELATIONSHIP_PATTERN.search(details)
        if match is None:
            raise CypherRefused(f"operator {name}: cannot read its pattern from {details!r}")
        ends = [_name(match.group("a")), _name(match.group("b"))]
        if not any(end in anchored and end in labelled for end in ends):
            raise CypherRefused(
                f"operator {name} on ({ends[0]})-[]-({ends[1]}) is not tied to $namespace: "
                "anchor one end (e.g. MATCH (a:Memory {namespace: $namespace})-[r]->(b))"
            )
        return
    raise CypherRefused(f"operator {name} reads data the guard cannot tie to $namespace")
