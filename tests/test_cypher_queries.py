import re
from pathlib import Path

import pytest

from app.stores.cypher import CYPHER_DIR, CypherQueries, UnknownQueryError

REPO = Path(__file__).resolve().parents[1]


def test_named_queries_are_parsed_with_their_file_prefix(tmp_path: Path) -> None:
    (tmp_path / "things.cypher").write_text(
        "// header comment\n\n// name: one\n// what it does\nMATCH (n) RETURN n;\n\n// name: two\nRETURN $x AS x\n",
        encoding="utf-8",
    )
    queries = CypherQueries.load(tmp_path)
    assert queries.names() == ["things.one", "things.two"]
    assert queries["things.one"] == "MATCH (n) RETURN n"
    assert queries["things.two"] == "RETURN $x AS x"
    with pytest.raises(UnknownQueryError):
        queries["things.three"]


def test_duplicate_and_empty_queries_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a.cypher").write_text("// name: q\nRETURN 1\n// name: q\nRETURN 2\n")
    with pytest.raises(ValueError, match="duplicate query name a.q"):
        CypherQueries.load(tmp_path)
    (tmp_path / "a.cypher").write_text("// name: q\n// only a comment\n")
    with pytest.raises(ValueError, match="query q is empty"):
        CypherQueries.load(tmp_path)


def test_fragments_are_included_where_named_and_are_not_queries(tmp_path: Path) -> None:
    (tmp_path / "f.cypher").write_text(
        "// name: one\nMATCH (n)\nRETURN\n  // include: fields\n\n"
        "// fragment: fields\n// the shared part\nn.id AS id, n.name AS name\n\n"
        "// name: two\nUNWIND $ids AS id MATCH (n {id: id})\nRETURN\n// include: fields\n"
    )
    queries = CypherQueries.load(tmp_path)
    assert queries.names() == ["f.one", "f.two"]
    assert queries["f.one"] == "MATCH (n)\nRETURN\nn.id AS id, n.name AS name"
    assert queries["f.two"].endswith("RETURN\nn.id AS id, n.name AS name")
    (tmp_path / "f.cypher").write_text("// name: one\nRETURN\n// include: missing\n")
    with pytest.raises(ValueError, match="includes unknown fragment missing"):
        CypherQueries.load(tmp_path)


def test_project_queries_never_format_values_into_text() -> None:
    queries = CypherQueries.load(CYPHER_DIR)
    assert "health.ping" in queries.names()
    for name in queries.names():
        # Python format fields would mean values are spliced into Cypher before it is sent.
        assert not re.search(r"(?<![$:`])\{[A-Za-z_]+\}|%s|%\(", queries[name]), name


def test_product_code_holds_no_cypher() -> None:
    """All Cypher lives in cypher/*.cypher; the code refers to queries by name only."""
    cypher_words = re.compile(r"[\"'](?:MATCH|MERGE|CREATE|UNWIND|CALL db\.|RETURN)\b")
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in [*REPO.joinpath("app").rglob("*.py"), *REPO.joinpath("jobs").rglob("*.py")]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if cypher_words.search(line)
    ]
    assert offenders == []


def test_queries_with_a_kept_plan_name_the_index_of_every_node_they_look_up() -> None:
    """A `replan=skip` plan is made once, maybe on an empty database, and kept however the data grows:
    a lookup left to the planner's statistics was planned on an empty database as a scan of the whole
    namespace per hot-window seed (3 s per recall at 100k nodes, measured)."""
    queries = CypherQueries.load(CYPHER_DIR)
    kept = [name for name in queries.names() if "replan=skip" in queries[name]]
    assert "recall.hot" in kept and "recall.cards" in kept
    for name in kept:
        text = queries[name]
        lookups = list(re.finditer(r"\bMATCH \((\w+):Memory\b", text))
        assert lookups, name
        for lookup in lookups:
            clause = re.split(r"\n\s*(?:WITH|RETURN|MATCH|UNWIND|CALL)\b", text[lookup.end() :], maxsplit=1)[0]
            assert f"USING INDEX {lookup.group(1)}:Memory(" in clause, f"{name}: {lookup.group(0)}"
