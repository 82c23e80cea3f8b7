"""`make stop` stops the API `make run` started (its pid files), and a second start on a data folder in
use says which process holds it, instead of the embedded vector engine's bare
`failed to open WAL …: Kind(WouldBlock)` (issue 38)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.stores.folder_users import describe, processes_using
from tests.conftest import REPO, TEST_ADMIN_KEY, Services, free_port, terminate

SUPERVISE = str(REPO / "scripts" / "supervise.py")


def test_the_processes_holding_a_folder_are_named(tmp_path: Path) -> None:
    held = tmp_path / "held" / "wal"
    held.parent.mkdir()
    held.write_text("x")
    holder = subprocess.Popen([sys.executable, "-c", f"f = open({str(held)!r}); import time; time.sleep(60)"])
    try:
        deadline = time.monotonic() + 10
        while holder.pid not in processes_using(held.parent) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert processes_using(held.parent) == [holder.pid]
        assert processes_using(tmp_path / "elsewhere") == []
        assert describe(holder.pid).startswith(f"pid {holder.pid} ({sys.executable} -c f = open(")
    finally:
        terminate(holder)


@pytest.fixture
def environment(services: Services, tmp_path: Path) -> dict[str, str]:
    """A `make run` environment on a data folder of its own, against the suite's engines (a Redis
    database of its own: the API hosts a Celery worker on the default queue)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPOGRAPH_", "NEO4J_", "REDIS_"))}
    env.update({"NEO4J_URI": services.neo4j_uri, "NEO4J_USER": services.neo4j_user,
                "NEO4J_PASSWORD": services.neo4j_password, "REDIS_URL": services.redis_url.rsplit("/", 1)[0] + "/9",
                "HIPPOGRAPH_DATA_DIR": str(tmp_path / "data"), "HIPPOGRAPH_ADMIN_KEY": TEST_ADMIN_KEY,
                "HIPPOGRAPH_PORT": str(free_port()), "HIPPOGRAPH_LOG_FORMAT": "text",
                "PYTHONUNBUFFERED": "1"})  # fmt: skip
    return env


@pytest.fixture
def supervised(environment: dict[str, str], tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`make run`'s supervisor serving the API (engines run by the suite: `--no-engines`), ready."""
    log = (tmp_path / "supervise.log").open("wb")
    process = subprocess.Popen([sys.executable, SUPERVISE, "--no-engines"], cwd=REPO, env=environment,
                               stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
    url = f"http://127.0.0.1:{environment['HIPPOGRAPH_PORT']}"
    deadline = time.monotonic() + 180
    while True:
        assert process.poll() is None, (tmp_path / "supervise.log").read_text()
        try:
            if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the API did not become ready"
        time.sleep(0.5)
    try:
        yield process
    finally:
        terminate(process)
        log.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[-1][:3]


def test_a_second_start_names_the_holder_and_stop_stops_the_api(
    supervised: subprocess.Popen[bytes], environment: dict[str, str], tmp_path: Path
) -> None:
    data = Path(environment["HIPPOGRAPH_DATA_DIR"])
    supervisor_pid = int((data / "supervise.pid").read_text())
    api_pid = int((data / "api.pid").read_text())
    assert supervisor_pid == supervised.pid and _alive(api_pid)

    # `make run` again on the same folder: refused at once, naming the supervisor that holds it.
    again = subprocess.run([sys.executable, SUPERVISE, "--no-engines"], cwd=REPO, env=environment,
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert again.returncode == 3, again.stderr
    assert f"in use by pid {supervisor_pid} (" in again.stderr and "make stop" in again.stderr

    # An API started by hand on the same folder (no pid file to read): the vector folder's holder is named.
    other = dict(environment, HIPPOGRAPH_PORT=str(free_port()))
    by_hand = subprocess.run([sys.executable, "-m", "app"], cwd=REPO, env=other, capture_output=True, text=True,
                             timeout=180)  # fmt: skip
    assert by_hand.returncode != 0
    output = by_hand.stdout + by_hand.stderr
    assert "vector folder" in output and "is in use by pid" in output, output[-3000:]
    named = output.split("is in use by", 1)[1].split("\n", 1)[0]
    assert f"pid {api_pid} (" in named and "WouldBlock" not in named  # the API, or the child it started

    # `make stop`'s first step stops the supervisor and its API, and their pid files go.
    stopped = subprocess.run([sys.executable, SUPERVISE, "--stop"], cwd=REPO, env=environment,
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert stopped.returncode == 0 and "stopped" in stopped.stdout, stopped.stderr
    assert supervised.wait(timeout=30) == 0
    assert not _alive(api_pid)
    assert not (data / "supervise.pid").exists() and not (data / "api.pid").exists()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{environment['HIPPOGRAPH_PORT']}/healthz", timeout=5)
    assert "was not running" in subprocess.run([sys.executable, SUPERVISE, "--stop"], cwd=REPO, env=environment,
                                               capture_output=True, text=True, timeout=60).stdout  # fmt: skip
