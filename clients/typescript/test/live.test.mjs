// The client against the running service: HIPPOGRAPH_URL and HIPPOGRAPH_API_KEY (a writer key bound to
// one fresh namespace, HIPPOGRAPH_TEST_NAMESPACE) must be set; tests/test_typescript_client.py starts
// the API and runs this suite.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  CypherRefused, Forbidden, Hippograph, HippographError, InvalidRequest, NotFound, Unauthorized,
} from "../dist/index.js";

const url = process.env.HIPPOGRAPH_URL;
const apiKey = process.env.HIPPOGRAPH_API_KEY;
const expectedNamespace = process.env.HIPPOGRAPH_TEST_NAMESPACE;
assert.ok(url && apiKey && expectedNamespace,
  "set HIPPOGRAPH_URL, HIPPOGRAPH_API_KEY (a writer key) and HIPPOGRAPH_TEST_NAMESPACE (its namespace)");

const hg = new Hippograph(url, { apiKey });

test("the namespace comes from the key", async () => {
  assert.equal(hg.namespace, undefined);
  const namespace = await hg.getNamespace();
  assert.equal(namespace.name, expectedNamespace);
  assert.equal(hg.namespace, expectedNamespace);
  assert.equal((await hg.healthz()).status, "ok");
});

test("memories: save (idempotent), read, list, link, related, chain, recall", async () => {
  const alice = await hg.saveMemory({ type: "Person", label: "Alice", content: "Alice leads the platform team" });
  const again = await hg.saveMemory({ type: "Person", label: "Alice", content: "Alice leads the platform team" });
  assert.equal(again.id, alice.id);
  const beta = await hg.saveMemory({
    type: "Task", label: "Beta", content: "Ship the beta by Friday", id: "task:beta-ts", tags: ["release"],
    links: [{ type: "ASSOCIATION", target_id: alice.id }],
  });
  const node = await hg.getNode(beta.id);
  assert.deepEqual([node.content, node.tags], ["Ship the beta by Friday", ["release"]]);
  assert.ok(node.relationships.some((r) => [r.source_id, r.target_id].includes(alice.id)), JSON.stringify(node.relationships));

  const listed = await hg.listMemories({ type: ["Task"], tags: ["release"], limit: 5 });
  assert.deepEqual(listed.items.map((m) => m.id), [beta.id]);
  const all = [];
  for await (const memory of hg.iterMemories({ limit: 1 })) all.push(memory.id);
  assert.ok(all.includes(alice.id) && all.includes(beta.id) && new Set(all).size === all.length, all.join());

  const related = await hg.related(alice.id, { depth: 1 });
  assert.ok(related.items.some((item) => item.id === beta.id));
  const path = await hg.chain({ from_id: alice.id, to_id: beta.id });
  assert.ok(JSON.stringify(path).includes(beta.id));

  const recalled = await hg.recall({ query: "When does the beta ship?", top_k: 3 });
  assert.equal(recalled.items[0].id, beta.id);
  assert.ok(recalled.items[0].score > 0 && recalled.took_ms >= 0);
});

test("turns with wait are written and recalled", async () => {
  const answer = await hg.postTurns({
    wait: true,
    turns: [{ session_id: "ts-1", turn_id: "1", speaker: "Dana", text: "I moved to Oslo last spring.",
              timestamp: "2024-05-15T10:00:00Z" }],
  });
  assert.deepEqual(answer.turns.map((turn) => [turn.turn_id, turn.new]), [["1", true]]);
  assert.ok("report" in answer); // waited: the write tracks' report
  const again = await hg.postTurns({ turns: [{ session_id: "ts-1", turn_id: "1", speaker: "Dana",
    text: "I moved to Oslo last spring.", timestamp: "2024-05-15T10:00:00Z" }] });
  assert.deepEqual(again.turns.map((turn) => turn.new), [false]); // the server dedups (session_id, turn_id)
  const recalled = await hg.recall({ query: "Where did Dana move?", top_k: 5 });
  assert.ok(recalled.items.some((card) => card.summary.includes("Oslo")), JSON.stringify(recalled.items));
});

