// The HTTP layer: tokens, Idempotency-Key, retries with backoff, error mapping, NDJSON.

import { randomUUID } from "node:crypto";
import { ConnectionError, IdempotencyKeyInUse, TimeoutError, errorFromResponse, parseRetryAfter } from "./errors.js";

/** Statuses worth another try: the gateway, an unavailable store or runtime, a rate limit. */
const RETRY_STATUSES = new Set([429, 502, 503]);
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** @param {number} ms @param {AbortSignal|undefined} [signal] */
export function sleepMs(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason); return; }
    const timer = setTimeout(() => { signal?.removeEventListener("abort", onAbort); resolve(undefined); }, ms);
    function onAbort() { clearTimeout(timer); reject(signal?.reason); }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * An abort signal that fires when `parent` does or after `ms` (Node 18 has no AbortSignal.any).
 * @param {AbortSignal|undefined} parent @param {number|null} ms
 */
function linkedSignal(parent, ms) {
  const controller = new AbortController();
  let timer = null;
  const onAbort = () => controller.abort(parent?.reason);
  if (parent) {
    if (parent.aborted) controller.abort(parent.reason);
    else parent.addEventListener("abort", onAbort, { once: true });
  }
  const arm = (/** @type {number|null} */ t) => {
    if (timer) clearTimeout(timer);
    timer = t == null ? null : setTimeout(() => controller.abort(new TimeoutError(`no answer within ${t / 1000} s`)), t);
  };
  arm(ms);
  return {
    signal: controller.signal,
    /** Stops the timer (the answer is here; a stream then runs as long as it runs). */
    clearTimer: () => arm(null),
    /** Stops the timer and forgets the parent. */
    dispose: () => { arm(null); parent?.removeEventListener("abort", onAbort); },
    abort: (/** @type {any} */ reason) => controller.abort(reason),
  };
}

/** Whether a body can be sent again as it is. @param {any} body */
function replayable(body) {
  return body == null || typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer
    || body instanceof URLSearchParams || (typeof Blob !== "undefined" && body instanceof Blob);
}

/**
 * @typedef {object} RequestOptions
 * @property {Record<string, string|number|boolean|null|undefined|(string|number|boolean)[]>} [query]
 * @property {any} [json] a body sent as JSON
 * @property {any} [body] a body sent as is (bytes, string, stream)
 * @property {Record<string,string>} [headers]
 * @property {string|null} [idempotencyKey] null sends none; default: a new key for every mutation
 * @property {number|null} [timeoutMs] until the answer's headers (and body, unless streaming)
 * @property {AbortSignal} [signal]
 * @property {boolean} [retry] false: no retries
 */

export class Transport {
  /**
   * @param {{url: string, auth: {token(): Promise<string>, invalidate(): boolean}|null, fetch?: typeof fetch,
   *   maxRetries?: number, timeoutMs?: number, userAgent?: string}} options
   */
  constructor(options) {
    this.url = options.url.replace(/\/+$/, "");
    this.auth = options.auth;
    this.fetch = options.fetch ?? ((/** @type {any} */ input, /** @type {any} */ init) => globalThis.fetch(input, init));
    this.maxRetries = options.maxRetries ?? 5;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.userAgent = options.userAgent ?? "hearth-sdk-js";
    /** Base delay of the exponential backoff, ms. */
    this.backoffMs = 500;
    /** Longest wait between two tries, ms. */
    this.maxBackoffMs = 30_000;
  }

  /** An array repeats its parameter (`?label=a=1&label=b=2`). @param {string} path @param {RequestOptions["query"]} [query] */
  urlFor(path, query) {
    const url = new URL(this.url + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      for (const item of Array.isArray(v) ? v : [v]) {
        if (item !== undefined && item !== null) url.searchParams.append(k, String(item));
      }
    }
    return url.toString();
  }

  /** The wait before try number `attempt + 1`, ms: the server's Retry-After, else backoff with jitter. */
  delay(/** @type {number} */ attempt, /** @type {number|null} */ retryAfter) {
    if (retryAfter != null) return Math.min(retryAfter * 1000, this.maxBackoffMs);
    const base = Math.min(this.backoffMs * 2 ** attempt, 8_000);
    return base / 2 + Math.random() * base / 2;
  }

