"""Task trees (issue 19, "Tasks"): CRUD of the tree, cycle refusal, status transitions, and suspend ->
restart of the API and its worker -> resume, on the real engines."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import networkx
import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.domain.decay import decayed, hours_between
from app.domain.inputs import NewMemory, namespace_term, stable_digest
from app.domain.keys import BOOTSTRAP_AGENT_ID, EVERYTHING
from app.domain.model import Importance, NodeType
from app.domain.snapshot import snapshot_from_graphml
from app.domain.tasks import TaskStatus, resumed_activation, transition_problem, walk
from app.runtime import Runtime
from app.stores.suspension_files import SuspensionFiles
from tests.conftest import admin_headers, bearer, checked

S = TaskStatus
TOLERANCE = 1e-9


# -- pure rules ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("current", "new", "open_deps", "refused"),
    [
        (S.PENDING, S.RUNNING, [], None),
        (S.PENDING, S.PENDING, ["task:x"], None),  # the same status again: a retried PATCH
        (S.PENDING, S.RUNNING, ["task:x"], "before its dependencies are done: task:x"),
        (S.BLOCKED, S.DONE, [], "cannot go from blocked to done"),
        (S.RUNNING, S.DONE, ["task:b", "task:a"], "before its dependencies are done: task:a, task:b"),
        (S.RUNNING, S.BLOCKED, ["task:x"], None),  # blocked needs nothing
        (S.DONE, S.PENDING, [], "none: it is final"),
        (S.FAILED, S.PENDING, [], None),
        (S.FAILED, S.RUNNING, [], "cannot go from failed to running"),
        (S.PENDING, S.SUSPENDED, [], "POST …/tasks/{id}/suspend"),
        (S.SUSPENDED, S.RUNNING, [], "resume it first"),
    ],
)
def test_transitions(current: S, new: S, open_deps: list[str], refused: str | None) -> None:
    problem = transition_problem(current, new, open_deps)
    if refused is None:
        assert problem is None
    else:
        assert problem is not None and refused in problem


def test_resumed_activation_is_the_decay_formula_from_the_suspension() -> None:
    suspended = datetime(2026, 1, 1, tzinfo=UTC)
    # NORMAL: a 24 h half-life, so two days later a quarter is left.
    assert resumed_activation(0.8, suspended, suspended + timedelta(hours=48), Importance.NORMAL) == pytest.approx(0.2)
    assert resumed_activation(0.8, suspended, suspended + timedelta(hours=48), Importance.MUST_REMEMBER) == 0.8
    assert resumed_activation(0.8, suspended, suspended - timedelta(hours=1), Importance.NORMAL) == 0.8  # clock behind


def test_walk_is_depth_first_root_first() -> None:
    tree = {"id": "a", "subtasks": [{"id": "b", "subtasks": [{"id": "c"}]}, {"id": "d", "subtasks": []}]}
    assert [task["id"] for task in walk(tree)] == ["a", "b", "c", "d"]


def test_suspension_folders_never_come_from_the_callers_text(tmp_path: Path) -> None:
    files = SuspensionFiles(tmp_path / "suspensions")
    folder = files.folder("..", "task:../../etc/passwd")
    assert folder.parent.parent == tmp_path / "suspensions"
    assert folder.parent.name == namespace_term("..") and folder.name == stable_digest("task", "task:../../etc/passwd")
    files.write("..", "task:x", '{"a": 1}', "activations-1.graphml", "<graphml/>")
    files.write("..", "task:x", '{"a": 2}', "activations-2.graphml", "<graphml/>")
    assert sorted(p.name for p in files.folder("..", "task:x").iterdir()) == ["activations-2.graphml", "tree.json"]
    assert files.read("..", "task:x") == '{"a": 2}'
    assert files.read("..", "task:x", "../tree.json") is None
    files.erase_namespace("..")
    assert files.read("..", "task:x") is None and (tmp_path / "suspensions").is_dir()


# -- the tree --------------------------------------------------------------------------------------


def tasks_url(namespace: str, task_id: str = "", suffix: str = "") -> str:
    return f"/v1/namespaces/{namespace}/tasks" + (f"/{task_id}" if task_id else "") + suffix


def create(api: TestClient, namespace: str, **body: Any) -> dict[str, Any]:
    response = api.post(tasks_url(namespace), json=body)
    assert response.status_code == 201, response.text
    return response.json()


def test_a_tree_is_created_read_and_changed(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    root = create(api, namespace, id="task:release", title="Release 2.0")
    assert root["status"] == "pending" and root["subtasks"] == [] and root["parent_id"] is None
    build = create(api, namespace, id="task:build", title="Build", parent_id="task:release")
    tests = create(api, namespace, title="Run the tests", parent_id="task:build")
    deep = create(api, namespace, id="task:lint", title="Lint", parent_id=tests["id"])
    deploy = create(api, namespace, id="task:deploy", title="Deploy", parent_id="task:release",
                    depends_on=["task:build"])  # fmt: skip
    assert build["agent_id"] == BOOTSTRAP_AGENT_ID  # the key's agent
    assert deploy["depends_on"] == [{"id": "task:build", "status": "pending"}]

    # Idempotent: the same id again answers 200 with the task as it is; a derived id too.
    again = api.post(tasks_url(namespace), json={"id": "task:build", "title": "Build", "parent_id": "task:release"})
    assert again.status_code == 200 and again.json()["id"] == "task:build"
    same = api.post(tasks_url(namespace), json={"title": "Run the tests", "parent_id": "task:build"})
    assert same.status_code == 200 and same.json()["id"] == tests["id"]

    tree = api.get(tasks_url(namespace, "task:release")).json()
    assert [sub["id"] for sub in tree["subtasks"]] == ["task:build", "task:deploy"]
    assert tree["subtasks"][0]["subtasks"][0]["id"] == tests["id"]
    assert tree["subtasks"][0]["subtasks"][0]["subtasks"][0]["id"] == deep["id"]
    order = ["task:release", "task:build", tests["id"], "task:lint", "task:deploy"]
    assert [task["id"] for task in walk(tree)] == order
    assert all(not task["subtasks_truncated"] for task in walk(tree))

    shallow = api.get(tasks_url(namespace, "task:release"), params={"depth": 1}).json()
    assert [sub["subtasks"] for sub in shallow["subtasks"]] == [[], []]
    assert [sub["subtasks_truncated"] for sub in shallow["subtasks"]] == [True, False]

    change = {"title": "Deploy to production", "description": "blue/green", "result": "n/a"}
    changed = api.patch(tasks_url(namespace, "task:deploy"), json=change)
    assert changed.status_code == 200, changed.text
    assert (changed.json()["title"], changed.json()["description"], changed.json()["result"]) == (
        "Deploy to production", "blue/green", "n/a")  # fmt: skip
    # Moved: lint becomes a direct subtask of the release, then a top-level task.
    moved = api.patch(tasks_url(namespace, "task:lint"), json={"parent_id": "task:release"}).json()
    assert moved["parent_id"] == "task:release"
    assert "task:lint" in [sub["id"] for sub in api.get(tasks_url(namespace, "task:release")).json()["subtasks"]]
    top = api.patch(tasks_url(namespace, "task:lint"), json={"parent_id": None}).json()
    assert top["parent_id"] is None
    assert "task:lint" not in [task["id"] for task in walk(api.get(tasks_url(namespace, "task:release")).json())]


def test_bad_references_are_refused_naming_the_field(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    api.put(f"/v1/namespaces/{namespace}")
    note = api.post(f"/v1/namespaces/{namespace}/memories",
                    json={"type": "Knowledge", "label": "db", "content": "Postgres 16"}).json()  # fmt: skip
    create(api, namespace, id="task:a", title="A")

    def refused(body: dict[str, Any], status: int, field: str) -> None:
        response = api.post(tasks_url(namespace), json=body)
        assert response.status_code == status, response.text
        assert response.json()["error"]["field"] == field, response.text

    refused({"title": "B", "parent_id": "task:missing"}, 404, "parent_id")
    refused({"title": "B", "depends_on": ["task:a", "task:missing"]}, 404, "depends_on[1]")
    refused({"title": "B", "depends_on": [note["id"]]}, 422, "depends_on[0]")
    refused({"title": "B", "related_ids": ["knowledge:missing"]}, 404, "related_ids[0]")
    refused({"title": "B", "id": "knowledge:b"}, 422, "id")
    refused({"title": "B", "status": "suspended"}, 422, "status")
    refused({"title": "B", "depends_on": ["task:a"], "status": "running"}, 409, "status")
    # Nothing of the refused creations was written.
    listed = api.get(f"/v1/namespaces/{namespace}/memories", params={"type": "Task"}).json()["items"]
    assert [item["id"] for item in listed] == ["task:a"]
    assert api.get(tasks_url(namespace, "task:missing")).status_code == 404
    assert api.get(tasks_url(namespace, note["id"])).status_code == 422  # not a task id
    assert api.patch(tasks_url(namespace, "task:a"), json={}).json()["error"]["field"] == "body"


def test_cycles_are_refused(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    api.put(f"/v1/namespaces/{namespace}")
    create(api, namespace, id="task:c", title="C")
    create(api, namespace, id="task:b", title="B", depends_on=["task:c"])
    create(api, namespace, id="task:a", title="A", depends_on=["task:b"], parent_id="task:c")
    create(api, namespace, id="task:a1", title="A1", parent_id="task:a")

    def refused(task_id: str, body: dict[str, Any], field: str) -> None:
        response = api.patch(tasks_url(namespace, task_id), json=body)
        assert response.status_code == 409, response.text
        assert response.json()["error"]["field"] == field, response.text

    refused("task:c", {"depends_on": ["task:a"]}, "depends_on")  # c -> a -> b -> c
    refused("task:c", {"depends_on": ["task:c"]}, "depends_on")
    refused("task:c", {"parent_id": "task:a1"}, "parent_id")  # below its own subtask
    refused("task:a", {"parent_id": "task:a"}, "parent_id")
    # The refusals changed nothing; a dependency that closes no cycle is taken.
    assert api.get(tasks_url(namespace, "task:c")).json()["depends_on"] == []
    ok = api.patch(tasks_url(namespace, "task:a1"), json={"depends_on": ["task:b", "task:c"]})
    assert ok.status_code == 200 and [d["id"] for d in ok.json()["depends_on"]] == ["task:b", "task:c"]
    replaced = api.patch(tasks_url(namespace, "task:a1"), json={"depends_on": ["task:c"]}).json()
    assert [d["id"] for d in replaced["depends_on"]] == ["task:c"]


def test_status_transitions(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    api.put(f"/v1/namespaces/{namespace}")
    create(api, namespace, id="task:dep", title="Dependency")
    create(api, namespace, id="task:t", title="Task", depends_on=["task:dep"])

    def patch(task_id: str, **body: Any) -> Any:
        return api.patch(tasks_url(namespace, task_id), json=body)

    early = patch("task:t", status="running")
    assert early.status_code == 409 and "task:dep" in early.json()["error"]["message"]
    assert patch("task:t", status="blocked").json()["status"] == "blocked"
    assert patch("task:dep", status="running").json()["started_at"]
    assert patch("task:dep", status="done").json()["finished_at"]
    assert patch("task:dep", status="pending").status_code == 409  # done is final
    running = patch("task:t", status="running").json()
    assert running["status"] == "running" and running["depends_on"] == [{"id": "task:dep", "status": "done"}]
    failed = patch("task:t", status="failed", result="the disk was full").json()
    assert failed["finished_at"] and failed["result"] == "the disk was full"
    retried = patch("task:t", status="pending").json()
    assert retried["status"] == "pending" and "finished_at" not in retried
    suspended = patch("task:t", status="suspended")
    assert suspended.status_code == 422 and suspended.json()["error"]["field"] == "status"
    assert patch("task:t", status="bogus").status_code == 422


# -- suspend, restart, resume ----------------------------------------------------------------------


@contextmanager
def serving(settings, embedder) -> Iterator[tuple[Runtime, TestClient]]:  # type: ignore[no-untyped-def]
    """The API and a worker on engines opened for them: all closed on exit, so nothing of this
    process's memory survives into the next `serving`."""
    from jobs.embedded import EmbeddedJobs

    runtime = Runtime.open(settings, embedder=embedder)
    jobs = EmbeddedJobs(runtime, resume_pending=False)
    jobs.start()
    try:
        with checked(TestClient(create_app(runtime=runtime), headers=admin_headers())) as client:
            yield runtime, client
    finally:
        jobs.stop()
        runtime.close()


