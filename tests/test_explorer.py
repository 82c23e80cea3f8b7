"""The memory explorer (`/explorer`) driven end to end in headless Chromium (Debian's chromium and
chromedriver, installed by scripts/install.sh; nothing downloads a browser) against the live API on a
seeded namespace. Screenshots go to test-artifacts/explorer/ (gitignored)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser import chromium
from tests.conftest import admin_headers, bearer

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "explorer"
WAIT_S = 20


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    yield from chromium()


class AccessLog(logging.Handler):
    """The server's access log (app/observability/middleware.py): (method, route template, status)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.requests: list[tuple[str, str, int]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.requests.append((record.method, record.route, record.status))  # type: ignore[attr-defined]


@pytest.fixture
def access_log() -> Iterator[AccessLog]:
    logger = logging.getLogger("hippograph.access")
    handler, level = AccessLog(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


@dataclass
class Seeded:
    url: str
    namespace: str
    reader_key: str
    fact_id: str  # the current "Alice moved_to" fact; an earlier one it superseded


@pytest.fixture
def seeded(live_api: str, worker: Any, namespace: str) -> Seeded:
    """A namespace with linked memories of several types, and turns through the write path that make
    a fact and a superseded one; a reader key for it."""
    with httpx.Client(base_url=live_api, headers=admin_headers(), timeout=120) as client:
        assert client.put(f"/v1/namespaces/{namespace}").status_code == 201

        def save(body: dict[str, Any]) -> str:
            response = client.post(f"/v1/namespaces/{namespace}/memories", json=body)
            assert response.status_code == 201, response.text
            return str(response.json()["id"])

        city = save({"type": "Concept", "label": "Munich", "content": "Munich, the Bavarian capital",
                     "importance": "IMPORTANT", "agent_id": "scout"})  # fmt: skip
        for i, topic in enumerate(["beer gardens", "the English Garden", "the U-Bahn", "Oktoberfest", "rent"]):
            note = save({"type": "Knowledge", "label": f"Munich {topic}", "content": f"Alice likes {topic} in Munich",
                         "importance": ["TRIVIAL", "NORMAL", "FACT"][i % 3], "agent_id": "scout"})  # fmt: skip
            link = {"source_id": city, "target_id": note, "type": "ASSOCIATION", "weight": 0.2 + 0.15 * i}
            assert client.post(f"/v1/namespaces/{namespace}/links", json=link).status_code == 201
        turns = [
            {"session_id": "s1", "turn_id": "s1:1", "speaker": "Alice", "text": "I moved to Berlin.",
             "timestamp": "2024-05-15T10:00:00+00:00"},
            {"session_id": "s1", "turn_id": "s1:2", "speaker": "Alice", "text": "I moved to Munich.",
             "timestamp": "2024-06-01T09:00:00+00:00"},
            {"session_id": "s1", "turn_id": "s1:3", "speaker": "Bob", "text": "My car is a Model Y.",
             "timestamp": "2024-06-02T09:00:00+00:00"},
        ]  # fmt: skip
        response = client.post(f"/v1/namespaces/{namespace}/turns", json={"turns": turns, "wait": True})
        assert response.status_code == 200, response.text
        history = client.post(
            f"/v1/namespaces/{namespace}/cypher",
            json={"name": "fact_history", "params": {"subject": "alice", "slot": "moved_to"}},
        ).json()["rows"]
        assert [row["value"] for row in history] == ["Berlin", "Munich"], history
        key = client.post("/v1/keys", json={"namespace": namespace, "role": "reader", "agent_id": "viewer"})
        assert key.status_code == 201, key.text
        return Seeded(live_api, namespace, key.json()["key"], history[1]["id"])


def _wait(driver: WebDriver, condition: Any, what: str) -> Any:
    return WebDriverWait(driver, WAIT_S).until(lambda d: condition(d), message=what)


def _shot(driver: WebDriver, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def _visible(driver: WebDriver, element_id: str) -> WebElement | None:
    element = driver.find_element(By.ID, element_id)
    return element if element.is_displayed() else None


def _enter_key(driver: WebDriver, key: str) -> None:
    field = driver.find_element(By.ID, "key")
    field.clear()
    field.send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#key-form button[type=submit]").click()


def _read_roles(url: str) -> dict[tuple[str, str], str | None]:
    """(METHOD, path template) -> the role the route needs, from the API's own OpenAPI document."""
    paths = httpx.get(f"{url}/openapi.json").json()["paths"]
    return {(m.upper(), p): op.get("x-required-role") for p, ops in paths.items() for m, op in ops.items()}


def test_the_explorer_shows_recall_graph_decay_and_history_in_a_browser(
    seeded: Seeded, browser: WebDriver, access_log: AccessLog, cypher: Any
) -> None:
    from app.domain.tags import temperature
    from jobs.celery_tasks import decay

    api = httpx.Client(base_url=seeded.url, headers=bearer(seeded.reader_key))
    ns = seeded.namespace
    # A decay run for the overview's job log (in this process, on the worker's runtime), then two notes
    # made warm and cold (the decay would have recomputed them).
    decayed = decay(ns)[ns]
    now = datetime.now(UTC)
    for label, ago in (("Munich the U-Bahn", timedelta(hours=3)), ("Munich rent", timedelta(days=3))):
        cypher("MATCH (m:Memory {namespace: $ns, label: $label}) SET m.last_accessed = $at", ns=ns, label=label,
               at=now - ago)  # fmt: skip
    activations = cypher("MATCH (m:Memory {namespace: $ns}) RETURN m.last_accessed AS at", ns=ns)
    bands = [temperature(row["at"], now).value.lower() for row in activations]
    expected_temperatures = {band: bands.count(band) for band in ("hot", "warm", "cold")}
    assert expected_temperatures["warm"] >= 1 and expected_temperatures["cold"] >= 1
    browser.get(f"{seeded.url}/explorer/")

    # A wrong key is refused, and the page says so.
    _enter_key(browser, "hg_not-a-key")
    refusal = _wait(browser, lambda d: _visible(d, "refusal"), "the refusal is shown")
    assert "401" in refusal.text and "API key" in refusal.text
    assert not browser.find_element(By.ID, "workspace").is_displayed()
    _shot(browser, "1-refused")

    # The reader key opens the namespace overview.
    _enter_key(browser, seeded.reader_key)
    total = _wait(browser, lambda d: d.find_elements(By.ID, "overview-total"), "the overview")[0]
    detail = api.get(f"/v1/namespaces/{ns}").json()
    assert total.text.startswith(f"{detail['total']} memories")
    assert not browser.find_element(By.ID, "refusal").is_displayed()

    # The overview's temperature counts: the bands of the last accesses, as the API and tags.py count them.
    rows = browser.find_elements(By.CSS_SELECTOR, "#temperatures tbody tr")
    shown = {(cells := row.find_elements(By.TAG_NAME, "td"))[0].text: int(cells[1].text) for row in rows}
    assert shown == detail["temperatures"] == expected_temperatures
    assert sum(shown.values()) == detail["total"] == len(activations)
    # Its recent job runs: the decay run above, with what it counted (beat runs of other jobs may be there).
    runs = [[td.text for td in row.find_elements(By.TAG_NAME, "td")]
            for row in browser.find_elements(By.CSS_SELECTOR, "#job-runs tbody tr")]  # fmt: skip
    decay_rows = [row for row in runs if row[0] == "decay"]
    assert len(decay_rows) == 1, runs
    assert decay_rows[0][3] == "ok" and decay_rows[0][2].endswith(" ms")
    assert decay_rows[0][4] == ", ".join(f"{name} {count}" for name, count in decayed.items())
    assert browser.execute_script("return sessionStorage.getItem('hippograph.key')") == seeded.reader_key

    # A recall: cards with their score parts as bars.
    browser.find_element(By.ID, "query").send_keys("Where did Alice move to?")
    browser.find_element(By.ID, "history").click()  # include superseded facts
    browser.find_element(By.CSS_SELECTOR, "#search-form button").click()
    cards = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#cards .card"), "recall cards")
    answer = api.post(f"/v1/namespaces/{ns}/recall", json={"query": "Where did Alice move to?", "include_history": True,
                                                           "top_k": 20}).json()  # fmt: skip
    assert [card.get_attribute("data-id") for card in cards] == [item["id"] for item in answer["items"]]
    first_bars = cards[0].find_elements(By.CSS_SELECTOR, ".explain dd .bar")
    assert len(first_bars) == len(answer["items"][0]["explain"]) > 0
    assert max(bar.size["width"] for bar in first_bars) > 0
    _shot(browser, "2-recall")

    # The current fact's card opens its neighbourhood; the graph holds what the API answers.
    fact_card = next(card for card in cards if card.get_attribute("data-id") == seeded.fact_id)
    fact_card.click()
    stats = _wait(
        browser,
        lambda d: (s := d.find_element(By.ID, "graph-stats")).get_attribute("data-nodes") and s,
        "the neighbourhood graph",
    )
    related = api.get(f"/v1/namespaces/{ns}/nodes/{seeded.fact_id}/related",
                      params={"depth": 2, "limit": 50, "fanout": 50, "edges": True}).json()  # fmt: skip
    assert int(stats.get_attribute("data-nodes")) == len(related["items"]) + 1 > 2
    assert int(stats.get_attribute("data-edges")) == len(related["edges"]) > 0
    first_hop = sum(1 for item in related["items"] if item["distance"] == 1)
    assert int(stats.get_attribute("data-more")) == related["neighbours"] - first_hop == 0  # nothing left out
    paint_ms = float(browser.find_element(By.ID, "graph").get_attribute("data-paint-ms"))
    print(f"\nfirst paint of the neighbourhood ({len(related['items']) + 1} nodes): {paint_ms:.0f} ms")
    assert paint_ms > 0  # the page measured its first paint; the budget is checked by scripts/bench_explorer.py

    # Its panel: the decay curve from the server, with the soft-forget line, and the fact's history.
    panel = _wait(browser, lambda d: _visible(d, "panel"), "the node panel")
    assert panel.get_attribute("data-id") == seeded.fact_id
    curve = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#decay svg path.curve"), "the decay curve")[0]
    projected = api.get(f"/v1/namespaces/{ns}/nodes/{seeded.fact_id}/decay").json()
    assert int(curve.get_attribute("data-points")) == len(projected["points"]) == 14 * 4 + 1
    assert panel.find_elements(By.CSS_SELECTOR, "#decay svg line.soft-forget")
    rows = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#history-view tbody tr"), "the fact history")
    cells = [[td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    assert [row[0] for row in cells] == ["Berlin", "Munich"]
    assert cells[0][2] != "—" and cells[0][3] == seeded.fact_id  # Berlin held until Munich replaced it
    assert cells[1][2] == "—"
    _shot(browser, "3-neighbourhood")

    # Clicking a node in the graph opens its panel and expands its neighbourhood.
    before = int(stats.get_attribute("data-nodes"))
    other = next(item for item in related["items"] if item["distance"] == 1)
    canvas = browser.find_element(By.CSS_SELECTOR, "#graph canvas:last-of-type")
    x, y = browser.execute_script(
        "const p = window.hippographExplorer.graph.cy.getElementById(arguments[0]).renderedPosition();"
        "return [p.x, p.y];",
        other["id"],
    )
    origin = canvas.size
    ActionChains(browser).move_to_element_with_offset(canvas, x - origin["width"] / 2, y - origin["height"] / 2)\
        .click().perform()  # fmt: skip
    _wait(browser, lambda d: d.find_element(By.ID, "panel").get_attribute("data-id") == other["id"], "the node's panel")
    expanded = api.get(f"/v1/namespaces/{ns}/nodes/{other['id']}/related",
                       params={"depth": 1, "limit": 50, "fanout": 50}).json()  # fmt: skip
    new_ids = {item["id"] for item in expanded["items"]} - {seeded.fact_id} - {i["id"] for i in related["items"]}
    _wait(browser, lambda d: int(stats.get_attribute("data-nodes")) == before + len(new_ids), "the expanded graph")
    _shot(browser, "4-node-panel")

    # Only read routes were called by the page (the reader key could not do more, but the page never tried).
    called = {(method, route) for method, route, _ in access_log.requests}  # before this test's own OpenAPI read
    roles = _read_roles(seeded.url)
    assert {("POST", "/v1/namespaces/{ns}/recall"), ("GET", "/v1/namespaces/{ns}/nodes/{node_id}/decay"),
            ("GET", "/v1/namespaces/{ns}/jobs/runs")} <= called  # fmt: skip
    for method, route in called:
        if route.startswith("/v1"):
            assert roles[(method, route)] in ("reader", "key"), (method, route)
        else:
            assert method == "GET" and route.startswith("/explorer"), (method, route)
    assert all(status < 500 for _, _, status in access_log.requests), access_log.requests


def _graph(driver: WebDriver, script: str) -> Any:
    """`script` with `cy` bound to the page's Cytoscape instance."""
    return driver.execute_script(f"const cy = window.hippographExplorer.graph.cy; {script}")


def _mouse_to_node(driver: WebDriver, node_id: str) -> ActionChains:
    canvas = driver.find_element(By.CSS_SELECTOR, "#graph canvas:last-of-type")
    x, y = _graph(driver, "const p = cy.getElementById(arguments[0]).renderedPosition(); return [p.x, p.y];"
                  .replace("arguments[0]", repr(node_id)))  # fmt: skip
    return ActionChains(driver).move_to_element_with_offset(canvas, x - canvas.size["width"] / 2,
                                                            y - canvas.size["height"] / 2)  # fmt: skip


def test_a_reader_explores_a_namespace_holding_private_memories_in_a_browser(
    seeded: Seeded, browser: WebDriver, access_log: AccessLog, runtime: Any
) -> None:
    """Another agent's private memory makes the namespace refuse analyst Cypher below admin: the
    reader still gets the overview (from the routes it may read), recall, the neighbourhood with its
    legend and the node panel, and no refusal banner; what needs analytics says so in place."""
    ns = seeded.namespace
    with httpx.Client(base_url=seeded.url, headers=admin_headers()) as admin:
        secret = {"type": "Knowledge", "label": "Salary", "content": "Alice earns a secret amount", "private": True,
                  "agent_id": "hr-bot"}  # fmt: skip
        assert admin.post(f"/v1/namespaces/{ns}/memories", json=secret).status_code == 201
    # Activations move apart by importance: decayed as of a day from now. Decayed as of now, data saved
    # within the same second would all still sit at exactly 1 (decay counts whole seconds).
    runtime.forgetting.decay(ns, datetime.now(UTC) + timedelta(days=1))
    api = httpx.Client(base_url=seeded.url, headers=bearer(seeded.reader_key))

    browser.get(f"{seeded.url}/explorer/")
    landing = browser.find_element(By.ID, "landing")
    for where in ("keys create reader", "POST /v1/keys", "HIPPOGRAPH_ADMIN_KEY", "admin.key"):
        assert where in landing.text, where  # where a key comes from
    _enter_key(browser, seeded.reader_key)
    total = _wait(browser, lambda d: d.find_elements(By.ID, "overview-total"), "the overview")[0]
    detail = api.get(f"/v1/namespaces/{ns}").json()
    assert total.text.startswith(f"{detail['total']} memories")
    assert not browser.find_element(By.ID, "refusal").is_displayed()
    assert not landing.is_displayed()
    types = {(cells := row.find_elements(By.TAG_NAME, "td"))[0].text: int(cells[1].text)
             for row in browser.find_elements(By.CSS_SELECTOR, "#types tbody tr")}  # fmt: skip
    assert types == detail["counts"]
    listed = api.get(f"/v1/namespaces/{ns}/memories", params={"limit": 200}).json()["items"]
    writers = {(cells := row.find_elements(By.TAG_NAME, "td"))[0].text: int(cells[1].text)
               for row in browser.find_elements(By.CSS_SELECTOR, "#recent-writers tbody tr")}  # fmt: skip
    assert sum(writers.values()) == len(listed) and "hr-bot" not in writers  # the private memory is not listed
    assert not [r for r in access_log.requests if r[1].endswith("/cypher")]  # the overview ran no analyst query
    # The analytics, on demand, say in place that this key may not run them here.
    browser.find_element(By.CSS_SELECTOR, "#analytics summary").click()
    note = _wait(browser, lambda d: _visible(d, "analytics-refused"), "the analytics' refusal in place")
    assert "refused for this key" in note.text and not browser.find_element(By.ID, "refusal").is_displayed()
    _shot(browser, "5-reader-overview")

    # Recall, the neighbourhood and the node panel.
    browser.find_element(By.ID, "query").send_keys("Where did Alice move to?")
    browser.find_element(By.CSS_SELECTOR, "#search-form button").click()
    cards = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#cards .card"), "recall cards")
    fact_card = next(card for card in cards if card.get_attribute("data-id") == seeded.fact_id)
    fact_card.click()
    _wait(browser, lambda d: d.find_element(By.ID, "graph-stats").get_attribute("data-nodes"), "the neighbourhood")
    panel = _wait(browser, lambda d: _visible(d, "panel"), "the node panel")
    assert panel.get_attribute("data-id") == seeded.fact_id
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#decay svg path.curve"), "the decay curve")
    _wait(browser, lambda d: _visible(d, "history-refused"), "the fact history's refusal in place")
    assert not browser.find_element(By.ID, "refusal").is_displayed()

    # Node type by shape, with a legend of the types drawn.
    drawn = _graph(browser, "return cy.nodes().map((n) => [n.id(), n.data('type'), n.style('shape'), "
                            "n.data('activation'), n.style('background-color'), n.style('label')]);")
    related = api.get(f"/v1/namespaces/{ns}/nodes/{seeded.fact_id}/related",
                      params={"depth": 2, "limit": 50, "fanout": 50, "edges": True}).json()  # fmt: skip
    assert {row[0] for row in drawn} == {seeded.fact_id} | {item["id"] for item in related["items"]}
    shapes = {node_type: shape for _, node_type, shape, *_ in drawn}
    assert len(shapes) >= 3 and len(set(shapes.values())) == len(shapes)  # one shape per type
    legend = {li.get_attribute("data-type"): li.find_element(By.CSS_SELECTOR, "svg").get_attribute("data-shape")
              for li in browser.find_elements(By.CSS_SELECTOR, "#legend .types li")}  # fmt: skip
    assert legend == shapes
    # Activation colour relative to the nodes shown: the least activated blue, the most red.
    activations = [row[3] for row in drawn]
    assert min(activations) < max(activations)
    scale = browser.find_element(By.CSS_SELECTOR, "#legend .activation")
    assert float(scale.get_attribute("data-min")) == min(activations)
    assert float(scale.get_attribute("data-max")) == max(activations)
    colour = {row[3]: row[4] for row in drawn if "superseded" not in _graph(
        browser, f"return cy.getElementById({row[0]!r}).classes();")}  # fmt: skip
    assert colour[min(activations)] == "rgba(59, 111, 214, 1)" and colour[max(activations)] == "rgba(224, 69, 43, 1)"
    # Labels: the focused node and its neighbours only; another node's on hover.
    labelled = {row[0] for row in drawn if row[5]}
    neighbours = set(_graph(browser, f"return cy.getElementById({seeded.fact_id!r}).closedNeighborhood().nodes()"
                                     ".map((n) => n.id());"))  # fmt: skip
    assert labelled == neighbours and len(labelled) < len(drawn)
    unlabelled = next(row[0] for row in drawn if not row[5])
    _mouse_to_node(browser, unlabelled).perform()
    _wait(browser, lambda d: _graph(d, f"return cy.getElementById({unlabelled!r}).style('label');"), "a label on hover")
    _shot(browser, "6-reader-neighbourhood")
    assert all(status < 500 for _, _, status in access_log.requests), access_log.requests
    # The namespace does refuse this key analyst Cypher (what left readers with only a 403 banner before).
    refused = api.post(f"/v1/namespaces/{ns}/cypher", json={"name": "writes_by_agent"})
    assert refused.status_code == 403, refused.text


# -- the routes the page relies on, without a browser ------------------------------------------------


def test_the_page_and_its_library_are_served_without_a_key(api: Any) -> None:
    page = api.get("/explorer/", headers={"Authorization": ""})
    assert page.status_code == 200 and 'src="explorer.js"' in page.text
    library = api.get("/explorer/vendor/cytoscape/cytoscape.esm.mjs", headers={"Authorization": ""})
    assert library.status_code == 200 and "javascript" in library.headers["content-type"]
    assert api.get("/explorer/vendor/cytoscape/../../../pyproject.toml").status_code == 404


def test_the_decay_curve_follows_the_formula_from_the_anchor(api: Any, namespace: str) -> None:
    from datetime import UTC, datetime

    from app.domain.decay import SOFT_FORGET_THRESHOLD, node_activation
    from app.domain.model import Importance

    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    memory = {"type": "Knowledge", "label": "tea", "content": "Bob drinks tea", "importance": "TRIVIAL"}
    saved = api.post(f"/v1/namespaces/{namespace}/memories", json=memory)
    node = api.get(f"/v1/namespaces/{namespace}/nodes/{saved.json()['id']}").json()
    curve = api.get(f"/v1/namespaces/{namespace}/nodes/{node['id']}/decay", params={"days": 2})
    assert curve.status_code == 200, curve.text
    body = curve.json()
    assert body["half_life_hours"] == 6 and body["soft_forget_threshold"] == SOFT_FORGET_THRESHOLD
    assert [p["hours"] for p in body["points"]] == [6.0 * i for i in range(9)]
    anchor = datetime.fromisoformat(node["last_accessed"])
    # Each point 6 h (one TRIVIAL half-life) after the previous one: half its activation.
    for earlier, later in zip(body["points"], body["points"][1:], strict=False):
        assert later["activation"] == pytest.approx(earlier["activation"] / 2, rel=1e-9)
    # Now: the anchor's activation decayed over the seconds since the save (the formula, evaluated here).
    now = node_activation(node["activation_base"], anchor, datetime.now(UTC), Importance.TRIVIAL)
    assert body["points"][0]["activation"] == pytest.approx(now, rel=1e-3)
    assert api.get(f"/v1/namespaces/{namespace}/nodes/{node['id']}/decay", params={"days": 91}).status_code == 422
    assert api.get(f"/v1/namespaces/{namespace}/nodes/knowledge:nope/decay").status_code == 404


def test_related_edges_are_the_relationships_among_visible_nodes_only(api: Any, namespace: str) -> None:
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201

    def save(label: str, **fields: Any) -> str:
        body = {"type": "Concept", "label": label, "content": f"{label} notes", **fields}
        return str(api.post(f"/v1/namespaces/{namespace}/memories", json=body).json()["id"])

    hub, left, right = save("hub"), save("left"), save("right")
    hidden = save("diary", agent_id="other", private=True)
    for source, target in ((hub, left), (hub, right), (left, right), (right, hidden)):
        link = {"source_id": source, "target_id": target, "type": "ASSOCIATION", "weight": 0.5}
        assert api.post(f"/v1/namespaces/{namespace}/links", json=link).status_code == 201
    key = api.post("/v1/keys", json={"namespace": namespace, "role": "reader", "agent_id": "viewer"}).json()["key"]
    answer = api.get(f"/v1/namespaces/{namespace}/nodes/{hub}/related", params={"depth": 2, "edges": True},
                     headers=bearer(key)).json()  # fmt: skip
    assert {item["id"] for item in answer["items"]} == {left, right}
    assert all(item["importance"] == "NORMAL" and not item["superseded"] for item in answer["items"])
    edges = {(e["source_id"], e["target_id"]) for e in answer["edges"]}
    assert edges == {tuple(sorted(pair)) for pair in ((hub, left), (hub, right), (left, right))}
    assert hidden not in str(answer)
    plain = api.get(f"/v1/namespaces/{namespace}/nodes/{hub}/related", headers=bearer(key)).json()
    assert plain.get("edges") is None


def test_temperature_counts_are_the_bands_of_the_last_access_exactly(api: Any, namespace: str, cypher: Any) -> None:
    """The overview's counts (GET …/{ns} `temperatures`, one Cypher scan) and each node's `temperature`
    are app/domain/tags.py's one definition: HOT within 1 h of the last access, WARM within 24 h."""
    from app.domain.tags import temperature

    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    now = datetime.now(UTC)
    margin = timedelta(minutes=5)  # the route reads its own clock a moment later
    ages = {"a": timedelta(0), "b": timedelta(hours=1) - margin, "c": timedelta(hours=1) + margin,
            "d": timedelta(hours=24) - margin, "e": timedelta(hours=24) + margin, "f": timedelta(days=30)}  # fmt: skip
    ids = {}
    for label, age in ages.items():
        body = {"type": "Concept" if label < "d" else "Knowledge", "label": label, "content": f"note {label}"}
        ids[label] = api.post(f"/v1/namespaces/{namespace}/memories", json=body).json()["id"]
        cypher("MATCH (m:Memory {namespace: $ns, id: $id}) SET m.last_accessed = $at", ns=namespace, id=ids[label],
               at=now - age)  # fmt: skip
    views = {label: api.get(f"/v1/namespaces/{namespace}/nodes/{ids[label]}").json() for label in ages}
    assert {label: view["temperature"] for label, view in views.items()} == {
        "a": "HOT", "b": "HOT", "c": "WARM", "d": "WARM", "e": "COLD", "f": "COLD"
    }  # fmt: skip
    assert all(view["temperature"] == temperature(now - ages[label], now) for label, view in views.items())
    detail = api.get(f"/v1/namespaces/{namespace}").json()
    assert detail["temperatures"] == {"hot": 2, "warm": 2, "cold": 2}
    assert detail["counts"] == {"Concept": 3, "Knowledge": 3} and detail["total"] == 6
    # A node never accessed counts as cold, as `temperature(None, now)` says.
    cypher("MATCH (m:Memory {namespace: $ns, id: $id}) REMOVE m.last_accessed", ns=namespace, id=ids["a"])
    assert api.get(f"/v1/namespaces/{namespace}").json()["temperatures"] == {"hot": 1, "warm": 2, "cold": 3}


# -- the bounded neighbourhood (`related` with `fanout`) ---------------------------------------------


def test_a_hop_keeps_each_node_at_its_strongest_parent() -> None:
    from app.recall.neighbourhood import rank, reached_in_hop

    def neighbour(node_id: str, weight: float, via: str = "ASSOCIATION") -> dict[str, Any]:
        return {"id": node_id, "type": "Concept", "weight": weight, "via": via}

    frontier = [{"id": "p", "strength": 0.5, "via": ["HIERARCHY"]}, {"id": "q", "strength": 0.8, "via": ["SEMANTIC"]}]
    rows = [
        {"id": "q", "reachable": 9, "neighbours": [neighbour("x", 0.5), neighbour("y", 1.0, "REFERENCE"),
                                                   neighbour("w", 0.625)]},
        {"id": "p", "reachable": 2, "neighbours": [neighbour("x", 1.0, "CAUSAL"), neighbour("z", 0.2),
                                                   neighbour("w", 1.0, "TEMPORAL")]},
    ]  # fmt: skip
    assert reached_in_hop(frontier, rows, 2) == {
        # x: through p, 0.5 x 1.0, beats through q, 0.8 x 0.5
        "x": {"id": "x", "type": "Concept", "via": ["HIERARCHY", "CAUSAL"], "distance": 2, "strength": 0.5},
        "y": {"id": "y", "type": "Concept", "via": ["SEMANTIC", "REFERENCE"], "distance": 2, "strength": 0.8},
        "z": {"id": "z", "type": "Concept", "via": ["HIERARCHY", "ASSOCIATION"], "distance": 2, "strength": 0.1},
        # w: a tie (0.5 x 1.0 = 0.8 x 0.625): the parent earlier in the frontier
        "w": {"id": "w", "type": "Concept", "via": ["HIERARCHY", "TEMPORAL"], "distance": 2, "strength": 0.5},
    }
    ranked = sorted([*reached_in_hop(frontier, rows, 2).values(), {"id": "a", "distance": 1, "strength": 0.01}],
                    key=rank)  # fmt: skip
    assert [item["id"] for item in ranked] == ["a", "y", "w", "x", "z"]  # nearest, strongest, then by id
    assert reached_in_hop(frontier, [], 2) == {}


def _hub(api: Any, namespace: str, spokes: int) -> tuple[str, list[str]]:
    """A hub linked to `spokes` concepts with weights 0.01 … (strongest last)."""
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201

    def save(label: str, **fields: Any) -> str:
        body = {"type": "Concept", "label": label, "content": f"{label} notes", **fields}
        return str(api.post(f"/v1/namespaces/{namespace}/memories", json=body).json()["id"])

    hub = save("hub")
    ids = [save(f"spoke {i:02d}") for i in range(spokes)]
    for i, spoke in enumerate(ids):
        link = {"source_id": hub, "target_id": spoke, "type": "ASSOCIATION", "weight": round(0.01 * (i + 1), 2)}
        assert api.post(f"/v1/namespaces/{namespace}/links", json=link).status_code == 201
    return hub, ids


def test_a_fanout_keeps_the_strongest_neighbours_and_says_how_many_it_left_out(
    api: Any, namespace: str, cypher: Any
) -> None:
    hub, spokes = _hub(api, namespace, 30)
    # Semantic links the saves may have made would change the ranking: only the hub's spokes stay.
    cypher("MATCH (:Memory {namespace: $ns})-[r:SEMANTIC]-() DELETE r", ns=namespace)
    url = f"/v1/namespaces/{namespace}/nodes/{hub}/related"
    answer = api.get(url, params={"depth": 1, "limit": 50, "fanout": 5, "edges": True}).json()
    assert [item["id"] for item in answer["items"]] == spokes[::-1][:5]  # heaviest first
    assert [item["strength"] for item in answer["items"]] == pytest.approx([0.30, 0.29, 0.28, 0.27, 0.26])
    assert (answer["neighbours"], answer["truncated"]) == (30, True)
    assert len(answer["edges"]) == 5
    whole = api.get(url, params={"depth": 1, "limit": 50, "fanout": 50}).json()
    assert (len(whole["items"]), whole["neighbours"], whole["truncated"]) == (30, 30, False)
    assert api.get(url, params={"depth": 1, "limit": 10, "fanout": 50}).json()["truncated"] is True
    # Unset, the route answers as before: every path ranked, no fan-out fields.
    plain = api.get(url, params={"depth": 1, "limit": 50}).json()
    assert [item["id"] for item in plain["items"]] == spokes[::-1] and "neighbours" not in plain
    assert plain["items"] == whole["items"]  # at depth 1 a fan-out that keeps them all changes nothing
    for params in ({"fanout": 0}, {"fanout": 201}, {"fanout": 5, "depth": 3}):
        refused = api.get(url, params=params)
        assert refused.status_code == 422 and refused.json()["error"]["field"] == "fanout", refused.text


def test_past_the_first_hop_a_fanout_never_calls_a_neighbour_two_hops_away(
    api: Any, namespace: str, cypher: Any
) -> None:
    """Spoke 00 (the weakest) is left out of the first hop by a fan-out of 2, but it is linked to spoke
    29 (kept): it is one hop away, so the second hop must not show it at distance 2."""
    hub, spokes = _hub(api, namespace, 30)
    cypher("MATCH (:Memory {namespace: $ns})-[r:SEMANTIC]-() DELETE r", ns=namespace)
    far = str(api.post(f"/v1/namespaces/{namespace}/memories",
                       json={"type": "Concept", "label": "far", "content": "two hops out"}).json()["id"])  # fmt: skip
    cypher("MATCH (:Memory {namespace: $ns})-[r:SEMANTIC]-() DELETE r", ns=namespace)
    for target, weight in ((spokes[0], 1.0), (far, 0.5)):
        link = {"source_id": spokes[29], "target_id": target, "type": "CAUSAL", "weight": weight}
        assert api.post(f"/v1/namespaces/{namespace}/links", json=link).status_code == 201
    answer = api.get(f"/v1/namespaces/{namespace}/nodes/{hub}/related",
                     params={"depth": 2, "limit": 50, "fanout": 2}).json()  # fmt: skip
    shown = {item["id"]: item for item in answer["items"]}
    assert set(shown) == {spokes[29], spokes[28], far}
    assert (shown[far]["distance"], shown[far]["via"]) == (2, ["ASSOCIATION", "CAUSAL"])
    assert shown[far]["strength"] == pytest.approx(0.30 * 0.5)
    assert (answer["neighbours"], answer["truncated"]) == (30, True)


def test_a_fanout_counts_and_shows_only_what_the_key_may_see(api: Any, namespace: str) -> None:
    hub, _ = _hub(api, namespace, 3)
    hidden = api.post(f"/v1/namespaces/{namespace}/memories", json={
        "type": "Concept", "label": "diary", "content": "private", "agent_id": "other", "private": True,
    }).json()["id"]  # fmt: skip
    link = {"source_id": hub, "target_id": hidden, "type": "ASSOCIATION", "weight": 0.9}
    assert api.post(f"/v1/namespaces/{namespace}/links", json=link).status_code == 201
    key = api.post("/v1/keys", json={"namespace": namespace, "role": "reader", "agent_id": "viewer"}).json()["key"]
    url = f"/v1/namespaces/{namespace}/nodes/{hub}/related"
    seen = api.get(url, params={"depth": 2, "fanout": 10}, headers=bearer(key)).json()
    assert hidden not in str(seen) and seen["neighbours"] == 3
    assert api.get(url, params={"depth": 2, "fanout": 10}).json()["neighbours"] == 4  # the admin sees it
