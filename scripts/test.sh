#!/usr/bin/env bash
# `make test`: install, lint, then the whole suite against real engines. tests/conftest.py uses
# NEO4J_URI / REDIS_URL / QDRANT_URL when set, testcontainers when a Docker engine answers, and
# otherwise starts local Neo4j and Redis through scripts/neo4j_local.py and scripts/redis_local.py.
# The suite runs on HIPPOGRAPH_TEST_WORKERS pytest-xdist workers (4 by default on the 2-core reference
# machine: the drills spend most of their time waiting; 0 runs it in this process), sharing one Neo4j
# and each with a Redis of its own (tests/conftest.py), a test file to one worker (its module fixtures are built once), in the order
# tests/conftest.py gives (the drills first; xdist would sort files by their number of tests). Extra
# arguments go to pytest: `make test-fast` passes `-m "not drill"`. The 40 slowest tests are listed
# at the end (where the next speed-up is).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/ruff check app jobs scripts tests clients/python
.venv/bin/mypy app jobs clients/python/hippograph
# Byte-code caching on, whatever the environment says: with PYTHONDONTWRITEBYTECODE every worker and
# every Python subprocess of the suite compiles app/, tests/ and the client again (collection alone
# 10 s of CPU a worker instead of 6).
unset PYTHONDONTWRITEBYTECODE
workers=${HIPPOGRAPH_TEST_WORKERS:-4}
.venv/bin/python -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder --durations=40 "$@"
