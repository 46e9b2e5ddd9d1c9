// Variables: a workspace's secrets, referenced from computers' env.

import { Model, enc, paginate, toBody } from "./common.js";

export class Variable extends Model {
  get path() { return `/variables/${enc(this.id)}`; }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.variable);
  }

  /** @param {{name?: string, value?: string}} changes @param {{idempotencyKey?: string}} [options] */
  async update(changes, options = {}) {
    const { body } = await this.hearth.transport.json("PATCH", this.path, { json: toBody(changes), idempotencyKey: options.idempotencyKey });
    return this._load(body.variable);
  }

  /** Soft delete. @param {{idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const { body } = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    return this._load(body.variable);
  }
}

export class Variables {
  /** @param {import("./hearth.js").Hearth} hearth @param {import("./workspaces.js").Workspace} workspace */
  constructor(hearth, workspace) {
    this.hearth = hearth;
    this.workspace = workspace;
  }

  /** @param {string} name @param {string} value @param {{idempotencyKey?: string}} [options] */
  async create(name, value, options = {}) {
    const { body } = await this.hearth.transport.json("POST", `${this.workspace.path}/variables`, { json: { name, value }, idempotencyKey: options.idempotencyKey });
    return new Variable(this.hearth, body.variable);
  }

  /** By id or name. @param {string} idOrName */
  async get(idOrName) {
    const { body } = await this.hearth.transport.json("GET", `/variables/${enc(idOrName)}`, { query: { workspace: this.workspace.id } });
    return new Variable(this.hearth, body.variable);
  }

  /** Every page; `deleted: true` includes deleted ones. @param {{limit?: number, deleted?: boolean}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.workspace.path}/variables`, "variables", (raw) => new Variable(this.hearth, raw), options);
  }
}
