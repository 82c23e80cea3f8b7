"""The memory explorer: a static, read-only page at `/explorer` that calls the `/v1` read routes with
the bearer key the user enters (kept in the tab's sessionStorage). The page needs no key itself; its
graph library comes from npm (`app/explorer/package.json`, installed by scripts/install.sh) and is
served from `/explorer/vendor/`."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

EXPLORER_DIR = Path(__file__).resolve().parent.parent / "explorer"
STATIC_DIR = EXPLORER_DIR / "static"
# Only the distribution folder of each library is served, not the whole node_modules tree.
VENDOR_DIRS = {"cytoscape": EXPLORER_DIR / "node_modules" / "cytoscape" / "dist"}


class MountedFiles(StaticFiles):
    """Static files that name their requests by the mount's path (`/explorer`) in the access log and
    the metrics, as routes are named by their template (app/observability/middleware.py)."""

    def __init__(self, path: str, directory: Path, html: bool = False, check_dir: bool = True) -> None:
        super().__init__(directory=directory, html=html, check_dir=check_dir)
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["route"] = self
        await super().__call__(scope, receive, send)


def mount_explorer(app: FastAPI) -> None:
    """Serve the page, and its libraries once `npm ci` has installed them."""
    for name, directory in VENDOR_DIRS.items():  # before `/explorer`, which would shadow them
        path = f"/explorer/vendor/{name}"
        app.mount(path, MountedFiles(path, directory, check_dir=False), name=f"vendor-{name}")
    app.mount("/explorer", MountedFiles("/explorer", STATIC_DIR, html=True), name="explorer")
