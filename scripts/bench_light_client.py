"""Install figures of the light client (issue 38: ≤ 50 MB installed, ≤ 30 s from the package index).

    .venv/bin/python scripts/bench_light_client.py [--runs 3]

Builds the `hippograph-client` wheel from clients/python, then, per run, installs it into a fresh
virtual environment as a user would: `pip install` with pip's defaults (dependencies from the
package index, compiled to `.pyc`), cold (`--no-cache-dir`). Prints each run's seconds and the
environment's size (every file's bytes; its python is a symlink to the base interpreter). A timing
is a figure of the machine's load, not a test: tests/test_packaging.py checks the size and what
installs, not the time.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def installed_bytes(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file() and not path.is_symlink())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-light-") as scratch:
        work = Path(scratch)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist"),
                        str(REPO / "clients" / "python")], check=True)  # fmt: skip
        [wheel] = (work / "dist").glob("hippograph_client-*.whl")
        seconds: list[float] = []
        for run in range(args.runs):
            venv = work / f"venv{run}"
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
            started = time.monotonic()
            subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                            "--no-cache-dir", str(wheel)], check=True)  # fmt: skip
            seconds.append(time.monotonic() - started)
            print(f"run {run + 1}: installed in {seconds[-1]:.1f} s, {installed_bytes(venv) / 1e6:.1f} MB", flush=True)
        print(f"median {statistics.median(seconds):.1f} s over {len(seconds)} runs (target 30 s; 50 MB)")


if __name__ == "__main__":
    main()
