/** When to retry a call and how long to wait: the Python client's `RetryPolicy` (hippograph/_retry.py). */

import { ConnectionFailed, HippographError, RateLimited, Unavailable } from "./errors.js";

export interface RetryOptions {
  maxRetries?: number;
  backoffBase?: number;
  backoffMax?: number;
  maxWait?: number;
}

/**
 * Idempotent calls answered 503 (or that could not connect), and any call answered 429 (refused before
 * anything was done), are sent again up to `maxRetries` times.
 * The n-th retry (n = 0, 1, ...) waits `backoffBase * 2**n` seconds, at most `backoffMax`, and never
 * less than the answer's `Retry-After`; no single wait exceeds `maxWait`.
 */
export class RetryPolicy {
  readonly maxRetries: number;
  readonly backoffBase: number;
  readonly backoffMax: number;
  readonly maxWait: number;

  constructor(options: RetryOptions = {}) {
    this.maxRetries = options.maxRetries ?? 3;
    this.backoffBase = options.backoffBase ?? 0.5;
    this.backoffMax = options.backoffMax ?? 8.0;
    this.maxWait = options.maxWait ?? 30.0;
  }

  /** Seconds to wait before retry number `retry` (0-based). */
  delay(retry: number, retryAfter: number | null = null): number {
    let backoff = Math.min(this.backoffMax, this.backoffBase * 2 ** retry);
    if (retryAfter !== null) backoff = Math.max(backoff, retryAfter);
    return Math.min(backoff, this.maxWait);
  }

  shouldRetry(error: HippographError, retry: number, idempotent: boolean): boolean {
    if (retry >= this.maxRetries) return false;
    return error instanceof RateLimited || (idempotent && (error instanceof Unavailable || error instanceof ConnectionFailed));
  }
}

export const NO_RETRY = new RetryPolicy({ maxRetries: 0 });
