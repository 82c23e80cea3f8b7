"""Which processes hold files open under a folder (Linux /proc): what start-up names when the embedded
vector folder is locked by another process, instead of the engine's bare `WouldBlock`."""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def command_line(pid: int, proc: Path = PROC) -> str:
    """The process's command line, as `ps` shows it ('?' when it cannot be read)."""
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part) or "?"


def parent_pid(pid: int, proc: Path = PROC) -> int | None:
    try:
        stat = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])  # after "(comm)": state, ppid


def processes_using(folder: Path, proc: Path = PROC) -> list[int]:
    """Pids (other than this one) with a file under `folder` open, ascending."""
    root = str(folder.resolve())
    found = set()
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            targets = [os.readlink(fd) for fd in (entry / "fd").iterdir()]
        except OSError:  # gone, or not ours to read
            continue
        if any(target == root or target.startswith(root + os.sep) for target in targets):
            found.add(int(entry.name))
    return sorted(found)


def describe(pid: int, proc: Path = PROC) -> str:
    """'pid N (command)', with the parent that started it when it is a multiprocessing child (the
    API's vector process: its parent is the API)."""
    command = command_line(pid, proc)
    text = f"pid {pid} ({command})"
    parent = parent_pid(pid, proc) if "multiprocessing" in command else None
    if parent:
        text += f", started by pid {parent} ({command_line(parent, proc)})"
    return text
