"""The circuit breaker over the API, on real Redis: GREEN -> YELLOW -> RED with a resume token, a
stopped run, resume (idempotent, token checked), runs per agent, validation, and concurrent steps
of one run losing no update."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.context.breaker import Step
from app.domain.keys import BOOTSTRAP_AGENT_ID
from tests.conftest import bearer

QUIET = {"tokens": 1000, "window": 10_000}  # neither a call nor a write: no_progress counts it


@pytest.fixture
def ns(api, namespace: str) -> str:  # type: ignore[no-untyped-def]
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    return namespace


def step(api, ns: str, run_id: str, status: int = 200, **body: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    response = api.post(f"/v1/namespaces/{ns}/runs/{run_id}/steps", json=body)
    assert response.status_code == status, response.text
    return response.json()


def test_a_run_goes_green_yellow_red_and_resumes_with_its_token(api, ns: str) -> None:  # type: ignore[no-untyped-def]
    call = {"name": "read_file", "arguments": {"path": "a.py"}, **QUIET}
    first = step(api, ns, "run-1", **call)
    assert (first["state"], first["step"], first["fired"], first["stop"]) == ("GREEN", 1, [], False)
    assert first["agent_id"] == BOOTSTRAP_AGENT_ID  # the key's agent
    assert [s["name"] for s in first["signals"]] == ["repeated_call", "pattern_loop", "information_gain",
                                                     "context_pressure", "elapsed", "no_progress"]  # fmt: skip
    assert "warning" not in first and "resume_token" not in first

    step(api, ns, "run-1", **call)
    yellow = step(api, ns, "run-1", **call)  # the same call a third time in a row
    assert (yellow["state"], yellow["fired"], yellow["stop"]) == ("YELLOW", ["repeated_call"], False)
    [reading] = [s for s in yellow["signals"] if s["name"] == "repeated_call"]
    assert (reading["value"], reading["threshold"], reading["fired"]) == (3.0, 3.0, True)
    assert yellow["warning"].startswith("[Hippograph circuit breaker: YELLOW] repeated_call")

    red = step(api, ns, "run-1", **call)  # a second signalled step in a row
    assert (red["state"], red["stop"], red["fired"]) == ("RED", True, ["repeated_call"])
    token = red["resume_token"]
    assert token and red["run"]["resume_token"] == token and red["run"]["state"] == "RED"
    assert red["run"]["steps"] == 4 and len(red["run"]["recent_calls"]) == 4
    assert red["run"]["reason"].startswith("repeated_call: ")

    again = step(api, ns, "run-1", **QUIET)  # a stopped run records nothing
    assert (again["state"], again["stop"], again["step"], again["signals"]) == ("RED", True, 4, [])
    assert again["resume_token"] == token

    shown = api.get(f"/v1/namespaces/{ns}/runs/run-1").json()
    assert (shown["state"], shown["resume_token"], shown["steps"]) == ("RED", token, 4)

    resume_url = f"/v1/namespaces/{ns}/runs/run-1/resume"
    wrong = api.post(resume_url, json={"resume_token": "not-it"})
    assert wrong.status_code == 422 and wrong.json()["error"]["field"] == "resume_token"
    resumed = api.post(resume_url, json={"resume_token": token})
    assert resumed.status_code == 200, resumed.text
    body = resumed.json()
    assert (body["state"], body["resumes"], body["recent_calls"], body["steps"]) == ("GREEN", 1, [], 4)
    assert "resume_token" not in body
    assert api.post(resume_url, json={"resume_token": token}).json()["resumes"] == 1  # a retry changes nothing
    conflict = api.post(resume_url, json={"resume_token": "other"})
    assert conflict.status_code == 409 and conflict.json()["error"]["field"] == "run_id"
    after = step(api, ns, "run-1", **call)
    assert (after["state"], after["step"]) == ("GREEN", 5)


def test_recovery_returns_to_green(api, ns: str) -> None:  # type: ignore[no-untyped-def]
    states = [step(api, ns, "run-p", tokens=t, window=10_000, wrote_file=True)["state"] for t in (9000, 2000, 9000)]
    assert states == ["YELLOW", "GREEN", "YELLOW"]  # usage is the latest report


def test_information_gain_and_pattern_loop_over_the_api(api, ns: str) -> None:  # type: ignore[no-untyped-def]
    text = "The billing migration timed out again after thirty seconds on the invoices table."
    fired = [step(api, ns, "run-i", signature=f"s{n}", context_text=text, **QUIET)["fired"] for n in range(5)]
    assert fired == [[], [], [], [], ["information_gain"]]
    loop = [step(api, ns, "run-l", signature=s, **QUIET)["fired"] for s in "abcabc"]
    assert loop[-1] == ["pattern_loop"] and loop[:-1] == [[]] * 5


def test_runs_are_per_agent(api, ns: str) -> None:  # type: ignore[no-untyped-def]
    keys = {agent: api.post("/v1/keys", json={"namespace": ns, "role": "writer", "agent_id": agent}).json()["key"]
            for agent in ("planner", "coder")}  # fmt: skip
    url = f"/v1/namespaces/{ns}/runs/shared/steps"
    for _ in range(3):
        planner = api.post(url, json={"signature": "x", **QUIET}, headers=bearer(keys["planner"])).json()
    coder = api.post(url, json={"signature": "x", **QUIET}, headers=bearer(keys["coder"])).json()
    assert (planner["agent_id"], planner["step"], planner["state"]) == ("planner", 3, "YELLOW")
    assert (coder["agent_id"], coder["step"], coder["state"]) == ("coder", 1, "GREEN")
    other = api.post(url, json={"signature": "x", "agent_id": "planner", **QUIET}, headers=bearer(keys["coder"]))
    assert other.status_code == 403
    assert api.get(f"/v1/namespaces/{ns}/runs/shared", params={"agent_id": "coder"}).json()["steps"] == 1
    missing = api.get(f"/v1/namespaces/{ns}/runs/shared", headers=bearer(keys["coder"]), params={"agent_id": "x"})
    assert missing.status_code == 403


def test_invalid_steps_are_refused_naming_the_field(api, ns: str) -> None:  # type: ignore[no-untyped-def]
    both = api.post(f"/v1/namespaces/{ns}/runs/r/steps", json={"name": "a", "signature": "b", **QUIET})
    assert both.status_code == 422
    no_window = api.post(f"/v1/namespaces/{ns}/runs/r/steps", json={"tokens": 1})
    assert no_window.status_code == 422 and no_window.json()["error"]["field"] == "window"
    bad_id = api.post(f"/v1/namespaces/{ns}/runs/a:b/steps", json=QUIET)
    assert bad_id.status_code == 422 and bad_id.json()["error"]["field"] == "run_id"
    unknown = api.get(f"/v1/namespaces/{ns}/runs/never")
    assert unknown.status_code == 404 and unknown.json()["error"]["field"] == "run_id"
    assert api.post("/v1/namespaces/no-such-ns-xyz/runs/r/steps", json=QUIET).status_code == 404


def test_concurrent_steps_of_one_run_lose_no_update(runtime, namespace: str) -> None:  # type: ignore[no-untyped-def]
    runs = runtime.runs
    per_worker, workers = 25, 8

    def report(worker: int) -> None:
        for n in range(per_worker):
            runs.step(namespace, "agent", "busy", Step(f"w{worker}:{n}", 10, 100, called_tool=True))

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(report, range(workers)))
    state = runs.find(namespace, "agent", "busy")
    assert state is not None and state.steps == per_worker * workers
    assert state.level == "GREEN" and len(state.calls) == 20
    ttl = runtime.redis.ttl(f"hg:{{{namespace}}}:run:busy:agent")
    assert 0 < ttl <= runtime.settings.breaker_run_ttl_s


def test_a_non_ascii_resume_token_is_refused_not_a_500(api, ns: str) -> None:  # type: ignore[no-untyped-def]
    """Finding (schemathesis): `POST …/runs/{run_id}/resume` with a resume token outside ASCII answered
    500 (`secrets.compare_digest` refuses non-ASCII str); tokens are compared as UTF-8 bytes."""
    call = {"name": "read_file", "arguments": {"path": "a.py"}, **QUIET}
    for _ in range(4):
        last = step(api, ns, "run-u", **call)
    assert last["state"] == "RED"
    resume_url = f"/v1/namespaces/{ns}/runs/run-u/resume"
    wrong = api.post(resume_url, json={"resume_token": "jeton-é"})
    assert wrong.status_code == 422 and wrong.json()["error"]["field"] == "resume_token", wrong.text
    assert api.post(resume_url, json={"resume_token": last["resume_token"]}).status_code == 200
    conflict = api.post(resume_url, json={"resume_token": "jeton-é"})  # a GREEN run: the retry check
    assert conflict.status_code == 409 and conflict.json()["error"]["field"] == "run_id", conflict.text
