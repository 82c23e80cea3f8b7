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
4. No predicate other than the namespace anchor is evaluated on another namespace's nodes: between a
   leaf that reads beyond the namespace (a label, relationship or id scan; an index scan whose own
   condition is not the anchor) and the first Filter that anchors it, every Filter holds only
   namespace anchors and label tests. Neo4j may evaluate a Filter's conjuncts in any order, so the
   anchoring Filter itself must hold nothing else. Otherwise the cost or the error of a predicate
   (a CASE with an expensive branch, a division by zero) on other tenants' nodes would show in the
   answer's time or status: a side channel. An index leaf must anchor through its own condition or
   be a bare scan (`IS NOT NULL`): an index that evaluates `CONTAINS $probe` on every tenant's
   entries leaks the same way.
5. No expression builds a value the endpoint cannot bound (Neo4j's transaction memory limit tracks
   operators' buffers, not values built inside one expression): `range()` only as the list an
   UNWIND streams, never materialized; no `reduce()` whose step uses its accumulator twice (each
   step can double it: 24 steps make 16 M characters).

`check_text` refuses planner hints (`USING SCAN`, `USING INDEX`, `USING JOIN`): a hint can force a
scan+filter plan on any database, and the plan would not show that it was forced.

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
_HINT = re.compile(r"\bUSING\s+(?:SCAN|JOIN|(?:(?:RANGE|TEXT|POINT|BTREE)\s+)?INDEX)\b", re.IGNORECASE)
# The one hint allowed: seek a node by the namespace index (`USING INDEX m:Memory(namespace)`). It can
# only put the anchor first; without it the planner may start from a label or relationship scan by
# its statistics, which rule 4 then refuses although the query is anchored.
_NAMESPACE_HINT = re.compile(
    rf"\bUSING\s+(?:RANGE\s+)?INDEX\s+(?:SEEK\s+)?{_VAR}\s*:\s*Memory\s*\(\s*namespace\s*\)",
    re.IGNORECASE,
)
_RANGE_CALL = re.compile(r"\brange\s*\(", re.IGNORECASE)
_UNWIND_RANGE = re.compile(r"^\s*range\s*\([^\[\]]*\)\s+AS\s+\S+\s*$", re.IGNORECASE | re.DOTALL)
_REDUCE = re.compile(rf"\breduce\s*\(\s*(?P<acc>{_VAR})\s*=", re.IGNORECASE)
_IS_NOT_NULL = re.compile(rf"^(?:{_VAR}\.)?{_VAR}\s+IS\s+NOT\s+NULL$", re.IGNORECASE)
_COMMA = re.compile(r",\s*")
_PIPE = re.compile(r"\|")


class CypherRefused(Exception):
    """The query may not run: it writes, or it could read outside the namespace. `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def check_text(query: str) -> None:
    """Raise `CypherRefused` when the query text holds a planner hint (outside string literals) other
    than the namespace index seek (`USING INDEX m:Memory(namespace)`)."""
    if match := _HINT.search(_NAMESPACE_HINT.sub(" ", mask_quoted(query))):
        raise CypherRefused(
            f"planner hints ({match.group(0)}) are refused: they can make Neo4j evaluate predicates on "
            "other namespaces' nodes; the one allowed is USING INDEX m:Memory(namespace), which seeks "
            "the namespace first"
        )


def check_plan(query_type: str | None, plan: Mapping[str, Any]) -> None:
    """Raise `CypherRefused` unless the plan is read-only, every leaf is tied to `$namespace` before
    any other predicate runs on its rows, and no expression builds an unbounded value."""
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


# The Filters directly above a leaf, topmost first, each as its top-level conjuncts.
Chain = tuple[tuple[str, ...], ...]


def _walk(plan: Mapping[str, Any], chain: Chain) -> None:
    name = operator_name(plan)
    details = _details(plan)
    _check_operator(name, details)
    children: Sequence[Mapping[str, Any]] = plan.get("children") or []
    if not children:
        _check_leaf(name, details, chain)
        return
    if name == "Filter":
        below = (*chain, tuple(conjuncts(details)))
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
    _check_bounded(name, details, masked)


def _check_bounded(name: str, details: str, masked: str) -> None:
    """Rule 5: no value built inside one expression that could outgrow the heap."""
    if _RANGE_CALL.search(masked) and not (name == "Unwind" and _UNWIND_RANGE.match(masked)):
        raise CypherRefused(
            f"operator {name} builds a list with range() in memory, which the endpoint cannot bound; "
            "range() is allowed only as what UNWIND streams (UNWIND range(1, 10) AS i)"
        )
    for match in _REDUCE.finditer(masked):
        accumulator = _name(match.group("acc"))
        opening = masked.index("(", match.start())
        closing = _closing_paren(details[opening:])
        inner = details[opening + 1 : opening + closing] if closing > 0 else details[opening + 1 :]
        step = mask_quoted(split_top_level(inner, _PIPE)[-1])
        uses = re.findall(rf"(?<![\w`.$]){re.escape(accumulator)}(?![\w`])|`{re.escape(accumulator)}`", step)
        if len(uses) > 1:
            raise CypherRefused(
                f"operator {name}: reduce() uses its accumulator `{accumulator}` twice in a step, so each step can "
                "double it (an unbounded value the endpoint cannot limit); use it once per step"
            )


def _chain_anchors(chain: Chain) -> tuple[set[str], set[str]]:
    """(variables with `v.namespace = $namespace`, variables with `v:Memory`) among the conjuncts."""
    anchored: set[str] = set()
    labelled: set[str] = set()
    for conjunct in (conjunct for conjuncts_ in chain for conjunct in conjuncts_):
        if variable := _anchor_variable(conjunct):
            anchored.add(variable)
        elif match := _LABEL_CONJUNCT.match(conjunct):
            labels = {_name(label) for label in re.split(r"[:&]", match.group("labels"))}
            if MEMORY_LABEL in labels:
                labelled.add(_name(match.group("var")))
    return anchored, labelled


def _anchor_variable(conjunct: str) -> str | None:
    """`v` of a conjunct `v.namespace = $namespace` (either side, cached or not), else None."""
    if match := _NAMESPACE_CONJUNCT.match(conjunct):
        return _name(next(v for v in match.group("a", "b", "c", "d") if v))
    return None


def _check_narrowing(name: str, chain: Chain, variables: Sequence[str]) -> None:
    """Rule 4: from the leaf up to the Filter that anchors one of `variables` (included), every
    Filter holds only namespace anchors and label tests."""
    for filter_ in reversed(chain):  # the Filter nearest the leaf first
        for conjunct in filter_:
            if _anchor_variable(conjunct) is None and not _LABEL_CONJUNCT.match(conjunct):
                raise CypherRefused(
                    f"a Filter evaluates `{conjunct}` on the rows of {name} before they are narrowed to "
                    "$namespace, i.e. on other namespaces' nodes (its time or error would tell about them); "
                    "anchor the pattern and make Neo4j seek the namespace first: (m:Memory {namespace: "
                    "$namespace}) with USING INDEX m:Memory(namespace)"
                )
        if any(_anchor_variable(conjunct) in variables for conjunct in filter_):
            return


def _not_tied(name: str, variable: str) -> CypherRefused:
    return CypherRefused(
        f"operator {name} on `{variable}` is not tied to $namespace "
        f"(anchor it: MATCH ({variable}:Memory {{namespace: $namespace}}))"
    )


def _check_leaf(name: str, details: str, chain: Chain) -> None:
    if name in _STORELESS_LEAVES or name == "ProcedureCall":  # procedures were checked above
        return
    anchored, labelled = _chain_anchors(chain)
    if name in _NODE_INDEX_LEAVES:
        variables: list[str] = []
        seeks: set[str] = set()  # variables the index itself narrows to the namespace
        for part in split_top_level(details, _COMMA):
            match = _INDEX_PART.match(part)
            if match is None:
                continue  # `cache[m.namespace]` and the like
            variable = _name(match.group("var"))
            variables.append(variable)
            condition = conjuncts(match.group("condition") or "")
            if _name(match.group("label")) == MEMORY_LABEL:
                labelled.add(variable)
                if any(_SEEK_NAMESPACE.match(c) for c in condition):
                    anchored.add(variable)
                    seeks.add(variable)
            if variable not in seeks and any(c and not _IS_NOT_NULL.match(c) for c in condition):
                raise CypherRefused(
                    f"operator {name} evaluates `{match.group('condition')}` on every namespace's index "
                    "entries (its time would tell about other namespaces); anchor the pattern so Neo4j "
                    "seeks the namespace first: MATCH (m:Memory {namespace: $namespace}) USING INDEX "
                    "m:Memory(namespace) WHERE … (the hint keeps the planner on the namespace index)"
                )
        if not variables:
            raise CypherRefused(f"operator {name}: cannot read its index and condition from {details!r}")
        for variable in variables:
            if variable not in anchored or variable not in labelled:
                raise _not_tied(name, variable)
        if unnarrowed := [variable for variable in variables if variable not in seeks]:
            _check_narrowing(name, chain, unnarrowed)
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
        _check_narrowing(name, chain, [variable])
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
        _check_narrowing(name, chain, ends)
        return
    raise CypherRefused(f"operator {name} reads data the guard cannot tie to $namespace")
