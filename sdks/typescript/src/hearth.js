// The client: where the server is, who the caller is, and the entry points to everything else.

import { KeyFileTokens, StaticToken } from "./auth.js";
import { Transport } from "./http.js";
import { camelize, enc } from "./common.js";
import { Computer } from "./computers.js";
import { Database } from "./databases.js";
import { Operations } from "./operations.js";
import { Workspaces } from "./workspaces.js";

/** The CLI's default server. */
export const DEFAULT_URL = "http://127.0.0.1:7300/v1";

export class Hearth {
  /**
   * A client. Without options it reads the environment as the CLI does: `HEARTH_URL`, then
   * `HEARTH_TOKEN` (a fixed access token), `HEARTH_API_KEY` (an API key, `hk_...`) or
   * `HEARTH_KEY_FILE` (a key file traded for tokens).
   * `url` defaults to `HEARTH_URL`, else the key file's audience, else http://127.0.0.1:7300/v1.
   * @param {{url?: string, token?: string, apiKey?: string, keyFile?: string|object, fetch?: typeof fetch,
   *   maxRetries?: number, timeoutMs?: number, operationTimeoutMs?: number, env?: Record<string, string|undefined>,
   *   auth?: {token(): Promise<string>, invalidate(): boolean}|null}} [options]
   */
  constructor(options = {}) {
    const env = options.env ?? process.env;
    // An API key is a bearer secret like an access token, only long-lived: sent as it is.
    let token = options.token ?? options.apiKey;
    let keyFile = options.keyFile;
    if (token == null && keyFile == null && options.auth === undefined) {
      if (env.HEARTH_TOKEN || env.HEARTH_API_KEY) token = env.HEARTH_TOKEN || env.HEARTH_API_KEY;
      else if (env.HEARTH_KEY_FILE) keyFile = env.HEARTH_KEY_FILE;
    }
    /** @type {{token(): Promise<string>, invalidate(): boolean}|null} */
    let auth = options.auth ?? null;
    if (options.auth === undefined) {
      if (token != null) auth = new StaticToken(token);
      else if (keyFile != null) auth = new KeyFileTokens(keyFile, { fetch: options.fetch });
    }
    /** Where tokens come from: a StaticToken, a KeyFileTokens, or null (anonymous). */
    this.auth = auth;
    const url = options.url ?? env.HEARTH_URL ?? (auth instanceof KeyFileTokens ? auth.keyFile.audience : undefined) ?? DEFAULT_URL;
    /** The HTTP layer (retries, Idempotency-Key, errors); `request()` uses it for any route. */
    this.transport = new Transport({ url, auth, fetch: options.fetch, maxRetries: options.maxRetries, timeoutMs: options.timeoutMs });
    /** How long to follow an operation before giving up, ms (default 10 minutes). */
    this.operationTimeoutMs = options.operationTimeoutMs ?? 600_000;
    /** The caller's workspaces. */
    this.workspaces = new Workspaces(this);
    /** Long-running work. */
    this.operations = new Operations(this);
  }

  /** The API's base URL, e.g. http://127.0.0.1:7300/v1. */
  get url() { return this.transport.url; }

  /** A workspace by id or name. @param {string} idOrName */
  workspace(idOrName) {
    return this.workspaces.get(idOrName);
  }

  /** A computer by id (deleted ones too). @param {string} id */
  async computer(id) {
    const { body } = await this.transport.json("GET", `/computers/${enc(id)}`);
    return new Computer(this, body.computer);
  }

  /** A database by id. @param {string} id */
  async database(id) {
    const { body } = await this.transport.json("GET", `/databases/${enc(id)}`);
    return new Database(this, body.database);
  }

  /** Who the caller is and its workspaces (`{principal, workspaces: [{workspace, role}]}`, camelCase). */
  async me() {
    const { body } = await this.transport.json("GET", "/me");
    return camelize(body);
  }

  /** `{status, version, store}`; needs no token. */
  async health() {
    const { body } = await this.transport.json("GET", "/health");
    return body;
  }

  /**
   * Any route, as JSON: `{status, body, headers}` (body as the server sent it). Mutations get an
   * Idempotency-Key unless `idempotencyKey: null`; errors throw as everywhere else.
   * @param {string} method @param {string} path e.g. "/workspaces"
   * @param {import("./http.js").RequestOptions} [options]
   */
  request(method, path, options = {}) {
    return this.transport.json(method, path, options);
  }
}
