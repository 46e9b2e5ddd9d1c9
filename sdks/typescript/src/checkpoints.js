// Checkpoints of computers and databases: take, list, delete (following their operations).

import { Model, enc, paginate, settle } from "./common.js";

export class Checkpoint extends Model {
  get path() {
    const parent = this.sourceType === "database" ? "databases" : "computers";
    return `/${parent}/${enc(this.source)}/checkpoints/${enc(this.id)}`;
  }

  async refresh() {
    const { body } = await this.hearth.transport.json("GET", this.path);
    return this._load(body.checkpoint);
  }

  /** Deletes it, following the `checkpoint.delete` operation. @param {{wait?: boolean, timeoutMs?: number, idempotencyKey?: string}} [options] */
  async delete(options = {}) {
    const answer = await this.hearth.transport.json("DELETE", this.path, { idempotencyKey: options.idempotencyKey });
    this._load(answer.body.checkpoint)._ops(answer.body);
    if (answer.status === 202 && options.wait !== false) {
      await settle(this.hearth, answer, options);
      await this.refresh();
    }
    return this;
  }
}

export class Checkpoints {
  /** @param {import("./hearth.js").Hearth} hearth @param {string} parentPath @param {"computer"|"database"} kind */
  constructor(hearth, parentPath, kind) {
    this.hearth = hearth;
    this.parentPath = parentPath;
    this.kind = kind;
  }

  /**
   * Takes a checkpoint and answers it `ready`, following its `checkpoint.create` operation (a failed
   * one throws its error). `wait: false` answers it `creating`.
   * @param {string} [name] @param {{wait?: boolean, timeoutMs?: number, idempotencyKey?: string}} [options]
   */
  async create(name, options = {}) {
    const answer = await this.hearth.transport.json("POST", `${this.parentPath}/checkpoints`, {
      json: name == null ? {} : { name }, idempotencyKey: options.idempotencyKey,
    });
    const checkpoint = new Checkpoint(this.hearth, answer.body.checkpoint)._ops(answer.body);
    if (options.wait !== false) {
      await settle(this.hearth, answer, options);
      await checkpoint.refresh();
    }
    return checkpoint;
  }

  /** Newest first, every page. @param {{limit?: number}} [options] */
  list(options = {}) {
    return paginate(this.hearth, `${this.parentPath}/checkpoints`, "checkpoints", (raw) => new Checkpoint(this.hearth, raw), options);
  }

  /** By id or name. @param {string} idOrName */
  async get(idOrName) {
    const { body } = await this.hearth.transport.json("GET", `${this.parentPath}/checkpoints/${enc(idOrName)}`);
    return new Checkpoint(this.hearth, body.checkpoint);
  }
}
