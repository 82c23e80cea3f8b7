"""The README's quick start, run as written (issue 38, "First hour"): the first ```bash block of its
"Quick start" section goes through bash against a started service, with the port, the admin key and
the namespace names substituted and `make run &` left out (the test started the service). Each
command must exit 0 and answer no error, and each answer the README shows (`# -> {...}` under a
command) must still have that shape."""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO, TEST_ADMIN_KEY, admin_headers

ANY = "..."  # in a shown answer: any value


@dataclass
class Command:
    text: str
    shown: Any = None  # the answer the README shows, parsed; None: it shows none


def quick_start_block(readme: str) -> str:
    section = readme.split("\n## Quick start", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```bash\n(.*?)```", section, re.S)
    assert found, "the Quick start section has no ```bash block"
    return found.group(1)


def commands(block: str) -> list[Command]:
    """A command starts at the first column; indented lines continue it, and an indented `# -> JSON`
    line is the answer it shows. Blank lines and comments at the first column separate nothing."""
    found: list[Command] = []
    for line in block.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        stripped = line.strip()
        if not line[0].isspace():
            found.append(Command(line))
        elif stripped.startswith("# -> "):
            found[-1].shown = json.loads(stripped.removeprefix("# -> "))
        elif not stripped.startswith("#"):
            found[-1].text += "\n" + line
    return found


def matches(answer: Any, shown: Any, where: str = "answer") -> list[str]:
    """Where `answer` departs from `shown`: objects hold at least the shown keys, lists at least the
    shown items (in order), `"..."` is any value, anything else must be equal."""
    if shown == ANY:
        return []
    if isinstance(shown, dict):
        if not isinstance(answer, dict):
            return [f"{where}: an object was shown, got {answer!r:.200}"]
        return [problem for key, value in shown.items()
                for problem in (matches(answer[key], value, f"{where}.{key}") if key in answer
                                else [f"{where}: no {key!r} (keys: {sorted(answer)})"])]  # fmt: skip
    if isinstance(shown, list):
        if not isinstance(answer, list) or len(answer) < len(shown):
            return [f"{where}: a list of at least {len(shown)} was shown, got {answer!r:.200}"]
        return [problem for i, item in enumerate(shown) for problem in matches(answer[i], item, f"{where}[{i}]")]
    return [] if answer == shown else [f"{where}: {shown!r} was shown, got {answer!r:.200}"]


def test_shown_answers_match_by_shape() -> None:
    shown = {"items": [{"score": ANY, "track": "fact"}], "took_ms": ANY}
    assert matches({"items": [{"score": 0.9, "track": "fact", "x": 1}, {}], "took_ms": 3, "more": 1}, shown) == []
    assert matches({"items": []}, shown) == ["answer.items: a list of at least 1 was shown, got []",
                                             "answer: no 'took_ms' (keys: ['items'])"]  # fmt: skip
    assert matches({"items": [{"score": 1, "track": "dense"}], "took_ms": 1}, shown) == [
        "answer.items[0].track: 'fact' was shown, got 'dense'"]
    assert commands('a \\\n  b\n  # -> {"x": 1}\n# note\n\nc  # d\n  # prose\n') == [
        Command("a \\\n  b", {"x": 1}), Command("c  # d")]


def _problems(folder: Path, i: int, step: Command) -> list[str]:
    """What went wrong with the i-th command: its exit code, an error answer, a shown answer's shape."""
    rc = int((folder / f"rc.{i}").read_text())
    out, err = (folder / f"out.{i}").read_text(), (folder / f"err.{i}").read_text()
    if rc != 0:
        return [f"exited {rc}: {err}{out}"]
    answer = json.loads(out) if out.strip().startswith("{") else None
    if isinstance(answer, dict) and "error" in answer:
        return [f"answered {out}"]
    if step.shown is None:
        return []
    if answer is None:
        return [f"shows an answer, printed {out!r}"]
    return matches(answer, step.shown) + ([f"answered {out:.3000}"] if matches(answer, step.shown) else [])


@pytest.fixture
def quick_start(live_api: str, worker: Any) -> tuple[str, list[Command]]:
    """The block's commands as the test runs them: port, admin key and namespaces substituted."""
    block = quick_start_block((REPO / "README.md").read_text(encoding="utf-8"))
    suffix = uuid.uuid4().hex[:8]
    port = live_api.rsplit(":", 1)[1]
    for needed in ("localhost:8000", "$(cat data/admin.key)", "team-a"):
        assert needed in block, f"the quick start no longer names {needed!r}: update this test's substitutions"
    block = (block.replace("localhost:8000", f"127.0.0.1:{port}").replace("$(cat data/admin.key)", TEST_ADMIN_KEY)
             .replace("team-a", f"qs-{suffix}-a").replace("team-b", f"qs-{suffix}-b"))  # fmt: skip
    found = commands(block)
    assert found[0].text.startswith("make run &"), found[0].text
    return f"qs-{suffix}", found[1:]


def test_the_readme_quick_start_runs_as_written(quick_start: tuple[str, list[Command]], tmp_path: Path,
                                                live_api: str) -> None:  # fmt: skip
    prefix, steps = quick_start
    script = ["set -u"]
    for i, step in enumerate(steps):
        script += ["{", step.text, f"}} > out.{i} 2> err.{i}", f"echo $? > rc.{i}"]
    run = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    try:
        assert run.returncode == 0, run.stderr
        assert len(steps) >= 10, "the quick start lost its commands"
        failures = [f"{step.text}\n  " + "\n  ".join(problems)
                    for i, step in enumerate(steps) if (problems := _problems(tmp_path, i, step))]  # fmt: skip
        assert not failures, "\n\n".join(failures)
        assert (tmp_path / f"{prefix}-a.graphml").read_text().startswith("<?xml")  # the export went to its file
    finally:
        with httpx.Client(base_url=live_api, headers=admin_headers()) as client:
            for name in (f"{prefix}-a", f"{prefix}-b"):
                client.delete(f"/v1/namespaces/{name}")