  /**
   * Sends a request and answers the successful Response (body unread); an error answer throws the
   * HearthError of its code. Mutations carry one Idempotency-Key for all their tries. Network errors,
   * 429, 502 and 503 (and 409 idempotency_key_in_use) are tried again after Retry-After or a backoff;
   * a 401 is tried once more with a fresh token.
   * @param {string} method @param {string} path @param {RequestOptions & {stream?: boolean}} [options]
   * @returns {Promise<Response>}
   */
  async send(method, path, options = {}) {
    method = method.toUpperCase();
    const url = this.urlFor(path, options.query);
    const key = SAFE_METHODS.has(method) || options.idempotencyKey === null ? null : (options.idempotencyKey ?? randomUUID());
    let body = options.body;
    const headers = { accept: "application/json", "user-agent": this.userAgent, ...lower(options.headers) };
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] = "application/json";
    }
    if (key) headers["idempotency-key"] = key;
    const canRetry = options.retry !== false && replayable(body);
    const streamingBody = !replayable(body);
    let refreshedToken = false;
    for (let attempt = 0; ; attempt++) {
      if (this.auth) headers.authorization = `Bearer ${await this.auth.token()}`;
      const timeout = linkedSignal(options.signal, options.timeoutMs === undefined ? this.timeoutMs : options.timeoutMs);
      /** @type {Response} */
      let response;
      try {
        /** @type {any} */
        const init = { method, headers, body, signal: timeout.signal, redirect: "manual" };
        if (streamingBody) init.duplex = "half";
        response = await this.fetch(url, init);
      } catch (e) {
        timeout.dispose();
        if (options.signal?.aborted) throw options.signal.reason ?? e;
        const timedOut = timeout.signal.reason instanceof TimeoutError;
        if (canRetry && attempt < this.maxRetries && !timedOut) {
          await sleepMs(this.delay(attempt, null), options.signal);
          continue;
        }
        if (timedOut) throw new TimeoutError(`${method} ${path}: ${timeout.signal.reason.message}`, { cause: e });
        throw new ConnectionError(`${method} ${url}: ${describe(e)}`, { cause: e });
      }
      if (response.status < 300) {
        if (options.stream) {
          timeout.clearTimer();
          // The caller reads the stream; release the parent listener once it is done.
          return response;
        }
        // The caller reads the body now; the timer keeps running over that read.
        /** @type {any} */ (response).__timeout = timeout;
        return response;
      }
      let text = "";
      try { text = await response.text(); } catch { /* the error is what matters */ }
      timeout.dispose();
      let parsed = null;
      try { parsed = text ? JSON.parse(text) : null; } catch { parsed = text; }
      const error = errorFromResponse(response.status, parsed, response.headers);
      if (response.status === 401 && this.auth && !refreshedToken && this.auth.invalidate()) {
        refreshedToken = true;
        attempt--;
        continue;
      }
      const retryable = RETRY_STATUSES.has(response.status) || error instanceof IdempotencyKeyInUse;
      if (retryable && canRetry && attempt < this.maxRetries) {
        await sleepMs(this.delay(attempt, parseRetryAfter(response.headers.get("retry-after"))), options.signal);
        continue;
      }
      throw error;
    }
  }

  /**
   * A JSON request: answers `{status, body, headers}`.
   * @param {string} method @param {string} path @param {RequestOptions} [options]
   * @returns {Promise<{status: number, body: any, headers: Headers}>}
   */
  async json(method, path, options = {}) {
    const response = await this.send(method, path, options);
    const timeout = /** @type {any} */ (response).__timeout;
    try {
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
    } catch (e) {
      if (timeout?.signal.reason instanceof TimeoutError) throw new TimeoutError(`${method} ${path}: ${timeout.signal.reason.message}`, { cause: e });
      throw e;
    } finally {
      timeout?.dispose();
    }
  }

  /**
   * A raw answer's bytes.
   * @param {string} method @param {string} path @param {RequestOptions} [options]
   */
  async bytes(method, path, options = {}) {
    const response = await this.send(method, path, options);
    const timeout = /** @type {any} */ (response).__timeout;
    try {
      return new Uint8Array(await response.arrayBuffer());
    } finally {
      timeout?.dispose();
    }
  }

  /**
   * An NDJSON answer, one parsed object per line, as lines arrive. Leaving the loop early cancels
   * the request (the server then kills what it runs for it).
   * @param {string} method @param {string} path @param {RequestOptions} [options]
   * @returns {AsyncGenerator<any, void, undefined>}
   */
  async *ndjson(method, path, options = {}) {
    const controller = new AbortController();
    const parent = options.signal;
    const onAbort = () => controller.abort(parent?.reason);
    parent?.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await this.send(method, path, {
        ...options,
        signal: controller.signal,
        stream: true,
        headers: { ...options.headers, accept: "application/x-ndjson" },
      });
      if (!response.body) return;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let newline;
          while ((newline = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (line) yield JSON.parse(line);
          }
        }
        buffer += decoder.decode();
        if (buffer.trim()) yield JSON.parse(buffer.trim());
      } finally {
        reader.cancel().catch(() => {});
      }
    } finally {
      parent?.removeEventListener("abort", onAbort);
      controller.abort();
    }
  }
}

/** @param {Record<string,string>|undefined} headers */
function lower(headers) {
  /** @type {Record<string,string>} */
  const out = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

/** @param {any} e */
function describe(e) {
  const cause = e?.cause;
  if (!cause) return String(e?.message ?? e);
  const detail = [cause.code, cause.message].filter(Boolean).join(": ");
  return detail ? `${e.message} (${detail})` : String(e.message);
}
