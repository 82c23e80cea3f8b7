"""The circuit breaker and the context builder through the Python clients (sync and async) and the
CLI (`hippograph runs ...`, `hippograph context ...`), against the live API."""

from __future__ import annotations

import asyncio
import json

from hippograph.client import AsyncHippograph, Hippograph
from hippograph.errors import Conflict, InvalidRequest
from tests.conftest import TEST_ADMIN_KEY
from tests.test_cli import run_cli


def test_the_sync_client_runs_a_breaker_cycle_and_builds_a_context(live_api: str, namespace: str) -> None:
    with Hippograph(live_api, TEST_ADMIN_KEY, namespace=namespace) as hg:
        hg.put_namespace()
        hg.save_memory("Knowledge", "Billing", "The billing service moved to Postgres 16 in March.")
        answers = [hg.report_step("run-1", 9_500, 10_000, name="read", arguments={"path": "a"}) for _ in range(2)]
        assert [a.state for a in answers] == ["YELLOW", "RED"]
        assert answers[0].warning and answers[1].stop and answers[1].run is not None
        token = answers[1].resume_token
        assert token and hg.get_run("run-1").resume_token == token
        try:
            hg.resume_run("run-1", "wrong")
        except InvalidRequest as error:
            assert error.field == "resume_token"
        else:
            raise AssertionError("a wrong token resumed the run")
        resumed = hg.resume_run("run-1", token)
        assert (resumed.state, resumed.resumes) == ("GREEN", 1)
        try:
            hg.resume_run("run-1", "another")
        except Conflict:
            pass
        else:
            raise AssertionError("a running run was resumed")
        built = hg.build_context(200, goal="billing database", run_id="run-1")
        assert [i.detail for i in built.items] == ["summary"] and built.tokens <= 200  # content = summary
        assert built.tokenizer == "WordPiece tokenizer of all-MiniLM-L6-v2" and built.pressure is None  # reset


def test_the_async_client_has_the_same_methods(live_api: str, namespace: str) -> None:
    async def go() -> tuple[str, int]:
        async with AsyncHippograph(live_api, TEST_ADMIN_KEY, namespace=namespace) as hg:
            await hg.put_namespace()
            step = await hg.report_step("run-a", 100, 1_000, signature="s", wrote_file=True)
            built = await hg.build_context(50, query="anything")
            return step.state, built.tokens

    assert asyncio.run(go()) == ("GREEN", 0)


def test_the_cli_reports_steps_resumes_and_prints_a_context(live_api: str, namespace: str) -> None:
    with Hippograph(live_api, TEST_ADMIN_KEY, namespace=namespace) as hg:
        hg.put_namespace()
        hg.save_memory("Knowledge", "Editor", "Ann writes her code in Helix, a modal editor.")
    step = ["runs", "step", "cli-run", "--tokens", "9500", "--window", "10000", "--name", "grep", "--arguments",
            '{"q": "x"}']  # fmt: skip
    first = run_cli(live_api, namespace, *step)
    assert first.returncode == 0 and first.stdout.startswith("YELLOW (context_pressure) after step 1"), first
    assert "[Hippograph circuit breaker: YELLOW]" in first.stdout
    second = run_cli(live_api, namespace, *step)
    assert second.returncode == 2 and "RED" in second.stdout, second  # stopped: exit 2
    shown = json.loads(run_cli(live_api, namespace, "runs", "show", "cli-run").stdout)
    assert shown["state"] == "RED"
    resumed = run_cli(live_api, namespace, "runs", "resume", "cli-run", shown["resume_token"])
    assert resumed.returncode == 0 and json.loads(resumed.stdout)["state"] == "GREEN"
    bad = run_cli(live_api, namespace, "runs", "step", "cli-run", "--tokens", "1", "--window", "9",
                  "--arguments", "{not json")  # fmt: skip
    assert bad.returncode != 0 and "--arguments" in bad.stderr

    built = run_cli(live_api, namespace, "context", "Which editor does Ann use?", "--budget", "100")
    assert built.returncode == 0, built.stderr
    assert built.stdout.strip() == "[Knowledge] Ann writes her code in Helix, a modal editor."
    assert "1 memories" in built.stderr and "WordPiece" in built.stderr
    as_json = json.loads(run_cli(live_api, namespace, "context", "editor", "--budget", "5", "--json").stdout)
    assert as_json["items"] == [] and as_json["tokens"] == 0
