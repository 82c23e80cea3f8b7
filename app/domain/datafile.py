"""Reading the YAML data files that hold the project's rules (importance, fact patterns, inferences)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

# libyaml's parser when PyYAML was built with it (the wheels are): the same safe loading, ~10x faster
# (every Runtime reads the rule files at start-up).
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path, what: str) -> Any:
    """The parsed file; a syntax error becomes a ValueError naming `what` and the path."""
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise ValueError(f"{what} {path}: not valid YAML: {exc}") from exc
