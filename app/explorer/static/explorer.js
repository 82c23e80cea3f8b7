// The memory explorer: key -> namespace overview; search -> recall cards; card -> neighbourhood graph;
// node -> panel (content, provenance, decay curve, fact history). Read-only, and usable with a key of any
// role: the overview reads routes every reader may call; the analytics queries (POST …/cypher), which a
// namespace holding other agents' private memories answers to admins only, run on demand and say so
// in place when refused.

import { api, Refused, session } from "./api.js";
import { decayChart, element, forgottenInDays, scoreBars } from "./charts.js";
import { NeighbourhoodGraph } from "./graph.js";
import { graphLegend } from "./legend.js";

const $ = (id) => document.getElementById(id);
const when = (iso) => (iso ? new Date(iso).toLocaleString() : "—");
// Temperature: the time since a node's last access (GET …/{ns} `temperatures`, a node's `temperature`).
const TEMPERATURES = ["hot", "warm", "cold"];
let graph = null;
// For scripts: tests/test_explorer.py finds a node on the canvas through `graph`; scripts/bench_explorer.py
// opens neighbourhoods through `open` and reads their first-paint time.
window.hippographExplorer = { get graph() { return graph; }, open: (id) => openNeighbourhood(id) };

function refuse(error) {
  const message = error instanceof Refused ? `Refused (${error.status}): ${error.message}` : `Error: ${error.message}`;
  $("refusal").textContent = message;
  $("refusal").hidden = false;
}

function clearRefusal() {
  $("refusal").hidden = true;
  $("refusal").textContent = "";
}

// -- key and namespace ------------------------------------------------------------------------------

async function useKey(key) {
  session.key = key;
  clearRefusal();
  try {
    const { items } = await api.namespaces();
    const names = items.map((ns) => ns.name);
    if (!names.length) throw new Error("this key sees no namespace");
    $("namespace").replaceChildren(...names.map((name) => element("option", { value: name }, name)));
    if (!names.includes(session.namespace)) session.namespace = names[0];
    $("namespace").value = session.namespace;
    $("namespace").hidden = false;
    $("forget-key").hidden = false;
    $("landing").hidden = true;
    $("workspace").hidden = false;
    await showOverview();
  } catch (error) {
    session.key = null;
    $("workspace").hidden = true;
    $("landing").hidden = false;
    refuse(error);
  }
}

// -- namespace overview -----------------------------------------------------------------------------

function table(rows, columns, id) {
  return element("table", id ? { id } : {},
    element("thead", {}, element("tr", {}, columns.map(([title]) => element("th", {}, title)))),
    element("tbody", {}, rows.map((row) => element("tr", {}, columns.map(([, cell]) => element("td", {}, cell(row)))))));
}

// A refusal shown where the content would have been, not as the page's banner.
function refusedInPlace(error, id, what) {
  if (!(error instanceof Refused) || error.status !== 403) throw error;
  return element("p", { class: "muted refused-here", id }, `${what}: refused for this key (${error.message})`);
}

async function showOverview() {
  const body = $("overview-body");
  body.replaceChildren(element("p", { class: "muted" }, "loading…"));
  const [detail, recent, runs] = await Promise.all([api.namespace(), api.memories(200), api.jobRuns(10)]);
  const agents = new Map();
  for (const memory of recent.items) {
    const agent = memory.agent_id || "(none)";
    agents.set(agent, (agents.get(agent) || 0) + 1);
  }
  const writers = [...agents.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5);
  body.replaceChildren(
    element("p", { id: "overview-total" }, `${detail.total} memories · ${detail.vectors} vectors · capacity ${detail.capacity}`),
    element("h3", {}, "By type"),
    table(Object.entries(detail.counts).sort((a, b) => b[1] - a[1]), [["type", (r) => r[0]], ["nodes", (r) => r[1]]], "types"),
    element("h3", {}, "By temperature"),
    table(TEMPERATURES.map((name) => [name, detail.temperatures[name]]), [
      ["temperature", (r) => element("span", { class: `temperature ${r[0]}` }, r[0])],
      ["nodes", (r) => r[1]],
    ], "temperatures"),
    element("p", { class: "muted" }, "by last access: hot within 1 h, warm within 24 h, cold longer ago"),
    element("h3", {}, `Writers of the last ${recent.items.length} memories`),
    table(writers, [["agent", (r) => r[0]], ["memories", (r) => r[1]]], "recent-writers"),
    element("h3", {}, "Newest"),
    table(recent.items.slice(0, 5), [["memory", (r) => r.summary || r.label || r.id], ["type", (r) => r.type]],
      "newest"),
    element("h3", {}, "Recent job runs"),
    runs.items.length
      ? table(runs.items, [
        ["job", (r) => r.job],
        ["at", (r) => new Date(r.started_at).toLocaleTimeString()],
        ["took", (r) => `${r.duration_ms.toFixed(0)} ms`],
        ["outcome", (r) => element("span", { class: `outcome ${r.outcome}` }, r.error ? `error: ${r.error}` : r.outcome)],
        ["counted", (r) => Object.entries(r.counts).map(([name, n]) => `${name} ${n}`).join(", ") || "—"],
      ], "job-runs")
      : element("p", { class: "muted", id: "job-runs-none" }, "no job has run on this namespace yet"),
    analyticsSection(),
  );
}

