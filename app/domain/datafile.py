"""Reading the YAML data files that hold the project's rules (importance, fact patterns, inferences)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def read_yaml(path: Path, what: str) -> Any:
    """The parsed file; a syntax error becomes a ValueError naming `what` and the path."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{what} {path}: not valid YAML: {exc}") from exc
