"""`python -m app.mcp --namespace NS`: the MCP stdio server. The key comes from HIPPOGRAPH_API_KEY and
the API's address from HIPPOGRAPH_URL (default http://127.0.0.1:8000): a client's variables, not the
service's settings (app/settings.py), so they are read here."""

from __future__ import annotations

import argparse
import os
import sys

from app.mcp.stdio import serve_stdio

DEFAULT_URL = "http://127.0.0.1:8000"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.mcp", description="Hippograph's tools over MCP (stdio)")
    parser.add_argument("--namespace", required=True, help="the namespace the tools work on")
    args = parser.parse_args(argv)
    api_key = os.environ.get("HIPPOGRAPH_API_KEY")
    if not api_key:
        print("HIPPOGRAPH_API_KEY is not set: the MCP server calls the API with that key", file=sys.stderr)
        return 2
    serve_stdio(args.namespace, os.environ.get("HIPPOGRAPH_URL") or DEFAULT_URL, api_key)
    return 0


if __name__ == "__main__":
    sys.exit(main())
