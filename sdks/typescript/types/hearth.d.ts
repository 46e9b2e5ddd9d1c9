// Type declarations of src/hearth.js, written by hand (index.d.ts re-exports them).
// The client.

import { Principal, Role } from "./access.js";
import { KeyFile, TokenSource } from "./auth.js";
import { Computer } from "./computers.js";
import { Database } from "./databases.js";
import { JsonAnswer, RequestOptions, Transport } from "./http.js";
import { Operations } from "./operations.js";
import { Workspace, Workspaces } from "./workspaces.js";

export const DEFAULT_URL: string;

export interface HearthOptions {
  /** The API's base URL; default HEARTH_URL, else the key file's audience, else http://127.0.0.1:7300/v1. */
  url?: string;
  /** A fixed access token (default HEARTH_TOKEN). */
  token?: string;
  /** An API key, `hk_...`, sent as the bearer token (default HEARTH_API_KEY). */
  apiKey?: string;
  /** A key file's path or JSON (default HEARTH_KEY_FILE). */
  keyFile?: string | KeyFile;
  /** Any token source; null: anonymous. */
  auth?: TokenSource | null;
  fetch?: typeof fetch;
  /** Tries after the first for network errors, 429, 502, 503 (default 5). */
  maxRetries?: number;
  /** Time allowed for one request, ms (default 120000). */
  timeoutMs?: number;
  /** Time allowed to follow an operation, ms (default 600000). */
  operationTimeoutMs?: number;
  /** The environment to read instead of process.env. */
  env?: Record<string, string | undefined>;
}

export interface Me { principal: Principal; workspaces: { workspace: Record<string, any>; role: Role }[] }

export class Hearth {
  constructor(options?: HearthOptions);
  /** Where tokens come from: a StaticToken, a KeyFileTokens, or null. */
  auth: TokenSource | null;
  transport: Transport;
  operationTimeoutMs: number;
  workspaces: Workspaces;
  operations: Operations;
  readonly url: string;
  /** A workspace by id or name. */
  workspace(idOrName: string): Promise<Workspace>;
  /** A computer by id (deleted ones too). */
  computer(id: string): Promise<Computer>;
  /** A database by id. */
  database(id: string): Promise<Database>;
  me(): Promise<Me>;
  health(): Promise<{ status: string; version: string; store: string }>;
  /** Any route, as JSON. */
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<JsonAnswer<T>>;
}