def comparable(tree: dict[str, Any]) -> dict[str, Any]:
    """A tree without what resuming changes by design (times of the suspension and the resume)."""
    dropped = {"updated_at", "suspended_at", "suspension_root", "resumed_at"}
    kept = {key: value for key, value in tree.items() if key not in dropped}
    return {**kept, "subtasks": [comparable(sub) for sub in tree["subtasks"]]}


def cypher_on(settings):  # type: ignore[no-untyped-def]
    """Test-only Cypher on the engines, from a driver of its own (no runtime open between the restarts)."""
    import neo4j

    from app.stores.graph import to_native

    def run(query: str, **params: object) -> list[dict[str, Any]]:
        with neo4j.GraphDatabase.driver(settings.neo4j_uri, auth=settings.neo4j_auth) as driver:
            records, _, _ = driver.execute_query(query, params, database_=settings.neo4j_database)
        return [to_native(record.data()) for record in records]

    return run


def test_suspend_restart_resume_gives_the_same_tree_and_the_decayed_activations(  # type: ignore[no-untyped-def]
    settings, embedder, celery_configured, namespace: str
) -> None:
    cypher = cypher_on(settings)
    two_days_ago = datetime.now(UTC) - timedelta(hours=50)
    with serving(settings, embedder) as (runtime, api):
        api.put(f"/v1/namespaces/{namespace}")
        # Memories written two days ago (NORMAL: a 24 h half-life): at the suspension about a quarter is left.
        notes = [runtime.nodes.save(namespace, NewMemory(NodeType.KNOWLEDGE, f"note {i}", f"Fact number {i} about "
                                    f"the billing service", importance=Importance.NORMAL), now=two_days_ago)[0]["id"]
                 for i in range(4)]  # fmt: skip
        neighbour = api.post(f"/v1/namespaces/{namespace}/memories", json={
            "type": "Person", "label": "Ann", "content": "Ann owns billing", "importance": "IDENTITY",
            "links": [{"type": "REFERENCE", "target_id": notes[0]}]}).json()["id"]  # fmt: skip
        create(api, namespace, id="task:root", title="Migrate billing", related_ids=notes[:2])
        create(api, namespace, id="task:schema", title="Schema", parent_id="task:root", related_ids=[notes[2]])
        create(api, namespace, id="task:data", title="Data", parent_id="task:root", depends_on=["task:schema"],
               related_ids=[notes[3]])  # fmt: skip
        create(api, namespace, id="task:check", title="Check", parent_id="task:schema")
        api.patch(tasks_url(namespace, "task:schema"), json={"status": "running"})
        api.patch(tasks_url(namespace, "task:check"), json={"status": "done", "result": "ok"})
        before = api.get(tasks_url(namespace, "task:root")).json()

        suspended = api.post(tasks_url(namespace, "task:root", "/suspend"))
        assert suspended.status_code == 200, suspended.text
        document = suspended.json()
        assert sorted(document["suspended"]) == ["task:data", "task:root", "task:schema"]  # check was done
        assert comparable(document["tree"]) == comparable(before)
        assert api.post(tasks_url(namespace, "task:root", "/suspend")).status_code == 409
        tree = api.get(tasks_url(namespace, "task:root")).json()
        assert {t["id"]: t["status"] for t in walk(tree)} == {"task:root": "suspended", "task:schema": "suspended",
                                                              "task:check": "done", "task:data": "suspended"}
        assert api.patch(tasks_url(namespace, "task:data"), json={"status": "running"}).status_code == 409
        assert api.post(tasks_url(namespace, "task:check", "/suspend")).status_code == 409  # done: nothing to pause
        # A subtask is resumed with its tree only.
        assert api.post(tasks_url(namespace, "task:schema", "/resume")).json()["error"]["field"] == "task_id"

    # The files are where the docs say, readable by a GraphML tool.
    folder = settings.data_dir / "suspensions" / namespace_term(namespace) / stable_digest("task", "task:root")
    stored = json.loads((folder / "tree.json").read_text(encoding="utf-8"))
    assert stored["graphml"] == document["graphml"] and (folder / stored["graphml"]).is_file()
    graph = networkx.read_graphml(folder / stored["graphml"])
    assert set(notes + [neighbour, "task:root", "task:schema", "task:data", "task:check"]) == set(graph.nodes)
    saved = {node.id: node.properties for node in snapshot_from_graphml((folder / stored["graphml"]).read_text()).nodes}
    suspended_at = datetime.fromisoformat(document["suspended_at"])
    for note in notes:  # the activation saved is the formula's at the suspension
        expected = decayed(1.0, hours_between(two_days_ago, suspended_at), 24.0)
        assert math.isclose(saved[note]["activation"], expected, abs_tol=TOLERANCE), note
        assert 0.2 < saved[note]["activation"] < 0.3

    # Out-of-band changes while nothing runs: one memory's anchor reset, one accessed after the suspension.
    cypher("MATCH (m:Memory {namespace: $ns, id: $id}) SET m.activation_base = 0.01, m.activation = 0.01",
           ns=namespace, id=notes[1])  # fmt: skip
    accessed_at = suspended_at + timedelta(seconds=1)
    cypher("MATCH (m:Memory {namespace: $ns, id: $id}) SET m.activation_base = 0.9, m.last_accessed = $at",
           ns=namespace, id=notes[2], at=accessed_at)  # fmt: skip

    with serving(settings, embedder) as (runtime, api):
        resumed = api.post(tasks_url(namespace, "task:root", "/resume"), json={"token_budget": 10_000})
        assert resumed.status_code == 200, resumed.text
        answer = resumed.json()
        resumed_at = datetime.fromisoformat(answer["resumed_at"])
        after = api.get(tasks_url(namespace, "task:root")).json()
        assert comparable(after) == comparable(before)
        assert all(t["resumed_at"] == answer["resumed_at"] for t in walk(after) if t["id"] != "task:check")
        assert comparable(answer["context"]["tree"]) == comparable(before)
        assert answer["kept"] == [notes[2]] and answer["missing"] == []
        assert answer["restored"] == len(saved) - 1

        elapsed = hours_between(suspended_at, resumed_at)
        rows = cypher("MATCH (m:Memory {namespace: $ns}) WHERE m.id IN $ids RETURN m.id AS id, m.activation AS a, "
                      "m.activation_base AS base, m.last_accessed AS at, m.importance AS importance",
                      ns=namespace, ids=list(saved))  # fmt: skip
        for row in rows:
            if row["id"] == notes[2]:
                assert row["base"] == 0.9 and row["at"] == accessed_at  # its newer access is kept
                continue
            half_life = Importance(row["importance"]).half_life_hours
            expected = decayed(saved[row["id"]]["activation"], elapsed, half_life)
            assert math.isclose(row["a"], expected, abs_tol=TOLERANCE), row
            assert math.isclose(answer["activations"][row["id"]], expected, abs_tol=TOLERANCE), row
            assert row["base"] == saved[row["id"]]["activation"] and row["at"] == suspended_at
        assert answer["activations"][notes[1]] > 0.2  # the reset anchor was restored

        cards = answer["context"]["cards"]
        assert {card["id"] for card in cards} == set(notes)
        assert [card["score"] for card in cards] == sorted((card["score"] for card in cards), reverse=True)
        assert cards[0]["id"] == notes[2]  # the one accessed since is the most active
        small = answer["context"]["tokens"]
        assert 0 < small <= 10_000
        assert api.post(tasks_url(namespace, "task:root", "/resume")).status_code == 409  # not suspended any more
        # The suspension stays readable after the resume.
        again = api.get(tasks_url(namespace, "task:root", "/suspension")).json()
        assert again["suspended_at"] == document["suspended_at"]


