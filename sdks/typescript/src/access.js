// Who may use a workspace: roles of people and key principals (with their keys), invitations, and
// API keys.

import { Model, camelize, enc, idOf, paginate, toBody } from "./common.js";

export class Access extends Model {
  /** @param {import("./hearth.js").Hearth} hearth @param {any} raw @param {import("./workspaces.js").Workspace} workspace */
  constructor(hearth, raw, workspace) {
    super(hearth, raw);
    Object.defineProperty(this, "workspace", { value: workspace, enumerable: false });
  }

  get path() { return `${/** @type {any} */ (this).workspace.path}/access/${enc(this.principal.id)}`; }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.access);
  }

  /** `{role}`, and for key principals `{name, description}`. @param {Record<string, any>} changes */
  async update(changes) {
    const { body } = await this.hearth.transport.json("PATCH", this.path, { json: toBody(changes) });
    return this._load(body.access);
  }

  /** Removes the role. */
  async remove() {
    const { body } = await this.hearth.transport.json("DELETE", this.path);
    return this._load(body.access);
  }

  /**
   * Issues a new key and revokes the old one; answers `{access, key, keyFile}` (`keyFile` is the JSON
   * to save as a key file, with `private_key` unless you gave `publicKey`).
   * @param {{publicKey?: string, expiresInDays?: number}} [options]
   */
  async rotateKey(options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/rotate_key`, { json: toBody(options) });
    return { access: this._load(body.access), key: camelize(body.key), keyFile: body.key_file };
  }

  /** Revokes the key: its tokens stop working at once. */
  async revokeKey() {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/revoke_key`);
    return this._load(body.access);
  }
}

export class AccessList {
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./workspaces.js").Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  /**
   * Grants a role: a person `{email, role}` or a key principal `{name, role, description?, publicKey?,
   * expiresInDays?}`. Answers `{access, key, keyFile}` (`keyFile`: the key file's JSON, for key principals).
   * @param {Record<string, any>} grant @param {{idempotencyKey?: string}} [options]
   */
  async grant(grant, options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.workspace.path}/access`, { json: toBody(grant), idempotencyKey: options.idempotencyKey });
    return { access: new Access(this.hearth, body.access, this.workspace), key: camelize(body.key ?? null), keyFile: body.key_file ?? null };
  }

  /** @param {string} principalId */
  async get(principalId) {
    const { body } = await this.hearth.transport.json("GET", `${this.workspace.path}/access/${enc(principalId)}`);
    return new Access(this.hearth, body.access, this.workspace);
  }

  /** Every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/access`, "access", (raw) => new Access(this.hearth, raw, this.workspace), options);
  }
}

export class Invitation extends Model {
  get path() { return `/invitations/${enc(this.id)}`; }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.invitation);
  }

  /** A new expiry and a new mail. */
  async resend() {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/resend`);
    return this._load(body.invitation);
  }

  /** Revokes it. */
  async revoke() {
    const { body } = await this.hearth.transport.json("DELETE", this.path);
    return this._load(body.invitation);
  }

  /** Accepts it (only the invited email principal may). */
  async accept() {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/accept`);
    return this._load(body.invitation);
  }
}

export class Invitations {
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./workspaces.js").Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  /** @param {string} email @param {"admin"|"editor"|"viewer"} role @param {{idempotencyKey?: string}} [options] */
  async create(email, role, options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.workspace.path}/invitations`, { json: { email, role }, idempotencyKey: options.idempotencyKey });
    return new Invitation(this.hearth, body.invitation);
  }

  /** @param {string} id */
  async get(id) {
    const { body } = await this.hearth.transport.json("GET", `/invitations/${enc(id)}`);
    return new Invitation(this.hearth, body.invitation);
  }

  /** Every page; `state`: `pending` (default), `expired` or `all`. @param {{limit?: number, state?: string}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/invitations`, "invitations", (raw) => new Invitation(this.hearth, raw), options);
  }
}

/** An API key: a long-lived `hk_...` secret that acts in one workspace as its maker, with its role. */
export class ApiKey extends Model {
  get path() { return `/workspaces/${enc(this.workspace)}/api_keys/${enc(this.id)}`; }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.api_key);
  }

  /** Revokes it: the server refuses it (401) from the next request on. */
  async revoke() {
    const { body } = await this.hearth.transport.json("DELETE", this.path);
    return this._load(body.api_key);
  }
}

export class ApiKeys {
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./workspaces.js").Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  get path() { return `${this.workspace.path}/api_keys`; }

  /**
   * A new key and its secret: `{apiKey, secret}`. The secret is shown this once (a replay of the
   * same idempotency key answers it null); use it as `new Hearth({apiKey})` or `HEARTH_API_KEY`.
   * `role` defaults to, and may not pass, the caller's role here; without `expiresInDays` it lives
   * until revoked.
   * @param {string} name @param {{role?: "admin"|"editor"|"viewer", expiresInDays?: number, idempotencyKey?: string}} [options]
   */
  async create(name, options = {}) {
    const json = toBody({ name, role: options.role, expiresInDays: options.expiresInDays });
    const { body } = await this.hearth.transport.json("POST", this.path, { json, idempotencyKey: options.idempotencyKey });
    return { apiKey: new ApiKey(this.hearth, body.api_key), secret: body.secret ?? null };
  }

  /** @param {string} id */
  async get(id) {
    const { body } = await this.hearth.transport.json("GET", `${this.path}/${enc(id)}`);
    return new ApiKey(this.hearth, body.api_key);
  }

  /** Every key of the workspace (never their secrets), every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, this.path, "api_keys", (raw) => new ApiKey(this.hearth, raw), options);
  }

  /** Revokes a key by id (or the object). @param {ApiKey|string} apiKey */
  async revoke(apiKey) {
    const { body } = await this.hearth.transport.json("DELETE", `${this.path}/${enc(idOf(apiKey))}`);
    return new ApiKey(this.hearth, body.api_key);
  }
}
