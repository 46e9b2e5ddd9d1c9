// The PostgreSQL roles and databases inside a Hearth database (each call wakes it).

import { Model, enc } from "./common.js";
import { Connection } from "./databases.js";

/**
 * A login role of a database (never a superuser). `connection` holds its password (and how it reaches
 * the default database) after `create` or `resetPassword` only: Hearth keeps none.
 */
export class DatabaseRole extends Model {
  /** @param {import("./hearth.js").Hearth} hearth @param {any} raw @param {string} databasePath @param {Connection|null} [connection] */
  constructor(hearth, raw, databasePath, connection = null) {
    super(hearth, raw);
    Object.defineProperty(this, "databasePath", { value: databasePath, enumerable: false });
    /** @type {Connection|null} */
    this.connection = connection;
  }

  get path() { return `${/** @type {any} */ (this).databasePath}/roles/${enc(/** @type {any} */ (this).name)}`; }

  /** A new password (its sessions end); the owner role's is the database's credential reset. @param {{idempotencyKey?: string}} [options] */
  async resetPassword(options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.path}/reset_password`, { idempotencyKey: options.idempotencyKey });
    this.connection = new Connection(this.hearth, body.connection);
    return this.connection;
  }

  /** Drops it; refused (Conflict) while it owns objects, (Protected) for the owner role. @param {{idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const { body } = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    return this._load(body.role);
  }
}

export class DatabaseRoles {
  /** @param {import("./hearth.js").Hearth} hearth @param {string} databasePath */
  constructor(hearth, databasePath) {
    this.hearth = hearth;
    this.databasePath = databasePath;
  }

  async list() {
    const { body } = await this.hearth.transport.json("GET", `${this.databasePath}/roles`);
    return body.roles.map((/** @type {any} */ raw) => new DatabaseRole(this.hearth, raw, this.databasePath));
  }

  /** A new login role; its password is in `.connection` (shown once). @param {string} name @param {{idempotencyKey?: string}} [options] */
  async create(name, options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.databasePath}/roles`, { json: { name }, idempotencyKey: options.idempotencyKey });
    return new DatabaseRole(this.hearth, body.role, this.databasePath, new Connection(this.hearth, body.connection));
  }

  /** A role by name, to reset or delete (no request is made). @param {string} name */
  get(name) {
    return new DatabaseRole(this.hearth, { name, owner: false }, this.databasePath);
  }
}

/** A PostgreSQL database inside a Hearth database; `default` for the one its connection names. */
export class PgDatabase extends Model {
  /** @param {import("./hearth.js").Hearth} hearth @param {any} raw @param {string} databasePath */
  constructor(hearth, raw, databasePath) {
    super(hearth, raw);
    Object.defineProperty(this, "databasePath", { value: databasePath, enumerable: false });
  }

  /** Drops it (its sessions end); refused (Protected) for the default database. @param {{idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const self = /** @type {any} */ (this);
    const { body } = await this.hearth.transport.json("DELETE", `${self.databasePath}/pg_databases/${enc(self.name)}`, { idempotencyKey: options.idempotencyKey });
    return this._load(body.pg_database);
  }
}

export class PgDatabases {
  /** @param {import("./hearth.js").Hearth} hearth @param {string} databasePath */
  constructor(hearth, databasePath) {
    this.hearth = hearth;
    this.databasePath = databasePath;
  }

  async list() {
    const { body } = await this.hearth.transport.json("GET", `${this.databasePath}/pg_databases`);
    return body.pg_databases.map((/** @type {any} */ raw) => new PgDatabase(this.hearth, raw, this.databasePath));
  }

  /**
   * A new PostgreSQL database, owned by `owner` (a role or its name; default: the owner role).
   * @param {string} name @param {{owner?: DatabaseRole|string, idempotencyKey?: string}} [options]
   */
  async create(name, options = {}) {
    const owner = options.owner instanceof DatabaseRole ? /** @type {any} */ (options.owner).name : options.owner;
    const json = owner === undefined ? { name } : { name, owner_name: owner };
    const { body } = await this.hearth.transport.json("POST", `${this.databasePath}/pg_databases`, { json, idempotencyKey: options.idempotencyKey });
    return new PgDatabase(this.hearth, body.pg_database, this.databasePath);
  }
}