def test_resume_decays_for_the_time_since_the_suspension(api, runtime, namespace: str) -> None:  # type: ignore[no-untyped-def]
    api.put(f"/v1/namespaces/{namespace}")
    start = datetime.now(UTC) - timedelta(days=10)
    note = runtime.nodes.save(namespace, NewMemory(NodeType.KNOWLEDGE, "n", "a trivial detail",
                                                   importance=Importance.TRIVIAL), now=start)[0]["id"]  # fmt: skip
    create(api, namespace, id="task:t", title="T", related_ids=[note])
    # Suspended 6 h after the note was written (TRIVIAL: a 6 h half-life), resumed 12 h later.
    runtime.suspensions.suspend(namespace, "task:t", EVERYTHING, "admin", now=start + timedelta(hours=6))
    saved = runtime.suspensions.graphml(namespace, "task:t", EVERYTHING)
    at_suspension = {n.id: n.properties for n in snapshot_from_graphml(saved).nodes}[note]["activation"]
    assert at_suspension == pytest.approx(0.5)
    resumed = runtime.suspensions.resume(namespace, "task:t", EVERYTHING, now=start + timedelta(hours=18))
    assert resumed.activations[note] == pytest.approx(0.125, abs=TOLERANCE)
    assert resumed.tree["status"] == "pending"
    # Budgets cut the cards: none fit one token.
    from app.recall.task_context import task_context

    assert task_context(runtime.recall, namespace, resumed.tree, resumed.activations, 1)["cards"] == []
    assert len(task_context(runtime.recall, namespace, resumed.tree, resumed.activations)["cards"]) == 1


