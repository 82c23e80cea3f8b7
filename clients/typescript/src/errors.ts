/**
 * One error class per error code of the API, under `HippographError` — the same classes, fields and
 * mapping as the Python client (hippograph/errors.py).
 *
 * The service answers every error as `{"error": {"code", "message", "field"?}, "request_id"}`;
 * `errorFromResponse` turns that into the class of its code, or of its status when the code is one
 * this client does not know.
 */

export interface ErrorInit {
  status?: number | null;
  code?: string | null;
  field?: string | null;
  requestId?: string | null;
  body?: Record<string, unknown> | null;
  retryAfter?: number | null;
  cause?: unknown;
}

/** An error answered by the service (or, with `status` null, no answer at all). */
export class HippographError extends Error {
  static defaultStatus: number | null = null;
  static defaultCode = "error";

  readonly status: number | null;
  readonly code: string;
  readonly field: string | null;
  readonly requestId: string | null;
  readonly body: Record<string, unknown>;
  /** Seconds of the answer's `Retry-After`, if it had one. */
  readonly retryAfter: number | null;

  constructor(message: string, init: ErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    const cls = new.target as typeof HippographError;
    this.name = cls.name;
    this.status = init.status ?? cls.defaultStatus;
    this.code = init.code ?? cls.defaultCode;
    this.field = init.field ?? null;
    this.requestId = init.requestId ?? null;
    this.body = init.body ?? {};
    this.retryAfter = init.retryAfter ?? null;
  }

  override toString(): string {
    const where = this.status !== null ? ` (${this.status} ${this.code})` : ` (${this.code})`;
    return `${this.name}: ${this.message}${where}`;
  }
}

/** The service could not be reached (refused, DNS, timeout before an answer). */
export class ConnectionFailed extends HippographError {
  static override defaultCode = "connection_failed";
}

export class BadRequest extends HippographError {
  static override defaultStatus: number | null = 400;
  static override defaultCode = "bad_request";
}

/** Missing, unknown, revoked or expired API key. */
export class Unauthorized extends HippographError {
  static override defaultStatus: number | null = 401;
  static override defaultCode = "unauthorized";
}

/** The key has no role on the namespace, or too small a role. */
export class Forbidden extends HippographError {
  static override defaultStatus: number | null = 403;
  static override defaultCode = "forbidden";
}

export class NotFound extends HippographError {
  static override defaultStatus: number | null = 404;
  static override defaultCode = "not_found";
}

export class MethodNotAllowed extends HippographError {
  static override defaultStatus: number | null = 405;
  static override defaultCode = "method_not_allowed";
}

export class Conflict extends HippographError {
  static override defaultStatus: number | null = 409;
  static override defaultCode = "conflict";
}

/** The request was refused as invalid; `field` names what was wrong. */
export class InvalidRequest extends HippographError {
  static override defaultStatus: number | null = 422;
  static override defaultCode = "invalid_request";
}

/** The Cypher guard refused the query (a write, or a read not tied to the namespace). */
export class CypherRefused extends InvalidRequest {
  static override defaultCode = "cypher_refused";
}

export class CypherTimeout extends InvalidRequest {
  static override defaultCode = "cypher_timeout";
}

/** Neo4j refused the query (syntax, types). */
export class CypherError extends InvalidRequest {
  static override defaultCode = "cypher_error";
}

/** 429: the key sent more requests than its role may; nothing was done, so any call may be sent again
 * after `retryAfter` (the client does so by itself first). */
export class RateLimited extends HippographError {
  static override defaultStatus: number | null = 429;
  static override defaultCode = "rate_limited";
}

/** Too many analytics queries are running; retry after `retryAfter`. */
export class CypherBusy extends RateLimited {
  static override defaultCode = "cypher_busy";
}

export class InternalError extends HippographError {
  static override defaultStatus: number | null = 500;
  static override defaultCode = "internal_error";
}

/** 503: try again later (the client retries idempotent calls by itself first). */
export class Unavailable extends HippographError {
  static override defaultStatus: number | null = 503;
  static override defaultCode = "unavailable";
}

/** An engine (neo4j, redis, vectors) is down; `engine` names it. */
export class EngineUnavailable extends Unavailable {
  static override defaultCode = "engine_unavailable";

  get engine(): string | null {
    const value = this.body["engine"];
    return value === undefined || value === null ? null : String(value);
  }
}

export class NotReady extends Unavailable {
  static override defaultCode = "not_ready";
}

/** The write tracks of a batch sent with `wait` failed. */
export class IngestFailed extends Unavailable {
  static override defaultCode = "ingest_failed";
}

/** 504: the service gave up waiting (e.g. for the write tracks of a batch sent with `wait`). */
export class Timeout extends HippographError {
  static override defaultStatus: number | null = 504;
  static override defaultCode = "timeout";
}

type ErrorClass = typeof HippographError;

export const BY_CODE: Readonly<Record<string, ErrorClass>> = Object.fromEntries(
  [
    BadRequest, Unauthorized, Forbidden, NotFound, MethodNotAllowed, Conflict, InvalidRequest, CypherRefused,
    CypherTimeout, CypherError, RateLimited, CypherBusy, InternalError, EngineUnavailable, NotReady, IngestFailed,
    Timeout,
  ].map((cls) => [cls.defaultCode, cls]),
);

export const BY_STATUS: Readonly<Record<number, ErrorClass>> = {
  400: BadRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound, 405: MethodNotAllowed, 409: Conflict,
  422: InvalidRequest, 429: RateLimited, 500: InternalError, 503: Unavailable, 504: Timeout,
};

/** Seconds of a `Retry-After` header (delta-seconds; an HTTP date counts from now). */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | null {
  if (!value || !value.trim()) return null;
  const seconds = Number(value);
  if (!Number.isNaN(seconds)) return Math.max(0, seconds);
  const when = Date.parse(value);
  if (Number.isNaN(when)) return null;
  return Math.max(0, (when - now) / 1000);
}

const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
  409: "Conflict", 413: "Content Too Large", 422: "Unprocessable Content", 429: "Too Many Requests",
  500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
};

/** The error an answer (status, headers, body bytes) stands for. */
export function errorFromResponse(status: number, headers: Headers, content: Uint8Array,
                                  statusText = ""): HippographError {
  const text = new TextDecoder().decode(content);
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const asRecord = isRecord(body) ? body : null;
  const reason = statusText || REASONS[status] || "";
  let error = asRecord && isRecord(asRecord["error"]) ? asRecord["error"] : null;
  if (error === null) error = { code: null, message: text.slice(0, 300) || reason }; // a proxy's page, say
  const code = error["code"];
  const cls = BY_CODE[String(code)] ?? BY_STATUS[status] ?? HippographError;
  const requestId = asRecord?.["request_id"];
  return new cls(String(error["message"] || reason), {
    status,
    code: code ? String(code) : null,
    field: typeof error["field"] === "string" ? error["field"] : null,
    requestId: typeof requestId === "string" && requestId ? requestId : headers.get("x-request-id"),
    body: asRecord,
    retryAfter: parseRetryAfter(headers.get("retry-after")),
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
