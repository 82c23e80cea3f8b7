"""`/docs` (Swagger UI) and `/redoc` with their assets served by the API itself: FastAPI's own pages
load them from a CDN and are blank offline. The assets come from the `fastapi-offline` package (the
Swagger UI and Redoc bundles, kept current by its maintainer; pinned in pyproject.toml), served from
`/docs/assets/`; the pages are FastAPI's, pointed there, with no web fonts and no validator badge."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse

from app.api.explorer import MountedFiles

ASSETS_PATH = "/docs/assets"
# The package's data folder (swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js, favicon.png).
ASSETS_DIR = Path(str(files("fastapi_offline") / "static"))
# Swagger UI's validator badge would send the document's URL to validator.swagger.io.
SWAGGER_PARAMETERS = {"validatorUrl": None}
# The pages may fetch, show and load only what this API serves: Redoc's sidebar shows its maker's logo
# from their CDN unconditionally (no option turns it off); the browser does not ask for it.
CONTENT_SECURITY_POLICY = "connect-src 'self'; img-src 'self' data:; font-src 'self' data:"


def _local_only(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return page


def mount_docs(app: FastAPI) -> None:
    """Serve the two pages and their assets. The app must be built with `docs_url=None, redoc_url=None`."""
    app.mount(ASSETS_PATH, MountedFiles(ASSETS_PATH, ASSETS_DIR), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"
    redirect_url = app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _local_only(get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=f"{root}{redirect_url}",
            swagger_js_url=f"{root}{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_PATH}/favicon.png",
            swagger_ui_parameters=SWAGGER_PARAMETERS,
        ))

    @app.get(redirect_url, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _local_only(get_redoc_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS_PATH}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS_PATH}/favicon.png",
            with_google_fonts=False,
        ))