def test_suspensions_hide_other_agents_private_memories(api, namespace: str) -> None:  # type: ignore[no-untyped-def]
    api.put(f"/v1/namespaces/{namespace}")
    writer = api.post("/v1/keys", json={"namespace": namespace, "role": "writer", "agent_id": "planner"}).json()["key"]
    reader = api.post("/v1/keys", json={"namespace": namespace, "role": "reader", "agent_id": "other"}).json()["key"]
    secret = api.post(f"/v1/namespaces/{namespace}/memories", headers=bearer(writer),
                      json={"type": "Knowledge", "label": "secret", "content": "the planner's private note",
                            "private": True}).json()["id"]  # fmt: skip
    shared = {"type": "Knowledge", "label": "public", "content": "a shared note"}
    public = api.post(f"/v1/namespaces/{namespace}/memories", headers=bearer(writer), json=shared).json()["id"]
    created = api.post(tasks_url(namespace), headers=bearer(writer),
                       json={"id": "task:p", "title": "Plan", "related_ids": [secret, public]})  # fmt: skip
    assert created.status_code == 201 and created.json()["agent_id"] == "planner"
    refused = api.post(tasks_url(namespace), headers=bearer(reader), json={"title": "x"})
    assert refused.status_code == 403
    assert api.post(tasks_url(namespace), headers=bearer(writer),
                    json={"title": "x", "agent_id": "someone-else"}).status_code == 403  # fmt: skip
    seen_by_reader = api.get(tasks_url(namespace, "task:p"), headers=bearer(reader)).json()
    assert seen_by_reader["related_ids"] == [public]
    assert api.post(tasks_url(namespace, "task:p", "/suspend"), headers=bearer(writer)).status_code == 200
    document = api.get(tasks_url(namespace, "task:p", "/suspension"), headers=bearer(reader))
    assert document.status_code == 200 and secret not in document.text

    own = api.get(tasks_url(namespace, "task:p", "/suspension/graphml"), headers=bearer(writer))
    assert own.status_code == 200 and secret in own.text
    other = api.get(tasks_url(namespace, "task:p", "/suspension/graphml"), headers=bearer(reader))
    assert other.status_code == 200 and public in other.text and secret not in other.text
    assert api.post(tasks_url(namespace, "task:p", "/resume"), headers=bearer(reader)).status_code == 403
    resumed = api.post(tasks_url(namespace, "task:p", "/resume"), headers=bearer(writer)).json()
    assert {card["id"] for card in resumed["context"]["cards"]} == {secret, public}
    assert api.get(tasks_url(namespace, "task:none", "/suspension")).status_code == 404

    erased = api.delete(f"/v1/namespaces/{namespace}")
    assert erased.status_code == 200
    folder = runtime_folder(api) / namespace_term(namespace)
    assert not folder.exists()


def runtime_folder(api: TestClient) -> Path:
    return Path(api.app.state.runtime.settings.suspension_dir)  # type: ignore[attr-defined]
