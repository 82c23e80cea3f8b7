"""The Cypher endpoint's plan guard, exactly, on hand-written plans shaped like Neo4j 5.26's EXPLAIN
output (the shapes were read from the real server: an empty database plans label scans + filters, one
with the schema and data plans index seeks)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.analytics.guard import (
    PROCEDURE_ALLOW_LIST,
    CypherRefused,
    check_plan,
    check_text,
    conjuncts,
    mask_quoted,
    operator_name,
    split_top_level,
)


def op(name: str, details: str = "", *children: dict[str, Any]) -> dict[str, Any]:
    return {
        "operatorType": f"{name}@neo4j",
        "args": {"Details": details},
        "identifiers": [],
        "children": list(children),
    }


def results(*children: dict[str, Any]) -> dict[str, Any]:
    return op("ProduceResults", "m", *children)


def refused(plan: dict[str, Any], query_type: str = "r") -> str:
    with pytest.raises(CypherRefused) as caught:
        check_plan(query_type, plan)
    return caught.value.reason


SEEK_NS = "RANGE INDEX m:Memory(namespace) WHERE namespace = $namespace, cache[m.namespace]"
SCAN = op("NodeByLabelScan", "m:Memory")
FILTER_NS = "m.namespace = $namespace"


# -- allowed shapes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "plan",
    [
        # a loaded database: index seeks
        results(op("NodeIndexSeek", SEEK_NS)),
        results(
            op(
                "NodeIndexSeek",
                "RANGE INDEX m:Memory(namespace, importance) WHERE namespace = $namespace "
                "AND importance = $autostring_0, cache[m.namespace], cache[m.importance]",
            )
        ),
        results(
            op(
                "NodeUniqueIndexSeek",
                "UNIQUE m:Memory(namespace, id) WHERE namespace = $namespace AND id IN "
                "$autolist_0, cache[m.namespace], cache[m.id]",
            )
        ),
        results(
            op(
                "NodeIndexSeekByRange",
                "RANGE INDEX m:Memory(namespace, activation) WHERE namespace = "
                "$namespace AND activation < $autodouble_0",
            )
        ),
        results(
            op(
                "MultiNodeIndexSeek",
                "UNIQUE a:Memory(namespace, id) WHERE namespace = $namespace AND id = "
                "$autostring_0, UNIQUE b:Memory(namespace, id) WHERE namespace = $namespace "
                "AND id = $autostring_1",
            )
        ),
        # an empty database: label scans under filters
        results(op("Filter", FILTER_NS, SCAN)),
        results(op("Filter", "m.importance = $autostring_0", op("Filter", FILTER_NS, SCAN))),
        results(op("Filter", "(m.namespace = $namespace AND m:Memory)", SCAN)),
        results(op("Filter", "$namespace = m.namespace", SCAN)),
        results(
            op("Filter", "m.id = $autostring_0", op("CacheProperties", "cache[m.id]", op("Filter", FILTER_NS, SCAN)))
        ),
        results(op("Filter", "cache[m.namespace] = $namespace", op("CacheProperties", "cache[m.namespace]", SCAN))),
        results(op("Filter", "m.namespace = $namespace AND m:Memory", op("AllNodesScan", "m"))),
        results(
            op("Filter", "m:Memory AND m.namespace = $namespace", op("NodeByIdSeek", "m WHERE id(m) = $autoint_0"))
        ),
        results(op("Filter", "`my m`.namespace = $namespace", op("NodeByLabelScan", "`my m`:Memory"))),
        results(
            op(
                "Filter",
                "m.namespace = $namespace AND m:Knowledge",
                op("IntersectionNodeByLabelsScan", "m:Memory&Knowledge"),
            )
        ),
        # a literal holding AND does not split the conjunct it belongs to
        results(op("Filter", "(m.summary = ' AND x = y ' AND m.id = $autostring_0)", op("NodeIndexSeek", SEEK_NS))),
        # relationship leaves: one anchored end is enough
        results(
            op("Filter", "m:Memory AND m.namespace = $namespace", op("DirectedAllRelationshipsScan", "(m)-[r]->(x)"))
        ),
        results(
            op(
                "Filter",
                "x:Memory AND x.namespace = $namespace",
                op("DirectedRelationshipTypeScan", "(m)-[r:ASSOCIATION]->(x)"),
            )
        ),
        results(
            op(
                "Filter",
                "m:Memory AND m.namespace = $namespace",
                op("UndirectedRelationshipTypeScan", "(m)-[r:SEMANTIC|REFERENCE]-(x)"),
            )
        ),
        # expansions, applies, products, unions over anchored leaves
        results(op("Expand(All)", "(m)-[r]->(x)", op("NodeIndexSeek", SEEK_NS))),
        results(op("VarLengthExpand(All)", "(m)-[anon_0*..3]-(n)", op("Filter", FILTER_NS, SCAN))),
        results(
            op(
                "Apply",
                "",
                op("Filter", FILTER_NS, SCAN),
                op("EagerAggregation", "count(r) AS c", op("Expand(All)", "(m)-[r]-(o)", op("Argument", "m"))),
            )
        ),
        results(
            op(
                "CartesianProduct",
                "",
                op("Filter", FILTER_NS, SCAN),
                op("Filter", "n.namespace = $namespace", op("NodeByLabelScan", "n:Memory")),
            )
        ),
        results(
            op(
                "Union",
                "",
                op("Projection", "m", op("NodeIndexSeek", SEEK_NS)),
                op("Projection", "m", op("Filter", FILTER_NS, SCAN)),
            )
        ),
        # storeless leaves and schema procedures
        op("ProduceResults", "`1`", op("Projection", "$autoint_0 AS `1`")),
        op("ProduceResults", "x", op("Unwind", "$autolist_0 AS x")),
        op("ProduceResults", "label", op("ProcedureCall", "db.labels() :: (label :: STRING)")),
        op("ProduceResults", "t", op("ProcedureCall", "db.relationshipTypes() :: (relationshipType :: STRING)")),
        # a literal that looks like a subquery is only a literal
        results(op("Projection", "'COLLECT { MATCH (x) }' AS s", op("Filter", FILTER_NS, SCAN))),
        results(op("Projection", "getDegree((m)--()) AS c", op("Filter", FILTER_NS, SCAN))),
    ],
)
def test_plans_tied_to_the_namespace_pass(plan: dict[str, Any]) -> None:
    check_plan("r", plan)


# -- refused shapes ---------------------------------------------------------------------------------


def test_a_label_scan_without_its_filter_is_refused_by_name() -> None:
    reason = refused(results(op("NodeByLabelScan", "x:Memory")))
    assert reason.startswith("operator NodeByLabelScan on `x` is not tied to $namespace")


@pytest.mark.parametrize(
    ("plan", "operator"),
    [
        (results(op("AllNodesScan", "n")), "AllNodesScan"),
        (results(op("NodeByIdSeek", "m WHERE id(m) = $autoint_0")), "NodeByIdSeek"),
        (results(op("NodeByElementIdSeek", "m WHERE elementId(m) = $autostring_0")), "NodeByElementIdSeek"),
        # another namespace, by seek and by filter
        (
            results(op("NodeIndexSeek", "RANGE INDEX m:Memory(namespace) WHERE namespace = $autostring_0")),
            "NodeIndexSeek",
        ),
        (results(op("Filter", "m.namespace = $autostring_0", SCAN)), "NodeByLabelScan"),
        # several namespaces or none
        (
            results(
                op("NodeIndexSeek", "RANGE INDEX m:Memory(namespace) WHERE namespace IN [$namespace, $autostring_0]")
            ),
            "NodeIndexSeek",
        ),
        (
            results(
                op("NodeIndexSeekByRange", "RANGE INDEX m:Memory(namespace) WHERE namespace STARTS WITH $namespace")
            ),
            "NodeIndexSeekByRange",
        ),
        (results(op("NodeIndexScan", "RANGE INDEX m:Memory(namespace) WHERE namespace IS NOT NULL")), "NodeIndexScan"),
        (results(op("Filter", "m.namespace = $namespace OR m.namespace = $autostring_0", SCAN)), "NodeByLabelScan"),
        (results(op("Filter", "(m.namespace = $namespace OR true)", SCAN)), "NodeByLabelScan"),
        (results(op("Filter", "m.namespace IN [$namespace, $autostring_0]", SCAN)), "NodeByLabelScan"),
        (results(op("Filter", "NOT m.namespace = $namespace", SCAN)), "NodeByLabelScan"),
        # the quoted-string trick: the AND is inside a literal, so there is no namespace conjunct
        (results(op("Filter", 'm.summary = " AND m.namespace = $namespace "', SCAN)), "NodeByLabelScan"),
        (results(op("Filter", "m.summary = ' AND m.namespace = $namespace AND '", SCAN)), "NodeByLabelScan"),
        (results(op("Filter", "m.summary = ` AND m.namespace = $namespace `", SCAN)), "NodeByLabelScan"),
        # the namespace of another variable, or a node that is not a memory
        (results(op("Filter", "n.namespace = $namespace", SCAN)), "NodeByLabelScan"),
        (results(op("Filter", "n.namespace = $namespace", op("NodeByLabelScan", "n:Namespace"))), "NodeByLabelScan"),
        (results(op("Filter", "m.namespace = $namespace", op("NodeByLabelScan", "m:Knowledge"))), "NodeByLabelScan"),
        (results(op("Filter", FILTER_NS, op("UnionNodeByLabelsScan", "m:Memory|Namespace"))), "UnionNodeByLabelsScan"),
        (results(op("Filter", FILTER_NS, op("AllNodesScan", "m"))), "AllNodesScan"),
        # the filter must sit directly above the leaf (only row-preserving operators between)
        (
            results(op("Filter", FILTER_NS, op("Expand(All)", "(m)-[r]->(x)", op("NodeByLabelScan", "x:Memory")))),
            "NodeByLabelScan",
        ),
        (results(op("Filter", FILTER_NS, op("Limit", "1", SCAN))), "NodeByLabelScan"),
        # relationship leaves without an anchored end
        (results(op("DirectedAllRelationshipsScan", "(anon_0)-[r]->(anon_1)")), "DirectedAllRelationshipsScan"),
        (
            results(op("Filter", "m.namespace = $namespace", op("DirectedRelationshipTypeScan", "(m)-[r:T]->(x)"))),
            "DirectedRelationshipTypeScan",
        ),
        (
            results(op("DirectedRelationshipByIdSeek", "(a)-[r]->(b) WHERE id(r) = $autoint_0")),
            "DirectedRelationshipByIdSeek",
        ),
        # one anchored branch does not anchor the others
        (results(op("Union", "", op("NodeIndexSeek", SEEK_NS), op("NodeByLabelScan", "m:Memory"))), "NodeByLabelScan"),
        (
            results(
                op("Apply", "", op("NodeIndexSeek", SEEK_NS), op("Optional", "m", op("NodeByLabelScan", "n:Memory")))
            ),
            "NodeByLabelScan",
        ),
        (results(op("CartesianProduct", "", op("NodeIndexSeek", SEEK_NS), op("AllNodesScan", "n"))), "AllNodesScan"),
        (
            results(
                op(
                    "MultiNodeIndexSeek",
                    "UNIQUE a:Memory(namespace, id) WHERE namespace = $namespace AND id = $x, "
                    "UNIQUE b:Memory(namespace, id) WHERE namespace = $y AND id = $z",
                )
            ),
            "MultiNodeIndexSeek",
        ),
        (
            results(
                op(
                    "SelectOrSemiApply",
                    "m.id = $x",
                    op("NodeIndexSeek", SEEK_NS),
                    op("Filter", "y.namespace = $autostring_1", op("NodeByLabelScan", "y:Memory")),
                )
            ),
            "NodeByLabelScan",
        ),
    ],
)
def test_reads_not_tied_to_the_namespace_are_refused(plan: dict[str, Any], operator: str) -> None:
    assert f"operator {operator}" in refused(plan)


@pytest.mark.parametrize(
    "name",
    ["Create", "Merge", "SetProperty", "SetLabels", "RemoveLabels", "Delete", "DetachDelete", "Foreach",
     "SubqueryForeach", "TransactionForeach", "TransactionApply", "LoadCSV", "CreateIndex", "DropConstraint",
     "ShowIndexes", "ShowTransactions", "TerminateTransactions", "CreateUser", "LockingMerge"],
)  # fmt: skip
def test_writing_schema_admin_show_load_and_foreach_operators_are_refused(name: str) -> None:
    reason = refused(results(op(name, "x", op("NodeIndexSeek", SEEK_NS))))
    assert reason == f"operator {name} writes, changes the schema or administers the database"
    # even as a leaf
    assert refused(op("ProduceResults", "", op(name, "x"))).startswith(f"operator {name} ")


@pytest.mark.parametrize("query_type", ["rw", "w", "s", None])
def test_only_read_only_query_types_pass(query_type: str | None) -> None:
    assert "not read-only" in refused(results(op("NodeIndexSeek", SEEK_NS)), query_type)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "details",
    [
        "db.createLabel($autostring_0) :: ()",
        "db.index.fulltext.queryNodes($autostring_0, $autostring_1) :: (node :: NODE, score :: FLOAT)",
        "dbms.components() :: (name :: STRING, versions :: LIST<STRING>, edition :: STRING)",
        "apoc.meta.graph() :: (nodes :: LIST<NODE>)",
        "db.schema.visualization() :: (nodes :: LIST<NODE>, relationships :: LIST<RELATIONSHIP>)",
    ],
)
def test_procedures_off_the_allow_list_are_refused_wherever_they_are(details: str) -> None:
    name = details.split("(", 1)[0]
    assert refused(op("ProduceResults", "", op("ProcedureCall", details))).startswith(f"procedure {name} is not on")
    assert refused(results(op("ProcedureCall", details, op("NodeIndexSeek", SEEK_NS)))).startswith(f"procedure {name}")


def test_the_allow_list_holds_only_schema_names() -> None:
    assert {"db.labels", "db.relationshipTypes", "db.propertyKeys"} == PROCEDURE_ALLOW_LIST


@pytest.mark.parametrize("name", ["NodeCountFromCountStore", "RelationshipCountFromCountStore"])
def test_count_store_reads_are_refused(name: str) -> None:
    assert refused(op("ProduceResults", "c", op(name, "count( (:Memory) ) AS c"))).startswith(f"operator {name} counts")


@pytest.mark.parametrize(
    "details",
    [
        "CASE WHEN m.id = $autostring_0 THEN COLLECT { MATCH (x) WHERE x:Memory RETURN x.id AS `x.id` } "
        "ELSE $autolist_1 END AS ids",
        "[x IN $autolist_0 | COUNT { MATCH (y) WHERE y:Memory AND y.n IN [x] }] AS c",
        "CASE WHEN m.id = $x THEN EXISTS { MATCH (y) WHERE y.namespace IN [$`autostring_1`] } ELSE false END AS e",
    ],
)
def test_subqueries_nested_in_expressions_are_refused(details: str) -> None:
    reason = refused(results(op("Projection", details, op("NodeIndexSeek", SEEK_NS))))
    assert "subquery inside an expression" in reason


def test_apoc_functions_are_refused() -> None:
    reason = refused(results(op("Projection", "apoc.cypher.runFirstColumnSingle($q, {}) AS x",
                                op("NodeIndexSeek", SEEK_NS))))  # fmt: skip
    assert "apoc" in reason


def test_details_that_cannot_be_read_are_refused() -> None:
    assert "cannot read" in refused(results(op("Filter", "(m.namespace = $namespace", SCAN)))
    assert "cannot read" in refused(results(op("NodeIndexSeek", "something new")))
    assert "cannot read" in refused(results(op("DirectedAllRelationshipsScan", "r")))


def test_unknown_leaves_are_refused() -> None:
    assert refused(op("ProduceResults", "", op("SomeFutureScan", "m"))).startswith("operator SomeFutureScan reads")


# -- the pieces -------------------------------------------------------------------------------------


def test_conjuncts_split_only_top_level_ands() -> None:
    assert conjuncts("(m.namespace = $namespace AND m.importance = $x)") == [
        "m.namespace = $namespace",
        "m.importance = $x",
    ]
    assert conjuncts("((a AND b)) AND (c OR (d AND e)) and f") == ["a", "b", "c OR (d AND e)", "f"]
    assert conjuncts("m.s = ' AND m.namespace = $namespace ' AND x") == ["m.s = ' AND m.namespace = $namespace '", "x"]
    assert conjuncts('m.s = "it\\"s AND" AND x') == ['m.s = "it\\"s AND"', "x"]
    assert conjuncts("`a AND b`.namespace = $namespace") == ["`a AND b`.namespace = $namespace"]
    assert conjuncts("m.x IN [1 AND 2] AND m.y = {k: a AND b}") == ["m.x IN [1 AND 2]", "m.y = {k: a AND b}"]
    assert conjuncts("(a) AND (b)") == ["a", "b"]
    assert conjuncts("m.bandwidth = $operand") == ["m.bandwidth = $operand"]


def test_split_top_level_refuses_unbalanced_text() -> None:
    for text in ("(a AND b", "a) AND (b", "'a AND b", "[a"):
        with pytest.raises(CypherRefused):
            split_top_level(text, re.compile(r"\s+AND\s+"))


def test_mask_quoted_blanks_literals_only() -> None:
    assert mask_quoted("x = 'COLLECT {' AND y") == "x = '         ' AND y"
    assert mask_quoted('a "b\\"c" d') == 'a "    " d'


def test_operator_names_lose_their_planner_and_variant() -> None:
    assert operator_name({"operatorType": "Expand(All)@neo4j"}) == "Expand"
    assert operator_name({"operatorType": "PartitionedNodeByLabelScan@neo4j"}) == "NodeByLabelScan"
    assert operator_name({"operatorType": "ProduceResults"}) == "ProduceResults"


# -- no predicate but the namespace anchor on other namespaces' nodes (issue 37) --------------------

PROBE_CASE = (
    "CASE\n  WHEN m.content CONTAINS $probe THEN size([x IN $autolist_0 | x])\n  ELSE $autoint_2\nEND >= $autoint_3"
)


@pytest.mark.parametrize(
    ("plan", "conjunct"),
    [
        # the probe of issue 37: one Filter holds the anchor and the expensive CASE (order is Neo4j's)
        (results(op("Filter", f"m.namespace = $namespace AND {PROBE_CASE}", SCAN)), "CASE"),
        (results(op("Filter", f"{PROBE_CASE} AND m.namespace = $namespace", SCAN)), "CASE"),
        # the error channel: a division by zero on the other namespace's rows
        (
            results(
                op(
                    "Filter",
                    "m.namespace = $namespace AND CASE WHEN m.content CONTAINS $p THEN 1 / 0 ELSE 1 END = $autoint_0",
                    SCAN,
                )
            ),
            "CASE",
        ),  # fmt: skip
        # a Filter below the anchoring one runs first
        (results(op("Filter", FILTER_NS, op("Filter", "m.content CONTAINS $probe", SCAN))), "m.content CONTAINS"),
        (
            results(
                op(
                    "Filter",
                    FILTER_NS,
                    op("CacheProperties", "cache[m.content]", op("Filter", "m.content CONTAINS $probe", SCAN)),
                )
            ),
            "m.content CONTAINS",
        ),  # fmt: skip
        (results(op("Filter", "m.namespace = $namespace AND m.importance = $autostring_0", SCAN)), "importance"),
        (
            results(
                op(
                    "Filter",
                    "m:Memory AND m.namespace = $namespace AND size(r.note) > $autoint_0",
                    op("DirectedAllRelationshipsScan", "(m)-[r]->(x)"),
                )
            ),
            "size(r.note)",
        ),  # fmt: skip
        (
            results(
                op(
                    "Filter",
                    "m.namespace = $namespace AND m:Memory AND m.id = $x",
                    op("NodeByIdSeek", "m WHERE id(m) = $autoint_0"),
                )
            ),
            "m.id = $x",
        ),  # fmt: skip
    ],
)
def test_predicates_before_the_namespace_narrows_the_rows_are_refused(plan: dict[str, Any], conjunct: str) -> None:
    reason = refused(plan)
    assert reason.startswith("a Filter evaluates") and conjunct in reason
    assert "other namespaces' nodes" in reason


def test_an_index_evaluating_a_probe_on_every_namespace_is_refused() -> None:
    reason = refused(
        results(
            op(
                "Filter",
                FILTER_NS,
                op("NodeIndexContainsScan", "TEXT INDEX m:Memory(content) WHERE content CONTAINS $probe"),
            )
        )
    )
    assert "every namespace's index entries" in reason
    assert "USING INDEX m:Memory(namespace)" in reason  # the way out it names is one the guard allows


def test_anchored_rows_may_be_filtered_by_anything() -> None:
    check_plan("r", results(op("Filter", f"m:Memory AND {PROBE_CASE}", op("NodeIndexSeek", SEEK_NS))))
    check_plan("r", results(op("Filter", PROBE_CASE, op("Filter", "m.namespace = $namespace AND m:Memory", SCAN))))


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (m:Memory) USING SCAN m:Memory WHERE m.namespace = $namespace RETURN m",
        "MATCH (m:Memory) using  index m:Memory(importance) WHERE m.namespace = $namespace RETURN m",
        "MATCH (m:Memory {namespace: $namespace})-->(x) USING JOIN ON x RETURN x",
        "MATCH (m:Memory) USING TEXT INDEX m:Memory(content) WHERE m.namespace = $namespace RETURN m",
        "MATCH (m:Memory)\nUSING\tRANGE INDEX m:Knowledge(namespace) WHERE m.namespace = $namespace RETURN m",
        "MATCH (m:Memory {namespace: $namespace}) USING INDEX m:Memory(namespace) USING SCAN m:Memory RETURN m",
    ],
)
def test_planner_hints_are_refused(query: str) -> None:
    with pytest.raises(CypherRefused, match="planner hints"):
        check_text(query)


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (m:Memory {namespace: $namespace}) USING INDEX m:Memory(namespace) RETURN m",
        "MATCH (m:Memory)\nusing  range index SEEK m:Memory( namespace ) WHERE m.namespace = $namespace RETURN m",
    ],
)
def test_the_namespace_index_hint_is_allowed(query: str) -> None:
    """It can only make Neo4j seek the namespace first (the catalogue's queries use it: without it the
    planner may start from a scan by its statistics, which the plan check refuses)."""
    check_text(query)


def test_a_hint_inside_a_literal_is_only_a_literal() -> None:
    check_text("MATCH (m:Memory {namespace: $namespace}) WHERE m.content = 'USING SCAN m:Memory' RETURN m")


@pytest.mark.parametrize(
    ("details", "operator"),
    [
        ("range($autoint_0, $autoint_1) AS big", "Projection"),
        ("[i IN range($autoint_2, $autoint_3) | toString(i)] AS l", "Projection"),
        ("[x IN range($autoint_0, $autoint_1) | x] AS i", "Unwind"),
        ("reduce(s = toString(i), j IN $autolist_0 | s + s) AS v", "Projection"),
        ("reduce(`s` = $autostring_0, j IN $autolist_0 | `s` + `s`) AS v", "Projection"),
        ("size(reduce(acc = [], j IN $autolist_0 | acc + acc + [j])) AS n", "Projection"),
    ],
)
def test_values_the_endpoint_cannot_bound_are_refused(details: str, operator: str) -> None:
    reason = refused(results(op(operator, details, op("NodeIndexSeek", SEEK_NS))))
    assert "range()" in reason or "accumulator" in reason


@pytest.mark.parametrize(
    ("details", "operator"),
    [
        ("range($autoint_0, $autoint_1) AS i", "Unwind"),
        ("reduce(w = $autodouble_0, r IN relationships(p) | w * r.weight) AS strength", "Projection"),
        ("reduce(s = $autostring_0, x IN $autolist_1 | s + x) AS joined", "Projection"),
        ("m.note + m.note AS twice", "Projection"),
    ],
)
def test_bounded_values_pass(details: str, operator: str) -> None:
    check_plan("r", results(op(operator, details, op("NodeIndexSeek", SEEK_NS))))
