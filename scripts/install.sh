#!/usr/bin/env bash
# Install everything Hippograph needs on a fresh machine: the Python environment (.venv), Debian's
# redis-server, the Neo4j server jars from Maven Central, the embedding model's ONNX export, the
# memory explorer's npm packages with Debian's chromium (its browser test), and the TypeScript client's build tools.
# Safe to re-run: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

python_bin=${PYTHON:-python3}
"$python_bin" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || { echo "error: Python >= 3.11 is required ($python_bin is $("$python_bin" --version 2>&1))" >&2; exit 2; }

# 1. Python dependencies, pinned by constraints.txt (torch alone is ~3 GB; pip's cache makes reinstalls free).
[ -x .venv/bin/python ] || "$python_bin" -m venv .venv
stamp=.venv/.hippograph-installed
want=$(cat pyproject.toml clients/python/pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "installing Python dependencies into .venv ..."
  .venv/bin/python -m pip install -q --upgrade pip
  # Both distributions, editable, in one command: the server's `hippograph-client==<version>`
  # resolves to the light one of clients/python, not to the package index.
  .venv/bin/python -m pip install -q -c constraints.txt -e ./clients/python -e ".[dev]"
  echo "$want" > "$stamp"
fi

# 2. Redis from Debian's packages (no systemd needed: scripts/redis_local.py starts it).
if ! command -v redis-server >/dev/null 2>&1; then
  echo "installing redis-server from Debian's packages ..."
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq redis-server >/dev/null
fi

# 3. The Neo4j server jars (cached in .cache/neo4j/<version>/lib).
.venv/bin/python scripts/neo4j_local.py fetch

# 4. The embedding model's ONNX export (HIPPOGRAPH_MODEL_CACHE; a no-op when it is there already).
.venv/bin/python -m app.embedding.onnx_export >/dev/null

# 5. openapi-python-client, in a venv of its own (.cache/tools): tests/test_generated_client.py checks
#    that a standard generator builds a working client from /openapi.json. A build tool, not a library:
#    its own pins (typer<0.28) must not constrain the product's environment.
generator=.cache/tools/openapi-python-client
if [ ! -x "$generator/bin/openapi-python-client" ]; then
  echo "installing openapi-python-client into $generator ..."
  "$python_bin" -m venv "$generator"
  "$generator/bin/python" -m pip install -q "openapi-python-client==0.29.1"
fi

# 5b. uv and pipx, in a venv of their own (.cache/tools/mcp-launchers): tests/test_packaging.py starts
#     the stdio MCP bridge from the light client's wheel with the README's `uvx` and `pipx run` lines.
launchers=.cache/tools/mcp-launchers
if [ ! -x "$launchers/bin/uvx" ] || [ ! -x "$launchers/bin/pipx" ]; then
  echo "installing uv and pipx into $launchers ..."
  "$python_bin" -m venv "$launchers"
  "$launchers/bin/python" -m pip install -q "uv==0.13.9" "pipx==1.18.4"
fi

# 6. The memory explorer (/explorer): its graph library from npm, pinned by app/explorer/package-lock.json
#    and served as is (no bundle, no build step); and Debian's chromium + chromedriver, the headless
#    browser tests/test_explorer.py drives (nothing downloads a browser at run time).
if [ ! -f app/explorer/node_modules/.package-lock.json ] \
   || ! cmp -s app/explorer/package-lock.json app/explorer/node_modules/.hippograph-lock; then
  echo "installing the explorer's npm packages ..."
  (cd app/explorer && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.hippograph-lock)
fi
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  echo "installing chromium and chromium-driver from Debian's packages ..."
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# 7. The TypeScript client's build tools (openapi-typescript, tsc), pinned by clients/typescript/package-lock.json:
#    installed here so npm's cache holds them and tests/test_typescript_client.py's `npm ci` runs offline.
if [ ! -f clients/typescript/node_modules/.package-lock.json ] \
   || ! cmp -s clients/typescript/package-lock.json clients/typescript/node_modules/.hippograph-lock; then
  echo "installing the TypeScript client's npm packages ..."
  (cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.hippograph-lock)
fi
