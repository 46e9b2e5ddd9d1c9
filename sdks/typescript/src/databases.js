// PostgreSQL databases: create (and branch), connection details, credentials, sleep and wake.

import { Model, WorkspaceResources, enc, idOf, toBody } from "./common.js";
import { Checkpoints } from "./checkpoints.js";
import { DatabaseRoles, PgDatabases } from "./roles.js";

export class Connection extends Model {}

/**
 * A read-only view of a database as it was at a moment (`at`), on a cluster of its own, until
 * `expiresAt` or `end()`. `connection` (the owner role, the database's password of now) holds the
 * password after `Database.timeTravel` only.
 */
export class TimeTravel extends Model {
  /** @param {any} raw @returns {this} */
  _load(raw) {
    super._load(raw);
    /** @type {Connection} */
    (/** @type {any} */ (this)).connection = new Connection(this.hearth, raw.connection);
    return this;
  }

  get path() { return `/databases/${enc(/** @type {any} */ (this).database)}/time_travels/${enc(/** @type {any} */ (this).id)}`; }

  /** Ends it now: its sessions end and its cluster goes. @param {{idempotencyKey?: string}} [options] */
  async end(options = {}) {
    const { body } = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    return this._load(body.time_travel);
  }
}

export class Database extends Model {
  get path() { return `/databases/${enc(this.id)}`; }
  /** The database's checkpoints. */
  get checkpoints() { return new Checkpoints(this.hearth, this.path, "database"); }
  /** Its PostgreSQL login roles (each call wakes it). */
  get roles() { return new DatabaseRoles(this.hearth, this.path); }
  /** The PostgreSQL databases inside it (each call wakes it). */
  get pgDatabases() { return new PgDatabases(this.hearth, this.path); }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.database);
  }

  /** PATCH `{protected, autoSleepSeconds, diskMb, historyHours}`. @param {Record<string, any>} changes @param {{idempotencyKey?: string}} [options] */
  async update(changes, options = {}) {
    const { body } = await this.hearth.transport.json("PATCH", this.path, { json: toBody(changes), idempotencyKey: options.idempotencyKey });
    return this._load(body.database);
  }

  /** @param {{idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const { body } = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    return this._load(body.database);
  }

  /** How to connect: host, port, user, password, `uri`, `poolerUri`, `serverCa`, ... */
  async connection() {
    const { body } = await this.hearth.transport.json("GET", `${this.path}/connection`);
    return new Connection(this.hearth, body.connection);
  }

  /** Sets a new password (earlier ones stop working) and answers the new Connection. @param {{idempotencyKey?: string}} [options] */
  async resetCredentials(options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/reset_credentials`, { idempotencyKey: options.idempotencyKey });
    return new Connection(this.hearth, body.connection);
  }

  /**
   * The statements it spends most time on (wakes it): `[{query, calls, total_millis, mean_millis, rows}]`.
   * @param {{order?: "total"|"mean", limit?: number}} [options]
   */
  async insights(options = {}) {
    const { body } = await this.hearth.transport.json("GET", `${this.path}/insights`, { query: { order: options.order, limit: options.limit } });
    return body.statements;
  }

  /**
   * How far back it can be branched: `{earliest, latest, bases, archive_bytes, window_seconds}`.
   * @returns {Promise<{earliest: string|null, latest: string, bases: number, archive_bytes: number, window_seconds: number}>}
   */
  async history() {
    const { body } = await this.hearth.transport.json("GET", `${this.path}/history`);
    return body.history;
  }

  /**
   * Rolls it back to a moment in place (same id, name, port and password; its sessions end once).
   * `backup` is a new database holding what it was just before, to undo the restore.
   * @param {Date|string} at a time, or an LSN (`X/Y`) @param {{idempotencyKey?: string}} [options]
   * @returns {Promise<{database: this, backup: Database}>}
   */
  async restore(at, options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/restore`,
      { json: { at: at instanceof Date ? at.toISOString() : at }, idempotencyKey: options.idempotencyKey });
    return { database: this._load(body.database), backup: new Database(this.hearth, body.backup) };
  }

  /**
   * A read-only connection to it as it was at a moment, open `ttlSeconds` (60 to 14400, default 600);
   * it does not wake the database.
   * @param {Date|string} at a time, or an LSN (`X/Y`) @param {{ttlSeconds?: number, idempotencyKey?: string}} [options]
   */
  async timeTravel(at, options = {}) {
    const json = toBody({ at: at instanceof Date ? at.toISOString() : at, ttlSeconds: options.ttlSeconds });
    const { body } = await this.hearth.transport.json("POST", `${this.path}/time_travels`, { json, idempotencyKey: options.idempotencyKey });
    return new TimeTravel(this.hearth, body.time_travel);
  }

  /** Its open time travels (passwords redacted). */
  async timeTravels() {
    const { body } = await this.hearth.transport.json("GET", `${this.path}/time_travels`);
    return body.time_travels.map((/** @type {any} */ t) => new TimeTravel(this.hearth, t));
  }

  /** @param {{idempotencyKey?: string}} [options] */
  async sleep(options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/sleep`, { idempotencyKey: options.idempotencyKey });
    return this._load(body.database);
  }

  /** @param {{idempotencyKey?: string}} [options] */
  async wake(options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/wake`, { idempotencyKey: options.idempotencyKey });
    return this._load(body.database);
  }
}

export class Databases extends WorkspaceResources {
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./workspaces.js").Workspace} workspace */
  constructor(hearth, workspace) {
    super(hearth, workspace, "databases", "database", Database);
  }

  /**
   * Creates a database (asleep until its first connection). `fromCheckpoint` (a Checkpoint, its id,
   * or `DATABASE/NAME`) makes a branch; `fromDatabase` and `at` make one as that database was at a
   * moment (its commits at or before it).
   * @param {string} name
   * @param {{version?: string, fromCheckpoint?: import("./checkpoints.js").Checkpoint|string,
   *   fromDatabase?: Database|string, at?: Date|string, autoSleepSeconds?: number, protected?: boolean,
   *   diskMb?: number, historyHours?: number, idempotencyKey?: string, wait?: boolean, timeoutMs?: number}} [options]
   */
  create(name, options = {}) {
    const moment = options.fromDatabase == null ? {} : {
      fromDatabase: idOf(options.fromDatabase),
      at: options.at instanceof Date ? options.at.toISOString() : options.at,
    };
    return this._create(name, { ...options, ...moment }, { timeoutMs: Math.max(this.hearth.transport.timeoutMs, 300_000) });
  }
}
