#!/usr/bin/env bash
# `make stop`: stop the local engines that `make run` started (their data stays on disk).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python scripts/neo4j_local.py stop
.venv/bin/python scripts/redis_local.py stop
