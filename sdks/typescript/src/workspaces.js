// Workspaces, and the entry points to what each one holds.

import { Model, enc, paginate } from "./common.js";
import { AccessList, ApiKeys, Invitations } from "./access.js";
import { WorkspaceCheckpoints } from "./checkpoints.js";
import { Computers } from "./computers.js";
import { Databases } from "./databases.js";
import { Images } from "./images.js";
import { Variables } from "./variables.js";

export class Workspace extends Model {
  /** This workspace's computers. */
  get computers() { return new Computers(this.hearth, this); }
  /** This workspace's databases. */
  get databases() { return new Databases(this.hearth, this); }
  /** This workspace's variables (secrets). */
  get variables() { return new Variables(this.hearth, this); }
  /** The images this workspace pulled. */
  get images() { return new Images(this.hearth, this); }
  /** Who holds a role here. */
  get access() { return new AccessList(this.hearth, this); }
  /** Invitations by email. */
  get invitations() { return new Invitations(this.hearth, this); }
  /** API keys: long-lived secrets that act in this workspace. */
  get apiKeys() { return new ApiKeys(this.hearth, this); }
  /** The checkpoints kept past their computers (templates). */
  get checkpoints() { return new WorkspaceCheckpoints(this.hearth, this); }

  get path() { return `/workspaces/${enc(this.id)}`; }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.workspace);
  }

  /** @param {string} name @param {{idempotencyKey?: string}} [options] */
  async rename(name, options = {}) {
    const { body } = await this.hearth.transport.json("PATCH", this.path, { json: { name }, idempotencyKey: options.idempotencyKey });
    return this._load(body.workspace);
  }

  /** Deletes the workspace (NotEmpty while it holds resources). @param {{idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const { body } = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    return this._load(body.workspace);
  }
}

export class Workspaces {
  /** @param {import("./hearth.js").Hearth} hearth */
  constructor(hearth) { this.hearth = hearth; }

  /** @param {string} name @param {{idempotencyKey?: string}} [options] */
  async create(name, options = {}) {
    const { body } = await this.hearth.transport.json("POST", "/workspaces", { json: { name }, idempotencyKey: options.idempotencyKey });
    return new Workspace(this.hearth, body.workspace);
  }

  /** By id or name. @param {string} idOrName */
  async get(idOrName) {
    const { body } = await this.hearth.transport.json("GET", `/workspaces/${enc(idOrName)}`);
    return new Workspace(this.hearth, body.workspace);
  }

  /** The caller's workspaces, every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, "/workspaces", "workspaces", (raw) => new Workspace(this.hearth, raw), options);
  }
}
