"""Every graph call supplies exactly the parameters its named query reads (a static check).

A query of cypher/*.cypher reads `$name` parameters; a call `graph.read("file.query", a=..., b=...)`
(or `write`, `run`, `run_batched`, or `tx.run` inside a transaction) names them. A parameter the
query reads and the call does not pass fails only at run time, on the path that runs it; one the call
passes and the query does not read is a drift that hides a mistake (a scope the query no longer
applies). This test reads the source, not the running code, so it covers paths no other test runs.

What it resolves: the query name as a literal, an f-string over query names
(`f"recall.related_{depth}"`), or a variable that is a parameter of the enclosing function, given
literals by that function's callers in the same module; `**splat` arguments that are a dict literal
assigned in the enclosing function, or a call to a function of the tree returning a dict literal.
Anything else fails with a request to make the call checkable.

The typed query classes (app/stores/queries/: one per cypher file) are checked the same way (their
methods call `self._read/_write/_batched("file.query", ...)`), and against their files: every query
has a method of its name, whose keyword-only parameters are exactly the query's, calling that query.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.stores.cypher import CypherQueries
from app.stores.queries.runner import Queries

REPO = Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("app", "jobs", "scripts")
GRAPH_METHODS = {"read", "write", "run", "run_batched", "_read", "_write", "_batched"}
NOT_PARAMETERS = {"timeout_s"}  # keyword arguments of GraphStore.read itself
_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
QUERIES = CypherQueries.load()


def query_parameters(text: str) -> set[str]:
    """The `$name` parameters a query reads; comment lines (which document them) are not read."""
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    return set(_PARAMETER.findall(code))


@dataclass(frozen=True)
class GraphCall:
    where: str
    queries: tuple[str, ...]
    supplied: frozenset[str]


class _Module:
    def __init__(self, tree: ast.Module, label: str, functions_returning_dicts: dict[str, set[str]]) -> None:
        self.label = label
        self.tree = tree
        self.dict_functions = functions_returning_dicts
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node

    def enclosing_function(self, node: ast.AST) -> ast.FunctionDef | None:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef):
                return node
        return None

    def calls(self) -> Iterator[GraphCall]:
        for node in ast.walk(self.tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in GRAPH_METHODS or not node.args:
                continue
            where = f"{self.label}:{node.lineno}"
            queries = self.query_names(node.args[0], node)
            if queries is None:  # not a graph call (a file, a subprocess, a session of the driver)
                continue
            yield GraphCall(where, queries, frozenset(self.supplied(node, where)))

    def query_names(self, argument: ast.expr, call: ast.Call) -> tuple[str, ...] | None:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            return (argument.value,) if argument.value in QUERIES.names() else None
        if isinstance(argument, ast.JoinedStr):
            pattern = "".join(
                re.escape(part.value) if isinstance(part, ast.Constant) else ".+" for part in argument.values
            )
            found = tuple(name for name in QUERIES.names() if re.fullmatch(pattern, name))
            return found or None
        if isinstance(argument, ast.Name):
            assigned = self.assigned_value(argument.id, call)
            if assigned is not None:
                return self.query_names(assigned, call)
            return self.names_given_by_callers(argument.id, call)
        return None

    def assigned_value(self, variable: str, at: ast.AST) -> ast.expr | None:
        """The value `variable` is assigned in the function around `at`, or in one enclosing that."""
        scope: ast.AST | None = self.enclosing_function(at)
        while scope is not None:
            for node in ast.walk(scope):
                if isinstance(node, ast.Assign) and any(
                    isinstance(target, ast.Name) and target.id == variable for target in node.targets
                ):
                    return node.value
            scope = self.enclosing_function(scope)
        return None

    def names_given_by_callers(self, variable: str, call: ast.Call) -> tuple[str, ...] | None:
        """Literals the enclosing function's callers in this module pass as its parameter `variable`."""
        function = self.enclosing_function(call)
        if function is None:
            return None
        parameters = [arg.arg for arg in function.args.args]
        if variable not in parameters:
            return None
        index = parameters.index(variable)
        names: list[str] = []
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Call):
                continue
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if called != function.name:
                continue
            position = index - 1 if isinstance(node.func, ast.Attribute) and parameters[0] == "self" else index
            given = [kw.value for kw in node.keywords if kw.arg == variable]
            if position < len(node.args):
                given.append(node.args[position])
            names += [
                value.value for value in given if isinstance(value, ast.Constant) and value.value in QUERIES.names()
            ]
        return tuple(dict.fromkeys(names)) or None

    def supplied(self, call: ast.Call, where: str) -> set[str]:
        names = {kw.arg for kw in call.keywords if kw.arg is not None} - NOT_PARAMETERS
        for splat in (kw.value for kw in call.keywords if kw.arg is None):
            keys = self.splat_keys(splat, call)
            assert keys is not None, f"{where}: `**{ast.unparse(splat)}` cannot be checked; pass keyword arguments"
            names |= keys
        return names

    def splat_keys(self, splat: ast.expr, call: ast.Call) -> set[str] | None:
        if isinstance(splat, ast.Call):
            called = splat.func.attr if isinstance(splat.func, ast.Attribute) else getattr(splat.func, "id", None)
            return self.dict_functions.get(called or "")
        if isinstance(splat, ast.Name):
            assigned = self.assigned_value(splat.id, call)
            return _dict_literal_keys(assigned) if assigned is not None else None
        return None


def _dict_literal_keys(value: ast.expr) -> set[str] | None:
    if isinstance(value, ast.Dict) and all(isinstance(key, ast.Constant) for key in value.keys):
        return {key.value for key in value.keys if isinstance(key, ast.Constant)}
    return None


