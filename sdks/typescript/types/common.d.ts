// Type declarations of src/common.js, written by hand (index.d.ts re-exports them).
// What every model shares: the base class, option shapes, paging and case helpers.

import { Hearth } from "./hearth.js";

export interface MutationOptions {
  /** The Idempotency-Key to send (default: a new UUID per call, the same on its retries); null sends none. */
  idempotencyKey?: string | null;
}

export interface WaitOptions extends MutationOptions {
  /** false: do not follow the operation the answer names. */
  wait?: boolean;
  /** How long to follow it, ms. */
  timeoutMs?: number;
}

export interface ListOptions {
  /** Page size (1 to 100); the iterator still goes through every page. */
  limit?: number;
  /** Start from this cursor. */
  cursor?: string | null;
  signal?: AbortSignal;
}

export type ErrorInfo = { code: string; message: string } | null;

/** The API's objects: fields in camelCase, `raw` the JSON as sent. */
export class Model {
  constructor(hearth: Hearth, raw: any);
  readonly hearth: Hearth;
  /** The JSON as the server sent it (snake_case). */
  readonly raw: any;
  /** Ids of the operations the last answer named. */
  readonly operationIds?: string[];
  toJSON(): any;
}

/** Every item of a paged route, fetching pages as the loop goes. */
export function paginate<T>(hearth: Hearth, path: string, noun: string, make: (raw: any) => T, options?: ListOptions & Record<string, any>): AsyncGenerator<T, void, undefined>;
export function camelCase(s: string): string;
export function snakeCase(s: string): string;
/** Deep copy with object keys in camelCase. */
export function camelize(value: any): any;
