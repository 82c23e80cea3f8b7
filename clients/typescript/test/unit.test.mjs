// Pure parts, exact: the retry schedule, Retry-After, the error mapping, query strings, and the route
// table against the OpenAPI document the types are generated from.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  BY_CODE, BY_STATUS, ConnectionFailed, CypherBusy, CypherRefused, EngineUnavailable, errorFromResponse, Forbidden,
  HippographError, InvalidRequest, NO_RETRY, NotFound, NotReady, parseRetryAfter, queryString, RateLimited,
  RetryPolicy, ROUTES, Unavailable,
} from "../dist/index.js";

const encode = (value) => new TextEncoder().encode(typeof value === "string" ? value : JSON.stringify(value));

test("the retry schedule is the Python client's", () => {
  const policy = new RetryPolicy();
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((n) => policy.delay(n)), [0.5, 1, 2, 4, 8, 8]);
  assert.equal(policy.delay(0, 3), 3); // never sooner than Retry-After
  assert.equal(policy.delay(3, 1), 4);
  assert.equal(policy.delay(0, 120), 30); // no single wait above maxWait
  const unavailable = new Unavailable("down");
  assert.equal(policy.shouldRetry(unavailable, 0, true), true);
  assert.equal(policy.shouldRetry(new EngineUnavailable("down"), 2, true), true);
  assert.equal(policy.shouldRetry(new ConnectionFailed("refused"), 2, true), true);
  assert.equal(policy.shouldRetry(unavailable, 3, true), false); // max_retries reached
  assert.equal(policy.shouldRetry(unavailable, 0, false), false); // not idempotent
  assert.equal(policy.shouldRetry(new NotFound("gone"), 0, true), false);
  assert.equal(NO_RETRY.shouldRetry(unavailable, 0, true), false);
  // A 429 was refused before anything was done: any call goes again, after its Retry-After.
  assert.equal(policy.shouldRetry(new RateLimited("slow down"), 0, false), true);
  assert.equal(policy.shouldRetry(new CypherBusy("busy"), 2, true), true);
  assert.equal(policy.shouldRetry(new RateLimited("slow down"), 3, false), false);
});

test("Retry-After is read as seconds or as an HTTP date", () => {
  assert.equal(parseRetryAfter("7"), 7);
  assert.equal(parseRetryAfter("1.5"), 1.5);
  assert.equal(parseRetryAfter("-3"), 0);
  assert.equal(parseRetryAfter(null), null);
  assert.equal(parseRetryAfter(""), null);
  assert.equal(parseRetryAfter("soon"), null);
  const now = Date.parse("2026-12-06T05:00:00Z");
  assert.equal(parseRetryAfter("Sun, 06 Dec 2026 05:00:30 GMT", now), 30);
  assert.equal(parseRetryAfter("Sun, 06 Dec 2026 04:00:00 GMT", now), 0);
});

test("an error answer becomes the class of its code, else of its status", () => {
  const headers = new Headers({ "retry-after": "2", "x-request-id": "from-header" });
  const refused = errorFromResponse(422, headers, encode({
    error: { code: "cypher_refused", message: "writes are not allowed", field: "query" }, request_id: "req-1",
  }));
  assert.ok(refused instanceof CypherRefused && refused instanceof InvalidRequest && refused instanceof HippographError);
  assert.deepEqual([refused.status, refused.code, refused.message, refused.field, refused.requestId, refused.retryAfter],
    [422, "cypher_refused", "writes are not allowed", "query", "req-1", 2]);
  assert.equal(String(refused), "CypherRefused: writes are not allowed (422 cypher_refused)");

  const engine = errorFromResponse(503, new Headers(), encode({
    error: { code: "engine_unavailable", message: "neo4j down" }, request_id: "r", engine: "neo4j",
  }));
  assert.ok(engine instanceof EngineUnavailable && engine instanceof Unavailable);
  assert.equal(engine.engine, "neo4j");

  const unknownCode = errorFromResponse(403, new Headers(), encode({ error: { code: "new_code", message: "no" } }));
  assert.ok(unknownCode instanceof Forbidden);
  assert.equal(unknownCode.code, "new_code");

  const proxyPage = errorFromResponse(502, headers, encode("<html>bad gateway</html>"), "Bad Gateway");
  assert.equal(proxyPage.constructor, HippographError);
  assert.deepEqual([proxyPage.status, proxyPage.code, proxyPage.message, proxyPage.requestId],
    [502, "error", "<html>bad gateway</html>", "from-header"]);
  assert.equal(errorFromResponse(503, new Headers(), encode({ error: { code: "not_ready", message: "x" } })).constructor, NotReady);
  assert.equal(new ConnectionFailed("refused").status, null);
});

test("the code and status tables name the Python client's classes", () => {
  assert.deepEqual(Object.keys(BY_CODE).sort(), [
    "bad_request", "conflict", "cypher_busy", "cypher_error", "cypher_refused", "cypher_timeout", "engine_unavailable",
    "forbidden", "ingest_failed", "internal_error", "invalid_request", "method_not_allowed", "not_found", "not_ready",
    "rate_limited", "timeout", "unauthorized",
  ]);
  assert.deepEqual(Object.keys(BY_STATUS).map(Number), [400, 401, 403, 404, 405, 409, 422, 429, 500, 503, 504]);
});

test("query strings repeat lists, spell booleans and leave out what is not given", () => {
  assert.equal(queryString({ type: ["Task", "Person"], include_forgotten: true, limit: 5, cursor: null, x: undefined }),
    "?type=Task&type=Person&include_forgotten=true&limit=5");
  assert.equal(queryString({ since: new Date("2026-01-02T03:04:05Z") }), "?since=2026-01-02T03%3A04%3A05.000Z");
  assert.equal(queryString({}), "");
  assert.equal(queryString(undefined), "");
});

test("every operation of openapi.json has one method, with its method and path", () => {
  const document = JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8"));
  const served = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      served.push(`${method.toUpperCase()} ${path} ${operation.operationId}`);
    }
  }
  const routes = Object.values(ROUTES).map((r) => `${r.method} ${r.path} ${r.operationId}`);
  assert.deepEqual([...routes].sort(), [...served].sort());
});
