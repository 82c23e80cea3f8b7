"""Write the API's OpenAPI document to a file: the snapshot the TypeScript client generates its types
from (clients/typescript/openapi.json; tests/test_typescript_client.py fails when it is stale).

    .venv/bin/python scripts/export_openapi.py [--output clients/typescript/openapi.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SNAPSHOT = REPO / "clients" / "typescript" / "openapi.json"
if str(REPO) not in sys.path:  # run as a script: the checkout's app, not an installed one
    sys.path.insert(0, str(REPO))


def document() -> dict[str, Any]:
    """The document `/openapi.json` serves (the same for every app, whatever its settings)."""
    from app.api.main import create_app

    return create_app().openapi()


def rendered(found: dict[str, Any]) -> str:
    return json.dumps(found, indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=SNAPSHOT)
    args = parser.parse_args()
    args.output.write_text(rendered(document()), encoding="utf-8")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