// Activation per importance, the next prune and the busiest agents: analytics queries, run when opened.
function analyticsSection() {
  const content = element("div", { id: "analytics-body" }, element("p", { class: "muted" }, "loading…"));
  const section = element("details", { id: "analytics" }, element("summary", {}, "Analytics queries"), content);
  section.addEventListener("toggle", () => {
    if (section.open && !section.dataset.loaded) {
      section.dataset.loaded = "1";
      showAnalytics(content).catch((error) => content.replaceChildren(refusedInPlace(error, "analytics-refused",
        "Analytics")));
    }
  });
  return section;
}

async function showAnalytics(content) {
  const [decay, prune, writes] = await Promise.all([
    api.analytics("decay_by_importance"),
    api.analytics("next_prune", { limit: 10 }, 10),
    api.analytics("writes_by_agent", {}, 200),
  ]);
  const agents = new Map();
  for (const row of writes.rows) agents.set(row.agent_id, (agents.get(row.agent_id) || 0) + row.memories);
  const busiest = [...agents.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5);
  content.replaceChildren(
    element("h3", {}, "Activation by importance"),
    table(decay.rows, [
      ["importance", (r) => r.importance],
      ["nodes", (r) => r.memories],
      ["mean", (r) => (r.mean_activation ?? 0).toFixed(2)],
      ["soft-forgotten", (r) => r.soft_forgotten],
    ], "decay-by-importance"),
    element("h3", {}, "Next prune would remove first"),
    prune.rows.length
      ? table(prune.rows, [["memory", (r) => r.summary || r.id], ["importance", (r) => r.importance],
        ["score", (r) => r.score.toFixed(3)]])
      : element("p", { class: "muted" }, "nothing"),
    element("h3", {}, "Busiest agents"),
    table(busiest, [["agent", (r) => r[0]], ["memories written", (r) => r[1]]]),
  );
}

// -- recall -----------------------------------------------------------------------------------------

async function runRecall(query) {
  clearRefusal();
  const answer = await api.recall(query, $("history").checked);
  $("recall-stats").textContent = `${answer.items.length} cards in ${answer.took_ms.toFixed(1)} ms`;
  $("cards").replaceChildren(...answer.items.map((card) => element("li", { class: "card", "data-id": card.id },
    element("div", { class: "card-head" },
      element("span", { class: "type" }, card.type), " ",
      element("span", { class: "score" }, card.score.toFixed(3)),
      card.superseded_by ? element("span", { class: "tag" }, "superseded") : null),
    element("p", { class: "summary" }, card.summary),
    scoreBars(card.explain),
  )));
  for (const li of $("cards").children) li.addEventListener("click", () => openNeighbourhood(li.dataset.id).catch(refuse));
}

// -- neighbourhood ----------------------------------------------------------------------------------

