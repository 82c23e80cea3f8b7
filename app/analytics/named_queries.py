"""The analytics catalogue: named, parameterized read queries in `cypher/analytics/*.cypher`.

One query per file, named after the file. The file starts with a header of `//` lines, then the
Cypher (the query format of `app/stores/cypher.py`, whose parser reads the text):

    // name: most_activated_concepts
    // description: The concepts and people with the highest activation.
    // description: (several description lines are joined with a space)
    // param: limit int 20 How many to return
    // param: weights map {"TRIVIAL": 0.1, "NORMAL": 0.3} Prune weight per importance
    MATCH (c:Memory {namespace: $namespace}) ...

`// param: <name> <type> <default> <description>`: type is one of int, float, str, bool, list,
map; the default is JSON (`20`, `"FACT"`, `null`, `[1, 2]`, `{"a": 1}`). `$namespace` is never a
declared parameter: the server binds it. Other `//` lines are comments. The folder is not loaded by
`CypherQueries.load` (it reads `cypher/*.cypher` only), so no product code can run these by mistake.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.domain.inputs import InputError
from app.stores.cypher import CYPHER_DIR
from app.stores.cypher import _parse as parse_queries

ANALYTICS_DIR = CYPHER_DIR / "analytics"

_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (int, float),
    "str": (str,),
    "bool": (bool,),
    "list": (list,),
    "map": (dict,),
}
_HEADER = re.compile(r"^//\s*(name|description|param):\s*(.*?)\s*$")
_PARAM = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s+(?P<type>[a-z]+)\s+(?P<rest>.*)$", re.DOTALL)


@dataclass(frozen=True)
class Parameter:
    name: str
    type: str
    default: Any
    description: str

    def check(self, value: Any) -> None:
        """`value` has the declared type (a bool is not an int here); null is always allowed."""
        if value is None:
            return
        if isinstance(value, bool) and self.type != "bool":
            raise InputError(f"params.{self.name}", f"must be of type {self.type}")
        if not isinstance(value, _TYPES[self.type]):
            raise InputError(f"params.{self.name}", f"must be of type {self.type}")

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "default": self.default, "description": self.description}


@dataclass(frozen=True)
class AnalyticsQuery:
    name: str
    description: str
    parameters: tuple[Parameter, ...]
    text: str

    def bind(self, given: dict[str, Any]) -> dict[str, Any]:
        """The declared parameters' defaults overridden by `given`; an undeclared name is refused."""
        declared = {parameter.name: parameter for parameter in self.parameters}
        for name, value in given.items():
            if name not in declared:
                raise InputError(f"params.{name}", f"is not a parameter of {self.name}")
            declared[name].check(value)
        return {name: given.get(name, parameter.default) for name, parameter in declared.items()}

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": [parameter.describe() for parameter in self.parameters],
        }


class AnalyticsCatalog:
    """Every query of the folder, by name, in file-name order."""

    def __init__(self, queries: dict[str, AnalyticsQuery]) -> None:
        self._queries = queries

    @classmethod
    def load(cls, directory: Path = ANALYTICS_DIR) -> AnalyticsCatalog:
        queries = {}
        for path in sorted(directory.glob("*.cypher")):
            query = parse_file(path.stem, path.read_text(encoding="utf-8"))
            queries[query.name] = query
        return cls(queries)

    def __getitem__(self, name: str) -> AnalyticsQuery:
        try:
            return self._queries[name]
        except KeyError:
            raise InputError("name", f"no analytics query named {name!r}; GET …/cypher/queries lists them") from None

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._queries.values())

    def names(self) -> list[str]:
        return list(self._queries)


def parse_file(stem: str, source: str) -> AnalyticsQuery:
    """One analytics file: its header and its query (see the module's docstring)."""
    name = None
    description: list[str] = []
    parameters: list[Parameter] = []
    for line in source.splitlines():
        match = _HEADER.match(line.strip())
        if match is None:
            continue
        kind, value = match.groups()
        if kind == "name":
            name = value
        elif kind == "description":
            description.append(value)
        else:
            parameters.append(_parameter(stem, value))
    if name != stem:
        raise ValueError(f"cypher/analytics/{stem}.cypher: its `// name:` must be {stem!r}, not {name!r}")
    if not description:
        raise ValueError(f"cypher/analytics/{stem}.cypher: no `// description:`")
    if any(parameter.name == "namespace" for parameter in parameters):
        raise ValueError(f"cypher/analytics/{stem}.cypher: `namespace` is bound by the server, not a parameter")
    parsed = parse_queries(source)
    if len(parsed) != 1:
        raise ValueError(f"cypher/analytics/{stem}.cypher: one query per file, found {len(parsed)}")
    return AnalyticsQuery(name, " ".join(description), tuple(parameters), parsed[0][1])


def _parameter(stem: str, value: str) -> Parameter:
    match = _PARAM.match(value)
    if match is None or match.group("type") not in _TYPES:
        raise ValueError(f"cypher/analytics/{stem}.cypher: bad `// param: {value}` (name type default description)")
    try:
        default, end = json.JSONDecoder().raw_decode(match.group("rest"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"cypher/analytics/{stem}.cypher: the default of {match.group('name')} is not JSON") from exc
    parameter = Parameter(match.group("name"), match.group("type"), default, match.group("rest")[end:].strip())
    try:
        parameter.check(default)
    except InputError as exc:
        raise ValueError(f"cypher/analytics/{stem}.cypher: {exc}") from exc
    return parameter
