// The retry rule over real HTTP: a local server answers scripted statuses (503 with Retry-After, 429),
// and a closed port refuses the connection.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import { ConnectionFailed, EngineUnavailable, Hippograph, RateLimited, RetryPolicy } from "../dist/index.js";

let server;
let url;
let script = [];
const seen = [];

before(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    const [status, headers, body] = script.shift() ?? [500, {}, { error: { code: "internal_error", message: "unscripted" } }];
    response.writeHead(status, { "content-type": "application/json", ...headers });
    response.end(JSON.stringify(body));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${server.address().port}`;
});

after(() => server.close());

const down = (retryAfter) => [503, retryAfter === undefined ? {} : { "retry-after": String(retryAfter) },
  { error: { code: "engine_unavailable", message: "neo4j down" }, request_id: "r-503", engine: "neo4j" }];
const node = [200, {}, { id: "knowledge:a", type: "Knowledge" }];
const fast = new RetryPolicy({ backoffBase: 0.01 });

function client(retry = fast) {
  seen.length = 0;
  return new Hippograph(url, { apiKey: "hg_test", namespace: "ns", retry });
}

test("an idempotent call is sent again on 503 until it succeeds", async () => {
  const hg = client();
  script = [down(), down(), node];
  assert.deepEqual(await hg.getNode("knowledge:a"), node[2]);
  assert.deepEqual(seen, Array(3).fill("GET /v1/namespaces/ns/nodes/knowledge%3Aa"));
});

test("a retry waits at least the answer's Retry-After", async () => {
  const hg = client();
  script = [down(1), node];
  const started = performance.now();
  await hg.recall({ query: "x" });
  assert.ok(performance.now() - started >= 950, "waited less than Retry-After");
  assert.equal(seen.length, 2);
});

test("after max_retries the 503 is raised as its class", async () => {
  const hg = client();
  script = [down(), down(), down(), down(), node];
  await assert.rejects(hg.getNode("knowledge:a"), (error) => {
    assert.ok(error instanceof EngineUnavailable);
    assert.deepEqual([error.status, error.engine, error.requestId], [503, "neo4j", "r-503"]);
    return true;
  });
  assert.equal(seen.length, 4); // the call and 3 retries
  script = [];
});

test("a call that is not idempotent is sent once", async () => {
  const hg = client();
  script = [down(), node];
  await assert.rejects(hg.runTool("save_memory_note", { content: "x" }), EngineUnavailable);
  assert.deepEqual(seen, ["POST /v1/namespaces/ns/tools/save_memory_note"]);
  script = [];
});

test("429 is retried after its Retry-After whatever the method, as in the Python client", async () => {
  const hg = client();
  const limited = [429, { "retry-after": "0.2" }, { error: { code: "rate_limited", message: "slow down" }, request_id: "r" }];
  script = [limited, [200, {}, { tool: "save_memory_note", result: {} }]];
  const started = performance.now();
  await hg.runTool("save_memory_note", { content: "x" }); // not idempotent: a 429 did nothing, so it goes again
  assert.ok(performance.now() - started >= 190, "waited for Retry-After");
  assert.equal(seen.length, 2);
  seen.length = 0;
  script = [limited, limited, limited, limited, node];
  await assert.rejects(hg.getNode("knowledge:a"), (error) => {
    assert.equal(error.constructor, RateLimited);
    assert.deepEqual([error.status, error.code, error.retryAfter], [429, "rate_limited", 0.2]);
    return true;
  });
  assert.equal(seen.length, 4); // the call and 3 retries
  script = [];
});

test("a refused connection is ConnectionFailed, retried, then raised", async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  const hg = new Hippograph(`http://127.0.0.1:${port}`, { namespace: "ns", retry: new RetryPolicy({ backoffBase: 0.05 }) });
  const started = performance.now();
  await assert.rejects(hg.getNode("knowledge:a"), (error) => {
    assert.ok(error instanceof ConnectionFailed);
    assert.deepEqual([error.status, error.code], [null, "connection_failed"]);
    return true;
  });
  assert.ok(performance.now() - started >= 0.05 + 0.1 + 0.2 - 0.02, "the three backoffs were not waited");
});
