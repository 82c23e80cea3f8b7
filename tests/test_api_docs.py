"""`/docs` (Swagger UI) and `/redoc` work offline: their pages name only assets the API serves itself
(app/api/docs.py, from the fastapi-offline package), and in headless Chromium both render the whole
API while no request leaves the machine (issue 38)."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import chromium, requests_made, sent_off_host
from tests.conftest import TEST_ADMIN_KEY

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "docs"
PAGES = ("/docs", "/redoc")


class AssetUrls(HTMLParser):
    """The URLs a page names: `src`, `href` and Redoc's `spec-url` attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value for name, value in attrs if name in {"src", "href", "spec-url"} and value]


def _app_client():  # type: ignore[no-untyped-def]
    """The app without engines (the docs need none; no lifespan runs outside `with`)."""
    from fastapi.testclient import TestClient

    from app.api.main import create_app
    from app.settings import Settings

    return TestClient(create_app(Settings(HIPPOGRAPH_ADMIN_KEY=TEST_ADMIN_KEY)))


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_docs_pages_name_only_assets_the_api_serves(page: str) -> None:
    client = _app_client()
    response = client.get(page)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert "://" not in response.text, "the page names an absolute URL (a CDN?)"
    parser = AssetUrls()
    parser.feed(response.text)
    scripts = [url for url in parser.urls if url.endswith(".js")]
    assert scripts, "no script named: the page cannot render"
    for url in parser.urls:
        assert url.startswith("/") and not url.startswith("//"), url
        asset = client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.content) > (100_000 if url.endswith(".js") else 100), url  # the bundle, not a stub
    if page == "/docs":
        assert "'/openapi.json'" in response.text and '"validatorUrl": null' in response.text


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    yield from chromium()


def test_docs_and_redoc_render_in_a_browser_with_no_request_leaving_the_machine(
    live_api: str, browser: WebDriver
) -> None:
    operations = sum(len(ops) for ops in _app_client().get("/openapi.json").json()["paths"].values())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.get(f"{live_api}/docs")
    WebDriverWait(browser, 30).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) == operations,
        message=f"Swagger UI did not list the {operations} operations",
    )
    assert "Hippograph" in browser.find_element(By.CSS_SELECTOR, ".info .title").text
    browser.save_screenshot(str(ARTIFACTS / "swagger-ui.png"))
    browser.get(f"{live_api}/redoc")
    WebDriverWait(browser, 30).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-section-id^='operation/']")) == operations,
        message=f"Redoc did not list the {operations} operations",
    )
    browser.save_screenshot(str(ARTIFACTS / "redoc.png"))
    requests = requests_made(browser)
    urls = [request.url for request in requests]
    assert any(url.endswith("/docs/assets/swagger-ui-bundle.js") for url in urls)
    assert any(url.endswith("/docs/assets/redoc.standalone.js") for url in urls)
    assert sum(url.endswith("/openapi.json") for url in urls) == 2
    assert sent_off_host(requests, "127.0.0.1") == []
    # What the bundles would fetch from elsewhere, the pages' Content-Security-Policy stops in the browser
    # (Redoc's logo from its maker's CDN).
    elsewhere = [r for r in requests if urlsplit(r.url).scheme in {"http", "https"}
                 and urlsplit(r.url).hostname != "127.0.0.1"]  # fmt: skip
    assert {r.blocked for r in elsewhere} <= {"csp"}, elsewhere
