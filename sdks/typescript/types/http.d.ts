// Type declarations of src/http.js, written by hand (index.d.ts re-exports them).
// The HTTP layer.

import { TokenSource } from "./auth.js";

export interface RequestOptions {
  /** An array repeats its parameter. */
  query?: Record<string, string | number | boolean | null | undefined | (string | number | boolean)[]>;
  /** A body sent as JSON. */
  json?: any;
  /** A body sent as is. */
  body?: string | Uint8Array | ArrayBuffer | Blob | URLSearchParams | ReadableStream<Uint8Array>;
  headers?: Record<string, string>;
  /** The Idempotency-Key of a mutation; default a new one per call; null sends none. */
  idempotencyKey?: string | null;
  /** Time allowed for the answer, ms; null: no limit. */
  timeoutMs?: number | null;
  signal?: AbortSignal;
  /** false: no retries. */
  retry?: boolean;
}

export interface JsonAnswer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** The HTTP layer: tokens, Idempotency-Key, retries with backoff and Retry-After, error mapping. */
export class Transport {
  constructor(options: {
    url: string;
    auth: TokenSource | null;
    fetch?: typeof fetch;
    maxRetries?: number;
    timeoutMs?: number;
    userAgent?: string;
  });
  url: string;
  auth: TokenSource | null;
  maxRetries: number;
  timeoutMs: number;
  userAgent: string;
  backoffMs: number;
  maxBackoffMs: number;
  urlFor(path: string, query?: RequestOptions["query"]): string;
  delay(attempt: number, retryAfter: number | null): number;
  send(method: string, path: string, options?: RequestOptions & { stream?: boolean }): Promise<Response>;
  json<T = any>(method: string, path: string, options?: RequestOptions): Promise<JsonAnswer<T>>;
  bytes(method: string, path: string, options?: RequestOptions): Promise<Uint8Array>;
  ndjson(method: string, path: string, options?: RequestOptions): AsyncGenerator<any, void, undefined>;
}