test("the seven tools: listed, and run on the key's namespace", async () => {
  const tools = (await hg.listTools()).tools.map((tool) => tool.function.name);
  assert.deepEqual([...tools].sort(), ["discover_related", "focus_on_chain", "graph_query", "memory_search",
    "read_memory_node", "recall_memory", "save_memory_note"]);
  const saved = await hg.runTool("save_memory_note", { content: "The staging cluster lives in Frankfurt" });
  assert.equal(saved.tool, "save_memory_note");
  const noteId = saved.result.id;
  const recalled = await hg.runTool("recall_memory", { query: "Where is the staging cluster?", top_k: 3 });
  assert.equal(recalled.result.items[0].id, noteId);
  const read = await hg.runTool("read_memory_node", { node_id: noteId });
  assert.equal(read.result.content, "The staging cluster lives in Frankfurt");
});

test("cypher: a read, a named query, a refused write", async () => {
  const rows = await hg.cypher({ query: "MATCH (m:Memory {namespace: $namespace}) RETURN count(m) AS n" });
  assert.deepEqual(rows.columns, ["n"]);
  assert.ok(rows.rows[0].n >= 2);
  const names = (await hg.cypherQueries()).queries.map((q) => q.name);
  assert.ok(names.includes("writes_by_agent"));
  assert.equal((await hg.cypher({ name: "writes_by_agent" })).name, "writes_by_agent");
  await assert.rejects(hg.cypher({ query: "CREATE (n:Memory {namespace: $namespace}) RETURN n" }), (error) => {
    assert.ok(error instanceof CypherRefused && error instanceof InvalidRequest);
    assert.deepEqual([error.status, error.code], [422, "cypher_refused"]);
    assert.ok(error.requestId);
    return true;
  });
});

test("tasks, the context builder and the circuit breaker", async () => {
  const parent = await hg.createTask({ title: "Migrate billing", id: "task:migrate-ts" });
  await hg.createTask({ title: "Copy the data", id: "task:copy-ts", parent_id: parent.id });
  const tree = await hg.getTask(parent.id);
  assert.deepEqual(tree.subtasks.map((t) => t.id), ["task:copy-ts"]);
  const running = await hg.updateTask("task:copy-ts", { status: "running" });
  assert.equal(running.status, "running");

  const context = await hg.buildContext({ goal: "Finish the billing migration", token_budget: 300 });
  assert.ok(context.tokens <= 300 && typeof context.context === "string");

  const step = await hg.reportStep("run-ts", { name: "read_file", arguments: { path: "a.py" }, tokens: 1000,
    window: 128000, called_tool: true });
  assert.deepEqual([step.state, step.step], ["GREEN", 1]);
  assert.equal((await hg.getRun("run-ts")).steps, 1);
});

test("export answers the namespace's bytes", async () => {
  const exported = JSON.parse(new TextDecoder().decode(await hg.exportNamespace("json")));
  assert.equal(exported.namespace, expectedNamespace);
  assert.ok(exported.nodes.some((n) => n.id === "task:beta-ts"));
});

test("errors carry the Python client's classes and fields", async () => {
  await assert.rejects(hg.getNode("knowledge:not-there"), (error) => {
    assert.ok(error instanceof NotFound && error instanceof HippographError);
    assert.deepEqual([error.status, error.code, error.field], [404, "not_found", "id"]);
    assert.ok(error.requestId && error.message.includes("not-there"));
    return true;
  });
  await assert.rejects(hg.recall({ query: "x", top_k: 0 }), (error) => {
    assert.ok(error instanceof InvalidRequest);
    assert.equal(error.field, "top_k");
    return true;
  });
  await assert.rejects(hg.deleteNamespace(), (error) => error instanceof Forbidden && error.status === 403);
  const stranger = new Hippograph(url, { apiKey: "hg_not_a_key", namespace: expectedNamespace });
  await assert.rejects(stranger.recall({ query: "x" }), (error) => error instanceof Unauthorized && error.status === 401);
});
