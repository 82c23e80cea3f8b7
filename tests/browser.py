"""Headless Chromium for the browser tests (Debian's chromium and chromedriver, installed by
scripts/install.sh; nothing downloads a browser), with Chrome's performance log on: the DevTools
network events, so a test can name every URL a page requested."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver


def _binary(name: str) -> str:
    found = shutil.which(name)
    assert found, f"{name} is not installed: run scripts/install.sh (Debian's chromium and chromium-driver)"
    return found


def chromium() -> Iterator[WebDriver]:
    """A headless Chromium (the body of the `browser` fixtures)."""
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not fetch anything; the paths are given
    options = webdriver.ChromeOptions()
    options.binary_location = _binary("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1600,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=_binary("chromedriver")))
    try:
        yield driver
    finally:
        driver.quit()


@dataclass(frozen=True)
class Request:
    url: str
    blocked: str | None  # why the browser itself refused to send it (e.g. "csp"), if it did


def requests_made(driver: WebDriver) -> list[Request]:
    """Every request the page started since the last call (DevTools `Network.requestWillBeSent`, sent
    whether or not an answer came), with the reason of `Network.loadingFailed` when the browser
    blocked it before it left (a Content-Security-Policy, for example)."""
    urls: dict[str, str] = {}
    blocked: dict[str, str] = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.requestWillBeSent":
            urls[params["requestId"]] = params["request"]["url"]
        elif message["method"] == "Network.loadingFailed" and params.get("blockedReason"):
            blocked[params["requestId"]] = params["blockedReason"]
    return [Request(url, blocked.get(request_id)) for request_id, url in urls.items()]


def sent_off_host(requests: list[Request], host: str) -> list[Request]:
    """The requests that left for another host than `host`: not blocked by the browser, not data:/blob:."""
    return [request for request in requests if request.blocked is None
            and urlsplit(request.url).scheme not in {"data", "blob"} and urlsplit(request.url).hostname != host]
