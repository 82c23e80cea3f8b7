"""Where suspended task trees are kept: files in the data folder, one folder per task.

    <HIPPOGRAPH_DATA_DIR>/suspensions/<namespace term>/<task digest>/tree.json
    <HIPPOGRAPH_DATA_DIR>/suspensions/<namespace term>/<task digest>/activations-<stamp>.graphml

Folder names never come from the caller's text: the namespace's term ("ns" + the name's hex, as
stored on every node; a name may be "..") and a digest of the task id (an id may hold "/"). Each
suspension writes its GraphML under a new name first, then replaces `tree.json` (which names that
GraphML) atomically, then removes older GraphML files: a crash at any point leaves the previous
suspension whole or the new one whole, never a tree with another suspension's activations.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from datetime import datetime
from pathlib import Path

from app.domain.inputs import namespace_term, stable_digest

TREE_FILE = "tree.json"


def graphml_name(suspended_at: datetime) -> str:
    """The GraphML file of the suspension made at `suspended_at` (UTC, to the microsecond)."""
    return f"activations-{suspended_at.strftime('%Y%m%dT%H%M%S%fZ')}.graphml"


class SuspensionFiles:
    def __init__(self, root: Path) -> None:
        self.root = root

    def folder(self, namespace: str, task_id: str) -> Path:
        return self.root / namespace_term(namespace) / stable_digest("task", task_id)

    def write(self, namespace: str, task_id: str, tree_json: str, graphml_file: str, graphml: str) -> Path:
        """Store one suspension (see the module's note on the order); returns its folder."""
        folder = self.folder(namespace, task_id)
        folder.mkdir(parents=True, exist_ok=True)
        _write_atomically(folder / graphml_file, graphml)
        _write_atomically(folder / TREE_FILE, tree_json)
        for old in folder.glob("activations-*.graphml"):
            if old.name != graphml_file:
                old.unlink(missing_ok=True)
        return folder

    def read(self, namespace: str, task_id: str, name: str = TREE_FILE) -> str | None:
        """A file of the task's suspension (its tree by default); None when there is none."""
        if "/" in name or name.startswith("."):  # names come from tree.json; never outside the folder
            return None
        path = self.folder(namespace, task_id) / name
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def erase_namespace(self, namespace: str) -> None:
        shutil.rmtree(self.root / namespace_term(namespace), ignore_errors=True)


def _write_atomically(path: Path, text: str) -> None:
    """Written to a temporary file in the same folder, flushed to disk, then renamed over `path`."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