def _functions_returning_dicts(trees: Iterable[ast.Module]) -> dict[str, set[str]]:
    """Functions whose body ends in `return {literal keys...}` (e.g. `seen_by`), by name."""
    found: dict[str, set[str]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.body and isinstance(node.body[-1], ast.Return):
                keys = _dict_literal_keys(node.body[-1].value) if node.body[-1].value is not None else None
                if keys is not None:
                    found[node.name] = keys
    return found


def graph_calls() -> list[GraphCall]:
    paths = sorted(path for folder in SOURCE_DIRS for path in (REPO / folder).rglob("*.py"))
    # Parsed once (every pytest-xdist worker collects this file: ~1.4 CPU-s each when parsed twice).
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in paths}
    dict_functions = _functions_returning_dicts(trees.values())
    return [
        call
        for path, tree in trees.items()
        for call in _Module(tree, str(path.relative_to(REPO)), dict_functions).calls()
    ]


CALLS = graph_calls()


def test_the_source_has_graph_calls_to_check() -> None:
    """The scan finds the calls (a broken scan would pass every check below vacuously)."""
    assert len(CALLS) >= 80
    assert {"recall.related_1", "recall.related_2"} <= {name for call in CALLS for name in call.queries}


@pytest.mark.parametrize("call", CALLS, ids=lambda call: call.where)
def test_a_graph_call_supplies_exactly_its_query_parameters(call: GraphCall) -> None:
    for name in call.queries:
        wanted = query_parameters(QUERIES[name])
        assert call.supplied == wanted, (
            f"{call.where} runs {name}: missing {sorted(wanted - call.supplied)}, "
            f"not read by the query {sorted(call.supplied - wanted)}"
        )


def test_the_check_reads_parameters_not_comments_or_dynamic_labels() -> None:
    text = "// $documented: only a comment\nMATCH (m:Memory {namespace: $namespace})\nCREATE (n:$(row.type))\nRETURN $x"
    assert query_parameters(text) == {"namespace", "x"}


def test_the_check_finds_a_drift() -> None:
    """A call missing a parameter and passing one the query does not read is reported."""
    module = _Module(ast.parse('def f(graph):\n    graph.read("namespace.get", namespce="x")\n'), "drift.py", {})
    [call] = list(module.calls())
    assert call.where == "drift.py:2" and call.queries == ("namespace.get",)
    assert call.supplied == {"namespce"} != query_parameters(QUERIES["namespace.get"])


# Files whose queries GraphStore runs itself (apply_schema; ping, server_version): no class.
WITHOUT_CLASS = {"schema", "health"}
FILES = sorted({name.split(".", 1)[0] for name in QUERIES.names()} - WITHOUT_CLASS)


def method_queries(method: object) -> list[str]:
    """The query names a method's body runs (`self._read("file.query", ...)` and the like)."""
    tree = ast.parse(inspect.getsource(method).strip())  # type: ignore[arg-type]
    return [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"_read", "_write", "_batched"}
        and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
    ]  # fmt: skip


def query_classes() -> dict[str, type[Queries]]:
    """The classes of app/stores/queries/ by the cypher file whose queries their methods run (each
    module holds one; a class running two files' queries, or two classes for one file, fail)."""
    found: dict[str, type[Queries]] = {}
    for path in sorted((REPO / "app" / "stores" / "queries").glob("*_queries.py")):
        module = importlib.import_module(f"app.stores.queries.{path.stem}")
        [cls] = [
            value for value in vars(module).values()
            if inspect.isclass(value) and issubclass(value, Queries) and value.__module__ == module.__name__
        ]  # fmt: skip
        [stem] = {name.split(".", 1)[0] for member in vars(cls).values() if inspect.isfunction(member)
                  for name in method_queries(member)}  # fmt: skip
        assert stem not in found, f"{cls.__name__} and {found[stem].__name__} both run cypher/{stem}.cypher"
        found[stem] = cls
    return found


CLASSES = query_classes()


def test_every_cypher_file_has_a_class() -> None:
    assert sorted(CLASSES) == FILES


@pytest.mark.parametrize("stem", FILES)
def test_every_query_has_a_typed_method_with_exactly_its_parameters(stem: str) -> None:
    cls = CLASSES[stem]
    methods = {name.rstrip("_"): member for name, member in vars(cls).items() if inspect.isfunction(member)}
    for full_name in QUERIES.names(f"{stem}."):
        query = full_name.split(".", 1)[1]
        assert query in methods, f"{cls.__name__} has no method for {full_name}"
        method = methods[query]
        parameters = inspect.signature(method).parameters.values()
        keyword_only = {p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY}
        others = [p.name for p in parameters if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        assert others == ["self"], f"{cls.__name__}.{query}: parameters must be keyword-only"
        assert keyword_only == query_parameters(QUERIES[full_name]), f"{cls.__name__}.{query} drifted from {full_name}"
        assert method_queries(method) == [full_name], f"{cls.__name__}.{query} must run {full_name}"
    extra = set(methods) - {name.split(".", 1)[1] for name in QUERIES.names(f"{stem}.")}
    assert not extra, f"{cls.__name__} has methods for no query of cypher/{stem}.cypher: {sorted(extra)}"


def test_the_typed_check_finds_a_drift() -> None:
    """A method whose parameters differ from its query's is what the check above compares."""

    class Drifted(Queries):
        def get(self, *, namespce: str) -> list[dict[str, object]]:
            return self._read("namespace.get", namespce=namespce)

    keyword_only = set(inspect.signature(Drifted.get).parameters) - {"self"}
    assert keyword_only != query_parameters(QUERIES["namespace.get"])
    assert method_queries(Drifted.get) == ["namespace.get"]
