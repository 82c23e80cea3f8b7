"""The bootstrap admin key: `HIPPOGRAPH_ADMIN_KEY`, or one generated at first start into the data
folder (mode 0600) so that a fresh install is never open. Its path is logged, never the key."""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

from app.domain.keys import KEY_PREFIX
from app.settings import Settings

log = logging.getLogger(__name__)

ADMIN_KEY_FILE = "admin.key"


def admin_key_path(settings: Settings) -> Path:
    return settings.data_dir / ADMIN_KEY_FILE


def bootstrap_admin_key(settings: Settings) -> str:
    if settings.admin_key is not None and settings.admin_key.get_secret_value():
        return settings.admin_key.get_secret_value()
    path = admin_key_path(settings)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        key = f"{KEY_PREFIX}admin_{secrets.token_urlsafe(32)}"
        # O_EXCL: two processes starting at once never overwrite each other's key.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                file.write(key + "\n")
            log.warning("HIPPOGRAPH_ADMIN_KEY is not set: generated the bootstrap admin key into %s", path)
    key = path.read_text(encoding="utf-8").strip()
    if not key:
        raise RuntimeError(f"{path} is empty: delete it or set HIPPOGRAPH_ADMIN_KEY")
    log.info("bootstrap admin key read from %s", path)
    return key