// First paint: from the click to the first frame drawn with the laid-out graph (both reads included).
async function openNeighbourhood(id) {
  const started = performance.now();
  clearRefusal();
  const depth = Number($("depth").value);
  const limit = Number($("limit").value);
  const [centre, neighbourhood] = await Promise.all([api.node(id), api.related(id, depth, limit)]);
  graph ??= new NeighbourhoodGraph($("graph"), {
    onSelect: (nodeId) => expandAndShow(nodeId).catch(refuse),
    onChange: (drawn) => $("legend").replaceChildren(...graphLegend(drawn)),
  });
  await graph.show(centre, neighbourhood);
  const paintMs = performance.now() - started;
  $("graph").dataset.paintMs = paintMs.toFixed(1);
  $("graph").dataset.centre = id;
  $("graph-title").textContent = centre.summary;
  // The centre's neighbours the fan-out or the limit left out ("N more").
  const shown = neighbourhood.items.filter((item) => item.distance === 1).length;
  $("graph-stats").dataset.more = Math.max(0, (neighbourhood.neighbours ?? shown) - shown);
  updateGraphStats(paintMs);
  showPanel(centre);
}

async function expandAndShow(id) {
  graph.select(id);
  const [node, neighbourhood] = await Promise.all([api.node(id), api.related(id, 1, Number($("limit").value))]);
  showPanel(node);
  await graph.expand(node, neighbourhood);
  updateGraphStats();
}

function updateGraphStats(paintMs) {
  const stats = $("graph-stats");
  stats.dataset.nodes = graph.nodeCount;
  stats.dataset.edges = graph.edgeCount;
  const painted = paintMs === undefined ? stats.dataset.painted : `painted in ${paintMs.toFixed(0)} ms`;
  stats.dataset.painted = painted;
  const more = Number(stats.dataset.more || 0);
  stats.textContent = `${graph.nodeCount} nodes · ${graph.edgeCount} relationships · ${painted}` +
    (more ? ` · ${more.toLocaleString()} more neighbours not shown` : "");
}

// -- node panel -------------------------------------------------------------------------------------

async function showPanel(node) {
  $("panel").hidden = false;
  $("panel").dataset.id = node.id;
  $("panel-title").textContent = `${node.type} · ${node.label}`;
  const facts = [
    ["importance", node.importance],
    ["activation", `${node.activation.toFixed(3)} (${node.temperature})`],
    ["agent", node.agent_id || "—"],
    ["session", node.session_id || "—"],
    ["source", node.source],
    ["source turns", node.source_turn_ids.join(", ") || "—"],
    ["tags", node.tags.join(", ") || "—"],
    ["created", when(node.created_at)],
    ["last recalled", when(node.last_accessed)],
  ];
  const decay = element("div", { id: "decay" }, element("p", { class: "muted" }, "loading…"));
  const history = element("div", { id: "history-view" });
  $("panel-body").replaceChildren(...[
    element("p", { class: "content" }, node.content),
    element("dl", { class: "facts" }, facts.flatMap(([k, v]) => [element("dt", {}, k), element("dd", {}, v)])),
    element("h3", {}, "Projected activation"),
    decay,
    node.slot ? element("h3", {}, `History of ${node.subject} · ${node.slot}`) : null,
    history,
  ].filter(Boolean));
  const curve = await api.decay(node.id);
  const days = forgottenInDays(curve);
  decay.replaceChildren(
    decayChart(curve),
    element("p", { class: "muted", id: "forgotten-in" },
      days === null ? "stays above the soft-forget line for the next 14 days"
        : `soft-forgotten in ${days.toFixed(1)} days unless recalled`),
  );
  if (node.slot) {
    await showHistory(node, history).catch((error) => history.replaceChildren(
      refusedInPlace(error, "history-refused", "The history (an analytics query)")));
  }
}

async function showHistory(node, container) {
  const { rows } = await api.analytics("fact_history", { subject: node.subject, slot: node.slot, limit: 50 }, 50);
  container.replaceChildren(table(rows, [
    ["value", (r) => element("span", { class: r.id === node.id ? "current-row" : "" }, r.value)],
    ["valid from", (r) => when(r.valid_from)],
    ["valid to", (r) => when(r.valid_to)],
    ["superseded by", (r) => r.superseded_by || "—"],
  ]));
  container.querySelector("table").classList.add("history");
}

// -- wiring -----------------------------------------------------------------------------------------

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const key = $("key").value.trim();
  $("key").value = "";
  if (key) useKey(key);
});
$("forget-key").addEventListener("click", () => {
  session.key = null;
  window.location.reload();
});
$("namespace").addEventListener("change", () => {
  session.namespace = $("namespace").value;
  showOverview().catch(refuse);
});
$("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const query = $("query").value.trim();
  if (query) runRecall(query).catch(refuse);
});
if (session.key) useKey(session.key);
